"""Bodies a careless or hostile client sends to the REST API and the proxy: not JSON,
not sent as JSON, absent, or JSON whose text is not Unicode (half a surrogate pair).
Each is a 4xx that says what is wrong with the body, and nothing is written."""

from __future__ import annotations

from typing import Any

import pytest

from support.server import World

JSON = {"Content-Type": "application/json"}
LONE_SURROGATE_BODIES = [
    (
        "alice",
        "POST",
        "/api/v1/chats",
        '{"workspace": "alpha", "prompt": "a\\ud800", "response": "r"}',
    ),
    (
        "alice",
        "POST",
        "/api/v1/chats",
        '{"workspace": "alpha", "prompt": "p", "response": "\\uDC00"}',
    ),
    ("admin", "PATCH", "/api/v1/settings", '{"secret_patterns": ["tok\\ud83d"]}'),
    (
        "alice",
        "POST",
        "/v1/chat/completions",
        '{"model": "m", "messages": [{"role": "user", "content": "\\ud800"}]}',
    ),
    ("alice", "POST", "/api/v1/memories", '{"content": "pair then half \\ud83d\\ude00\\ude00"}'),
    (  # an import's body is streamed past the edge guard: the route checks each line
        "alice",
        "POST",
        "/api/v1/import",
        '{"content": "ok"}\n{"chat": {"workspace": "alpha", "prompt": "a\\ud800"}}',
    ),
]


def written(world: World) -> tuple[int, int, list[str]]:
    alice = world.ids["alice"]
    patterns = world.md.get_settings()["secret_patterns"]
    return len(world.md.list_chats(alice)), len(world.md.list_memories(alice)), patterns


@pytest.mark.parametrize(("who", "method", "path", "body"), LONE_SURROGATE_BODIES)
def test_half_a_surrogate_pair_is_a_400_and_nothing_is_written(
    world: World, who: str, method: str, path: str, body: str
) -> None:
    before = written(world)
    response = world.call(who, method, path, content=body, headers=JSON)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "lone_surrogate"
    assert "surrogate" in error["message"]
    assert written(world) == before


def test_a_whole_surrogate_pair_is_ordinary_text(world: World) -> None:
    body = '{"workspace": "alpha", "prompt": "smile \\ud83d\\ude00", "response": "r"}'
    response = world.call("alice", "POST", "/api/v1/chats", content=body, headers=JSON)
    assert response.status_code == 201, response.text
    assert response.json()["prompt"] == "smile \U0001f600"


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b"{", "Expecting property name enclosed in double quotes (at character 1)"),
        (b'{"content": "x"} and more', "Extra data (at character 17)"),
        (b"   ", "Expecting value (at character 3)"),
    ],
)
def test_a_body_that_is_not_json_is_a_400_that_says_so(
    world: World, body: bytes, words: str
) -> None:
    response = world.call("alice", "POST", "/api/v1/memories", content=body, headers=JSON)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_json"
    assert error["message"] == f"the body is not valid JSON: {words}"


@pytest.mark.parametrize("body", [b'{"content": "caf\xe9"}', b"[" * 50_000])
def test_a_body_that_cannot_be_decoded_says_why(world: World, body: bytes) -> None:
    response = world.call("alice", "POST", "/api/v1/memories", content=body, headers=JSON)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_json"
    assert error["message"].startswith("the body cannot be read as JSON: it is not UTF-8")


@pytest.mark.parametrize(
    ("headers", "named"),
    [
        ({"Content-Type": "text/plain"}, "(not 'text/plain')"),
        ({"Content-Type": "application/x-www-form-urlencoded"}, "(not 'application/x-www-form"),
        ({}, "(none was given)"),
    ],
)
def test_json_sent_without_its_content_type_is_a_415(
    world: World, headers: dict[str, str], named: str
) -> None:
    body = b'{"content": "Alice drinks tea"}'
    response = world.call("alice", "POST", "/api/v1/memories", content=body, headers=headers)
    assert response.status_code == 415, response.text
    error = response.json()["error"]
    assert error["type"] == "unsupported_media_type"
    assert error["message"].startswith("send the body as JSON with Content-Type: application/json")
    assert named in error["message"]
    assert world.md.list_memories(world.ids["alice"]) == []


@pytest.mark.parametrize(
    ("kwargs", "status", "message"),
    [
        ({}, 422, "this request needs a JSON body (Content-Type: application/json)"),
        ({"content": b"[1, 2]", "headers": JSON}, 422, "the body must be a JSON object"),
    ],
)
def test_an_absent_or_non_object_body_is_named_as_such(
    world: World, kwargs: dict[str, Any], status: int, message: str
) -> None:
    response = world.call("alice", "POST", "/api/v1/memories", **kwargs)
    assert response.status_code == status, response.text
    assert response.json()["error"]["message"] == message


def test_a_json_media_type_with_parameters_or_a_suffix_is_json(world: World) -> None:
    for content_type, text in (
        ("application/json; charset=utf-8", "Alice drinks tea"),
        ("application/merge-patch+json", "Alice drinks coffee"),
    ):
        body = f'{{"content": "{text}"}}'.encode()
        headers = {"Content-Type": content_type}
        response = world.call("alice", "POST", "/api/v1/memories", content=body, headers=headers)
        assert response.status_code == 201, response.text
