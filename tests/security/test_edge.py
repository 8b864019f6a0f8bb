"""Attack class: what reaches the server before any route (items 3, 7, 14; issue 37
item 2).

Oversized bodies, and bodies whose credential is missing or names nobody (``/mcp``
included), are refused before they are read (over a real socket, so nothing buffers them
for us); a body that does not arrive in time is a 408; NUL characters are refused with 400
wherever they hide, and every response carries the security headers.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.exc import OperationalError

from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.testing.live import LiveServer
from support.server import World, build_world, make_settings

NUL_JSON = '{"model": "m", "messages": [{"role": "user", "content": "hi\\u0000there"}]}'


def raw_request(port: int, head: str, body: bytes = b"", *, wait: float = 5.0) -> bytes:
    """Send ``head`` (and ``body``) and read what the server answers. The answer is read
    while the body is still being sent: a server that refuses a body early closes with
    the rest unread, and the reset that follows would discard an answer read only after
    the whole body went out (it did so on a loaded machine)."""
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as sock:
        answer = bytearray()

        def read() -> None:
            deadline = time.monotonic() + wait
            with contextlib.suppress(OSError):
                while b"\r\n\r\n" not in answer and time.monotonic() < deadline:
                    chunk = sock.recv(65536)
                    if not chunk:
                        break
                    answer.extend(chunk)

        reader = threading.Thread(target=read)
        reader.start()
        with contextlib.suppress(ConnectionResetError, BrokenPipeError):
            sock.sendall(head.encode() + body)  # the server may stop reading part-way
        reader.join(wait + 1)
        return bytes(answer)


def test_a_huge_anonymous_body_is_refused_before_it_is_sent(
    live: tuple[World, LiveServer],
) -> None:
    _, server = live
    for path in ("/api/v1/memories", "/v1/chat/completions", "/api/v1/import"):
        head = (
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            "Content-Type: application/json\r\nContent-Length: 300000000\r\n\r\n"
        )
        answer = raw_request(server.port, head, b"[" * 65536)  # a start of the 300 MB
        assert answer.startswith(b"HTTP/1.1 401"), (path, answer[:200])


@pytest.mark.parametrize(
    ("path", "credential"),
    [
        ("/mcp", ""),
        ("/mcp", "Authorization: Bearer mdk_not_a_real_key\r\n"),
        ("/api/v1/memories", "Authorization: Bearer mdk_not_a_real_key\r\n"),
        ("/v1/chat/completions", "X-API-Key: not-a-real-key\r\n"),
        ("/ui/memories", "Cookie: memoryd_session=not-a-real-session\r\n"),
        ("/api/v1/import", "Cookie: memoryd_session=not-a-real-session\r\n"),
    ],
)
def test_a_body_is_not_read_before_its_credential_is_checked(
    live: tuple[World, LiveServer], path: str, credential: str
) -> None:
    """Issue 37 item 2: /mcp and a bogus key or cookie made the server wait for 5 MB."""
    _, server = live
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{credential}"
        "Content-Type: application/json\r\nContent-Length: 5000000\r\n\r\n"
    )
    answer = raw_request(server.port, head, b"[" * 65536)  # a start of the 5 MB
    assert answer.startswith(b"HTTP/1.1 401"), (path, answer[:300])


@pytest.fixture
def impatient(tmp_path: Path, embedder: MiniLMEmbedder) -> Iterator[tuple[World, LiveServer]]:
    """A live server that waits one second for a request's body."""
    world = build_world(make_settings(tmp_path, body_timeout_s=1), embedder)
    with world.client, LiveServer(world.app) as server:
        yield world, server
    world.md.close()


@pytest.mark.parametrize("path", ["/api/v1/memories", "/api/v1/import"])
def test_a_body_that_does_not_arrive_in_time_is_a_408(
    impatient: tuple[World, LiveServer], path: str
) -> None:
    world, server = impatient
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bearer {world.keys['alice']}\r\n"
        "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
    )
    answer = raw_request(server.port, head, b'{"content": "Likes', wait=20)  # then nothing
    assert answer.startswith(b"HTTP/1.1 408"), answer[:300]
    assert world.md.list_memories(world.ids["alice"]) == []


def test_a_declared_oversized_body_is_refused_with_413(live: tuple[World, LiveServer]) -> None:
    world, server = live
    head = (
        "POST /api/v1/memories HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bearer {world.keys['alice']}\r\n"
        "Content-Type: application/json\r\nContent-Length: 300000000\r\n\r\n"
    )
    assert raw_request(server.port, head).startswith(b"HTTP/1.1 413")


def test_a_chunked_body_is_counted_as_it_streams(live: tuple[World, LiveServer]) -> None:
    world, server = live
    limit = world.md.settings.max_request_bytes
    head = (
        "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bearer {world.keys['alice']}\r\n"
        "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    piece = b"x" * 1_000_000
    chunk = f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
    body = chunk * (limit // len(piece) + 2)
    assert raw_request(server.port, head, body).startswith(b"HTTP/1.1 413")


@pytest.mark.parametrize(
    ("method", "path", "kwargs"),
    [
        ("GET", "/api/v1/memories?workspace=al%00pha", {}),
        ("GET", "/api/v1/workspaces/al%00pha", {}),
        ("POST", "/api/v1/memories", {"content": '{"content": "tea\\u0000", "scope": "global"}'}),
        ("POST", "/v1/chat/completions", {"content": NUL_JSON}),
        ("POST", "/api/v1/import", {"content": b'{"id": "a\x00"}'}),
        ("POST", "/api/v1/import", {"content": '{"content": "ok"}\n{"content": "a\\u0000"}'}),
    ],
)
def test_nul_is_refused_at_the_edge(world: World, method: str, path: str, kwargs: dict) -> None:
    headers = {"Content-Type": "application/json", "X-Workspace": "alpha"}
    response = world.call("alice", method, path, headers=headers, **kwargs)
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == "nul"


def test_nul_in_a_login_name_is_refused(world: World) -> None:
    response = world.client.post(
        "/login", data={"name": "ad\x00min", "password": "x", "csrf_token": "t"}
    )
    assert response.status_code == 400


def test_an_escaped_backslash_before_u0000_is_not_a_nul(world: World) -> None:
    body = '{"content": "the text \\\\u0000 is harmless", "scope": "global"}'
    response = world.call(
        "alice", "POST", "/api/v1/memories", content=body,
        headers={"Content-Type": "application/json"},
    )  # fmt: skip
    assert response.status_code == 201, response.text


@pytest.mark.parametrize("path", ["/login", "/api/v1/me", "/health", "/static/memoryd.css"])
def test_every_response_carries_the_security_headers(sqlite_world: World, path: str) -> None:
    response = sqlite_world.call("alice", "GET", path)
    csp = response.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp
    assert "unsafe-inline" not in csp
    assert response.headers["x-frame-options"] == "DENY"
    assert response.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize(
    ("page", "asset"),
    [("/docs", "swagger-ui-bundle.js"), ("/redoc", "redoc.standalone.js")],
)
def test_api_docs_are_served_from_the_package(sqlite_world: World, page: str, asset: str) -> None:
    html = sqlite_world.client.get(page).text
    assert "cdn.jsdelivr.net" not in html and f"/static-offline-docs/{asset}" in html
    assert sqlite_world.client.get(f"/static-offline-docs/{asset}").status_code == 200


def test_a_write_while_the_database_is_down_is_a_503_not_a_reset(
    live: tuple[World, LiveServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The edge asks who the caller is before reading a body; when the database does not
    answer, the caller gets the 503 every route gives then, not a dropped connection."""
    world, server = live

    def down(*_: object) -> None:
        raise OperationalError("SELECT 1", {}, Exception("connection refused"))

    monkeypatch.setattr(world.app.state.memoryd.auth, "user_for_api_key", down)
    head = (
        "POST /api/v1/memories HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        "Authorization: Bearer mdk_not_in_the_cache\r\n"
        "Content-Type: application/json\r\nContent-Length: 20\r\n\r\n"
    )
    answer = raw_request(server.port, head, b'{"content": "Tea"}  ')
    assert answer.startswith(b"HTTP/1.1 503"), answer[:300]
    assert b"database_unavailable" in answer
