"""A TCP proxy on loopback that a test can cut and restore, to make a database vanish.

Clients connect to ``proxy.port``; bytes are copied both ways to the real server. While
``cut()`` is in force every open connection is reset and new ones are closed at once, as
if the database host went away; ``restore()`` lets connections through again. The real
server (shared with other tests) is never touched.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
from collections.abc import Iterator


class TcpProxy:
    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(128)
        self.port: int = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self._open = True
        self._closed = False
        self._sockets: set[socket.socket] = set()
        self.connections = 0
        self._thread = threading.Thread(target=self._accept_loop, daemon=True)
        self._thread.start()

    def cut(self) -> None:
        """Reset every connection and refuse new ones until ``restore()``."""
        with self._lock:
            self._open = False
            victims = list(self._sockets)
            self._sockets.clear()
        for sock in victims:
            _reset(sock)

    def restore(self) -> None:
        with self._lock:
            self._open = True

    @contextlib.contextmanager
    def outage(self) -> Iterator[None]:
        self.cut()
        try:
            yield
        finally:
            self.restore()

    def close(self) -> None:
        self._closed = True
        self.cut()
        with contextlib.suppress(OSError):
            self._listener.close()

    def _accept_loop(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            with self._lock:
                allowed = self._open
            if not allowed:
                _reset(client)
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
                upstream.settimeout(None)
            except OSError:
                _reset(client)
                continue
            with self._lock:
                if not self._open:
                    _reset(client)
                    _reset(upstream)
                    continue
                self._sockets.update((client, upstream))
                self.connections += 1
            for src, dst in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(src, dst), daemon=True).start()

    def _pipe(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        finally:
            with self._lock:
                self._sockets.discard(src)
                self._sockets.discard(dst)
            _reset(src)
            _reset(dst)


def _reset(sock: socket.socket) -> None:
    """End a connection at once: wake its reader, then close with RST (SO_LINGER 0)."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(OSError):
        sock.close()
