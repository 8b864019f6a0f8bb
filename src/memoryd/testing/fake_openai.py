"""A scripted, OpenAI-compatible HTTP server for tests.

memoryd talks to LLMs over HTTP, and most of the ways that goes wrong -- a
model answering prose where JSON was asked for, a 500 or 429 from the
provider, a reply that arrives after the client's timeout, a stream cut into
chunks -- only show up on the wire.  Mocking the client library hides exactly
those failure modes, so memoryd ships this small server (much as httpx ships
``MockTransport``): it listens on loopback, speaks enough of the OpenAI Chat
Completions API (and Anthropic's Messages API) for the official clients to
work against it unmodified, and answers each request with the next reply a
test has scripted, streamed or not (the Anthropic shapes are in
``fake_anthropic``).  memoryd's own tests use it, and so can the tests of
applications built on memoryd.

Example::

    from memoryd.testing import FakeOpenAIServer, Reply

    with FakeOpenAIServer() as srv:
        srv.script(Reply.json({"facts": []}), Reply.error(500, "boom"))
        client = openai.OpenAI(base_url=srv.base_url, api_key="x", max_retries=0)
        ...
        assert srv.requests[0]["model"] == "gpt-4o-mini"

Standard library only, so it can be imported wherever memoryd is installed.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from memoryd.testing import fake_anthropic
from memoryd.testing.replies import (
    FAKE_MODEL_ID,
    RecordedRequest,
    Reply,
    Responder,
    default_error_type,
    estimate_tokens,
    prompt_text,
    split_text,
)

__all__ = ["FakeOpenAIServer", "RecordedRequest", "Reply", "Responder"]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    owner: FakeOpenAIServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients hanging up mid-reply (timeouts, cancelled streams) are an
        # expected part of the tests this server exists for: stay quiet.
        return


class _Handler(BaseHTTPRequestHandler):
    disable_nagle_algorithm = True  # or kept-alive replies stall ~40 ms on delayed ACKs
    server: _Server
    protocol_version = "HTTP/1.1"
    server_version = "memoryd-fake-openai/1"
    sys_version = ""

    # -- plumbing ---------------------------------------------------------

    def setup(self) -> None:
        super().setup()
        self.server.owner._track(self.connection, add=True)

    def finish(self) -> None:
        try:
            super().finish()
        except OSError:
            pass
        finally:
            self.server.owner._track(self.connection, add=False)

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _send_json(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _headers(self) -> dict[str, str]:
        return {name.lower(): value for name, value in self.headers.items()}

    def _read_body(self) -> dict[str, Any] | None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not raw.strip():
            return {}
        try:
            body = json.loads(raw)
        except ValueError:
            return None
        return body if isinstance(body, dict) else None

    def _route(self) -> str:
        return self.path.split("?", 1)[0].rstrip("/") or "/"

    def _guard(self, fn: Callable[[], None]) -> None:
        try:
            fn()
        except OSError:  # client hung up (timeout, cancelled stream) or server stopping
            self.close_connection = True

    # -- HTTP verbs -------------------------------------------------------

    def do_GET(self) -> None:
        self._guard(self._get)

    def do_POST(self) -> None:
        self._guard(self._post)

    def do_DELETE(self) -> None:
        self._guard(self._not_found)

    do_PUT = do_DELETE

    def _get(self) -> None:
        owner = self.server.owner
        route = self._route()
        owner._record(RecordedRequest("GET", route, self._headers(), {}))
        owner._sleep(owner.latency)
        if route == "/v1/models":
            model = {
                "id": FAKE_MODEL_ID,
                "object": "model",
                "created": 0,
                "owned_by": "memoryd-fake",
            }
            self._send_json(200, {"object": "list", "data": [model]})
        else:
            self._not_found(route)

    def _not_found(self, route: str | None = None) -> None:
        message = f"Unknown path {self.command} {route or self._route()}"
        self._send_json(404, _error(message, "not_found_error", "unknown_url"))

    def _post(self) -> None:
        owner = self.server.owner
        route = self._route()
        body = self._read_body()
        if body is None:
            self.close_connection = True
            message = "Request body is not a JSON object"
            self._send_json(400, _error(message, "invalid_request_error", None))
            return
        request = RecordedRequest("POST", route, self._headers(), body)
        owner._record(request)
        if route not in ("/v1/chat/completions", "/v1/messages"):
            owner._sleep(owner.latency)
            self._not_found(route)
            return

        reply = owner._next_reply(request)
        if not owner._sleep(owner.latency + reply.delay_seconds):
            self.close_connection = True  # server is stopping
            return
        anthropic = route == "/v1/messages"
        if reply.kind == "error":
            self._send_error_reply(reply, anthropic=anthropic)
        elif anthropic:
            self._send_anthropic(body, reply)
        elif body.get("stream") is True:
            self._send_stream(body, reply)
        else:
            self._send_completion(body, reply)

    # -- replies ----------------------------------------------------------

    def _send_error_reply(self, reply: Reply, *, anthropic: bool) -> None:
        err_type = reply.error_type or default_error_type(reply.status)
        headers: dict[str, str] = {}
        if reply.retry_after is not None:
            headers["Retry-After"] = f"{reply.retry_after:g}"
        obj = (
            {"type": "error", "error": {"type": err_type, "message": reply.message}}
            if anthropic
            else _error(reply.message, err_type, reply.error_code)
        )
        self._send_json(reply.status, obj, headers)

    @staticmethod
    def _usage(body: dict[str, Any], reply: Reply) -> tuple[int, int]:
        if reply.usage is not None:
            return reply.usage
        return estimate_tokens(prompt_text(body)), estimate_tokens(reply.content)

    @classmethod
    def _usage_object(cls, body: dict[str, Any], reply: Reply) -> dict[str, int]:
        prompt_tokens, completion_tokens = cls._usage(body, reply)
        return {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        }

    def _send_completion(self, body: dict[str, Any], reply: Reply) -> None:
        self._send_json(
            200,
            {
                "id": self.server.owner._new_id("chatcmpl"),
                "object": "chat.completion",
                "created": int(time.time()),
                "model": str(body.get("model") or FAKE_MODEL_ID),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": reply.content},
                        "logprobs": None,
                        "finish_reason": reply.finish_reason,
                    }
                ],
                "usage": self._usage_object(body, reply),
            },
        )

    def _send_stream(self, body: dict[str, Any], reply: Reply) -> None:
        completion_id = self.server.owner._new_id("chatcmpl")
        created = int(time.time())
        model = str(body.get("model") or FAKE_MODEL_ID)

        def chunk(delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
            return {
                "id": completion_id,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [
                    {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
                ],
            }

        def events() -> Iterator[dict[str, Any]]:
            yield chunk({"role": "assistant", "content": ""}, None)
            for piece in split_text(reply.content):
                yield chunk({"content": piece}, None)
            yield chunk({}, reply.finish_reason)
            options = body.get("stream_options")
            if isinstance(options, dict) and options.get("include_usage"):
                yield {**chunk({}, None), "choices": [], "usage": self._usage_object(body, reply)}

        encoded = (f"data: {json.dumps(event)}\n\n".encode() for event in events())
        if self._send_events(encoded, reply.chunk_pause_seconds):
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()

    def _send_events(self, events: Iterator[bytes], pause: float) -> bool:
        """Send a 200 event stream, ``pause`` seconds before each event after the first;
        False if the server began stopping midway."""
        # No Content-Length: the stream ends when the connection closes.
        self.close_connection = True
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.flush()
        for index, event in enumerate(events):
            if pause and index and not self.server.owner._sleep(pause):
                return False
            self.wfile.write(event)
            self.wfile.flush()
        return True

    def _send_anthropic(self, body: dict[str, Any], reply: Reply) -> None:
        message_id = self.server.owner._new_id("msg")
        usage = self._usage(body, reply)
        if body.get("stream") is not True:
            self._send_json(200, fake_anthropic.message_object(body, reply, message_id, usage))
            return
        events = fake_anthropic.stream_events(body, reply, message_id, usage)
        encoded = (f"event: {name}\ndata: {json.dumps(data)}\n\n".encode() for name, data in events)
        self._send_events(encoded, reply.chunk_pause_seconds)


def _error(message: str, error_type: str, code: str | None) -> dict[str, Any]:
    """An OpenAI-style error body."""
    return {"error": {"message": message, "type": error_type, "code": code}}


class FakeOpenAIServer:
    """A scripted OpenAI-compatible server on ``127.0.0.1`` in a daemon thread.

    Use it as a context manager (or call :meth:`start` / :meth:`stop`).
    Replies come from, in order of precedence: :attr:`responder` if set, the
    queue filled by :meth:`script`, then :attr:`default`.  Every request is
    appended to :attr:`requests`.  :attr:`latency` adds a fixed delay to every
    request.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self._host = host
        self._port = port
        self._lock = threading.Lock()
        self._queue: deque[Reply] = deque()
        self._requests: list[RecordedRequest] = []
        self._connections: set[socket.socket] = set()
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._counter = 0
        self.default: Reply = Reply.error(500, "no scripted reply left")
        self.responder: Responder | None = None
        self.latency: float = 0.0

    # -- lifecycle --------------------------------------------------------

    def start(self) -> FakeOpenAIServer:
        """Bind and start serving; returns self.  Idempotent."""
        if self._server is not None:
            return self
        self._stopping.clear()
        server = _Server((self._host, self._port), _Handler)
        server.owner = self
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"fake-openai:{server.server_address[1]}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, wake delayed replies and drop open connections."""
        server, self._server = self._server, None
        if server is None:
            return
        self._stopping.set()
        server.shutdown()
        server.server_close()
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # -- public API -------------------------------------------------------

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("FakeOpenAIServer is not running; call start()")
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1`` -- pass it as the client's base_url."""
        return f"http://{self._host}:{self.port}/v1"

    def script(self, *replies: Reply) -> None:
        """Queue replies; each chat/messages request consumes the next one."""
        with self._lock:
            self._queue.extend(replies)

    @property
    def pending(self) -> int:
        """How many scripted replies have not been consumed yet."""
        with self._lock:
            return len(self._queue)

    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot of every request received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    def reset(self) -> None:
        """Forget recorded requests and unconsumed scripted replies."""
        with self._lock:
            self._queue.clear()
            self._requests.clear()

    # -- used by the handler ---------------------------------------------

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def _next_reply(self, request: RecordedRequest) -> Reply:
        responder = self.responder
        if responder is not None:
            try:
                return responder(request)
            except Exception as exc:  # surface test bugs as a 500, not a hang
                return Reply.error(500, f"responder raised {type(exc).__name__}: {exc}")
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        return self.default

    def _sleep(self, seconds: float) -> bool:
        """Sleep unless the server stops first; False if it is stopping."""
        if seconds > 0:
            return not self._stopping.wait(seconds)
        return not self._stopping.is_set()

    def _new_id(self, prefix: str) -> str:
        with self._lock:
            self._counter += 1
            return f"{prefix}-fake{self._counter:06d}"

    def _track(self, conn: socket.socket, *, add: bool) -> None:
        with self._lock:
            if add:
                self._connections.add(conn)
            else:
                self._connections.discard(conn)
