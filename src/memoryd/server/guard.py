"""The server's edge: what every request must pass before any route reads it.

An ASGI middleware, because route handlers (and FastAPI's body parsing) run too late. It
limits a body's size (declared and received) and the time it takes to arrive, refuses a
write from an unknown caller before reading its body (``refusal``, given by the app),
refuses NUL, percent escapes that are not UTF-8 and JSON escapes of half a surrogate pair
(no database stores them), and adds the security headers; docs/security.md lists each
rule and limit. An import's body is passed on unread: ``routers/transfer.py`` streams it
and checks each line itself.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from urllib.parse import unquote_to_bytes

import anyio
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memoryd.server.errors import ApiError, error_body

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
ANONYMOUS_WRITES = {"/login": 16_384, "/logout": 16_384}
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
# Swagger UI and ReDoc (files served from the package): one inline script starts them.
DOCS_CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; worker-src 'self' blob:; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'"
)
SECURITY_HEADERS = [
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
]
# A JSON string escape for NUL that is not itself an escaped backslash.
_JSON_NUL = re.compile(rb"(?<!\\)(?:\\\\)*\\u0000")
# A JSON escape of a surrogate: a high half with its low half (a pair, fine), or either
# half alone. Matched left to right, a pair is taken whole before its halves are seen.
_JSON_SURROGATE = re.compile(
    rb"(?<!\\)(?:\\\\)*\\u(?:(?P<high>[dD][89abAB][0-9a-fA-F]{2})"
    rb"(?P<paired>\\u[dD][c-fC-F][0-9a-fA-F]{2})?|(?P<low>[dD][c-fC-F][0-9a-fA-F]{2}))"
)
LONE_SURROGATE = (
    "the body holds half of a UTF-16 surrogate pair (an escape like \\ud800 without its "
    "other half): that is not Unicode text"
)
BODY_TOO_SLOW = "the request body did not arrive within {:g} s (MEMORYD_BODY_TIMEOUT_S)"
CLOSE = {"Connection": "close"}
NOT_UTF8 = "the {} holds bytes that are not UTF-8 text (a percent escape like %ff)"
# bodies up to MEMORYD_MAX_IMPORT_BYTES, streamed and checked by the route itself
IMPORT_PATH = re.compile(r"/api/v1/(?:users/[^/]+/)?import|/(?:api/v1|ui)/history-imports")
_FORM = b"application/x-www-form-urlencoded"


def import_too_big(limit: int, history: bool = False) -> str:
    command = "memoryd import-history" if history else "memoryd import"
    return (
        f"import files are limited to {limit} bytes over HTTP (MEMORYD_MAX_IMPORT_BYTES);"
        f" import a larger one with `{command}` on the server"
    )


async def import_body(request: Request, limit: int, history: bool = False) -> AsyncIterator[bytes]:
    """An import's body, passed on unread by the edge, a chunk at a time: 413 once it is
    over ``limit`` (a chunked body, or one longer than it said)."""
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise ApiError(413, import_too_big(limit, history), headers=CLOSE)
        yield chunk


def _header(scope: Scope, wanted: bytes) -> bytes | None:
    return next((bytes(v) for name, v in scope.get("headers", []) if name == wanted), None)


def has_lone_surrogate(body: bytes) -> bool:
    # the regex only where such an escape may be: on megabytes it is slow
    if b"\\ud" not in body and b"\\uD" not in body:
        return False
    return any(m["low"] is not None or m["paired"] is None for m in _JSON_SURROGATE.finditer(body))


def is_utf8_encoded(encoded: bytes) -> bool:
    """Whether a path, query string or form body, percent escapes decoded, is UTF-8."""
    if encoded.isascii() and b"%" not in encoded:
        return True
    try:
        unquote_to_bytes(encoded).decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def has_nul(body: bytes, *, form: bool) -> bool:
    if b"\x00" in body or (form and b"%00" in body):
        return True
    # the regex only where the escape occurs at all: on megabytes it is slow
    return b"\\u0000" in body and _JSON_NUL.search(body) is not None


def body_problem(body: bytes, *, form: bool) -> tuple[str, str] | None:
    """Why a body (or a line of an import) is refused, as (message, code); None if it is not."""
    if has_nul(body, form=form):
        return "NUL characters are not allowed", "nul"
    if form and not is_utf8_encoded(body):
        return NOT_UTF8.format("form"), "not_utf8"
    if has_lone_surrogate(body):
        return LONE_SURROGATE, "lone_surrogate"
    return None


def timed(receive: Receive, seconds: float) -> Receive:
    """``receive`` that gives up on the body (ApiError 408) once it has taken ``seconds``;
    after the body, it waits as long as the app likes (for a disconnect, say)."""
    deadline = time.monotonic() + seconds
    done = False

    async def receive_in_time() -> Message:
        nonlocal done
        if done:
            return await receive()
        try:
            with anyio.fail_after(max(0.0, deadline - time.monotonic())):
                message = await receive()
        except TimeoutError:
            raise ApiError(408, BODY_TOO_SLOW.format(seconds), headers=CLOSE) from None
        done = message["type"] != "http.request" or not message.get("more_body", False)
        return message

    return receive_in_time


class EdgeGuard:
    """See the module docstring. ``refusal(scope)`` answers a write whose caller is not
    known (None: a known caller may send its body)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        max_bytes: int,
        refusal: Callable[[Scope], Awaitable[ASGIApp | None]],
        max_import_bytes: int | None = None,
        body_timeout_s: float = 60.0,
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.refusal = refusal
        self.max_import_bytes = max_bytes if max_import_bytes is None else max_import_bytes
        self.body_timeout_s = body_timeout_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope.get("path", "")
        docs = path in ("/docs", "/redoc", "/docs/oauth2-redirect")
        policy = (DOCS_CSP if docs else CSP).encode()
        too_big = "request bodies are limited to {} bytes"

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers += [h for h in SECURITY_HEADERS if h[0] not in present]
                if b"content-security-policy" not in present:
                    headers.append((b"content-security-policy", policy))
                message = {**message, "headers": headers}
            await send(message)

        if (
            "\x00" in path
            or b"%00" in scope.get("query_string", b"")
            or b"\x00" in scope.get("query_string", b"")
        ):
            await _refuse(send_with_headers, 400, "NUL characters are not allowed", "nul")
            return
        raw_path = scope.get("raw_path") or path.encode()
        if not (is_utf8_encoded(raw_path) and is_utf8_encoded(scope.get("query_string", b""))):
            await _refuse(send_with_headers, 400, NOT_UTF8.format("URL"), "not_utf8")
            return
        if scope.get("method", "GET") in SAFE_METHODS:
            await self.app(scope, receive, send_with_headers)
            return
        importing = scope.get("method") == "POST" and IMPORT_PATH.fullmatch(path) is not None
        limit = self.max_import_bytes if importing else ANONYMOUS_WRITES.get(path, self.max_bytes)
        if path not in ANONYMOUS_WRITES:
            answer = await self.refusal(scope)
            if answer is not None:  # the connection closes with the body unread
                await answer(scope, receive, _closing(send_with_headers))
                return
        receive = timed(receive, self.body_timeout_s)
        declared = _header(scope, b"content-length")
        try:
            oversize = declared is not None and not 0 <= int(declared) <= limit
        except ValueError:
            oversize = True
        if oversize:
            refusal = (
                import_too_big(limit, "history" in path) if importing else too_big.format(limit)
            )
            await _refuse(send_with_headers, 413, refusal)
            return
        if importing:  # streamed and checked by the route (see the module doc)
            await self.app(scope, receive, send_with_headers)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            try:
                message = await receive()
            except ApiError as exc:
                await _refuse(send_with_headers, 408, exc.message)
                return
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                await _refuse(send_with_headers, 413, too_big.format(limit))
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        del chunks
        form = (_header(scope, b"content-type") or b"").lower().startswith(_FORM)
        problem = body_problem(body, form=form)
        if problem is not None:
            await _refuse(send_with_headers, 400, *problem)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send_with_headers)


def _closing(send: Send) -> Send:
    """``send`` that ends the connection after the answer (its body stays unread)."""

    async def send_closing(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = [h for h in message.get("headers", []) if h[0].lower() != b"connection"]
            message = {**message, "headers": [*headers, (b"connection", b"close")]}
        await send(message)

    return send_closing


async def _refuse(send: Send, status: int, message: str, code: str | None = None) -> None:
    payload = json.dumps(error_body(ApiError(status, message).type, message, code))
    headers = [(b"content-type", b"application/json"), (b"connection", b"close")]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": payload.encode()})
