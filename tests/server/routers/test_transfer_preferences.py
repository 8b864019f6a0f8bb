"""REST export/import carry the user's own choices (learning from chats, review mode)."""

from __future__ import annotations

import json

from support.server import World

NDJSON = {"Content-Type": "application/x-ndjson"}


def _choices(world: World, who: str) -> tuple[bool, str]:
    me = world.call(who, "GET", "/api/v1/me").json()
    return me["learn_from_chats"], me["memory_review"]


def test_an_import_restores_the_choices_in_the_file(world: World) -> None:
    alice = world.ids["alice"]
    world.md.add_memory(alice, "Alice speaks Norwegian")
    changes = {"learn_from_chats": False, "memory_review": "everything", "language": "ko"}
    me = world.call("alice", "PATCH", "/api/v1/me", json=changes)
    assert (me.json()["language"], me.json()["language_effective"]) == ("ko", "ko")
    exported = world.call("alice", "GET", "/api/v1/export")
    assert exported.text.splitlines()[0] == (
        '{"preferences": {"language": "ko", "learn_from_chats": false, '
        '"memory_review": "everything"}}'
    )
    reset = {"learn_from_chats": True, "memory_review": "default", "language": "default"}
    world.call("alice", "PATCH", "/api/v1/me", json=reset)
    imported = world.call(
        "alice", "POST", "/api/v1/import", content=exported.content, headers=NDJSON
    )
    assert imported.status_code == 200
    assert imported.json()["preferences"] == changes
    assert _choices(world, "alice") == (False, "everything")
    assert world.call("alice", "GET", "/api/v1/me").json()["language"] == "ko"
    assert world.call("alice", "GET", "/api/v1/export").content == exported.content


def test_preferences_false_keeps_the_choices_the_user_has(world: World) -> None:
    alice = world.ids["alice"]
    world.md.add_memory(alice, "Alice speaks Norwegian")
    exported = world.call("admin", "GET", f"/api/v1/users/{alice}/export").content
    world.call("alice", "PATCH", "/api/v1/me", json={"memory_review": "updates"})
    kept = world.call(
        "admin",
        "POST",
        f"/api/v1/users/{alice}/import",
        params={"preferences": "false"},
        content=exported,
        headers=NDJSON,
    )
    assert kept.status_code == 200
    assert kept.json()["preferences"] is None and kept.json()["unchanged"] == 1
    assert _choices(world, "alice") == (True, "updates")
    applied = world.call("admin", "POST", f"/api/v1/users/{alice}/import", content=exported)
    assert applied.json()["preferences"] == {
        "learn_from_chats": True,
        "memory_review": "default",
        "language": "default",
    }
    assert _choices(world, "alice") == (True, "default")


def test_an_old_export_changes_no_choice(world: World) -> None:
    world.call("alice", "PATCH", "/api/v1/me", json={"learn_from_chats": False})
    old_format = b'{"content": "Alice speaks Norwegian", "scope": "global"}\n'
    imported = world.call("alice", "POST", "/api/v1/import", content=old_format)
    assert imported.json()["created"] == 1 and imported.json()["preferences"] is None
    assert _choices(world, "alice") == (False, "default")


def test_a_malformed_preferences_line_is_a_422_and_imports_nothing(world: World) -> None:
    alice = world.ids["alice"]
    world.md.add_memory(alice, "Alice speaks Norwegian")
    before = world.call("alice", "GET", "/api/v1/export").content
    cases = {
        '{"preferences": {"memory_review": "sometimes", "learn_from_chats": false}}': (
            "line 3: unknown memory_review 'sometimes': use default, off, updates, everything"
        ),
        '{"preferences": {"learn_from_chats": "false"}}': (
            "line 3: learn_from_chats must be true or false, not 'false'"
        ),
        '{"preferences": {"learn_from_chats": false, "theme": "dark"}}': (
            "line 3: unknown preference 'theme' (known: learn_from_chats, memory_review, language)"
        ),
        '{"preferences": {}}\n{"preferences": {"learn_from_chats": false}}': (
            "line 4: a second preferences line (the first is line 3); a file holds at most one"
        ),
    }
    for bad, message in cases.items():
        # line numbers count the file's lines, blank ones included
        body = '{"content": "Likes jazz"}\n\n' + bad + "\n"
        refused = world.call("alice", "POST", "/api/v1/import", content=body.encode())
        assert refused.status_code == 422
        assert refused.json()["error"]["type"] == "invalid_input"
        assert refused.json()["error"]["message"] == message
    assert world.call("alice", "GET", "/api/v1/export").content == before
    assert _choices(world, "alice") == (True, "default")


def test_an_export_hides_foreign_workspaces_but_keeps_the_choices(world: World) -> None:
    bob = world.ids["bob"]
    world.md.add_memory(bob, "Bob likes tea")
    world.md.add_memory(bob, "Alpha runs on Kubernetes", workspace="alpha")
    world.call("bob", "PATCH", "/api/v1/me", json={"memory_review": "off"})
    removed = world.call("admin", "DELETE", f"/api/v1/workspaces/alpha/members/{bob}")
    assert removed.status_code == 204
    lines = world.call("bob", "GET", "/api/v1/export").text.splitlines()
    assert [json.loads(line).get("content") for line in lines] == [None, "Bob likes tea"]
    assert json.loads(lines[0]) == {
        "preferences": {"language": "default", "learn_from_chats": True, "memory_review": "off"}
    }
