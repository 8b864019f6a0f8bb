"""Settings an admin changes at run time (R7), stored in the database's settings table.

Each setting has a type, a default and a description; values given as text (from the CLI,
a form or the environment) are parsed here so every front end accepts the same spellings.
"""

from __future__ import annotations

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


@dataclass(frozen=True)
class SettingSpec:
    key: str
    default: Any
    parse: Callable[[object], Any]
    description: str


SETTINGS: dict[str, SettingSpec] = {}


def define(spec: SettingSpec) -> SettingSpec:
    SETTINGS[spec.key] = spec
    return spec


MEMORY_ENABLED = define(
    SettingSpec(
        "memory_enabled",
        True,
        parse_bool,
        "Master switch: off means no memories are injected and none are extracted.",
    )
)
MEMORY_AUTO_EXTRACTION = define(
    SettingSpec(
        "memory_auto_extraction",
        True,
        parse_bool,
        "Run the background extraction job (needs memory_enabled).",
    )
)
EXTRACTION_PROVIDER = define(
    SettingSpec(
        "extraction_provider",
        "",
        parse_text,
        "LLM provider for extraction (openai, anthropic, local or a plugin's name); "
        "empty means MEMORYD_LLM_PROVIDER, else the bundled local model.",
    )
)
EXTRACTION_MODEL = define(
    SettingSpec(
        "extraction_model",
        "",
        parse_text,
        "Model name for extraction; empty means MEMORYD_LLM_MODEL or the provider's default.",
    )
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
