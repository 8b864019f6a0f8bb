"""Attack class: malformed input and broken upstreams at the proxy (items 9, 10).

100,000 nested brackets get a 400 like the REST API gives, not a 500; an upstream that
closes mid-body gets a 502, and the client's keep-alive connection keeps working.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.testing.live import LiveServer
from support.server import World, build_world, make_settings


class HalfAnswer:
    """An HTTP server that promises 1000 bytes of JSON, sends 20 and hangs up."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                conn.recv(65536)
                conn.sendall(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                    b"Content-Length: 1000\r\n\r\n" + b'{"choices": [{"mes'
                )

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def broken_upstream(tmp_path: Path, embedder: MiniLMEmbedder) -> Iterator[tuple[World, str]]:
    upstream = HalfAnswer()
    settings = make_settings(tmp_path, proxy_upstream_url=f"http://127.0.0.1:{upstream.port}/v1")
    world = build_world(settings, embedder)
    with LiveServer(world.app) as live:
        yield world, live.url
    world.md.close()
    upstream.close()


def test_deeply_nested_json_gets_400(sqlite_world: World) -> None:
    body = "[" * 100_000 + "]" * 100_000
    response = sqlite_world.call(
        "alice", "POST", "/v1/chat/completions", content=body,
        headers={"Content-Type": "application/json"},
    )  # fmt: skip
    assert response.status_code == 400, response.text
    rest = sqlite_world.call(
        "alice", "POST", "/api/v1/memories", content=body,
        headers={"Content-Type": "application/json"},
    )  # fmt: skip
    assert rest.status_code in (400, 422)


def test_an_upstream_closing_mid_body_gets_502_and_the_connection_survives(
    broken_upstream: tuple[World, str],
) -> None:
    world, url = broken_upstream
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    with httpx.Client(base_url=url, headers=world.headers("alice"), timeout=10) as client:
        first = client.post("/v1/chat/completions", json=body)
        assert first.status_code == 502, first.text
        assert first.json()["error"]["type"] == "upstream_error"
        again = client.get("/api/v1/me")  # same keep-alive connection
        assert again.status_code == 200
