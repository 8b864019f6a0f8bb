"""Attack class: abusing import (items 2, 12, 13 and "also seen").

A flood of lines is refused before anything is embedded or written; a removed member
cannot reach their hidden memory through import; a default user cannot claim
``source: "admin"`` or a date in year 9999, or link another user's chats; workspace quota holds.
"""

from __future__ import annotations

import json
from typing import Any

from memoryd.domain.models import Scope
from memoryd.server.routers.transfer import MAX_IMPORT_LINES
from support.server import World

NDJSON = {"Content-Type": "application/x-ndjson"}


def line(n: int, **overrides: Any) -> str:
    record: dict[str, Any] = {
        "id": f"m{n}",
        "scope": "workspace",
        "workspace": "alpha",
        "content": f"Fact number {n} about the project",
        "source": "user",
        "created_at": "2026-01-01T00:00:00+00:00",
        "updated_at": "2026-01-01T00:00:00+00:00",
        "last_used_at": None,
        "source_chat_ids": [],
    }
    record.update(overrides)
    return json.dumps(record)


def post(world: World, who: str, lines: list[str]) -> Any:
    body = "\n".join(lines).encode()
    return world.call(who, "POST", "/api/v1/import", content=body, headers=NDJSON)


class CountingEmbedder:
    def __init__(self, world: World) -> None:
        self.calls = 0
        self.inner = world.md.embedder
        world.md._embedder = self  # type: ignore[attr-defined]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def embed(self, texts: Any) -> Any:
        self.calls += 1
        return self.inner.embed(texts)


def test_an_import_over_a_scope_limit_is_refused_before_embedding(world: World) -> None:
    counting = CountingEmbedder(world)
    over = world.md.limits.workspace_per_pair + 1
    response = post(world, "alice", [line(n) for n in range(over)])
    assert response.status_code == 409, response.text
    assert "nothing was imported" in response.json()["error"]["message"]
    assert counting.calls == 0
    assert world.md.list_memories(world.ids["alice"]) == []


def test_an_import_counts_stored_memories_before_embedding(world: World) -> None:
    for n in range(world.md.limits.workspace_per_pair):
        world.md.add_memory(world.ids["alice"], f"Stored fact {n}", Scope.WORKSPACE, "alpha")
    counting = CountingEmbedder(world)
    response = post(world, "alice", [line(999)])
    assert response.status_code == 409
    assert counting.calls == 0


def test_too_many_lines_are_refused_with_413(world: World) -> None:
    response = post(world, "alice", [line(n) for n in range(MAX_IMPORT_LINES + 1)])
    assert response.status_code == 413
    assert "at most" in response.json()["error"]["message"]


def test_a_default_user_cannot_claim_source_admin(world: World) -> None:
    response = post(world, "alice", [line(1, source="admin")])
    assert response.status_code == 422
    assert "source 'admin'" in response.json()["error"]["message"]
    admin = world.call("admin", "POST", f"/api/v1/users/{world.ids['alice']}/import",
                       content=line(1, source="admin").encode(), headers=NDJSON)  # fmt: skip
    assert admin.status_code == 200, admin.text


def test_another_users_chat_ids_are_dropped_like_ids_never_given(world: World) -> None:
    """Refusing them would tell alice whose a chat id is; an id this server never gave (an
    export from another server) is dropped too: a chat recorded here later would take it."""
    chat = world.md.record_chat(world.ids["bob"], "alpha", "hello", "hi")
    own = world.md.record_chat(world.ids["alice"], "alpha", "mine", "ok")
    ids = [chat.id, own.id, 987654]
    response = post(world, "alice", [line(1, source_chat_ids=ids)])
    assert response.status_code == 200, response.text
    [memory] = world.md.list_memories(world.ids["alice"])
    assert memory.source_chat_ids == (own.id,)
    assert post(world, "alice", [line(2, source_chat_ids=[987654])]).status_code == 200
    memory = next(m for m in world.md.list_memories(world.ids["alice"]) if m.id != memory.id)
    assert memory.source_chat_ids == ()


def test_absurd_dates_are_refused(world: World) -> None:
    for field in ("created_at", "updated_at", "last_used_at"):
        response = post(world, "alice", [line(1, **{field: "9999-01-01T00:00:00+00:00"})])
        assert response.status_code == 422, field
        assert "not a plausible time" in response.json()["error"]["message"]


def test_a_removed_member_cannot_rewrite_or_detect_their_hidden_memory(world: World) -> None:
    alice = world.ids["alice"]
    hidden = world.md.add_memory(alice, "Beta secret plan", Scope.WORKSPACE, "beta")
    world.auth.remove_member("beta", alice)
    response = post(world, "alice", [line(1, id=hidden.id, content="Rewritten")])
    assert response.status_code == 200, response.text
    assert response.json()["created"] == 1 and response.json()["updated"] == 0
    kept = world.md.get_memory(alice, hidden.id)
    assert kept.content == "Beta secret plan" and kept.workspace == "beta"


def test_workspace_quota_holds_for_create_and_import(world: World) -> None:
    world.call("admin", "PATCH", "/api/v1/settings", json={"max_workspaces_per_user": 3})
    # alice belongs to alpha and beta: one more is allowed, then no more
    ok = world.call("alice", "POST", "/api/v1/workspaces", json={"slug": "mine"})
    assert ok.status_code == 201, ok.text
    refused = world.call("alice", "POST", "/api/v1/workspaces", json={"slug": "another"})
    assert refused.status_code == 403
    assert "max_workspaces_per_user" in refused.json()["error"]["message"]
    imported = post(world, "alice", [line(1, workspace="brand-new")])
    assert imported.status_code == 403
    admin = world.call("admin", "POST", "/api/v1/workspaces", json={"slug": "adm"})
    assert admin.status_code == 201
