"""REST API: memories of oneself and, for admins, of anyone; another user's memory is a 404."""

from __future__ import annotations

import pytest

from memoryd.domain.models import Scope
from support.server import World


def test_create_list_edit_promote_demote_delete_own_memory(world: World) -> None:
    created = world.call(
        "alice", "POST", "/api/v1/memories", json={"content": "Uses vim", "workspace": "alpha"}
    )
    assert created.status_code == 201, created.text
    memory = created.json()
    assert (memory["scope"], memory["workspace"], memory["content"]) == (
        "workspace",
        "alpha",
        "Uses vim",
    )
    listing = world.call("alice", "GET", "/api/v1/memories").json()
    assert [m["id"] for m in listing["memories"]] == [memory["id"]]
    assert {(s["scope"], s["workspace"]): (s["count"], s["limit"]) for s in listing["scopes"]} == {
        ("global", None): (0, 5),
        ("workspace", "alpha"): (1, 20),
        ("workspace", "beta"): (0, 20),
    }
    mid = memory["id"]
    edited = world.call(
        "alice", "PATCH", f"/api/v1/memories/{mid}", json={"content": "Uses neovim"}
    )
    assert edited.json()["content"] == "Uses neovim"
    promoted = world.call("alice", "POST", f"/api/v1/memories/{mid}/promote")
    assert (promoted.json()["scope"], promoted.json()["workspace"]) == ("global", None)
    demoted = world.call(
        "alice", "POST", f"/api/v1/memories/{mid}/demote", json={"workspace": "beta"}
    )
    assert (demoted.json()["scope"], demoted.json()["workspace"]) == ("workspace", "beta")
    history = world.call("alice", "GET", f"/api/v1/memories/{mid}/history").json()
    assert [h["action"] for h in history] == ["create", "update", "promote", "demote"]
    assert world.call("alice", "DELETE", f"/api/v1/memories/{mid}").status_code == 204
    assert world.call("alice", "GET", f"/api/v1/memories/{mid}").status_code == 404
    assert world.md.list_memories(world.ids["alice"]) == []


def test_list_filters_by_scope_and_workspace(world: World) -> None:
    alice = world.ids["alice"]
    world.md.add_memory(alice, "global one")
    world.md.add_memory(alice, "alpha one", workspace="alpha")
    world.md.add_memory(alice, "beta one", workspace="beta")
    by_scope = world.call("alice", "GET", "/api/v1/memories", params={"scope": "global"}).json()
    assert [m["content"] for m in by_scope["memories"]] == ["global one"]
    by_ws = world.call("alice", "GET", "/api/v1/memories", params={"workspace": "beta"}).json()
    assert [m["content"] for m in by_ws["memories"]] == ["beta one"]
    assert [(s["workspace"], s["count"]) for s in by_ws["scopes"]] == [("beta", 1)]


def test_full_scope_is_409_with_the_limit(world: World) -> None:
    alice = world.ids["alice"]
    for i in range(5):
        world.md.add_memory(alice, f"global fact {i}")
    refused = world.call("alice", "POST", "/api/v1/memories", json={"content": "one more"})
    assert refused.status_code == 409
    assert refused.json()["error"]["type"] == "scope_full"
    assert refused.json()["error"]["limit"] == 5
    listing = world.call("alice", "GET", "/api/v1/memories").json()
    assert listing["scopes"][0] == {
        "scope": "global",
        "workspace": None,
        "count": 5,
        "limit": 5,
        "full": True,
    }
    workspace_memory = world.md.add_memory(alice, "in alpha", workspace="alpha")
    promote = world.call("alice", "POST", f"/api/v1/memories/{workspace_memory.id}/promote")
    assert promote.status_code == 409
    assert world.md.get_memory(alice, workspace_memory.id).scope is Scope.WORKSPACE


def test_duplicate_is_409_and_bad_content_is_422(world: World) -> None:
    world.md.add_memory(world.ids["alice"], "Likes jazz")
    dup = world.call("alice", "POST", "/api/v1/memories", json={"content": "likes  JAZZ"})
    assert (dup.status_code, dup.json()["error"]["type"]) == (409, "duplicate_memory")
    bad = world.call("alice", "POST", "/api/v1/memories", json={"content": "## Heading"})
    assert (bad.status_code, bad.json()["error"]["type"]) == (422, "invalid_content")
    long = world.call("alice", "POST", "/api/v1/memories", json={"content": "x" * 501})
    assert long.status_code == 422


@pytest.mark.parametrize(
    ("method", "suffix", "body"),
    [
        ("GET", "", None),
        ("PATCH", "", {"content": "stolen"}),
        ("DELETE", "", None),
        ("POST", "/promote", None),
        ("POST", "/demote", {"workspace": "alpha"}),
        ("GET", "/history", None),
    ],
)
def test_another_users_memory_is_not_found(
    world: World, method: str, suffix: str, body: dict[str, str] | None
) -> None:
    bob = world.ids["bob"]
    global_memory = world.md.add_memory(bob, "Bob's secret plan")
    workspace_memory = world.md.add_memory(bob, "Bob's alpha note", workspace="alpha")
    target = global_memory if suffix != "/promote" else workspace_memory
    response = world.call("alice", method, f"/api/v1/memories/{target.id}{suffix}", json=body)
    assert response.status_code == 404, response.text
    assert "Bob" not in response.text
    assert world.md.get_memory(bob, target.id) == target
    assert [m.content for m in world.md.list_memories(bob)] == [
        "Bob's secret plan",
        "Bob's alpha note",
    ]


def test_default_user_cannot_use_a_workspace_they_do_not_belong_to(world: World) -> None:
    refused = world.call(
        "bob", "POST", "/api/v1/memories", json={"content": "x", "workspace": "beta"}
    )
    assert refused.status_code == 404
    assert world.call("bob", "GET", "/api/v1/memories?workspace=beta").status_code == 404
    mine = world.md.add_memory(world.ids["bob"], "global note")
    demote = world.call(
        "bob", "POST", f"/api/v1/memories/{mine.id}/demote", json={"workspace": "beta"}
    )
    assert demote.status_code == 404
    assert world.md.list_memories(world.ids["bob"]) == [mine]


def test_memories_in_a_workspace_left_behind_are_hidden(world: World) -> None:
    alice = world.ids["alice"]
    hidden = world.md.add_memory(alice, "beta detail", workspace="beta")
    world.auth.remove_member("beta", alice)
    listing = world.call("alice", "GET", "/api/v1/memories").json()
    assert listing["memories"] == []
    assert world.call("alice", "GET", f"/api/v1/memories/{hidden.id}").status_code == 404
    admin_view = world.call("admin", "GET", f"/api/v1/users/{alice}/memories").json()
    assert [m["id"] for m in admin_view["memories"]] == [hidden.id]


def test_admin_manages_any_users_memories_and_audit_names_the_admin(world: World) -> None:
    bob = world.ids["bob"]
    base = f"/api/v1/users/{bob}/memories"
    created = world.call("admin", "POST", base, json={"content": "Set by admin"})
    assert created.status_code == 201
    mid = created.json()["id"]
    assert world.call("admin", "GET", base).json()["memories"][0]["id"] == mid
    assert (
        world.call("admin", "PATCH", f"{base}/{mid}", json={"content": "Fixed"}).status_code == 200
    )
    assert world.call("admin", "DELETE", f"{base}/{mid}").status_code == 204
    actors = [e.actor for e in world.md.audit_log(bob, mid)]
    assert actors == [f"admin:{world.ids['admin']}"] * 3
    assert world.call("admin", "GET", "/api/v1/users/999/memories").status_code == 404


def test_default_user_cannot_use_admin_routes_for_others(world: World) -> None:
    bob = world.ids["bob"]
    world.md.add_memory(bob, "Bob's note")
    for method, path in (
        ("GET", f"/api/v1/users/{bob}/memories"),
        ("POST", f"/api/v1/users/{bob}/memories"),
        ("GET", f"/api/v1/users/{bob}/export"),
    ):
        response = world.call("alice", method, path, json={"content": "x"})
        assert response.status_code == 403, (method, path)
    assert len(world.md.list_memories(bob)) == 1
