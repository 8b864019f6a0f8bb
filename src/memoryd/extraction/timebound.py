"""When an extracted fact stops being true: "the demo is on Friday" ends after Friday.

Pure functions (no I/O). ``expiry_for`` reads one fact and the time of the chat it was
said in and returns the expiry to give the memory, or None. It is deliberately
conservative: it only answers for a single, resolvable day in the future -- today,
tonight, tomorrow, a weekday ("on Friday", "this Friday", "next Friday"), a month and
day ("March 14", "14th of March") or an ISO date -- and never for facts that recur
("every Friday", "on Fridays"), lie in the past ("was on Friday", "last Friday",
"born on March 14") or are not about an event. The memory expires at the end of the
day *after* that day (UTC), so a user west of UTC still has it on the day itself.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_MONTH_NUMBERS = {m: i for i, m in enumerate(MONTHS, 1)} | {
    m[:3]: i for i, m in enumerate(MONTHS, 1)
}
_MONTH_NUMBERS["sept"] = 9
_MONTH_WORD = r"(" + "|".join(sorted(_MONTH_NUMBERS, key=len, reverse=True)) + r")\.?"
_DAY_NUMBER = r"(\d{1,2})(?:st|nd|rd|th)?"

# Facts that are about the past or that recur are never given an expiry.
_NOT_ONE_FUTURE_DAY = re.compile(
    r"\b(every|each|usually|always|often|sometimes|never|was|were|did|had|used\s+to|"
    r"last|ago|yesterday|since|born|birthday|anniversary|weekly|daily|monthly|"
    r"mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|weekends)\b",
    re.IGNORECASE,
)
# ... and a fact must read as a plan or an event, not as a habit.
_EVENT = re.compile(
    r"\b(is|are|'s|’s|will|going\s+to|gonna|have|has|due|scheduled|planned|booked|"
    r"happens|starts|ends|takes\s+place|deadline|appointment|meeting|demo|trip|flight|"
    r"interview|exam|release|launch|party|visit|visiting|leaving|arriving|flying)\b",
    re.IGNORECASE,
)
_RELATIVE = re.compile(r"\b(today|tonight|tomorrow)\b", re.IGNORECASE)
_WEEKDAY = re.compile(
    r"\b(?:(this|next|on|by|until|till|before|coming)\s+)?(" + "|".join(WEEKDAYS) + r")\b",
    re.IGNORECASE,
)
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_MONTH_DAY = re.compile(rf"\b{_MONTH_WORD}\s+{_DAY_NUMBER}\b(?!\s*(?::|am|pm|h\b))", re.IGNORECASE)
_DAY_MONTH = re.compile(rf"\b{_DAY_NUMBER}\s+(?:of\s+)?{_MONTH_WORD}\b", re.IGNORECASE)


def _month(word: str) -> int:
    return _MONTH_NUMBERS[word.lower().rstrip(".")]


def _next_date(month: int, day: int, today: date) -> date | None:
    """The next time this month and day come round (this year, else next year)."""
    for year in (today.year, today.year + 1):
        try:
            candidate = date(year, month, day)
        except ValueError:
            return None
        if candidate >= today:
            return candidate
    return None


def event_day(text: str, said_at: datetime) -> date | None:
    """The one future day ``text`` is about, resolved against when it was said."""
    if _NOT_ONE_FUTURE_DAY.search(text) or not _EVENT.search(text):
        return None
    today = said_at.astimezone(UTC).date()
    days: set[date] = set()
    for match in _RELATIVE.finditer(text):
        days.add(today + timedelta(days=1 if match.group(1).lower() == "tomorrow" else 0))
    for match in _WEEKDAY.finditer(text):
        ahead = (WEEKDAYS.index(match.group(2).lower()) - today.weekday()) % 7
        if (match.group(1) or "").lower() == "next":
            ahead += 7  # "next Friday" may mean the week after: keep it the longer way
        days.add(today + timedelta(days=ahead))
    for match in _ISO_DATE.finditer(text):
        try:
            found = date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
        except ValueError:
            return None
        if found < today:
            return None
        days.add(found)
    for match in _MONTH_DAY.finditer(text):
        found_day = _next_date(_month(match.group(1)), int(match.group(2)), today)
        if found_day is None:
            return None
        days.add(found_day)
    for match in _DAY_MONTH.finditer(text):
        found_day = _next_date(_month(match.group(2)), int(match.group(1)), today)
        if found_day is None:
            return None
        days.add(found_day)
    # Two different days ("moved from Friday to Monday") are left to the user.
    return days.pop() if len(days) == 1 else None


def expiry_for(text: str, said_at: datetime) -> datetime | None:
    """The memory's expiry: the end of the day after its event day (UTC), or None."""
    day = event_day(text, said_at)
    if day is None:
        return None
    return datetime.combine(day + timedelta(days=2), time(0), tzinfo=UTC)
