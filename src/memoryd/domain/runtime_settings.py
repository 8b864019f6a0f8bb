"""Settings an admin changes at run time (R7), stored in the database's settings table.

Each setting has a type, a default and a description; values given as text (from the CLI,
a form or the environment) are parsed here so every front end accepts the same spellings.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from memoryd.domain.errors import InvalidInput

_TRUE = {"1", "true", "yes", "on", "enabled"}
_FALSE = {"0", "false", "no", "off", "disabled"}


def parse_bool(value: object) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise InvalidInput(f"expected on/off (true/false), got {value!r}")


def parse_text(value: object) -> str:
    if not isinstance(value, str) or len(value) > 500:
        raise InvalidInput(f"expected text of at most 500 characters, got {value!r}")
    return value.strip()


def parse_count(value: object, *, low: int = 1, high: int = 100_000) -> int:
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise InvalidInput(f"expected a whole number from {low} to {high}, got {value!r}")
    return value


MAX_PATTERNS = 50
MAX_PATTERN_CHARS = 300


def parse_patterns(value: object) -> list[str]:
    """Regular expressions, as a list or as text with one per line; each must compile."""
    if isinstance(value, str):
        value = [line for line in value.splitlines() if line.strip()]
    if not isinstance(value, list) or not all(isinstance(p, str) for p in value):
        raise InvalidInput("expected a list of regular expressions (or one per line)")
    patterns = [p.strip() for p in value if p.strip()]
    if len(patterns) > MAX_PATTERNS:
        raise InvalidInput(f"at most {MAX_PATTERNS} patterns, got {len(patterns)}")
    for pattern in patterns:
        if len(pattern) > MAX_PATTERN_CHARS:
            raise InvalidInput(f"a pattern is limited to {MAX_PATTERN_CHARS} characters")
        try:
            re.compile(pattern)
        except re.error as exc:
            raise InvalidInput(f"invalid regular expression {pattern!r}: {exc}") from None
    return patterns


@dataclass(frozen=True)
class SettingSpec:
    key: str
    default: Any
    parse: Callable[[object], Any]
    description: str


SETTINGS: dict[str, SettingSpec] = {}


def define(key: str, default: Any, parse: Callable[[object], Any], description: str) -> SettingSpec:
    spec = SETTINGS[key] = SettingSpec(key, default, parse, description)
    return spec


MEMORY_ENABLED = define(
    "memory_enabled",
    True,
    parse_bool,
    "Master switch: off means no memories are injected and none are extracted.",
)
MEMORY_AUTO_EXTRACTION = define(
    "memory_auto_extraction",
    True,
    parse_bool,
    "Run the background extraction job (needs memory_enabled).",
)
EXTRACTION_PROVIDER = define(
    "extraction_provider",
    "",
    parse_text,
    "LLM provider for extraction (openai, anthropic, local or a plugin's name); "
    "empty means MEMORYD_LLM_PROVIDER, else the bundled local model.",
)
EXTRACTION_MODEL = define(
    "extraction_model",
    "",
    parse_text,
    "Model name for extraction; empty means MEMORYD_LLM_MODEL or the provider's default.",
)

SECRET_PATTERNS = define(
    "secret_patterns",
    [],
    parse_patterns,
    "Extra regular expressions (Python syntax, case-insensitive) for what extraction "
    "must never store, on top of the built-in secret and identifier filter; a "
    "capturing group, if any, marks the secret part of the match.",
)
MAX_WORKSPACES_PER_USER = define(
    "max_workspaces_per_user",
    50,
    parse_count,
    "How many workspaces a default (non-admin) user may belong to; creating or "
    "importing into a new one beyond that is refused. Admins are not limited.",
)


REVIEW_MODES = ("off", "updates", "everything")


def parse_review(value: object) -> str:
    text = value.strip().lower() if isinstance(value, str) else value
    if text not in REVIEW_MODES:
        raise InvalidInput(f"expected one of {', '.join(REVIEW_MODES)}, got {value!r}")
    return str(text)


MEMORY_REVIEW = define(
    "memory_review",
    "off",
    parse_review,
    "Ask users before extraction changes their memories: off (apply at once), "
    "updates (changes to existing memories wait as suggestions), everything (new "
    "memories too). Suggestions are accepted, edited or rejected in the Memories tab.",
)


def extraction_on(current: Mapping[str, Any]) -> bool:
    """Both run-time switches (R7) of the ``effective`` settings: memory on, and
    background extraction on."""
    return bool(current[MEMORY_ENABLED.key] and current[MEMORY_AUTO_EXTRACTION.key])


def review_mode(preference: str | None, stored: Mapping[str, Any]) -> str:
    """The review mode for one user: their own choice, else the instance setting."""
    if preference is not None:
        return preference
    return str(stored.get(MEMORY_REVIEW.key, MEMORY_REVIEW.default))


EXPIRED_GRACE_DAYS = define(
    "expired_grace_days",
    30,
    lambda value: parse_count(value, low=0, high=3650),
    "Days an expired memory stays visible (marked expired, never injected) before "
    "it is deleted; 0 deletes it at the next purge.",
)


MAX_RETENTION_DAYS = 3650


def parse_retention_days(value: object) -> int:
    """Days of extraction run history to keep: 0 (keep forever) to ten years."""
    try:
        return parse_count(value, low=0, high=MAX_RETENTION_DAYS)
    except InvalidInput:
        raise InvalidInput(
            f"run_retention_days: expected a number of days from 0 (keep every run) to "
            f"{MAX_RETENTION_DAYS}, got {value!r}"
        ) from None


RUN_RETENTION_DAYS = define(
    "run_retention_days",
    90,
    parse_retention_days,
    "Days the extraction run history is kept: older finished runs are deleted about "
    "once an hour, except each user and workspace's newest run; 0 keeps every run.",
)


def spec_for(key: str) -> SettingSpec:
    try:
        return SETTINGS[key]
    except KeyError:
        known = ", ".join(sorted(SETTINGS))
        raise InvalidInput(f"unknown setting {key!r}; known settings: {known}") from None


def effective(stored: Mapping[str, Any]) -> dict[str, Any]:
    """Every known setting with its stored value, or its default."""
    return {key: stored.get(key, spec.default) for key, spec in SETTINGS.items()}
