"""REST API: deleting one's recorded chats. ``DELETE /api/v1/chats/{id}`` (204, or 404
for a chat that is not one's own), ``DELETE /api/v1/chats?workspace=SLUG`` and
``?all=true`` (the count), and a bare ``DELETE /api/v1/chats`` refused with a 400."""

from __future__ import annotations

from support.server import World


def record(world: World, who: str, workspace: str, prompt: str) -> int:
    return world.md.record_chat(world.ids[who], workspace, prompt, "ok").id


def prompts(world: World, who: str) -> list[str]:
    return [c.prompt for c in world.md.list_chats(world.ids[who])]


def test_deleting_one_chat(world: World) -> None:
    doomed = record(world, "alice", "alpha", "delete me")
    record(world, "alice", "alpha", "keep me")

    gone = world.call("alice", "DELETE", f"/api/v1/chats/{doomed}")

    assert gone.status_code == 204 and gone.content == b""
    assert world.call("alice", "GET", f"/api/v1/chats/{doomed}").status_code == 404
    listed = world.call("alice", "GET", "/api/v1/chats").json()
    assert [c["prompt"] for c in listed] == ["keep me"]
    again = world.call("alice", "DELETE", f"/api/v1/chats/{doomed}")
    assert again.status_code == 404


def test_another_users_chat_is_a_404_and_stays(world: World) -> None:
    bobs = record(world, "bob", "alpha", "Bob's words")
    refused = world.call("alice", "DELETE", f"/api/v1/chats/{bobs}")
    unknown = world.call("alice", "DELETE", "/api/v1/chats/999999")
    assert refused.status_code == unknown.status_code == 404
    assert refused.json()["error"]["message"] == f"no chat {bobs} for this user"
    assert unknown.json()["error"]["message"] == "no chat 999999 for this user"
    assert prompts(world, "bob") == ["Bob's words"]
    # an admin has no route to someone else's chat either
    assert world.call("admin", "DELETE", f"/api/v1/chats/{bobs}").status_code == 404
    assert prompts(world, "bob") == ["Bob's words"]


def test_a_chat_in_a_workspace_one_left_is_hidden_like_on_get(world: World) -> None:
    in_gamma = record(world, "alice", "gamma", "said in gamma")  # alice is no member
    assert world.call("alice", "GET", f"/api/v1/chats/{in_gamma}").status_code == 404
    assert world.call("alice", "DELETE", f"/api/v1/chats/{in_gamma}").status_code == 404
    assert prompts(world, "alice") == ["said in gamma"]


def test_a_bare_delete_of_the_collection_is_refused(world: World) -> None:
    record(world, "alice", "alpha", "still here")
    bare = world.call("alice", "DELETE", "/api/v1/chats")
    assert bare.status_code == 400
    assert bare.json()["error"]["message"] == (
        "say which chats to delete: workspace=SLUG for one workspace's, or all=true for all"
        " of yours"
    )
    assert world.call("alice", "DELETE", "/api/v1/chats?all=false").status_code == 400
    both = world.call("alice", "DELETE", "/api/v1/chats?workspace=alpha&all=true")
    assert both.status_code == 400 and "not both" in both.json()["error"]["message"]
    assert world.call("alice", "DELETE", "/api/v1/chats?all=maybe").status_code == 422
    assert prompts(world, "alice") == ["still here"]


def test_clearing_a_workspace_then_everything(world: World) -> None:
    for n in range(2):
        record(world, "alice", "alpha", f"alpha {n}")
    record(world, "alice", "beta", "beta 0")
    record(world, "alice", "gamma", "gamma 0")  # a workspace alice has left
    record(world, "bob", "alpha", "Bob in alpha")

    cleared = world.call("alice", "DELETE", "/api/v1/chats?workspace=alpha")
    assert cleared.status_code == 200 and cleared.json() == {"deleted": 2}
    assert prompts(world, "alice") == ["beta 0", "gamma 0"]
    assert prompts(world, "bob") == ["Bob in alpha"]
    hidden = world.call("alice", "DELETE", "/api/v1/chats?workspace=gamma")
    assert hidden.status_code == 404 and prompts(world, "alice") == ["beta 0", "gamma 0"]

    everything = world.call("alice", "DELETE", "/api/v1/chats?all=true")
    assert everything.json() == {"deleted": 2}  # her words in gamma too: they are hers
    assert prompts(world, "alice") == [] and prompts(world, "bob") == ["Bob in alpha"]
    assert world.call("alice", "DELETE", "/api/v1/chats?all=true").json() == {"deleted": 0}
    assert world.call(None, "DELETE", "/api/v1/chats?all=true").status_code == 401


def test_bad_chat_ids_are_refused(world: World) -> None:
    assert world.call("alice", "DELETE", "/api/v1/chats/0").status_code == 422
    assert world.call("alice", "DELETE", "/api/v1/chats/abc").status_code == 422


def test_a_memory_learned_from_a_deleted_chat_shows_it_as_deleted(world: World) -> None:
    alice = world.ids["alice"]
    said = record(world, "alice", "alpha", "I moved to Lisbon")
    other = record(world, "alice", "alpha", "Alpha ships in June")
    memory = world.md.add_memory(alice, "Lives in Lisbon", source_chat_ids=[said, other])
    assert world.call("alice", "DELETE", f"/api/v1/chats/{said}").status_code == 204

    detail = world.call("alice", "GET", f"/api/v1/memories/{memory.id}").json()
    assert detail["content"] == "Lives in Lisbon"
    assert detail["source_chat_ids"] == [said, other]
    assert [c["id"] for c in detail["source_chats"]] == [other]
    assert detail["deleted_source_chat_ids"] == [said]
    assert [e["action"] for e in detail["history"]] == ["create"]  # the memory's own
    [entry] = [e for e in world.md.audit_log(alice) if e.action.value == "delete_chats"]
    assert entry.actor == f"user:{alice}"
    assert entry.before == {"count": 1, "workspaces": {"alpha": 1}, "chat_ids": [said]}
