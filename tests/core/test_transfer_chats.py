"""Export and import carry the user's recorded chats (on SQLite and PostgreSQL)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from memoryd import InvalidInput, Memoryd
from memoryd.models.embedding.minilm import MiniLMEmbedder


def _seed(md: Memoryd) -> int:
    """Alice: two memories, three chats in phoenix; the second chat is processed and a
    memory was learned from it, the first had both memories injected."""
    md.create_workspace("phoenix")
    uid = md.create_user("alice").id
    tea = md.add_memory(uid, "Prefers tea")
    ships = md.add_memory(uid, "Phoenix ships in Q3", workspace="phoenix")
    md.record_chat(uid, "phoenix", "When do we ship?", "In Q3.", memory_ids=[ships.id, tea.id])
    learned = md.record_chat(uid, "phoenix", "I moved to Lisbon ✓", "Nice — noted.")
    md.record_chat(uid, "phoenix", "Standup moved to 9:30", "Got it.")
    md.add_memory(uid, "Lives in Lisbon", source_chat_ids=[learned.id])
    _mark_processed(md, learned.id)
    return uid


def _mark_processed(md: Memoryd, chat_id: int) -> None:
    from sqlalchemy import update

    from memoryd.storage.tables import chats

    with md.db.write() as repo:
        repo.conn.execute(update(chats).where(chats.c.id == chat_id).values(memory_processed=True))


def _chats(lines: list[str]) -> list[dict[str, Any]]:
    return [json.loads(x)["chat"] for x in lines if json.loads(x).keys() == {"chat"}]


def _memories(lines: list[str]) -> list[dict[str, Any]]:
    return [
        json.loads(x) for x in lines[1:] if json.loads(x).keys().isdisjoint({"chat", "preferences"})
    ]


def test_chats_round_trip_byte_for_byte(
    any_md: Memoryd, other_db_url: str, embedder: MiniLMEmbedder
) -> None:
    uid = _seed(any_md)
    exported = any_md.export_memories(uid)
    chats = _chats(exported)
    assert exported[-3:] == [
        json.dumps({"chat": c}, sort_keys=True, ensure_ascii=False) for c in chats
    ]
    assert [(c["prompt"], c["memory_processed"], len(c["memory_ids"])) for c in chats] == [
        ("When do we ship?", False, 2),
        ("I moved to Lisbon ✓", True, 0),
        ("Standup moved to 9:30", False, 0),
    ]
    assert set(chats[0]) == {
        "created_at",
        "id",
        "memory_ids",
        "memory_processed",
        "prompt",
        "response",
        "workspace",
    }
    with Memoryd(other_db_url, embedder=embedder) as fresh:
        target = fresh.create_user("alice").id
        result = fresh.import_memories(target, exported)
        assert (result.created, result.chats_created, result.chats_skipped) == (3, 3, 0)
        assert result.workspaces_created == ["phoenix"]
        assert fresh.export_memories(target) == exported
        again = fresh.import_memories(target, exported)  # nothing recorded twice
        assert (again.unchanged, again.chats_created, again.chats_skipped) == (3, 0, 3)
        assert fresh.export_memories(target) == exported


def test_imported_chats_get_new_ids_and_every_reference_follows(
    any_md: Memoryd, other_db_url: str, embedder: MiniLMEmbedder
) -> None:
    any_md.create_workspace("phoenix")
    alice = any_md.create_user("alice").id
    bob = any_md.create_user("bob").id
    any_md.record_chat(bob, "phoenix", "Bob's chat", "ok")
    said = any_md.record_chat(alice, "phoenix", "I moved to Lisbon", "Nice")
    any_md.record_chat(bob, "phoenix", "Bob again", "ok")
    gone = any_md.record_chat(alice, "phoenix", "I play the cello", "Lovely")
    kept = any_md.add_memory(alice, "Prefers tea")
    used = any_md.record_chat(alice, "phoenix", "Tea or coffee?", "Tea.", memory_ids=[kept.id])
    learned = any_md.add_memory(alice, "Lives in Lisbon", source_chat_ids=[said.id, gone.id])
    any_md.delete_chat(alice, gone.id)  # a memory keeps a deleted chat's id
    exported = any_md.export_memories(alice)
    assert [c["id"] for c in _chats(exported)] == [said.id, used.id]

    with Memoryd(other_db_url, embedder=embedder) as target_md:
        target_md.create_workspace("phoenix")
        carol = target_md.create_user("carol").id
        target_md.record_chat(carol, "phoenix", "Carol's first", "ok")
        newest = target_md.record_chat(carol, "phoenix", "Carol's newest", "ok")
        target_md.delete_chat(carol, newest.id)  # its id is never given again
        target = target_md.create_user("alice").id

        target_md.import_memories(target, exported)

        moved = {c.prompt: c for c in target_md.list_chats(target)}
        assert sorted(moved) == ["I moved to Lisbon", "Tea or coffee?"]
        assert all(c.id > newest.id for c in moved.values())
        by_text = {m.content: m for m in target_md.list_memories(target)}
        assert by_text["Lives in Lisbon"].id == learned.id  # free here: the id is kept
        # the source chat now names the imported chat; the deleted one, whose id this
        # server never gave, is dropped rather than left for a later chat to take
        assert by_text["Lives in Lisbon"].source_chat_ids == (moved["I moved to Lisbon"].id,)
        links = target_md.chat_memories(target, [moved["Tea or coffee?"].id])
        assert [u.id for u in links[moved["Tea or coffee?"].id]] == [by_text["Prefers tea"].id]
        # a second export is the first with the new chat ids
        renumbered = "\n".join(exported)
        for old, new in (
            (said.id, moved["I moved to Lisbon"].id),
            (used.id, moved["Tea or coffee?"].id),
        ):
            renumbered = renumbered.replace(f'"id": {old}, ', f'"id": {new}, ')
        renumbered = renumbered.replace(
            f'"source_chat_ids": [{said.id}, {gone.id}]',
            f'"source_chat_ids": [{moved["I moved to Lisbon"].id}]',
        )
        assert "\n".join(target_md.export_memories(target)) == renumbered


def test_links_follow_memories_that_get_new_ids(any_md: Memoryd) -> None:
    """Into another user of the same server: alice's memory ids are hers, so bob's copies
    get new ones, and his chats link to his copies -- never to alice's memories."""
    uid = _seed(any_md)
    gone = any_md.add_memory(uid, "Deleted before the export")
    chat = any_md.record_chat(uid, "phoenix", "Anything else?", "No.", memory_ids=[gone.id])
    any_md.delete_memory(uid, gone.id)  # the chat keeps a tombstone
    exported = any_md.export_memories(uid)
    assert _chats(exported)[-1]["memory_ids"] == [gone.id]
    bob = any_md.create_user("bob").id

    result = any_md.import_memories(bob, exported)

    assert (result.created, result.chats_created) == (3, 4)
    mine = {m.content: m.id for m in any_md.list_memories(bob)}
    chats = {c.prompt: c.id for c in any_md.list_chats(bob)}
    links = any_md.chat_memories(bob, chats.values())
    assert [u.id for u in links[chats["When do we ship?"]]] == [
        mine["Phoenix ships in Q3"],
        mine["Prefers tea"],
    ]
    assert chats["Anything else?"] not in links  # its memory is in no file: link dropped
    assert any_md.export_memories(uid) == exported  # alice untouched
    assert any_md.chat_memories(uid, [chat.id])[chat.id][0].memory is None


def test_no_chats_leaves_them_out_of_export_and_import(any_md: Memoryd) -> None:
    uid = _seed(any_md)
    full = any_md.export_memories(uid)
    without = any_md.export_memories(uid, chats=False)
    assert without == full[: len(full) - 3] and _chats(without) == []
    any_md.clear_chats(uid)
    result = any_md.import_memories(uid, full, chats=False)
    assert (result.unchanged, result.chats_created) == (3, 0)
    assert any_md.list_chats(uid) == []
    assert any_md.import_memories(uid, full).chats_created == 3
    # an old export, without chat lines, still imports
    for memory in any_md.list_memories(uid):
        any_md.delete_memory(uid, memory.id)
    result = any_md.import_memories(uid, without)
    assert (result.created, result.chats_created) == (3, 0)
    assert len(any_md.list_chats(uid)) == 3


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ('{"chat": "hello"}', "line 3: chat must be an object"),
        ('{"chat": {"workspace": "phoenix"}}', "line 3: chat is missing prompt"),
        ('{"chat": {"workspace": "phoenix", "prompt": "  "}}', "line 3: chat prompt is empty"),
        ('{"chat": {"workspace": "Not A Slug", "prompt": "hi"}}', "line 3: "),
        (
            '{"chat": {"workspace": "phoenix", "prompt": "hi", "reply": "x"}}',
            "unknown chat field 'reply'",
        ),
        ('{"chat": {"workspace": "phoenix", "prompt": "hi"}, "content": "x"}', 'holds only "chat"'),
        ('{"chat": {"workspace": "phoenix", "prompt": "hi", "id": -4}}', "line 3: chat id"),
        (
            '{"chat": {"workspace": "phoenix", "prompt": "hi", "created_at": "yesterday"}}',
            "created_at",
        ),
        (
            '{"chat": {"workspace": "phoenix", "prompt": "hi", "memory_processed": 1}}',
            "true or false",
        ),
        ('{"chat": {"workspace": "phoenix", "prompt": "hi", "memory_ids": "abc"}}', "memory_ids"),
        (
            '{"chat": {"workspace": "phoenix", "prompt": "hi", "response": 7}}',
            "response must be text",
        ),
        (
            '{"chat": {"workspace": "phoenix", "prompt": "hi", "id": 1}}',
            "line 3: chat id 1 is also on line 2",
        ),
    ],
)
def test_a_malformed_chat_line_is_refused_and_nothing_changes(
    any_md: Memoryd, bad: str, message: str
) -> None:
    uid = _seed(any_md)
    before = any_md.export_memories(uid)
    first_chat = json.dumps({"chat": {**_chats(before)[0], "id": 1}})
    fresh_memory = '{"content": "Likes jazz"}'
    with pytest.raises(InvalidInput, match=message):
        any_md.import_memories(uid, [fresh_memory, first_chat, bad])
    with pytest.raises(InvalidInput, match=message):  # checked even when not imported
        any_md.import_memories(uid, [fresh_memory, first_chat, bad], chats=False)
    assert any_md.export_memories(uid) == before


def test_chats_in_a_missing_workspace_create_it_like_memories(any_md: Memoryd) -> None:
    uid = any_md.create_user("alice").id
    line = {"chat": {"workspace": "newproj", "prompt": "Kick-off is Monday", "response": "ok"}}
    result = any_md.import_memories(uid, [json.dumps(line)])
    assert (result.chats_created, result.workspaces_created) == (1, ["newproj"])
    [chat] = any_md.list_chats(uid, "newproj")
    assert (chat.prompt, chat.response, chat.memory_processed) == (
        "Kick-off is Monday",
        "ok",
        False,
    )


def test_a_user_who_does_not_learn_gets_every_imported_chat_closed(any_md: Memoryd) -> None:
    uid = _seed(any_md)
    exported = any_md.export_memories(uid)
    bob = any_md.create_user("bob").id
    any_md.set_learning(bob, False)
    any_md.import_memories(bob, exported, preferences=False)
    assert [c.memory_processed for c in any_md.list_chats(bob)] == [True, True, True]
    # the file's own choice counts when it is applied
    carol = any_md.create_user("carol").id
    off = ['{"preferences": {"learn_from_chats": false}}', *exported[1:]]
    any_md.import_memories(carol, off)
    assert not any_md.learns_from_chats(carol)
    assert [c.memory_processed for c in any_md.list_chats(carol)] == [True, True, True]
    dave = any_md.create_user("dave").id  # learning on: the file's flags stand
    any_md.import_memories(dave, exported)
    assert [c.memory_processed for c in any_md.list_chats(dave)] == [False, True, False]


def test_an_incognito_turn_leaves_nothing_to_export(any_md: Memoryd) -> None:
    uid = _seed(any_md)
    before = any_md.export_memories(uid)
    turn = any_md.context(uid, "phoenix", "a private question", record=False)
    with pytest.raises(InvalidInput):
        any_md.record_chat(uid, "phoenix", "a private question", "answer", turn=turn)
    assert any_md.writer.flush()
    after = any_md.export_memories(uid)
    assert "a private question" not in "\n".join(after)
    assert _chats(after) == _chats(before)
