"""Attack class: fields that pass a check they should fail (issue 37 items 7, 8, 11).

A name or slug with a trailing newline is refused wherever it is validated (a pattern
ending in ``$`` let ``"beta\\n"`` through, a second "beta" that broke exports); a date
with no UTC time is a 422 (it was a 500 that reset the connection); a form, path or query
string that is not UTF-8 is a 400 (a form's was stored with U+FFFD in its place).
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import httpx2
import pytest

from memoryd.domain.errors import InvalidInput
from memoryd.domain.models import Scope
from memoryd.domain.rules import validate_slug, validate_user_name
from memoryd.testing.live import LiveServer
from support.lifecycle import file_suggestion
from support.server import World
from support.web import flash_of, post_form, session_cookie

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


# item 7: a date that has no UTC time (past 9999-12-31 or before 0001-01-01 once its offset
# is taken off) is a 422, or a tool error in MCP, never a 500
OUT_OF_RANGE = ["9999-12-31", "9999-12-31T23:00:00-05:00", "0001-01-01T00:00:00+05:00"]


@pytest.mark.parametrize("when", OUT_OF_RANGE)
def test_an_out_of_range_date_is_a_422_on_every_rest_route(world: World, when: str) -> None:
    alice = world.ids["alice"]
    memory = world.md.add_memory(alice, "Likes tea", Scope.GLOBAL)
    suggestion = file_suggestion(world.md, alice, "Plays chess")
    calls: list[tuple[str, str, dict[str, Any]]] = [
        ("POST", "/api/v1/memories", {"json": {"content": "Likes jazz", "expires_at": when}}),
        ("PATCH", f"/api/v1/memories/{memory.id}", {"json": {"expires_at": when}}),
        ("POST", f"/api/v1/suggestions/{suggestion}/accept", {"json": {"expires_at": when}}),
        ("GET", f"/api/v1/audit?since={when.replace('+', '%2B')}", {}),
        (
            "POST", "/api/v1/import",
            {"content": import_line(expires_at=when), "headers": NDJSON},
        ),
    ]  # fmt: skip
    if len(when) == 10:  # a date: the import and the audit need a time, since a date is fine
        calls = calls[:3]
    for method, path, kwargs in calls:
        response = world.call("alice", method, path, **kwargs)
        assert response.status_code == 422, (path, response.text)
        assert "out of range" in response.text or "not a plausible time" in response.text
    assert [m.id for m in world.md.list_memories(alice)] == [memory.id]
    assert world.md.get_memory(alice, memory.id).expires_at is None


def test_an_out_of_range_date_in_the_web_form_comes_back_as_a_message(world: World) -> None:
    for when in OUT_OF_RANGE:
        form = {"content": "Likes jazz", "scope": "global", "expires_at": when}
        response = post_form(world, "alice", "/ui/memories", form)
        assert response.status_code == 303, response.text
        assert "out of range" in flash_of(response)["text"]
    assert world.md.list_memories(world.ids["alice"]) == []


def test_an_out_of_range_date_is_a_clear_mcp_tool_error(live: tuple[World, LiveServer]) -> None:
    pytest.importorskip("mcp", reason="needs the 'mcp' extra")
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.types import TextContent

    world, server = live

    async def remember() -> list[Any]:
        http = httpx2.AsyncClient(headers=world.headers("alice"))
        url = f"http://127.0.0.1:{server.port}/mcp"
        async with http, Client(streamable_http_client(url, http_client=http)) as client:
            args = {"content": "Likes jazz", "until": "9999-12-31T23:00:00-05:00"}
            result = await client.call_tool("remember", args)
            return [result.is_error, result.content]

    is_error, content = anyio.run(remember)
    assert is_error and isinstance(content[0], TextContent)
    assert "out of range" in content[0].text


# item 11: text that is not UTF-8 is a 400 wherever it comes in, never stored as U+FFFD
def test_a_form_that_is_not_utf8_is_refused(world: World) -> None:
    cookie, csrf = session_cookie(world, "alice")
    body = f"content=x%ffy&scope=global&csrf_token={csrf}&next=/".encode()
    headers = {"Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"}
    response = world.client.post("/ui/memories", content=body, headers=headers)
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == "not_utf8"
    assert world.md.list_memories(world.ids["alice"]) == []
    login = world.client.post(
        "/login", content=b"name=al%e9ice&password=x&csrf_token=t",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )  # fmt: skip
    assert login.status_code == 400


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("GET", "/api/v1/memories?workspace=al%ffpha", None),
        ("GET", "/api/v1/workspaces/al%ffpha", None),
        ("POST", "/api/v1/memories", b'{"content": "x\xffy", "scope": "global"}'),
    ],
)
def test_a_url_or_json_body_that_is_not_utf8_is_refused(
    world: World, method: str, path: str, body: bytes | None
) -> None:
    headers = {"Content-Type": "application/json"}
    response = world.call("alice", method, path, content=body, headers=headers)
    assert response.status_code == 400, response.text
    assert world.md.list_memories(world.ids["alice"]) == []
