"""An upstream LLM that answers with bytes a test writes by hand, for what the scripted
``FakeOpenAIServer`` cannot send: a stream cut inside a chunk, a connection reset, a
status that is no answer (302, 999), a 200 whose body is not JSON.

``RawUpstream.reply(*parts)`` sets what every request gets: each part is bytes to send
or a float of seconds to wait; then the connection is closed (reset with ``reset=True``).
``base_url`` is what the proxy's ``proxy_upstream_url`` takes. Helpers build the usual
pieces: ``sse_head()``, ``chunk()``, ``event()``.
"""

from __future__ import annotations

import contextlib
import json
import socket
import struct
import threading
import time


def sse_head() -> bytes:
    """A 200 event stream sent in chunked encoding (as real servers stream)."""
    return (
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
    )


def chunk(data: bytes) -> bytes:
    """One chunk of a chunked body."""
    return b"%x\r\n%s\r\n" % (len(data), data)


def event(text: str) -> bytes:
    """One ``chat.completion.chunk`` event carrying ``text``."""
    delta = {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}
    return f"data: {json.dumps(delta)}\n\n".encode()


def response(status_line: str, body: bytes, content_type: str = "application/json") -> bytes:
    """A whole non-streamed answer."""
    head = (
        f"HTTP/1.1 {status_line}\r\ncontent-type: {content_type}\r\n"
        f"content-length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


class RawUpstream:
    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._parts: tuple[bytes | float, ...] = ()
        self._reset = False
        self.requests = 0
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def reply(self, *parts: bytes | float, reset: bool = False) -> None:
        self._parts, self._reset = parts, reset

    def close(self) -> None:
        self._listener.close()

    def __enter__(self) -> RawUpstream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        parts, reset = self._parts, self._reset
        with conn:
            if not self._read_request(conn):
                return
            self.requests += 1
            for part in parts:
                if isinstance(part, float):
                    time.sleep(part)
                    continue
                try:
                    conn.sendall(part)
                except OSError:
                    return
            if reset:  # linger 0: close sends a RST, not a FIN
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))

    @staticmethod
    def _read_request(conn: socket.socket) -> bool:
        data = b""
        with contextlib.suppress(OSError):
            while b"\r\n\r\n" not in data:
                got = conn.recv(65536)
                if not got:
                    return False
                data += got
            head, _, body = data.partition(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            while len(body) < length:
                got = conn.recv(65536)
                if not got:
                    return False
                body += got
            return True
        return False
