"""REST administration of users, workspaces and members: what the admin panel does,
through the API, with the refusals an admin must get as clear 4xx answers (the last
admin kept, nobody deleting themselves, a missing member or workspace).
"""

from __future__ import annotations

from typing import Any

from support.server import World


def message(response: Any) -> str:
    return str(response.json()["error"]["message"])


def test_roles_change_but_the_last_admin_stays_and_nobody_deletes_themselves(
    world: World,
) -> None:
    admin = world.ids["admin"]
    carol = world.call(
        "admin", "POST", "/api/v1/users", json={"name": "carol", "role": "admin"}
    ).json()
    world.keys["carol"] = world.auth.create_api_key(carol["id"], "carol").secret

    itself = world.call("admin", "DELETE", f"/api/v1/users/{admin}")
    assert itself.status_code == 409 and "cannot delete yourself" in message(itself)
    # with two admins, one can step down, and then the other is the last
    assert (
        world.call("carol", "PATCH", f"/api/v1/users/{admin}", json={"role": "default"}).json()[
            "role"
        ]
        == "default"
    )
    last = world.call("carol", "PATCH", f"/api/v1/users/{carol['id']}", json={"role": "default"})
    assert last.status_code == 409 and "carol is the last admin" in message(last)
    assert world.call("carol", "DELETE", f"/api/v1/users/{admin}").status_code == 204
    assert [u.name for u in world.md.list_users() if u.role.value == "admin"] == ["carol"]
    bad = world.call("carol", "PATCH", f"/api/v1/users/{world.ids['bob']}", json={"role": "root"})
    assert bad.status_code == 422


def test_password_reset_by_an_admin_signs_the_user_out(world: World) -> None:
    bob = world.ids["bob"]
    session = world.auth.create_session(bob, 1)
    short = world.call("admin", "PATCH", f"/api/v1/users/{bob}", json={"password": "short"})
    assert short.status_code == 422 and world.auth.session(session.token) is not None
    reset = world.call("admin", "PATCH", f"/api/v1/users/{bob}", json={"password": "fresh-pass-77"})
    assert reset.status_code == 200
    assert world.auth.session(session.token) is None
    assert world.auth.authenticate("bob", "fresh-pass-77") is not None


def test_members_and_workspaces_removed_with_clear_errors(world: World) -> None:
    bob = world.ids["bob"]
    world.md.add_memory(bob, "Beta is not Bob's", workspace="alpha")
    not_member = world.call("admin", "DELETE", f"/api/v1/workspaces/beta/members/{bob}")
    assert not_member.status_code == 404 and "not a member of workspace 'beta'" in message(
        not_member
    )
    refused = world.call("bob", "DELETE", f"/api/v1/workspaces/alpha/members/{bob}")
    assert refused.status_code == 403
    assert (
        world.call("admin", "DELETE", f"/api/v1/workspaces/alpha/members/{bob}").status_code == 204
    )
    assert world.call("bob", "GET", "/api/v1/workspaces/alpha").status_code == 404
    missing = world.call("admin", "DELETE", "/api/v1/workspaces/nowhere")
    assert missing.status_code == 404 and "nowhere" in message(missing)
    assert world.call("admin", "DELETE", "/api/v1/workspaces/alpha").status_code == 204
    assert world.md.list_memories(bob) == []
    assert "alpha" not in [w.slug for w in world.md.list_workspaces()]


def test_users_overview_counts_memories_and_lists_workspaces(world: World) -> None:
    alice = world.ids["alice"]
    world.md.add_memory(alice, "Alice likes tea")
    world.md.add_memory(alice, "Alpha uses Go", workspace="alpha")
    world.md.add_memory(alice, "Beta uses Rust", workspace="beta")
    world.md.set_learning(world.ids["bob"], False)
    world.md.set_review_preference(world.ids["bob"], "everything")
    rows = {r["name"]: r for r in world.call("admin", "GET", "/api/v1/users/overview").json()}
    assert rows["alice"] == {
        "id": alice,
        "name": "alice",
        "role": "default",
        "global_memories": 1,
        "workspace_memories": 2,
        "workspaces": ["alpha", "beta"],
        "learn_from_chats": True,
        "memory_review": "default",
    }
    assert rows["bob"]["workspaces"] == ["alpha"] and rows["bob"]["global_memories"] == 0
    assert rows["bob"]["learn_from_chats"] is False  # the admin sees the user's switch
    assert rows["bob"]["memory_review"] == "everything"  # and their own review mode
    assert rows["admin"]["workspaces"] == ["alpha", "beta", "gamma"]  # an admin uses all
    assert world.call("alice", "GET", "/api/v1/users/overview").status_code == 403
