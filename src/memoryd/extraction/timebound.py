"""When an extracted fact stops being true: "the demo is on Friday" ends after Friday.

Pure functions (no I/O). ``expiry_for`` answers only for a single, resolvable day in the
future (today, tomorrow, a weekday, a month and day, an ISO date), never for facts that
recur ("every Friday") or lie in the past ("last Friday", "born on March 14"). The memory
expires at the end of the day *after* that day (UTC), so a user west of UTC still has it
on the day itself. ``dated`` makes relative times absolute.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTH_NAMES = (
    "january february march april may june july august september october november december"
)
MONTHS = _MONTH_NAMES.split()
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
    for pattern, month, day in ((_MONTH_DAY, 1, 2), (_DAY_MONTH, 2, 1)):
        for match in pattern.finditer(text):
            found_day = _next_date(_month(match.group(month)), int(match.group(day)), today)
            if found_day is None:
                return None
            days.add(found_day)
    # Two different days ("moved from Friday to Monday") are left to the user.
    return days.pop() if len(days) == 1 else None


def expiry_for(text: str, said_at: datetime) -> datetime | None:
    """The memory's expiry: the end of the day after its event day (UTC), or None."""
    day = event_day(text, said_at)
    return None if day is None else datetime.combine(day + timedelta(days=2), time(0), tzinfo=UTC)


# Relative times a memory must not keep undated (R20): "last week" said on 2023-05-08 is
# "in the week of 2023-05-01" for good. English ones are rewritten in place; in the other
# languages a word of this list gets the day it was said appended, "(2023-05-08)".
_COUNT = r"(?P<count>a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|several|\d{1,2})"
_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
           "seven": 7, "eight": 8, "nine": 9, "ten": 10, "a few": 3, "several": 3}  # fmt: skip
_EN_RELATIVE = re.compile(
    r"\b(?:(?P<day>yesterday|today|tonight|tomorrow)|"
    r"(?P<which>last|next|this(?: past)?|this coming) "
    r"(?P<unit>week|weekend|month|year|summer|winter|spring|fall|autumn|"
    + "|".join(WEEKDAYS)
    + r")|"
    rf"{_COUNT} (?P<span>days?|weeks?|months?|years?) ago|"
    r"(?P<vague>recently|lately|the other day|these days))\b",
    re.IGNORECASE,
)
_OTHER_RELATIVE = re.compile(
    r"\b(?:hier|demain|aujourd'hui|la semaine (?:dernière|prochaine)|le mois (?:dernier|"
    r"prochain)|l'année (?:dernière|prochaine)|l'an dernier|il y a|récemment|ayer|mañana|"
    r"hoy|la semana (?:pasada|que viene)|la próxima semana|el (?:mes|año) (?:pasado|que viene)|"
    r"el próximo (?:mes|año)|hace|recientemente|gestern|morgen|heute|letzte woche|"
    r"nächste woche|letzten monat|nächsten monat|letztes jahr|nächstes jahr|vor kurzem|"
    r"ontem|amanhã|hoje|semana passada|próxima semana|mês passado|próximo mês|ano passado|"
    r"próximo ano|recentemente|ieri|domani|oggi|settimana scorsa|prossima settimana|"
    r"mese scorso|prossimo mese|anno scorso|l'anno prossimo|kemarin|besok|hari ini|"
    r"minggu lalu|minggu depan|bulan lalu|bulan depan|tahun lalu|tahun depan)\b|"
    r"昨天|明天|今天|上周|下周|上个月|下个月|去年|明年|今年|前天|后天|最近|"
    r"昨日|明日|今日|先週|来週|先月|来月|昨年|来年|"
    r"어제|내일|오늘|지난주|다음 주|지난달|다음 달|작년|내년|올해",
    re.IGNORECASE,
)


def _month_name(day: date) -> str:
    return f"{MONTHS[day.month - 1].title()} {day.year}"


def _shift_months(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 + months
    return date(index // 12, index % 12 + 1, 1)


def _resolve(match: re.Match[str], today: date) -> str:
    """One English relative time as an absolute one."""
    named = match.group("day")
    if named:
        offset = {"yesterday": -1, "tomorrow": 1}.get(named.lower(), 0)
        return f"on {today + timedelta(days=offset)}"
    if match.group("vague"):
        return f"{match.group('vague')} (as of {today})"
    if match.group("span"):
        said = match.group("count").lower()
        count = _COUNTS.get(said) or int(said)
        unit = match.group("span").lower().rstrip("s")
        if unit == "day":
            return f"on {today - timedelta(days=count)}"
        if unit == "week":
            return f"around {today - timedelta(weeks=count)}"
        if unit == "month":
            return f"around {_month_name(_shift_months(today, -count))}"
        return f"in {today.year - count}"
    which = match.group("which").lower()
    step = {"last": -1, "this past": -1, "next": 1, "this coming": 1}.get(which, 0)
    unit = match.group("unit").lower()
    if unit in WEEKDAYS and which == "next":  # this week's or the next: left as said
        return f"{match.group(0)} (said on {today})"
    if unit in WEEKDAYS:
        ahead = (WEEKDAYS.index(unit) - today.weekday()) % 7
        if step < 0:
            ahead = ahead - 7 if ahead else -7
        elif step > 0 and ahead == 0:
            ahead = 7
        return f"on {unit.title()} {today + timedelta(days=ahead)}"
    if unit in ("week", "weekend"):
        monday = today - timedelta(days=today.weekday()) + timedelta(weeks=step)
        return f"in the {unit} of {monday}"
    if unit == "month":
        return f"in {_month_name(_shift_months(today, step))}"
    if unit == "year":
        return f"in {today.year + step}"
    return f"in the {unit} of {today.year + step}"  # a season


def dated(text: str, said_at: datetime, language: str = "en") -> str:
    """``text`` with its relative times made absolute against ``said_at``."""
    today = said_at.astimezone(UTC).date()
    if language == "en":

        def absolute(match: re.Match[str]) -> str:
            when = _resolve(match, today)
            return when[0].upper() + when[1:] if match.start() == 0 else when

        return _EN_RELATIVE.sub(absolute, text)
    if _OTHER_RELATIVE.search(text) and str(today.year) not in text:
        return f"{text.rstrip()} ({today})"
    return text
