"""A real ``memoryd serve`` app on a free loopback port, for tests of HTTP clients.

``LiveMemoryd`` runs the full app (REST API, proxy, MCP at ``/mcp``) under uvicorn in a
thread, over a database you choose, with a small world in it: workspaces ``alpha`` and
``beta``, an admin, ``alice`` (member of both) and ``bob`` (member of ``alpha``), each
with an API key. The MCP, client and integration tests share it; your tests can too.
Needs the ``server`` extra.
"""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import uvicorn
from argon2 import PasswordHasher

from memoryd.access.credentials import AuthStore
from memoryd.app.service import Memoryd
from memoryd.config import MemorydSettings
from memoryd.models.embedding.base import Embedder
from memoryd.server.app import create_app, first_start

# Argon2id at its smallest cost: the same algorithm, fast tests.
FAST_HASHER = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LiveServer:
    """uvicorn serving an ASGI app on a free loopback port, in a thread:
    ``with LiveServer(app) as live:`` then ``live.url``."""

    def __init__(self, app: Any) -> None:
        self.port = free_port()
        config = uvicorn.Config(
            app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="on"
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


@dataclass
class LiveMemoryd:
    """``with LiveMemoryd(tmp_path, embedder) as live:`` then ``live.url``, ``live.keys``."""

    data_dir: Path
    embedder: Embedder | None = None
    database_url: str | None = None
    settings_overrides: dict[str, Any] = field(default_factory=dict)
    ids: dict[str, int] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        values: dict[str, Any] = {
            "data_dir": self.data_dir,
            "database_url": self.database_url or f"sqlite:///{self.data_dir / 'live.db'}",
            "admin_password": "admin-password-1",
            "proxy_provider": "openai",
            "proxy_upstream_url": "http://127.0.0.1:9/v1",
            **self.settings_overrides,
        }
        self.settings = MemorydSettings(**values)
        self.md = Memoryd(settings=self.settings, embedder=self.embedder)
        self.auth = AuthStore(self.md.db, clock=self.md.clock, hasher=FAST_HASHER)
        first_start(self.md, self.auth, self.settings)
        self.ids["admin"] = self.md.get_user("admin").id
        for slug in ("alpha", "beta"):
            self.md.create_workspace(slug, slug.title())
        for name, spaces in (("alice", ("alpha", "beta")), ("bob", ("alpha",))):
            user = self.md.create_user(name)
            for slug in spaces:
                self.auth.add_member(slug, user.id)
            self.ids[name] = user.id
        for name, user_id in self.ids.items():
            self.keys[name] = self.auth.create_api_key(user_id, f"{name} tests").secret
        self.app = create_app(self.md, self.settings, auth=self.auth)
        self.live = LiveServer(self.app)
        self.port = self.live.port

    @property
    def url(self) -> str:
        return self.live.url

    def headers(self, who: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.keys[who]}"}

    def __enter__(self) -> LiveMemoryd:
        self.live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.live.__exit__(*exc)
        self.md.close()
