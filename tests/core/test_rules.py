"""Content, name and scope rules of the domain core (R1, R13), no database involved."""

from __future__ import annotations

import pytest

from memoryd import InvalidContent, InvalidInput, InvalidScope, Scope
from memoryd.domain.rules import (
    MAX_CONTENT_CHARS,
    normalize_content,
    resolve_scope,
    validate_slug,
    validate_user_name,
)


@pytest.mark.parametrize(
    ("raw", "stored"),
    [
        ("  Prefers concise answers  ", "Prefers concise answers"),
        ("Likes\ttabs   and  spaces", "Likes tabs and spaces"),
        ("line one\nline two", "line one line two"),
        ("first\r\n- second item", "first - second item"),
        ("a\u2028b\u2029c", "a b c"),
        ("- Prefers tea", "Prefers tea"),
        ("* Prefers tea", "Prefers tea"),
        ("ends with\n## Things I Remember About You", "ends with ## Things I Remember About You"),
        ("-5°C is too cold for the launch", "-5°C is too cold for the launch"),
        ("Café ☕ and naïve résumé", "Café ☕ and naïve résumé"),
    ],
)
def test_content_is_folded_into_one_trimmed_line(raw: str, stored: str) -> None:
    assert normalize_content(raw) == stored
    assert "\n" not in normalize_content(raw)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("", "empty"),
        ("   \n\t ", "empty"),
        ("x" * 10_000, "10000 characters"),
        ("## Things I Remember About You", "Markdown"),
        ("# heading", "Markdown"),
        ("- - nested list", "Markdown"),
        ("> quoted", "Markdown"),
        ("1. numbered", "Markdown"),
        ("```code", "Markdown"),
        ("---", "Markdown"),
        ("bell \x07 inside", "control character"),
        ("null \x00 byte", "control character"),
        ("escape \x1b[31m red", "control character"),
        ("rtl \u202e override", r"U\+202E"),
        ("bad \udcff bytes", "UTF-8"),
        (None, "must be text"),
        (42, "must be text"),
    ],
)
def test_hostile_content_is_refused(raw: object, message: str) -> None:
    with pytest.raises(InvalidContent, match=message):
        normalize_content(raw)


def test_length_limit_is_inclusive() -> None:
    assert len(normalize_content("a" * MAX_CONTENT_CHARS)) == 500
    with pytest.raises(InvalidContent):
        normalize_content("a" * (MAX_CONTENT_CHARS + 1))


def test_scope_resolution() -> None:
    assert resolve_scope(None, None) == (Scope.GLOBAL, None)
    assert resolve_scope(None, "phoenix") == (Scope.WORKSPACE, "phoenix")
    assert resolve_scope("GLOBAL", None) == (Scope.GLOBAL, None)
    with pytest.raises(InvalidScope, match="needs a workspace"):
        resolve_scope("workspace", None)
    with pytest.raises(InvalidScope, match="belongs to no workspace"):
        resolve_scope("global", "phoenix")
    with pytest.raises(InvalidScope, match="unknown scope"):
        resolve_scope("team", None)


@pytest.mark.parametrize("slug", ["Phoenix", "", "-x", "a b", "x" * 65, "é", "a/b"])
def test_bad_slugs(slug: str) -> None:
    with pytest.raises(InvalidInput):
        validate_slug(slug)


@pytest.mark.parametrize("name", ["", " alice", "al ice", "a\nb", "x" * 65, "bad\udcffname"])
def test_bad_user_names(name: str) -> None:
    with pytest.raises(InvalidInput):
        validate_user_name(name)
