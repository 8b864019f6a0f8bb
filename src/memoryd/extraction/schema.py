"""The JSON the Observer and the Reflector must answer with, and how answers are read.

The schemas bound every list and string (``maxItems``/``maxLength``) so a small model
constrained by them cannot ramble. Reading is lenient item by item: a malformed item is
set aside with a reason and the rest is used; only an answer whose top level is wrong
counts as unusable (and is retried once by ``memoryd.llm.json_output``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memoryd.domain.models import Scope

MAX_CANDIDATES = 8
MAX_DECISIONS = 8
MAX_FACT_CHARS = 300

_SCOPES = {"GLOBAL": Scope.GLOBAL, "WORKSPACE": Scope.WORKSPACE}
_ACTIONS = ("create", "update")

OBSERVER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "facts": {
            "type": "array",
            "maxItems": MAX_CANDIDATES,
            "items": {
                "type": "object",
                "properties": {
                    "text": {"type": "string", "minLength": 3, "maxLength": MAX_FACT_CHARS},
                    "scope": {"type": "string", "enum": list(_SCOPES)},
                    "action": {"type": "string", "enum": list(_ACTIONS)},
                },
                "required": ["text", "scope", "action"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["facts"],
    "additionalProperties": False,
}

# The Reflector points at candidates by number instead of copying their text: a small
# model writes a quarter of the tokens, and cannot garble a fact while copying it.
REFLECTOR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "memories": {
            "type": "array",
            "maxItems": MAX_DECISIONS,
            "items": {
                "type": "object",
                "properties": {
                    "candidate": {"type": "integer", "minimum": 1, "maximum": MAX_CANDIDATES},
                    "action": {"type": "string", "enum": list(_ACTIONS)},
                    "target": {"type": "string", "maxLength": 4},
                    "scope": {"type": "string", "enum": list(_SCOPES)},
                },
                "required": ["candidate", "action", "target", "scope"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["memories"],
    "additionalProperties": False,
}


def reflector_schema(handles: Sequence[str]) -> dict[str, Any]:
    """REFLECTOR_SCHEMA narrowed to this batch: ``target`` is "" or a handle shown to it.

    Constrained decoding then cannot invent a handle; answers from servers that ignore
    the schema are still checked handle by handle in code.
    """
    item = REFLECTOR_SCHEMA["properties"]["memories"]["items"]
    properties = dict(item["properties"])
    properties["target"] = {"type": "string", "enum": ["", *handles]}
    if not handles:
        properties["action"] = {"type": "string", "enum": ["create"]}
    narrowed_item = {**item, "properties": properties}
    memories = {**REFLECTOR_SCHEMA["properties"]["memories"], "items": narrowed_item}
    return {**REFLECTOR_SCHEMA, "properties": {"memories": memories}}


@dataclass(frozen=True)
class Candidate:
    """One proposed fact: from the Observer, or a final decision from the Reflector."""

    text: str
    scope: Scope
    action: str
    target: str = ""


def check_list(key: str) -> Any:
    """A shape check: the answer must be an object holding a list under ``key``."""

    def check(value: dict[str, Any]) -> str | None:
        if not isinstance(value.get(key), list):
            return f'expected an object with a "{key}" list'
        return None

    return check


def read_items(
    value: dict[str, Any],
    key: str,
    limit: int,
    candidates: Sequence[Candidate] | None = None,
) -> tuple[list[Candidate], list[str]]:
    """The well-formed items under ``key`` (at most ``limit``), and why others were dropped.

    With ``candidates`` (Reflector answers) an item's text is that of the candidate it
    numbers, unless it brings its own ``text``.
    """
    items: list[Candidate] = []
    problems: list[str] = []
    raw = value.get(key, [])
    for index, item in enumerate(raw if isinstance(raw, list) else []):
        where = f"{key}[{index}]"
        if index >= limit:
            problems.append(f"{where}: more than {limit} items; ignored")
            continue
        if not isinstance(item, dict):
            problems.append(f"{where}: not an object")
            continue
        text = item.get("text")
        scope = str(item.get("scope", "")).strip().upper()
        if candidates is not None and not text:
            number = item.get("candidate")
            if not isinstance(number, int) or not 1 <= number <= len(candidates):
                problems.append(f"{where}: no candidate number {number!r}")
                continue
            text = candidates[number - 1].text
            scope = scope or candidates[number - 1].scope.name
        action = str(item.get("action", "create")).strip().lower()
        target = item.get("target") or ""
        if not isinstance(text, str) or not text.strip():
            problems.append(f"{where}: no text")
        elif scope not in _SCOPES:
            problems.append(f"{where}: unknown scope {item.get('scope')!r}")
        elif action not in _ACTIONS:
            problems.append(f"{where}: unknown action {item.get('action')!r}")
        elif not isinstance(target, str):
            problems.append(f"{where}: target must be a handle such as W1")
        else:
            items.append(Candidate(text.strip(), _SCOPES[scope], action, target.strip().upper()))
    return items, problems
