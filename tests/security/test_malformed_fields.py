"""Attack class: fields that pass a check they should fail (issue 37 items 7, 8, 11).

A name or slug with a trailing newline is refused wherever it is validated (a pattern
ending in ``$`` let ``"beta\\n"`` through, a second "beta" that broke exports).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from memoryd.domain.errors import InvalidInput
from memoryd.domain.rules import validate_slug, validate_user_name
from support.server import World

NDJSON = {"Content-Type": "application/x-ndjson"}


def import_line(**overrides: Any) -> str:
    record = {"content": "Fact about the project", "scope": "workspace", "workspace": "alpha"}
    return json.dumps({**record, **overrides})


@pytest.mark.parametrize("validate", [validate_slug, validate_user_name])
@pytest.mark.parametrize("tail", ["\n", "\r\n"])
def test_a_validator_refuses_a_trailing_newline(validate: Any, tail: str) -> None:
    assert validate("beta") == "beta"
    with pytest.raises(InvalidInput):
        validate("beta" + tail)


@pytest.mark.parametrize(
    ("who", "method", "path", "kwargs"),
    [
        ("alice", "POST", "/api/v1/workspaces", {"json": {"slug": "beta\n"}}),
        ("admin", "POST", "/api/v1/users", {"json": {"name": "alice\n"}}),
        ("admin", "POST", "/api/v1/users", {"json": {"name": "carol\n"}}),
        (
            "alice", "POST", "/api/v1/memories",
            {"json": {"content": "Likes tea", "scope": "workspace", "workspace": "alpha\n"}},
        ),
        ("alice", "GET", "/api/v1/audit?workspace=alpha%0A", {}),
        ("alice", "POST", "/api/v1/import", {"content": import_line(workspace="alpha\n")}),
        ("alice", "POST", "/api/v1/import", {"content": import_line(id="m1\n")}),
    ],
)  # fmt: skip
def test_a_trailing_newline_is_refused_on_every_surface(
    world: World, who: str, method: str, path: str, kwargs: dict[str, Any]
) -> None:
    if "content" in kwargs:
        kwargs["headers"] = NDJSON
    response = world.call(who, method, path, **kwargs)
    assert response.status_code in (404, 422), response.text  # 404: not a workspace of hers
    assert [w.slug for w in world.md.list_workspaces()] == ["alpha", "beta", "gamma"]
    assert sorted(u.name for u in world.md.list_users()) == ["admin", "alice", "bob"]
    assert world.md.list_memories(world.ids["alice"]) == []
