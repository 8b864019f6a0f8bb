"""A memory's detail shows the chats it was learned from only where the reader may open
them: a global memory learned in a workspace the user has since left names that chat as
"a chat in a workspace you can't open" -- no text, no title, no id -- in the REST API's
detail and in the page the server renders; an admin sees every chat, as the chat routes
let them."""

from __future__ import annotations

from memoryd.domain.models import Chat
from support.server import World
from support.web import element, get_page, words

PANEL = "/chat/alpha?panel=memories"
HIDDEN = "A chat in a workspace you can't open"


def learned_in_two_workspaces(world: World) -> tuple[str, Chat, Chat]:
    alice = world.ids["alice"]
    said = world.md.record_chat(alice, "alpha", "I moved to Lisbon last spring", "Nice.")
    secret = world.md.record_chat(alice, "beta", "Beta's launch code is TANGO-19", "Noted.")
    memory = world.md.add_memory(
        alice, "Lives in Lisbon", source_chat_ids=[said.id, secret.id]
    )  # global: every workspace of hers shows it
    return memory.id, said, secret


def test_a_member_sees_every_source_chat(world: World) -> None:
    memory_id, said, secret = learned_in_two_workspaces(world)
    detail = world.call("alice", "GET", f"/api/v1/memories/{memory_id}").json()
    assert [c["id"] for c in detail["source_chats"]] == [said.id, secret.id]
    assert detail["hidden_source_chats"] == 0


def test_a_chat_in_a_workspace_the_reader_left_is_counted_never_shown(world: World) -> None:
    memory_id, said, secret = learned_in_two_workspaces(world)
    world.auth.remove_member("beta", world.ids["alice"])

    answer = world.call("alice", "GET", f"/api/v1/memories/{memory_id}")
    assert answer.status_code == 200
    detail = answer.json()
    assert [c["id"] for c in detail["source_chats"]] == [said.id]
    assert detail["hidden_source_chats"] == 1
    assert detail["deleted_source_chat_ids"] == []  # it is not deleted: it is out of reach
    for leaked in ("TANGO-19", "Beta's launch code", "Noted.", f'"id":{secret.id},'):
        assert leaked not in answer.text
    assert world.call("alice", "GET", f"/api/v1/chats/{secret.id}").status_code == 404

    page = get_page(world, "alice", f"{PANEL}&detail={memory_id}")
    assert page.status_code == 200
    dialog = element(page.text, "memory-detail")
    shown = words(dialog.text)
    assert "Came from these chats alpha · " in shown
    assert "I moved to Lisbon last spring" in shown and HIDDEN in shown
    assert "TANGO-19" not in page.text and "launch code" not in page.text
    assert "beta · " not in shown

    # an admin reads every chat, this one too
    as_admin = world.call(
        "admin", "GET", f"/api/v1/users/{world.ids['alice']}/memories/{memory_id}"
    )
    assert [c["id"] for c in as_admin.json()["source_chats"]] == [said.id, secret.id]
    assert as_admin.json()["hidden_source_chats"] == 0
