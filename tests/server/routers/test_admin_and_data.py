"""REST API: users, workspaces and members, settings, chats, context, export/import."""

from __future__ import annotations

import json

from memoryd.domain.injection import SECTION_HEADING
from support.server import World


def test_admin_creates_user_with_password_and_workspaces(world: World) -> None:
    created = world.call(
        "admin",
        "POST",
        "/api/v1/users",
        json={"name": "carol", "password": "carol-password", "workspaces": ["gamma"]},
    )
    assert created.status_code == 201
    carol = created.json()
    assert carol["role"] == "default"
    assert world.auth.authenticate("carol", "carol-password") is not None
    assert [u.name for u in world.auth.members("gamma")] == ["carol"]
    assert world.call("admin", "GET", f"/api/v1/users/{carol['id']}/workspaces").json() == [
        {"slug": "gamma", "name": "Gamma"}
    ]
    promoted = world.call("admin", "PATCH", f"/api/v1/users/{carol['id']}", json={"role": "admin"})
    assert promoted.json()["role"] == "admin"
    assert world.call("admin", "DELETE", f"/api/v1/users/{carol['id']}").status_code == 204
    assert "carol" not in [u.name for u in world.md.list_users()]


def test_last_admin_and_self_deletion_are_refused(world: World) -> None:
    admin = world.ids["admin"]
    demote = world.call("admin", "PATCH", f"/api/v1/users/{admin}", json={"role": "default"})
    assert demote.status_code == 409
    assert world.call("admin", "DELETE", f"/api/v1/users/{admin}").status_code == 409
    assert world.md.get_user(admin).role.value == "admin"


def test_workspaces_seen_by_membership_and_creator_becomes_member(world: World) -> None:
    slugs = lambda who: [w["slug"] for w in world.call(who, "GET", "/api/v1/workspaces").json()]  # noqa: E731
    assert slugs("admin") == ["alpha", "beta", "gamma"]
    assert slugs("bob") == ["alpha"]
    assert world.call("bob", "GET", "/api/v1/workspaces/beta").status_code == 404
    made = world.call("bob", "POST", "/api/v1/workspaces", json={"slug": "bobs", "name": "Bob's"})
    assert made.status_code == 201
    assert slugs("bob") == ["alpha", "bobs"]
    assert slugs("alice") == ["alpha", "beta"]
    assert world.call("bob", "DELETE", "/api/v1/workspaces/bobs").status_code == 403
    bob = world.ids["bob"]
    assert world.call("admin", "PUT", f"/api/v1/workspaces/beta/members/{bob}").status_code == 204
    assert slugs("bob") == ["alpha", "beta", "bobs"]
    members = world.call("admin", "GET", "/api/v1/workspaces/beta/members").json()
    assert [m["name"] for m in members] == ["alice", "bob"]
    assert (
        world.call("admin", "DELETE", f"/api/v1/workspaces/beta/members/{bob}").status_code == 204
    )
    assert world.call("admin", "DELETE", "/api/v1/workspaces/bobs").status_code == 204
    assert slugs("bob") == ["alpha"]


def test_settings_read_and_changed_by_admin_take_effect(world: World) -> None:
    alice = world.ids["alice"]
    world.md.add_memory(alice, "Alice likes tea")
    assert world.call("admin", "GET", "/api/v1/settings").json()["memory_enabled"] is True
    changed = world.call(
        "admin",
        "PATCH",
        "/api/v1/settings",
        json={"memory_enabled": False, "memory_auto_extraction": "off"},
    )
    assert changed.status_code == 200
    assert (changed.json()["memory_enabled"], changed.json()["memory_auto_extraction"]) == (
        False,
        False,
    )
    context = world.call("alice", "POST", "/api/v1/context", json={"message": "hi"}).json()
    assert (context["enabled"], context["section"], context["memories"]) == (False, "", [])
    assert world.md.list_memories(alice)  # kept while disabled
    world.call("admin", "PATCH", "/api/v1/settings", json={"memory_enabled": True})
    context = world.call("alice", "POST", "/api/v1/context", json={"message": "hi"}).json()
    assert context["section"] == f"{SECTION_HEADING}\n- Alice likes tea"
    assert "extraction_provider" in world.call("admin", "GET", "/api/v1/settings/schema").json()


def test_run_retention_setting_over_the_api(world: World) -> None:
    schema = world.call("admin", "GET", "/api/v1/settings/schema").json()
    assert schema["run_retention_days"]["default"] == 90
    changed = world.call("admin", "PATCH", "/api/v1/settings", json={"run_retention_days": 30})
    assert (changed.status_code, changed.json()["run_retention_days"]) == (200, 30)
    refused = world.call("admin", "PATCH", "/api/v1/settings", json={"run_retention_days": 9999})
    assert refused.status_code == 422
    message = refused.json()["error"]["message"]
    assert message.startswith("run_retention_days: expected a number of days from 0")
    assert world.md.get_settings()["run_retention_days"] == 30


def test_context_chooses_top_five_and_builds_the_system_prompt(world: World) -> None:
    alice = world.ids["alice"]
    world.md.add_memory(alice, "Alice is a nurse")
    topics = ["Python", "gardening", "cycling", "jazz", "chess", "baking", "sailing"]
    for topic in topics:
        world.md.add_memory(alice, f"Alice enjoys {topic}", workspace="alpha")
    response = world.call(
        "alice",
        "POST",
        "/api/v1/context",
        json={
            "message": "Any tips for my sourdough bread?",
            "workspace": "alpha",
            "history": [{"role": "assistant", "content": "Hello!"}],
            "system_prompt": "Be brief.",
        },
    ).json()
    contents = [m["content"] for m in response["memories"]]
    assert contents[0] == "Alice is a nurse"
    assert len(contents) == 6
    assert "Alice enjoys baking" in contents[1:3]
    assert response["system_prompt"].startswith(
        f"Be brief.\n\n{SECTION_HEADING}\n- Alice is a nurse"
    )
    assert response["reranker"] is not None


def test_chats_recorded_and_listed_per_user(world: World) -> None:
    posted = world.call(
        "alice",
        "POST",
        "/api/v1/chats",
        json={"workspace": "alpha", "prompt": "I moved to Oslo", "response": "Nice!"},
    )
    assert posted.status_code == 201
    assert posted.json()["memory_processed"] is False
    assert [c["prompt"] for c in world.call("alice", "GET", "/api/v1/chats").json()] == [
        "I moved to Oslo"
    ]
    assert world.call("bob", "GET", "/api/v1/chats").json() == []
    refused = world.call(
        "bob", "POST", "/api/v1/chats", json={"workspace": "beta", "prompt": "p", "response": "r"}
    )
    assert refused.status_code == 404


def test_export_import_round_trip_for_self_and_admin(world: World) -> None:
    alice = world.ids["alice"]
    world.md.add_memory(alice, "Alice speaks Norwegian")
    world.md.add_memory(alice, "Alpha is a Django app", workspace="alpha")
    exported = world.call("alice", "GET", "/api/v1/export")
    assert exported.headers["content-type"].startswith("application/x-ndjson")
    preferences, *lines = exported.text.splitlines()
    assert json.loads(preferences) == {
        "preferences": {"language": "default", "learn_from_chats": True, "memory_review": "default"}
    }
    assert [json.loads(line)["content"] for line in lines] == [
        "Alice speaks Norwegian",
        "Alpha is a Django app",
    ]
    for memory in world.md.list_memories(alice):
        world.md.delete_memory(alice, memory.id)
    imported = world.call(
        "alice",
        "POST",
        "/api/v1/import",
        content=exported.content,
        headers={"Content-Type": "application/x-ndjson"},
    )
    assert imported.json() == {
        "created": 2,
        "updated": 0,
        "unchanged": 0,
        "skipped_duplicates": 0,
        "workspaces_created": [],
        "preferences": {
            "language": "default",
            "learn_from_chats": True,
            "memory_review": "default",
        },
        "chats_created": 0,
        "chats_skipped": 0,
    }
    assert world.call("alice", "GET", "/api/v1/export").content == exported.content
    by_admin = world.call("admin", "GET", f"/api/v1/users/{alice}/export")
    assert by_admin.content == exported.content


def test_default_user_import_cannot_reach_a_foreign_workspace(world: World) -> None:
    world.md.add_memory(world.ids["alice"], "Beta runs on Kubernetes", workspace="beta")
    line = world.call("alice", "GET", "/api/v1/export").text.splitlines()[1]
    refused = world.call("bob", "POST", "/api/v1/import", content=line.encode())
    assert refused.status_code == 404
    assert world.md.list_memories(world.ids["bob"]) == []
    fresh = line.replace('"workspace": "beta"', '"workspace": "bobland"').replace(
        json.loads(line)["id"], "freshid"
    )
    accepted = world.call("bob", "POST", "/api/v1/import", content=fresh.encode())
    assert accepted.json()["workspaces_created"] == ["bobland"]
    assert "bobland" in [w.slug for w in world.auth.workspaces_of(world.md.get_user("bob"))]
