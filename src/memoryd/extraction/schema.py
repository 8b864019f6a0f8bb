"""The JSON the Observer and the Reflector must answer with, and how answers are read.

The schemas bound every list, number and string so a small model constrained by them
cannot ramble or point outside the batch. Reading is lenient item by item: a malformed
item is set aside with a reason. An answer whose top level is wrong, or that has items
but not one usable, is unusable: retried once (``memoryd.models.llm.json_output``), then
it fails the batch, whose chats stay unprocessed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from memoryd.domain.models import Scope

MAX_SENTENCES = 24
# A shape check: None when an answer is usable, else what is wrong with it.
Check = Callable[[dict[str, Any]], str | None]

ABOUT = {"person": Scope.GLOBAL, "project": Scope.WORKSPACE}
VERDICTS = ("same", "replaces", "separate")


def observer_schema(sentences: int) -> dict[str, Any]:
    """Two lists of sentence numbers (1..``sentences``): facts about the person, and
    facts about the project; every other sentence is left out."""
    numbers = {
        "type": "array",
        "maxItems": max(1, sentences),
        "items": {"type": "integer", "minimum": 1, "maximum": max(1, sentences)},
    }
    return {
        "type": "object",
        "properties": {"person": numbers, "project": numbers},
        "required": ["person", "project"],
        "additionalProperties": False,
    }


def reflector_schema(pairs: int) -> dict[str, Any]:
    """One verdict per numbered (stored memory, new fact) pair."""
    return {
        "type": "object",
        "properties": {
            "verdicts": {
                "type": "array",
                "maxItems": max(1, pairs),
                "items": {
                    "type": "object",
                    "properties": {
                        "pair": {"type": "integer", "minimum": 1, "maximum": max(1, pairs)},
                        "verdict": {"type": "string", "enum": list(VERDICTS)},
                    },
                    "required": ["pair", "verdict"],
                    "additionalProperties": False,
                },
            }
        },
        "required": ["verdicts"],
        "additionalProperties": False,
    }


@dataclass(frozen=True)
class Fact:
    """One fact: a sentence the Observer chose, in its memory form, with its scope."""

    sentence: int
    text: str
    scope: Scope


def check_list(*keys: str) -> Check:
    """A shape check: the answer must be an object holding a list under each key."""

    def check(value: dict[str, Any]) -> str | None:
        for key in keys:
            if not isinstance(value.get(key), list):
                return f'expected an object with a "{key}" list'
        return None

    return check


def check_selection(sentences: int) -> Check:
    """The Observer's answer check: two lists, and not only items naming no sentence."""
    return _some_usable(check_list("person", "project"), lambda v: read_selection(v, sentences))


def check_verdicts(pairs: int) -> Check:
    """The Reflector's answer check: a list of verdicts, and not only unusable ones."""
    return _some_usable(check_list("verdicts"), lambda v: read_verdicts(v, pairs))


def _some_usable(
    shape: Check, read: Callable[[dict[str, Any]], tuple[dict[int, Any], list[str]]]
) -> Check:
    def check(value: dict[str, Any]) -> str | None:
        problem = shape(value)
        if problem:
            return problem
        usable, problems = read(value)
        if problems and not usable:  # the items are not quoted: they may echo a chat
            return f"none of its {len(problems)} items is usable (a number out of range?)"
        return None

    return check


def _number(value: object) -> int | None:
    """``value`` when it is a whole number (not a bool), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def read_selection(value: dict[str, Any], sentences: int) -> tuple[dict[int, Scope], list[str]]:
    """The Observer's chosen sentence numbers with their scope, and why others were dropped.

    A number in both lists counts as a person fact (it holds across workspaces).
    """
    chosen: dict[int, Scope] = {}
    problems: list[str] = []
    for key in ("person", "project"):
        raw = value.get(key, [])
        if not isinstance(raw, list):
            problems.append(f"{key}: not a list")
            continue
        for item in raw:
            number = _number(item)
            if number is None or not 1 <= number <= sentences:
                problems.append(f"{key}: no sentence number {item!r}")
            else:
                chosen.setdefault(number, ABOUT[key])
    return dict(sorted(chosen.items())), problems


def read_verdicts(value: dict[str, Any], pairs: int) -> tuple[dict[int, str], list[str]]:
    """The Reflector's verdict per pair number (first answer wins), and problems."""
    verdicts: dict[int, str] = {}
    problems: list[str] = []
    raw = value.get("verdicts", [])
    for index, item in enumerate(raw if isinstance(raw, list) else []):
        where = f"verdicts[{index}]"
        item = item if isinstance(item, dict) else {}
        number = _number(item.get("pair"))
        verdict = str(item.get("verdict", "")).strip().lower()
        if number is None or not 1 <= number <= pairs:
            problems.append(f"{where}: no usable pair number")
        elif verdict not in VERDICTS:
            problems.append(f"{where}: unknown verdict {verdict!r}")
        else:
            verdicts.setdefault(number, verdict)
    return verdicts, problems
