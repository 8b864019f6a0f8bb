"""``GET /api/v1/users/overview`` reads every user at once: the same answer as asking the
library about each user in turn, in a number of SQL statements that does not grow with
the number of users -- on SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from memoryd.domain.models import Scope, User
from memoryd.models.embedding.minilm import MiniLMEmbedder
from support.server import World, build_world, make_settings


@pytest.fixture
def any_world(tmp_path: Path, embedder: MiniLMEmbedder, db_url: str) -> Iterator[World]:
    w = build_world(make_settings(tmp_path, database_url=db_url), embedder)
    with w.client:
        yield w
    w.md.close()


def one_by_one(world: World, user: User) -> dict[str, Any]:
    """What the overview says of one user, asked of the library one question at a time
    (the per-user reads the overview used to make)."""
    memories = world.md.list_memories(user.id)
    on_global = sum(1 for m in memories if m.scope is Scope.GLOBAL)
    return {
        "id": user.id,
        "name": user.name,
        "role": user.role.value,
        "global_memories": on_global,
        "workspace_memories": len(memories) - on_global,
        "workspaces": [w.slug for w in world.auth.workspaces_of(user)],
        "learn_from_chats": world.md.learns_from_chats(user.id),
        "memory_review": world.md.review_preference(user.id) or "default",
    }


def add_users(world: World, first: int, count: int) -> None:
    """Users with different memories, memberships, switches and review modes."""
    modes = [None, "off", "updates", "everything"]
    slugs = ["alpha", "beta", "gamma"]
    for n in range(first, first + count):
        user = world.md.create_user(f"user{n:02d}", "admin" if n % 7 == 3 else "default")
        for slug in slugs[: n % 4]:
            world.auth.add_member(slug, user.id)
        for k in range(n % 3):
            world.md.add_memory(user.id, f"user {n} fact {k} about tea number {k}")
        if n % 4:
            world.md.add_memory(user.id, f"user {n} works on alpha {n}", workspace="alpha")
        if n % 5 == 1:
            world.md.add_memory(
                user.id, f"user {n} demo day {n}", workspace="beta", expires_at="2099-01-01"
            )
        if n % 2:
            world.md.set_learning(user.id, False)
        world.md.set_review_preference(user.id, modes[n % 4])


def overview(world: World) -> list[dict[str, Any]]:
    response = world.call("admin", "GET", "/api/v1/users/overview")
    assert response.status_code == 200, response.text
    rows: list[dict[str, Any]] = response.json()
    return rows


def test_overview_matches_asking_about_each_user(any_world: World) -> None:
    add_users(any_world, 0, 9)
    rows = overview(any_world)
    expected = [one_by_one(any_world, u) for u in any_world.md.list_users()]
    assert rows == expected
    assert [r["id"] for r in rows] == sorted(r["id"] for r in rows)
    # the mix really is mixed: every switch, mode and count shape is there
    assert {r["memory_review"] for r in rows} == {"default", "off", "updates", "everything"}
    assert {r["learn_from_chats"] for r in rows} == {True, False}
    assert {r["role"] for r in rows} == {"admin", "default"}
    assert {r["global_memories"] for r in rows} >= {0, 1, 2}
    assert {len(r["workspaces"]) for r in rows} >= {0, 1, 2, 3}
    by_name = {r["name"]: r for r in rows}
    assert by_name["user01"] == {
        "id": by_name["user01"]["id"],
        "name": "user01",
        "role": "default",
        "global_memories": 1,
        "workspace_memories": 2,  # alpha, and one kept until 2099 in beta
        "workspaces": ["alpha"],
        "learn_from_chats": False,
        "memory_review": "off",
    }
    assert by_name["user03"]["workspaces"] == ["alpha", "beta", "gamma"]  # an admin: all


def test_overview_statements_do_not_grow_with_the_users(any_world: World) -> None:
    engine = any_world.md.db.engine
    sent: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        sent.append(statement)

    def statements() -> int:
        """The fewest statements of 3 requests: the listener sees the whole engine, and a
        statement of another thread once landed in one of them (7 vs 8 in a full run)."""
        overview(any_world)  # warms the per-process caches the request also reads
        counts = []
        for _ in range(3):
            sent.clear()
            event.listen(engine, "before_cursor_execute", count)
            try:
                rows = overview(any_world)
            finally:
                event.remove(engine, "before_cursor_execute", count)
            assert len(rows) == len(any_world.md.list_users())
            counts.append(len(sent))
        return min(counts)

    add_users(any_world, 0, 2)
    few = statements()
    add_users(any_world, 2, 14)
    assert statements() == few
    assert few <= 8, sent
