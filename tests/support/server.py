"""The server tests' world: an app over a fresh database with an admin, two default
users, three workspaces and API keys, built in one call (fixtures in tests/server/conftest.py).

The users' memberships are seeded as rows, as in a database from before membership changes
were audited, so each user's audit log starts empty and the audit tests read only what
they do; the entries that changes of membership write are tested in
tests/core/test_membership_audit.py and tests/server/routers/test_membership_audit_api.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from argon2 import PasswordHasher
from fastapi import FastAPI
from fastapi.testclient import TestClient

from memoryd import Memoryd
from memoryd.access.credentials import AuthStore
from memoryd.config import MemorydSettings
from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.server.app import create_app, first_start
from memoryd.storage.membership import join, workspace_id_of
from support.databases import at_head

# Argon2id with the smallest cost: the algorithm is the same, the tests stay fast.
FAST_HASHER = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
ADMIN_PASSWORD = "admin-password-1"
USER_PASSWORD = "user-password-1"


@dataclass
class World:
    """The app and who is in it. ``headers(name)`` authenticates as that user."""

    app: FastAPI
    md: Memoryd
    auth: AuthStore
    client: TestClient
    ids: dict[str, int] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)

    def headers(self, who: str | None) -> dict[str, str]:
        return {} if who is None else {"Authorization": f"Bearer {self.keys[who]}"}

    def call(self, who: str | None, method: str, path: str, **kwargs: Any) -> Any:
        headers = {**self.headers(who), **kwargs.pop("headers", {})}
        return self.client.request(method, path, headers=headers, **kwargs)


def make_settings(tmp_path: Path, **overrides: Any) -> MemorydSettings:
    values: dict[str, Any] = {
        "data_dir": tmp_path,
        "database_url": f"sqlite:///{tmp_path / 'server.db'}",
        "admin_password": ADMIN_PASSWORD,
        "proxy_provider": "openai",
        "proxy_upstream_url": "http://127.0.0.1:9/v1",
        "reranker": "hybrid",
        # no questions pass after Run now: its LLM calls are the subject of few tests,
        # and the default LLM (the bundled model) is no test's; those tests pass a budget
        "question_memories_per_run": 0,
    }
    values.update(overrides)
    return MemorydSettings(**values)


def seed_memberships(md: Memoryd, user_id: int, slugs: tuple[str, ...]) -> None:
    """Make the user a member of these workspaces without audit entries (see the module
    doc); everything else adds members through ``memoryd.app.memberships``."""
    with md.db.write() as repo:
        for slug in slugs:
            join(repo.conn, user_id, workspace_id_of(repo.conn, slug), md.clock())


def build_world(settings: MemorydSettings, embedder: MiniLMEmbedder) -> World:
    at_head(settings.resolved_database_url())  # a new SQLite file starts as a migrated copy
    md = Memoryd(settings=settings, embedder=embedder)
    auth = AuthStore(md.db, clock=md.clock, hasher=FAST_HASHER, catalog=md.catalog)
    first_start(md, auth, settings)
    app = create_app(md, settings, auth=auth)
    world = World(app=app, md=md, auth=auth, client=TestClient(app))
    world.ids["admin"] = md.get_user("admin").id
    for slug in ("alpha", "beta", "gamma"):
        md.create_workspace(slug, slug.title())
    for name, spaces in (("alice", ("alpha", "beta")), ("bob", ("alpha",))):
        user = md.create_user(name)
        auth.set_password(user.id, USER_PASSWORD)
        seed_memberships(md, user.id, spaces)
        world.ids[name] = user.id
    for name, user_id in world.ids.items():
        world.keys[name] = auth.create_api_key(user_id, f"{name} tests").secret
    return world
