"""The server's own tables and queries on PostgreSQL: keys, sessions, passwords,
membership, the access rules, and deleting a user or a workspace cleaning up after them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import func, select

from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.storage.tables import api_keys, sessions, user_credentials, user_workspaces
from support.server import USER_PASSWORD, World, build_world, make_settings

pytestmark = pytest.mark.postgres


@pytest.fixture
def pg_world(tmp_path: Path, embedder: MiniLMEmbedder, migrated_pg_url: str) -> Iterator[World]:
    world = build_world(make_settings(tmp_path, database_url=migrated_pg_url), embedder)
    with world.client:
        yield world
    world.md.close()


def count(world: World, table: object) -> int:
    with world.md.db.read() as repo:
        return int(repo.conn.execute(select(func.count()).select_from(table)).scalar_one())  # type: ignore[arg-type]


def test_auth_and_access_rules_on_postgres(pg_world: World) -> None:
    world = pg_world
    assert world.md.db.dialect == "postgresql"
    bob = world.ids["bob"]
    secret = world.md.add_memory(bob, "Bob's private note", workspace="alpha")
    assert world.call("alice", "GET", f"/api/v1/memories/{secret.id}").status_code == 404
    assert world.call("alice", "DELETE", f"/api/v1/memories/{secret.id}").status_code == 404
    assert world.call("bob", "GET", "/api/v1/workspaces").json() == [
        {"slug": "alpha", "name": "Alpha"}
    ]
    session = world.auth.create_session(world.ids["alice"], 1)
    assert world.auth.session(session.token) is not None
    assert world.auth.authenticate("alice", USER_PASSWORD) is not None
    key = world.call("alice", "POST", "/api/v1/api-keys", json={"name": "pg"}).json()
    world.call("alice", "DELETE", f"/api/v1/api-keys/{key['id']}")
    assert world.client.get("/api/v1/me", headers={"X-API-Key": key["key"]}).status_code == 401


def test_deleting_a_user_or_workspace_cleans_up_on_postgres(pg_world: World) -> None:
    world = pg_world
    alice = world.ids["alice"]
    world.auth.create_session(alice, 1)
    before = (count(world, api_keys), count(world, sessions), count(world, user_credentials))
    assert world.call("admin", "DELETE", f"/api/v1/users/{alice}").status_code == 204
    after = (count(world, api_keys), count(world, sessions), count(world, user_credentials))
    assert after == (before[0] - 1, before[1] - 1, before[2] - 1)
    members = count(world, user_workspaces)
    assert world.call("admin", "DELETE", "/api/v1/workspaces/alpha").status_code == 204
    assert count(world, user_workspaces) == members - 1  # bob's membership of alpha
