"""The rules a memory must obey: scope limits, content, names.

R1 (5 global per user, 20 per user and workspace) and R13 (one line of plain text, at most
500 characters, unable to forge a heading, a second list item or a chat turn) live here
as pure functions, so storage, extraction, the API and the CLI all apply exactly the same
checks.
"""

from __future__ import annotations

import enum
import re
import unicodedata
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from memoryd.domain.errors import InvalidContent, InvalidInput, InvalidScope
from memoryd.domain.models import Scope

MAX_CONTENT_CHARS = 500
# User and chat ids are SQL INTEGER columns on every database (the REST API's limit too).
MAX_ROW_ID = 2**31 - 1


@dataclass(frozen=True)
class Limits:
    """How many memories a scope holds (SPEC R1)."""

    global_per_user: int = 5
    workspace_per_pair: int = 20

    def for_scope(self, scope: Scope) -> int:
        return self.global_per_user if scope is Scope.GLOBAL else self.workspace_per_pair


DEFAULT_LIMITS = Limits()

# Characters that end a line in some renderer or tokenizer; folded into a single space.
_LINE_BREAKS = re.compile(r"[\r\n\v\f\x1c\x1d\x1e\x85\u2028\u2029]+")
_SPACES = re.compile(r"\s+")
# Characters that show nothing (or look like a space) yet reach the model: format
# characters (zero-width, bidi marks and overrides, tag characters U+E0000-E007F, BOM),
# private-use and unassigned code points, and the Hangul and Braille fillers.
_INVISIBLE_CATEGORIES = frozenset({"Cf", "Co", "Cn", "Cs"})
# Bidirectional overrides and isolates make text display differently from what it is.
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_FILLERS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e\u034f")
_LEADING_BULLET = re.compile(r"^[-*+•]\s+")
# Markdown that would change the structure of the injected section if a line began with it.
_BLOCK_MARKUP = re.compile(
    r"^(#{1,6}(\s|$)|>|[-*+](\s|$)|\d{1,9}[.)](\s|$)|```|~~~|(={3,}|-{3,}|\*{3,}|_{3,})$|<!--)"
)

# Control tokens of the chat templates memoryd's models use: ChatML (Qwen, the bundled
# model) and Llama 3 (<|im_start|>, <|eot_id|>: any <|word|>, also with DeepSeek's
# fullwidth bars), Llama 2 and Mistral ([INST], <<SYS>>, [SYSTEM_PROMPT], [TOOL_CALLS],
# <s>), Gemma (<start_of_turn>, <bos>). A local model's template turns them into real
# turns, so a memory holding one could open a system turn of its own.
SPECIAL_TOKEN = re.compile(
    r"<[|\uff5c][^\s<>|\uff5c]{1,48}[|\uff5c]>"
    r"|<(?:start|end)_of_turn>|</?(?:s|bos|eos|unk|pad)>|<</?SYS>>"
    r"|\[/?(?:INST|SYS|SYSTEM_PROMPT|TOOL_CALLS|AVAILABLE_TOOLS|TOOL_RESULTS|TOOL_CONTENT|"
    r"THINK|IMG|IMG_BREAK|IMG_END|PREFIX|MIDDLE|SUFFIX)\]"
)


def escape_special_tokens(text: str) -> str:
    """``text`` with every chat-template control token broken by a space after its first
    character ("<|im_start|>" -> "< |im_start|>"): what a local model is given of text
    it did not write, so the text reads the same but cannot open a turn."""
    return SPECIAL_TOKEN.sub(lambda m: f"{m.group(0)[0]} {m.group(0)[1:]}", text)


def normalize_content(raw: object) -> str:
    """Return the stored form of a memory's text, or raise InvalidContent saying why.

    The text is NFKC-normalised (so look-alike forms such as fullwidth "＃" become what
    they look like), whitespace runs (line breaks included) fold into one space,
    surrounding space is trimmed, and one leading list bullet ("- ", "* ") is dropped
    because people paste them. Control characters, invisible characters (format, tag,
    private-use and filler characters, which could carry text a reader never sees),
    invalid Unicode, leading Markdown block markup (headings, quotes, fences,
    numbered items) and chat-template control tokens (``SPECIAL_TOKEN``) are refused.
    """
    if not isinstance(raw, str):
        raise InvalidContent(f"memory content must be text, not {type(raw).__name__}")
    if any(0xD800 <= ord(ch) <= 0xDFFF for ch in raw):
        raise InvalidContent("memory content is not valid UTF-8 text")
    text = unicodedata.normalize("NFKC", raw)
    text = _LINE_BREAKS.sub(" ", text)
    text = _SPACES.sub(" ", text).strip()
    for ch in text:
        category = unicodedata.category(ch)
        if category == "Cc" or ch in _BIDI_CONTROLS:
            raise InvalidContent(f"memory content contains a control character (U+{ord(ch):04X})")
        if category in _INVISIBLE_CATEGORIES or ch in _FILLERS:
            raise InvalidContent(
                f"memory content contains an invisible character (U+{ord(ch):04X}); "
                "type it as plain text"
            )
    text = _LEADING_BULLET.sub("", text, count=1).strip()
    if not text:
        raise InvalidContent("memory content is empty")
    if len(text) > MAX_CONTENT_CHARS:
        raise InvalidContent(
            f"memory content is {len(text)} characters long; the limit is {MAX_CONTENT_CHARS}"
        )
    if _BLOCK_MARKUP.match(text):
        raise InvalidContent(
            "memory content must not start with Markdown markup (heading, quote, list "
            "marker or fence): it is injected as one '- ' line"
        )
    token = SPECIAL_TOKEN.search(text)
    if token:
        raise InvalidContent(
            f"memory content contains the chat-template control token {token.group(0)!r}, "
            "which would open a turn of its own in a model's prompt"
        )
    return text


def content_key(content: str) -> str:
    """The form two memories are compared in to find exact duplicates."""
    return content.casefold()


def quoted(value: object, limit: int = 60) -> str:
    """``repr(value)`` for an error message, cut short when it is long (a name pasted by
    mistake can be megabytes)."""
    shown = repr(value)
    if len(shown) <= limit:
        return shown
    return f"{shown[:limit]}… ({len(shown)} characters)"


def is_row_id(value: object) -> bool:
    """Whether ``value`` could be a user's or a chat's id: a whole number that fits the
    column (``True`` is not an id). Anything else is simply not found, never sent to the
    database, whose driver would fail on an integer too large for it."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value <= MAX_ROW_ID


_SLUG = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
_USER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}")


def validate_slug(slug: object) -> str:
    if not isinstance(slug, str) or not _SLUG.fullmatch(slug):
        raise InvalidInput(
            f"invalid workspace slug {quoted(slug)}: use 1-64 lowercase letters, digits, "
            "'-' or '_', starting with a letter or digit"
        )
    return slug


def validate_user_name(name: object) -> str:
    if not isinstance(name, str) or not _USER_NAME.fullmatch(name):
        raise InvalidInput(
            f"invalid user name {quoted(name)}: use 1-64 letters, digits or . _ @ + -, "
            "starting with a letter or digit"
        )
    return name


def validate_display_name(name: object, *, what: str = "name") -> str:
    if not isinstance(name, str):
        raise InvalidInput(f"{what} must be text")
    cleaned = _SPACES.sub(" ", name).strip()
    if not cleaned or len(cleaned) > 200 or any(unicodedata.category(c) == "Cc" for c in cleaned):
        raise InvalidInput(f"invalid {what} {quoted(name)}: 1-200 printable characters")
    return cleaned


def normalize_reason(reason: object) -> str | None:
    """Why a memory was deleted, as the audit entry keeps it (None: no reason given)."""
    if reason is None or (isinstance(reason, str) and not reason.strip()):
        return None
    return validate_display_name(reason, what="reason")


def iso_time(text: str) -> datetime:
    """An ISO 8601 time, also with "Z" for UTC; ValueError if it is none."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def in_utc(moment: datetime, what: str) -> datetime:
    """``moment`` in UTC (read as UTC without a zone); InvalidInput when that falls
    outside the years 1 to 9999 (``9999-12-31T23:00-05:00``, ``0001-01-01T00:00+01:00``)."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    try:
        return moment.astimezone(UTC)
    except OverflowError:
        raise InvalidInput(
            f"the {what} {moment.isoformat()} is out of range: in UTC it falls outside "
            "the years 1 to 9999"
        ) from None


def parse_scope(scope: object) -> Scope:
    try:
        return Scope(str(scope).lower())
    except ValueError:
        raise InvalidScope(f"unknown scope {quoted(scope)}: use 'global' or 'workspace'") from None


def resolve_scope(scope: object, workspace: str | None) -> tuple[Scope, str | None]:
    """Check a (scope, workspace) pair; the scope defaults to workspace when one is named."""
    chosen = (
        (Scope.WORKSPACE if workspace else Scope.GLOBAL) if scope is None else parse_scope(scope)
    )
    if chosen is Scope.WORKSPACE:
        if not workspace:
            raise InvalidScope("a workspace memory needs a workspace")
        return chosen, validate_slug(workspace)
    if workspace:
        raise InvalidScope("a global memory belongs to no workspace; drop the workspace")
    return chosen, None


def scope_label(scope: Scope, workspace: str | None) -> str:
    return "global" if scope is Scope.GLOBAL else f"workspace '{workspace}'"


class Keep(enum.Enum):
    """The type of ``KEEP``: "leave it as it is", where None already means "remove"."""

    KEEP = "keep"


KEEP = Keep.KEEP  # e.g. ``edit_memory(..., expires_at=KEEP)`` keeps the expiry


def parse_expiry(value: object, now: datetime) -> datetime | None:
    """A memory's "remember until" as an aware UTC time, or None for "no expiry".

    A date (``2026-03-14``) means "until the end of that day" (UTC), so the memory
    expires at the following midnight; an ISO 8601 time (``2026-03-14T18:00:00+01:00``;
    without a zone it is read as UTC) is taken as it is. Empty text or None clears the
    expiry. A time that has already passed is refused: it would hide the memory at once,
    and so is one whose UTC time falls past year 9999 (``9999-12-31``, say).
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, str):
        text = value.strip()
        try:
            value = date.fromisoformat(text) if len(text) == 10 else iso_time(text)
        except ValueError:
            raise InvalidInput(
                f"invalid expiry {quoted(value)}: use a date (YYYY-MM-DD) or an ISO 8601 time"
            ) from None
    if isinstance(value, datetime):
        moment = in_utc(value, "expiry")
        given = moment.isoformat()
    elif isinstance(value, date):
        if value == date.max:
            raise InvalidInput(f"the expiry {value} is out of range: give an earlier date")
        moment = datetime.combine(value + timedelta(days=1), time(0), tzinfo=UTC)
        given = f"{value} (the end of that day, UTC)"  # the day given, not the midnight after
    else:
        raise InvalidInput(
            f"invalid expiry {quoted(value)}: use a date (YYYY-MM-DD) or an ISO time"
        )
    if moment <= now:
        raise InvalidInput(
            f"the expiry {given} has already passed; give a later date (or none to keep the memory)"
        )
    return moment
