"""The link rule of chat lines: a chat links only memories a turn in its workspace could
have injected (the user's global ones and theirs of that workspace). An import naming any
other is refused before anything is written; an export never writes such a link, so its
own import never refuses it (on SQLite and PostgreSQL)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from memoryd import InvalidInput, Memoryd


def chat(workspace: str, prompt: str, memory_ids: list[str], **more: Any) -> str:
    record = {"workspace": workspace, "prompt": prompt, "response": "ok", "memory_ids": memory_ids}
    return json.dumps({"chat": {**record, **more}})


def memory(memory_id: str, content: str, workspace: str | None = None) -> str:
    scope = "workspace" if workspace else "global"
    return json.dumps({"id": memory_id, "content": content, "scope": scope, "workspace": workspace})


def links(md: Memoryd, user_id: int) -> dict[str, list[str]]:
    """Each of the user's chats (by prompt) with the ids of the memories it links."""
    found = md.list_chats(user_id)
    used = md.chat_memories(user_id, [c.id for c in found])
    return {c.prompt: [u.id for u in used.get(c.id, [])] for c in found}


def chat_lines(lines: list[str]) -> list[dict[str, Any]]:
    return [json.loads(x)["chat"] for x in lines if json.loads(x).keys() == {"chat"}]


@pytest.fixture
def alice(any_md: Memoryd) -> int:
    for slug in ("alpha", "beta"):
        any_md.create_workspace(slug)
    return any_md.create_user("alice").id


def refuses(md: Memoryd, user_id: int, lines: list[str], message: str, **kw: Any) -> None:
    """The import is refused with ``message`` and changes nothing at all."""
    before = md.export_memories(user_id)
    with pytest.raises(InvalidInput, match=message):
        md.import_memories(user_id, lines, **kw)
    assert md.export_memories(user_id) == before


def test_a_chat_linking_a_memory_line_of_another_workspace_is_refused(
    any_md: Memoryd, alice: int
) -> None:
    lines = [
        memory("m-beta", "Beta deploys on Tuesdays", "beta"),
        chat("alpha", "When does beta deploy?", ["m-beta"]),
    ]
    refuses(
        any_md,
        alice,
        lines,
        "line 2: the chat links memory 'm-beta', which line 1 puts in 'beta'; a chat in"
        " workspace 'alpha' links only global memories and memories of 'alpha'",
    )
    assert any_md.list_memories(alice) == [] and any_md.list_chats(alice) == []
    # a property of the file: refused when its chats are skipped too
    refuses(any_md, alice, lines, "line 2: the chat links memory 'm-beta'", chats=False)


def test_a_link_to_another_users_memory_is_dropped_like_one_to_no_memory(
    any_md: Memoryd, alice: int
) -> None:
    """Refusing it would tell the importer the id exists; an id naming nothing is dropped
    (a memory deleted before the export), so another user's is dropped the same way."""
    bob = any_md.create_user("bob").id
    bobs = any_md.add_memory(bob, "Bob's global fact")
    lines = [
        memory("mine", "Prefers tea"),
        chat("alpha", "Tea?", ["mine", bobs.id]),
        chat("alpha", "Coffee?", ["mine", "f" * 32]),
    ]
    any_md.import_memories(alice, lines)
    [mine] = any_md.list_memories(alice)
    assert links(any_md, alice) == {"Tea?": [mine.id], "Coffee?": [mine.id]}
    assert any_md.get_memory(bob, bobs.id).content == "Bob's global fact"


def test_a_chat_linking_the_users_memory_of_another_workspace_is_refused(
    any_md: Memoryd, alice: int
) -> None:
    beta = any_md.add_memory(alice, "Beta deploys on Tuesdays", workspace="beta")
    refuses(
        any_md,
        alice,
        [chat("alpha", "When does beta deploy?", [beta.id])],
        f"line 1: the chat links memory '{beta.id}', which is not a memory of yours",
    )
    # a memory the importer may not reach reads the same as one in another workspace
    refuses(
        any_md,
        alice,
        [chat("beta", "When does beta deploy?", [beta.id])],
        f"line 1: the chat links memory '{beta.id}', which is not a memory of yours",
        protected_ids={beta.id},
    )


def test_global_memories_link_from_any_workspace_and_unknown_ids_are_dropped(
    any_md: Memoryd, alice: int
) -> None:
    stored = any_md.add_memory(alice, "Prefers tea")
    beta = any_md.add_memory(alice, "Beta deploys on Tuesdays", workspace="beta")
    lines = [
        memory("in-file", "Speaks Norwegian"),
        memory("alpha-fact", "Alpha ships in Q3", "alpha"),
        chat("alpha", "Tea or coffee?", [stored.id, "in-file", "alpha-fact", "deleted-long-ago"]),
        chat("beta", "When does beta deploy?", [stored.id, beta.id, "in-file"]),
    ]
    result = any_md.import_memories(alice, lines)
    assert (result.created, result.chats_created) == (2, 2)
    assert links(any_md, alice) == {
        "Tea or coffee?": [stored.id, "in-file", "alpha-fact"],
        "When does beta deploy?": [stored.id, beta.id, "in-file"],
    }


def test_a_link_follows_a_memory_line_that_gets_a_new_id(any_md: Memoryd, alice: int) -> None:
    """A memory line naming another user's memory becomes a new memory of the importer's:
    the chat's link follows it, and nothing of the other user's is linked or refused."""
    bob = any_md.create_user("bob").id
    bobs = any_md.add_memory(bob, "Bob's global fact")
    lines = [memory(bobs.id, "Alice's copy"), chat("alpha", "Which fact?", [bobs.id])]
    any_md.import_memories(alice, lines)
    [copy] = any_md.list_memories(alice)
    assert copy.id != bobs.id and links(any_md, alice) == {"Which fact?": [copy.id]}


def test_export_leaves_out_links_the_rule_refuses(any_md: Memoryd, alice: int) -> None:
    tea = any_md.add_memory(alice, "Prefers tea")
    moved = any_md.add_memory(alice, "Ships on Fridays", workspace="alpha")
    gone = any_md.add_memory(alice, "Deleted before the export")
    any_md.record_chat(alice, "alpha", "What do I like?", "Tea.", memory_ids=[tea.id, moved.id])
    any_md.record_chat(alice, "alpha", "Anything else?", "No.", memory_ids=[gone.id])
    any_md.promote(alice, moved.id)
    any_md.demote(alice, moved.id, "beta")  # the alpha chat's link is stale now
    any_md.delete_memory(alice, gone.id)  # a tombstone: kept, an import drops it
    exported = any_md.export_memories(alice)
    assert [c["memory_ids"] for c in chat_lines(exported)] == [[tea.id], [gone.id]]

    result = any_md.import_memories(alice, exported)  # its own import accepts it
    assert (result.unchanged, result.chats_skipped) == (2, 2)
    bob = any_md.create_user("bob").id
    assert any_md.import_memories(bob, exported).chats_created == 2


def test_a_tombstone_whose_id_another_user_took_is_left_out(any_md: Memoryd, alice: int) -> None:
    """A deleted memory's id is free, and an import may give it to someone else: alice's
    export must not name it then, or her own import would refuse her file."""
    gone = any_md.add_memory(alice, "Deleted before the export")
    any_md.record_chat(alice, "alpha", "Anything else?", "No.", memory_ids=[gone.id])
    any_md.delete_memory(alice, gone.id)
    bob = any_md.create_user("bob").id
    any_md.import_memories(bob, [memory(gone.id, "Bob's fact with a reused id")])
    assert any_md.get_memory(bob, gone.id).content == "Bob's fact with a reused id"

    exported = any_md.export_memories(alice)
    assert [c["memory_ids"] for c in chat_lines(exported)] == [[]]
    any_md.clear_chats(alice)
    assert any_md.import_memories(alice, exported).chats_created == 1
