"""What the proxy does not keep: a chat whose client hung up before the answer was
relayed, and an incognito chat (``X-Memoryd-Incognito: true``); and what it keeps about
the memories it injected."""

from __future__ import annotations

import json
import socket
import time

import httpx
import pytest

from memoryd.testing import FakeOpenAIServer, Reply
from memoryd.testing.live import LiveServer
from support.server import World

from .test_proxy import client_for, only_marker_recorded, wait_for_chats

Live = tuple[World, LiveServer]


def hang_up_before_the_answer(live: LiveServer, key: str, body: dict[str, object]) -> None:
    """Send a chat request on a raw socket and close it before any answer can come."""
    raw = json.dumps(body).encode()
    head = (
        "POST /v1/chat/completions HTTP/1.1\r\n"
        f"Host: 127.0.0.1:{live.port}\r\n"
        f"Authorization: Bearer {key}\r\n"
        "X-Memoryd-Workspace: alpha\r\n"
        "Content-Type: application/json\r\n"
        f"Content-Length: {len(raw)}\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", live.port)) as sock:
        sock.sendall(head + raw)
        time.sleep(0.3)  # the proxy has the request and waits for the upstream


@pytest.mark.parametrize("stream", [True, False])
def test_client_that_hung_up_before_the_answer_is_not_recorded(
    live_world: Live, fake_llm: FakeOpenAIServer, stream: bool
) -> None:
    world, live = live_world
    fake_llm.script(Reply.delay(1.0, Reply.text("An answer nobody reads.")))
    body = {
        "model": "gpt-test",
        "stream": stream,
        "messages": [{"role": "user", "content": "gone"}],
    }
    hang_up_before_the_answer(live, world.keys["alice"], body)
    deadline = time.monotonic() + 30  # generous: a loaded machine, not a slow proxy
    while not fake_llm.requests:  # the upstream was asked ...
        assert time.monotonic() < deadline
        time.sleep(0.02)
    time.sleep(1.2)  # ... and has answered into the void
    assert only_marker_recorded(world, live, fake_llm, "alice") == ["marker"]


def with_memories(world: World) -> list[str]:
    alice = world.ids["alice"]
    return [
        world.md.add_memory(alice, "Alice is vegetarian").id,
        world.md.add_memory(alice, "Alpha ships in June", workspace="alpha").id,
    ]


@pytest.mark.parametrize("stream", [False, True])
def test_incognito_chat_gets_memories_but_is_never_recorded(
    live_world: Live, fake_llm: FakeOpenAIServer, stream: bool
) -> None:
    world, live = live_world
    ids = with_memories(world)
    fake_llm.script(Reply.text("Lentil curry."))
    response = httpx.post(
        f"{live.url}/v1/chat/completions",
        json={
            "model": "alpha/gpt-test",
            "stream": stream,
            "messages": [{"role": "user", "content": "Dinner?"}],
        },
        headers={**world.headers("alice"), "X-Memoryd-Incognito": "true"},
    )
    assert response.status_code == 200
    assert "Len" in response.text
    assert response.headers["X-Memoryd-Incognito"] == "true"
    assert response.headers["X-Memoryd-Memory-Ids"] == ",".join(ids)
    system = fake_llm.requests[0]["messages"][0]["content"]
    assert "- Alice is vegetarian\n- Alpha ships in June" in system
    assert only_marker_recorded(world, live, fake_llm, "alice") == ["marker"]
    world.md.writer.flush()
    # the marker chat was a normal turn and marked the memories; nothing earlier did
    chats = world.md.list_chats(world.ids["alice"])
    assert [
        u.id for u in world.md.chat_memories(world.ids["alice"], [chats[0].id])[chats[0].id]
    ] == ids


def test_incognito_leaves_last_used_alone(live_world: Live, fake_llm: FakeOpenAIServer) -> None:
    world, live = live_world
    with_memories(world)
    fake_llm.script(Reply.text("ok"))
    client_for(world, live, "alice").chat.completions.create(
        model="alpha/gpt-test",
        messages=[{"role": "user", "content": "hi"}],
        extra_headers={"X-Memoryd-Incognito": "yes"},
    )
    world.md.writer.flush()
    assert all(m.last_used_at is None for m in world.md.list_memories(world.ids["alice"]))


def test_a_bad_incognito_header_is_refused(live_world: Live, fake_llm: FakeOpenAIServer) -> None:
    world, live = live_world
    response = httpx.post(
        f"{live.url}/v1/chat/completions",
        json={"model": "alpha/gpt-test", "messages": [{"role": "user", "content": "hi"}]},
        headers={**world.headers("alice"), "X-Memoryd-Incognito": "maybe"},
    )
    assert response.status_code == 400
    assert "X-Memoryd-Incognito must be true or false" in response.json()["error"]["message"]
    assert fake_llm.requests == []


@pytest.mark.parametrize("stream", [False, True])
def test_recorded_chat_keeps_the_memories_it_was_given(
    live_world: Live, fake_llm: FakeOpenAIServer, stream: bool
) -> None:
    world, live = live_world
    ids = with_memories(world)
    fake_llm.script(Reply.text("Lentil curry."))
    response = httpx.post(
        f"{live.url}/v1/chat/completions",
        json={
            "model": "alpha/gpt-test",
            "stream": stream,
            "messages": [{"role": "user", "content": "Dinner?"}],
        },
        headers=world.headers("alice"),
    )
    assert response.headers["X-Memoryd-Memory-Ids"] == ",".join(ids)
    assert "X-Memoryd-Incognito" not in response.headers
    chats = wait_for_chats(world, "alice", 1)
    used = world.md.chat_memories(world.ids["alice"], [chats[0].id])
    assert [u.id for u in used[chats[0].id]] == ids
    assert [c.id for c in world.md.chats_using(world.ids["alice"], ids[1])] == [chats[0].id]


def test_with_learning_off_proxied_chats_are_recorded_but_never_extracted(
    live_world: Live, fake_llm: FakeOpenAIServer
) -> None:
    world, live = live_world
    world.md.set_learning(world.ids["alice"], False)
    fake_llm.script(Reply.text("Noted."))
    client_for(world, live, "alice").chat.completions.create(
        model="alpha/gpt-test", messages=[{"role": "user", "content": "I moved to Lisbon."}]
    )
    chats = wait_for_chats(world, "alice", 1)
    assert [(c.prompt, c.memory_processed) for c in chats] == [("I moved to Lisbon.", True)]


def test_client_that_hung_up_mid_stream_is_not_recorded(
    live_world: Live, fake_llm: FakeOpenAIServer
) -> None:
    world, live = live_world
    fake_llm.script(Reply.paced(0.3, Reply.text("One two three four five six seven eight.")))
    body = {
        "model": "alpha/gpt-test",
        "stream": True,
        "messages": [{"role": "user", "content": "half"}],
    }
    with (
        httpx.Client(timeout=10) as client,
        client.stream(
            "POST", f"{live.url}/v1/chat/completions", json=body, headers=world.headers("alice")
        ) as response,
    ):
        first = next(response.iter_raw())  # the first chunk arrived ...
        assert first.startswith(b"data:")
    # ... and the client hung up: the rest (about 1.5 s more) goes nowhere
    time.sleep(2.0)
    assert only_marker_recorded(world, live, fake_llm, "alice") == ["marker"]
