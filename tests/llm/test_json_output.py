"""Tolerant JSON parsing of model answers (R11)."""

from __future__ import annotations

import pytest

from memoryd.models.llm.json_output import parse_json_object


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"facts": []}', {"facts": []}),
        ('```json\n{"facts": [1, 2,]}\n```', {"facts": [1, 2]}),
        ('Here you go:\n{"a": {"b": "}"}} and some words {"c": 1}', {"a": {"b": "}"}}),
        ('```\n{"a": 1,\n}\n```\nthanks', {"a": 1}),
        ('["not an object"] then {"x": "y \\" }"}', {"x": 'y " }'}),
        ('{"a": "brace { inside"}', {"a": "brace { inside"}),
    ],
)
def test_parses_what_small_models_write(text: str, expected: dict[str, object]) -> None:
    assert parse_json_object(text) == expected


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("I could not find any facts.", "no JSON object"),
        ('{"facts": [{"text": "cut off', "not closed"),
        ("{'facts': []}", "invalid JSON"),
        ("[1, 2, 3]", "no JSON object"),
    ],
)
def test_says_why_an_answer_is_unusable(text: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        parse_json_object(text)
