"""REST export/import carry the user's recorded chats (``?chats=false`` leaves them out)."""

from __future__ import annotations

import json
from typing import Any

from support.server import World

NDJSON = {"Content-Type": "application/x-ndjson"}


def _chats(body: str) -> list[dict[str, Any]]:
    return [json.loads(x)["chat"] for x in body.splitlines() if x.startswith('{"chat": ')]


def _seed(world: World) -> int:
    alice = world.ids["alice"]
    world.md.record_chat(alice, "alpha", "Alpha question", "Alpha answer")
    world.md.record_chat(alice, "beta", "Beta question", "Beta answer")
    return alice


def test_export_carries_the_chats_the_caller_may_see(world: World) -> None:
    alice = _seed(world)
    own = world.call("alice", "GET", "/api/v1/export")
    assert [c["prompt"] for c in _chats(own.text)] == ["Alpha question", "Beta question"]
    without = world.call("alice", "GET", "/api/v1/export", params={"chats": "false"})
    assert _chats(without.text) == [] and without.text.splitlines() == own.text.splitlines()[:1]
    world.auth.remove_member("beta", alice)  # her beta chats are out of her reach now
    assert [c["prompt"] for c in _chats(world.call("alice", "GET", "/api/v1/export").text)] == [
        "Alpha question"
    ]
    by_admin = world.call("admin", "GET", f"/api/v1/users/{alice}/export")
    assert len(_chats(by_admin.text)) == 2


def test_import_adds_chats_unless_asked_not_to(world: World) -> None:
    alice = _seed(world)
    exported = world.call("alice", "GET", "/api/v1/export").content
    world.md.clear_chats(alice)
    skipped = world.call(
        "alice", "POST", "/api/v1/import", params={"chats": "false"}, content=exported,
        headers=NDJSON,
    )  # fmt: skip
    assert skipped.status_code == 200 and skipped.json()["chats_created"] == 0
    assert world.md.list_chats(alice) == []
    added = world.call("alice", "POST", "/api/v1/import", content=exported, headers=NDJSON)
    assert (added.json()["chats_created"], added.json()["chats_skipped"]) == (2, 0)
    assert sorted(c.prompt for c in world.md.list_chats(alice)) == [
        "Alpha question",
        "Beta question",
    ]
    again = world.call("alice", "POST", "/api/v1/import", content=exported, headers=NDJSON)
    assert (again.json()["chats_created"], again.json()["chats_skipped"]) == (0, 2)


def test_a_default_user_imports_chats_only_where_they_belong(world: World) -> None:
    bob = world.ids["bob"]
    line = '{"chat": {"workspace": "beta", "prompt": "Not my workspace", "response": "ok"}}'
    refused = world.call("bob", "POST", "/api/v1/import", content=line.encode())
    assert refused.status_code == 404
    assert world.md.list_chats(bob) == []
    skipped = world.call("bob", "POST", "/api/v1/import", params={"chats": "false"},
                         content=line.encode())  # fmt: skip
    assert skipped.status_code == 200 and skipped.json()["chats_created"] == 0
    fresh = line.replace('"beta"', '"bobland"')
    accepted = world.call("bob", "POST", "/api/v1/import", content=fresh.encode())
    assert accepted.json()["workspaces_created"] == ["bobland"]
    assert [c.prompt for c in world.md.list_chats(bob, "bobland")] == ["Not my workspace"]
    assert "bobland" in [w.slug for w in world.auth.workspaces_of(world.md.get_user("bob"))]


def test_a_malformed_chat_line_is_refused_with_its_number(world: World) -> None:
    alice = _seed(world)
    before = world.call("alice", "GET", "/api/v1/export").content
    body = before + b"\n" + b'{"chat": {"workspace": "alpha"}}\n'
    refused = world.call("alice", "POST", "/api/v1/import", content=body, headers=NDJSON)
    assert refused.status_code == 422
    lines = len(before.splitlines()) + 2
    assert refused.json()["error"]["message"] == f"line {lines}: chat is missing prompt"
    assert world.call("alice", "GET", "/api/v1/export").content == before
    assert len(world.md.list_chats(alice)) == 2


def test_chat_lines_do_not_count_against_the_line_limit(world: World, monkeypatch: Any) -> None:
    from memoryd.server.routers import transfer

    monkeypatch.setattr(transfer, "MAX_IMPORT_LINES", 1)
    chats = [
        json.dumps({"chat": {"workspace": "alpha", "prompt": f"Question {n}", "response": "ok"}})
        for n in range(5)
    ]
    body = "\n".join(['{"content": "Likes jazz"}', *chats]).encode()
    accepted = world.call("alice", "POST", "/api/v1/import", content=body)
    assert accepted.status_code == 200 and accepted.json()["chats_created"] == 5
    two = b'{"content": "Likes tea"}\n{"content": "Likes coffee"}\n'
    assert world.call("alice", "POST", "/api/v1/import", content=two).status_code == 413


def test_an_imported_chat_linking_a_memory_out_of_reach_is_refused(world: World) -> None:
    """A memory in a workspace alice left is refused (422 naming the chat's line and the
    memory, nothing written); a link to another user's memory is dropped exactly as a link
    to an id naming no memory is, so the answer never says the id exists."""
    alice = world.ids["alice"]
    hidden = world.md.add_memory(alice, "Beta runs on Kubernetes", workspace="beta")
    shown = world.md.add_memory(alice, "Alice speaks Norwegian")
    bobs = world.md.add_memory(world.ids["bob"], "Bob speaks Finnish")
    world.auth.remove_member("beta", alice)
    before = world.call("alice", "GET", "/api/v1/export").content

    def body(memory_ids: list[str], prompt: str = "Which language?") -> bytes:
        chat = {"workspace": "alpha", "prompt": prompt, "response": "Norwegian.",
                "memory_ids": memory_ids}  # fmt: skip
        return ('{"content": "Likes jazz"}\n' + json.dumps({"chat": chat})).encode()

    words = "which is not a memory of yours this chat can link"
    refused = world.call("alice", "POST", "/api/v1/import", content=body([shown.id, hidden.id]))
    assert refused.status_code == 422, refused.text
    message = refused.json()["error"]["message"]
    assert message.startswith(f"line 2: the chat links memory '{hidden.id}', {words}")
    assert "beta" not in message and "Kubernetes" not in message
    assert world.call("alice", "GET", "/api/v1/export").content == before
    assert world.md.list_chats(alice, "alpha") == []

    nowhere = "0" * 32  # names no memory on this server
    for dropped in (bobs.id, nowhere):
        file = body([shown.id, dropped], prompt=f"Which language? ({dropped})")
        answer = world.call("alice", "POST", "/api/v1/import", content=file)
        assert answer.status_code == 200, answer.text
        imported = max(world.md.list_chats(alice, "alpha"), key=lambda c: c.id)
        links = world.md.chat_memories(alice, [imported.id])[imported.id]
        assert [u.id for u in links] == [shown.id]
    assert [m.content for m in world.md.list_memories(world.ids["bob"])] == ["Bob speaks Finnish"]
