"""How big an import over HTTP may be, over a real socket: its own limit
(``MEMORYD_MAX_IMPORT_BYTES``), apart from the smaller one of every other request body,
checked on the declared length and on the bytes a chunked body actually sends; a body
over it is a 413 that says so, and nothing is written."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from memoryd.config import MemorydSettings
from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.testing.live import LiveServer
from support.server import World, build_world, make_settings

REQUEST_LIMIT = 100_000
IMPORT_LIMIT = 600_000
NDJSON = "application/x-ndjson"


@pytest.fixture
def live(tmp_path: Path, embedder: MiniLMEmbedder) -> Iterator[tuple[World, LiveServer]]:
    settings = make_settings(
        tmp_path, max_request_bytes=REQUEST_LIMIT, max_import_bytes=IMPORT_LIMIT
    )
    world = build_world(settings, embedder)
    with LiveServer(world.app) as server:
        yield world, server
    world.md.close()


def chat_lines(count: int, size: int) -> bytes:
    """``count`` chat lines in alpha, each with a prompt of ``size`` characters."""
    lines = [
        json.dumps({"chat": {"workspace": "alpha", "prompt": f"{n} " + "x" * size}})
        for n in range(count)
    ]
    return ("\n".join(lines) + "\n").encode()


def raw_request(port: int, head: str) -> bytes:
    """Send only ``head`` (no body) and read all the server answers."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(head.encode())
        answer = b""
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # to the end: a refusal closes the connection
            chunk = sock.recv(65536)
            if not chunk:
                break
            answer += chunk
        return answer


def test_an_import_may_be_larger_than_any_other_request(live: tuple[World, LiveServer]) -> None:
    world, server = live
    alice = world.ids["alice"]
    body = chat_lines(3, 150_000)
    assert REQUEST_LIMIT < len(body) < IMPORT_LIMIT
    headers = {"Authorization": f"Bearer {world.keys['alice']}", "Content-Type": NDJSON}
    answer = httpx.post(f"{server.url}/api/v1/import", content=body, headers=headers)
    assert answer.status_code == 200, answer.text
    assert answer.json()["chats_created"] == 3
    assert len(world.md.list_chats(alice)) == 3
    # the other routes keep the request limit
    chat = {"workspace": "alpha", "prompt": "y" * 150_000, "response": "ok"}
    refused = httpx.post(
        f"{server.url}/api/v1/chats", json=chat, headers={"Authorization": headers["Authorization"]}
    )
    assert refused.status_code == 413
    assert (
        refused.json()["error"]["message"] == f"request bodies are limited to {REQUEST_LIMIT} bytes"
    )
    assert len(world.md.list_chats(alice)) == 3


def test_an_import_declared_over_its_limit_is_refused_before_it_is_sent(
    live: tuple[World, LiveServer],
) -> None:
    world, server = live
    for path in ("/api/v1/import", f"/api/v1/users/{world.ids['alice']}/import"):
        head = (
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: Bearer {world.keys['admin']}\r\n"
            f"Content-Type: {NDJSON}\r\nContent-Length: {IMPORT_LIMIT + 1}\r\n\r\n"
        )
        answer = raw_request(server.port, head)
        assert answer.startswith(b"HTTP/1.1 413"), (path, answer[:300])
        assert (
            f"limited to {IMPORT_LIMIT} bytes over HTTP (MEMORYD_MAX_IMPORT_BYTES)".encode()
            in answer
        )


def test_an_import_is_counted_as_it_streams(live: tuple[World, LiveServer]) -> None:
    world, server = live
    headers = {"Authorization": f"Bearer {world.keys['alice']}", "Content-Type": NDJSON}
    body = chat_lines(5, 150_000)
    assert len(body) > IMPORT_LIMIT

    def chunks() -> Iterator[bytes]:  # no Content-Length: sent chunked
        for start in range(0, len(body), 65_536):
            yield body[start : start + 65_536]

    answer = httpx.post(f"{server.url}/api/v1/import", content=chunks(), headers=headers)
    assert answer.status_code == 413, answer.text
    assert answer.headers["connection"] == "close"
    message = answer.json()["error"]["message"]
    assert message == (
        f"import files are limited to {IMPORT_LIMIT} bytes over HTTP (MEMORYD_MAX_IMPORT_BYTES);"
        " import a larger one with `memoryd import` on the server"
    )
    assert world.md.list_chats(world.ids["alice"]) == []


def test_the_limit_is_a_setting(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MEMORYD_DATA_DIR", str(tmp_path))
    assert MemorydSettings().max_import_bytes == 100_000_000
    monkeypatch.setenv("MEMORYD_MAX_IMPORT_BYTES", "2500000")
    assert MemorydSettings().max_import_bytes == 2_500_000


def test_each_line_is_checked_as_it_is_read(live: tuple[World, LiveServer]) -> None:
    world, server = live
    headers = {"Authorization": f"Bearer {world.keys['alice']}", "Content-Type": NDJSON}
    good = b'{"content": "Likes jazz"}\n'
    cases = [
        (good + b'{"content": "caf\xe9"}\n', 422, "line 2: the import file is not UTF-8 text"),
        (good + b"\n" + b'{"content": "a\\u0000b"}\n', 400, "line 3: NUL characters"),
        (good + b'{"content": "half \\ud800"}\n', 400, "line 2: the body holds half of"),
    ]
    for body, status, message in cases:
        answer = httpx.post(f"{server.url}/api/v1/import", content=body, headers=headers)
        assert answer.status_code == status, answer.text
        assert answer.json()["error"]["message"].startswith(message)
    assert world.md.list_memories(world.ids["alice"]) == []
