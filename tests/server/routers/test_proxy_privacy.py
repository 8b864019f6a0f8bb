"""What the proxy does not keep: a chat whose client hung up before the answer was
relayed, and an incognito chat (``X-Memoryd-Incognito: true``); and what it keeps about
the memories it injected."""

from __future__ import annotations

import json
import socket
import time

import pytest

from memoryd.testing import FakeOpenAIServer, Reply

from ..conftest import LiveServer, World
from .test_proxy import client_for, only_marker_recorded

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
    body = {"model": "gpt-test", "stream": stream, "messages": [{"role": "user", "content": "gone"}]}
    hang_up_before_the_answer(live, world.keys["alice"], body)
    deadline = time.monotonic() + 5
    while not fake_llm.requests:  # the upstream was asked ...
        assert time.monotonic() < deadline
        time.sleep(0.02)
    time.sleep(1.2)  # ... and has answered into the void
    assert only_marker_recorded(world, live, fake_llm, "alice") == ["marker"]
