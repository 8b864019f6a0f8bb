"""The proxy when the upstream LLM misbehaves on the wire: a stream cut off or timed out
midway, a status that is no answer, a 200 that is not JSON. The client gets a clear
error (an error event at the end of a stream, else a 502 / 504 body), the exchange is not
recorded, and the server logs no unhandled error."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import openai
import pytest

from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.testing import FakeOpenAIServer, Reply
from memoryd.testing.live import LiveServer
from support.raw_upstream import RawUpstream, chunk, event, response, sse_head
from support.server import World, build_world, make_settings

Raw = tuple[World, LiveServer, RawUpstream]
COMPLETION = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 0,
    "model": "m",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}
    ],
}


@pytest.fixture
def raw_world(tmp_path: Path, embedder: MiniLMEmbedder) -> Iterator[Raw]:
    with RawUpstream() as upstream:
        settings = make_settings(tmp_path, proxy_upstream_url=upstream.base_url, proxy_timeout_s=1)
        world = build_world(settings, embedder)
        with LiveServer(world.app) as live:
            yield world, live, upstream
        world.md.close()


def client(world: World, live: LiveServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{live.url}/v1", api_key=world.keys["alice"], max_retries=0)


def ask(world: World, live: LiveServer, prompt: str, *, stream: bool) -> list[str]:
    """The pieces of text the client received before the error it must raise."""
    pieces: list[str] = []
    with pytest.raises(openai.APIError) as caught:
        answer = client(world, live).chat.completions.create(
            model="alpha/m", messages=[{"role": "user", "content": prompt}], stream=stream
        )
        if stream:
            for part in answer:  # type: ignore[union-attr]
                pieces.append(part.choices[0].delta.content or "")
    assert "upstream" in caught.value.message
    return pieces


def recorded_after_marker(world: World, live: LiveServer, upstream: RawUpstream) -> list[str]:
    """Every prompt of alice's recorded once a good exchange sent after the bad one is in
    (recording keeps arrival order, so the bad one had its turn by then)."""
    upstream.reply(response("200 OK", json.dumps(COMPLETION).encode()))
    client(world, live).chat.completions.create(
        model="alpha/m", messages=[{"role": "user", "content": "marker"}]
    )
    deadline = time.monotonic() + 10
    while not any(c.prompt == "marker" for c in world.md.list_chats(world.ids["alice"])):
        assert time.monotonic() < deadline, "the marker exchange was never recorded"
        time.sleep(0.02)
    return [c.prompt for c in world.md.list_chats(world.ids["alice"])]


def unhandled(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


@pytest.mark.parametrize(
    ("parts", "reset"),
    [
        # the connection closes inside the chunked body
        ((sse_head(), chunk(event("Hello")), chunk(event(" wor"))), False),
        # ... half-way through an event's line
        ((sse_head(), chunk(event("Hello")), chunk(event(" world")[:20])), False),
        # the upstream's host resets the connection
        ((sse_head(), chunk(event("Hello")), 0.1), True),
        # a clean end of the body, but before the answer's end ([DONE], a finish_reason)
        (
            (
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n",
                event("Hello"),
            ),
            False,
        ),
    ],
    ids=["cut", "cut-mid-line", "reset", "ended-early"],
)
def test_a_stream_the_upstream_breaks_off_ends_with_an_error_event(
    raw_world: Raw,
    caplog: pytest.LogCaptureFixture,
    parts: tuple[bytes | float, ...],
    reset: bool,
) -> None:
    world, live, upstream = raw_world
    upstream.reply(*parts, reset=reset)
    assert ask(world, live, "broken stream", stream=True)[0] == "Hello"
    assert recorded_after_marker(world, live, upstream) == ["marker"]
    assert unhandled(caplog) == []


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        (response("302 Found", b""), "answered 302"),
        (response("999 Odd", b'{"error": {"message": "odd", "type": "x"}}'), "odd"),
        (response("200 OK", b"<html>gateway page</html>", "text/html"), "not a JSON object"),
        (response("200 OK", b"[1, 2]"), "not a JSON object"),
    ],
    ids=["redirect", "status-999", "html", "json-list"],
)
@pytest.mark.parametrize("stream", [False, True])
def test_an_answer_that_is_no_completion_is_a_502(
    raw_world: Raw, caplog: pytest.LogCaptureFixture, answer: bytes, words: str, stream: bool
) -> None:
    world, live, upstream = raw_world
    upstream.reply(answer)
    body = {"model": "alpha/m", "stream": stream, "messages": [{"role": "user", "content": "q"}]}
    got = httpx.post(
        f"{live.url}/v1/chat/completions", json=body, headers=world.headers("alice"), timeout=10
    )
    if stream and b"200 OK" in answer:  # an upstream ignoring "stream": its body as sent
        assert got.status_code == 200
        assert got.content == answer.partition(b"\r\n\r\n")[2]
    else:
        assert got.status_code == 502
        assert words in got.json()["error"]["message"]
    assert recorded_after_marker(world, live, upstream) == ["marker"]
    assert unhandled(caplog) == []


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        (response("302 Found", b""), "answered 302"),
        (response("200 OK", b"not json"), "not a JSON object"),
    ],
    ids=["redirect", "not-json"],
)
def test_a_model_list_that_is_no_model_list_is_a_502(
    raw_world: Raw, answer: bytes, words: str
) -> None:
    world, live, upstream = raw_world
    upstream.reply(answer)
    got = httpx.get(f"{live.url}/v1/models", headers=world.headers("alice"), timeout=10)
    assert got.status_code == 502
    assert words in got.json()["error"]["message"]


def test_a_stream_that_stalls_past_the_timeout_ends_with_an_error_event(
    tmp_path: Path, embedder: MiniLMEmbedder, caplog: pytest.LogCaptureFixture
) -> None:
    with FakeOpenAIServer() as fake:
        settings = make_settings(tmp_path, proxy_upstream_url=fake.base_url, proxy_timeout_s=0.5)
        world = build_world(settings, embedder)
        with LiveServer(world.app) as live:
            fake.script(Reply.paced(1.5, Reply.text("One two three four five six.")))
            pieces = ask(world, live, "slow stream", stream=True)
            assert pieces == [""]  # the opening event (the role) came, then nothing
            assert "timed out" in caplog.text
            fake.script(Reply.text("marker answer"))
            client(world, live).chat.completions.create(
                model="alpha/m", messages=[{"role": "user", "content": "marker"}]
            )
            deadline = time.monotonic() + 10
            while len(world.md.list_chats(world.ids["alice"])) < 1:
                assert time.monotonic() < deadline
                time.sleep(0.02)
            assert [c.prompt for c in world.md.list_chats(world.ids["alice"])] == ["marker"]
        world.md.close()
    assert unhandled(caplog) == []
