"""A stand-in for a memoryd server newer than the client under test: a tiny HTTP server on
loopback that answers the client's read requests with canned JSON in the REST API's
shapes, where some enum values are ones this client has never heard of (a role
``auditor``, a memory source ``sync``, an audit action ``change_quota``, a suggestion of
kind ``merge`` with status ``snoozed``) next to values it knows.

``with NewerServer() as server: MemorydClient(server.url, "mdk_any")``; every request is
answered as if the key were alice's (id 1); an unknown path is a 404 in the API's error
shape.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

AT = "2026-12-01T10:00:00+00:00"
ALICE = {"id": 1, "name": "alice", "role": "auditor"}
USERS = [ALICE, {"id": 2, "name": "bob", "role": "default"}]


def memory(memory_id: str, source: str, content: str) -> dict[str, Any]:
    return {
        "id": memory_id,
        "user_id": 1,
        "scope": "global",
        "workspace": None,
        "content": content,
        "source": source,
        "created_at": AT,
        "updated_at": AT,
        "last_used_at": None,
        "source_chat_ids": [],
        "expires_at": None,
        "run_id": None,
        "topics": None,
    }


MEMORIES = [
    memory("m-new", "sync", "Came from a newer kind of source"),
    memory("m-old", "user", "Typed by hand"),
]


def entry(entry_id: int, action: str, before: Any, after: Any) -> dict[str, Any]:
    return {
        "id": entry_id,
        "memory_id": "",
        "action": action,
        "actor": "admin:9",
        "at": AT,
        "before": before,
        "after": after,
    }


AUDIT = [  # newest first, as the API pages them
    entry(3, "change_quota", {"quota": 100}, {"quota": 200}),
    entry(
        2,
        "change_setting",
        {"setting": "language", "workspace": None, "value": "en"},
        {"setting": "language", "workspace": None, "value": "de"},
    ),
    {**entry(1, "create", None, {"content": "Typed by hand"}), "memory_id": "m-old"},
]


def suggestion(suggestion_id: str, kind: str, status: str) -> dict[str, Any]:
    return {
        "id": suggestion_id,
        "user_id": 1,
        "kind": kind,
        "scope": "global",
        "workspace": None,
        "content": "Likes jazz and blues",
        "created_at": AT,
        "status": status,
        "target_id": None,
        "target_content": None,
        "expires_at": None,
        "source_chat_ids": [],
        "run_id": None,
        "decided_at": None,
        "memory_id": None,
    }


SUGGESTIONS = [suggestion("s-new", "merge", "snoozed"), suggestion("s-old", "create", "pending")]
DETAIL = {
    **MEMORIES[0],
    "expired": False,
    "created_by": "sync:1",
    "source_chats": [],
    "history": [AUDIT[0], AUDIT[2]],
}
CONTEXT = {
    "memories": [{**MEMORIES[0], "score": 0.9}, {**MEMORIES[1], "score": 0.5}],
    "enabled": True,
    "reranker": "newest-model",
    "fallback_reason": None,
}
ANSWERS: dict[tuple[str, str], Any] = {
    ("GET", "/api/v1/me"): ALICE,
    ("GET", "/api/v1/users"): USERS,
    ("GET", "/api/v1/users/2"): USERS[1],
    ("GET", "/api/v1/memories"): {"memories": MEMORIES},
    ("GET", "/api/v1/memories/m-new"): DETAIL,
    ("GET", "/api/v1/audit"): AUDIT,
    ("GET", "/api/v1/suggestions"): SUGGESTIONS,
    ("POST", "/api/v1/context"): CONTEXT,
}


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: the tests read the answers, not the log

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        found = ANSWERS.get((self.command, urlsplit(self.path).path))
        status = 200 if found is not None else 404
        if found is None:
            found = {"error": {"type": "not_found", "message": f"no {self.path} here"}}
        body = json.dumps(found).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _answer


class NewerServer:
    """The server on a free loopback port for the duration of a ``with`` block."""

    def __init__(self) -> None:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> NewerServer:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
