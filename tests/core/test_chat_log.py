"""What memoryd keeps of a chat: the memories injected into it, incognito turns that
leave nothing behind, and the per-user "don't learn from my chats" switch. On SQLite and
PostgreSQL (``any_md``)."""

from __future__ import annotations

import pytest

from memoryd import Memoryd
from memoryd.domain.errors import InvalidInput, NotFound


def alice_with_memories(md: Memoryd) -> tuple[int, list[str]]:
    md.create_workspace("lab")
    alice = md.create_user("alice").id
    ids = [
        md.add_memory(alice, "Prefers short answers").id,
        md.add_memory(alice, "The lab runs on PostgreSQL", workspace="lab").id,
    ]
    return alice, ids


def test_a_recorded_turn_keeps_its_memories_in_prompt_order(any_md: Memoryd) -> None:
    alice, (first, second) = alice_with_memories(any_md)
    turn = any_md.context(alice, "lab", "Which database?")
    assert turn.memory_ids == [first, second]
    chat = any_md.record_chat(alice, "lab", "Which database?", "PostgreSQL.", turn=turn)
    used = any_md.chat_memories(alice, [chat.id])[chat.id]
    assert [(u.id, u.memory and u.memory.content) for u in used] == [
        (first, "Prefers short answers"),
        (second, "The lab runs on PostgreSQL"),
    ]
    assert [c.id for c in any_md.chats_using(alice, second)] == [chat.id]


def test_a_deleted_memory_stays_on_the_chat_as_a_tombstone(any_md: Memoryd) -> None:
    alice, (first, second) = alice_with_memories(any_md)
    chat = any_md.record_chat(alice, "lab", "hi", "hello", memory_ids=[second, first])
    any_md.delete_memory(alice, second)
    used = any_md.chat_memories(alice, [chat.id])[chat.id]
    assert [(u.id, u.deleted) for u in used] == [(second, True), (first, False)]
    with pytest.raises(NotFound):  # the memory is gone, so are its own lists
        any_md.chats_using(alice, second)
    assert any_md.get_chat(alice, chat.id).prompt == "hi"


def test_only_the_users_own_memories_are_linked(any_md: Memoryd) -> None:
    alice, (first, _) = alice_with_memories(any_md)
    bob = any_md.create_user("bob").id
    bobs = any_md.add_memory(bob, "Bob's secret").id
    chat = any_md.record_chat(alice, "lab", "hi", "hello", memory_ids=[bobs, first, "nope"])
    assert [u.id for u in any_md.chat_memories(alice, [chat.id])[chat.id]] == [first]
    assert any_md.chats_using(bob, bobs) == []


def test_a_chat_links_only_memories_a_turn_in_its_workspace_can_inject(any_md: Memoryd) -> None:
    alice, (first, lab) = alice_with_memories(any_md)
    any_md.create_workspace("home")
    home = any_md.add_memory(alice, "The router is in the hall", workspace="home").id
    chat = any_md.record_chat(alice, "lab", "hi", "hello", memory_ids=[home, lab, first])
    assert [u.id for u in any_md.chat_memories(alice, [chat.id])[chat.id]] == [lab, first]
    any_md.record_chat_later(alice, "home", "again", "hello", memory_ids=[lab, home, first])
    any_md.writer.flush()
    (later,) = [c for c in any_md.list_chats(alice) if c.prompt == "again"]
    assert [u.id for u in any_md.chat_memories(alice, [later.id])[later.id]] == [home, first]


def test_an_incognito_turn_uses_memories_but_leaves_nothing(any_md: Memoryd) -> None:
    alice, (first, second) = alice_with_memories(any_md)
    turn = any_md.context(alice, "lab", "Which database?", record=False)
    assert turn.memory_ids == [first, second]
    assert "The lab runs on PostgreSQL" in turn.section
    with pytest.raises(InvalidInput, match="incognito"):
        any_md.record_chat(alice, "lab", "Which database?", "PostgreSQL.", turn=turn)
    with pytest.raises(InvalidInput, match="incognito"):
        any_md.record_chat_later(alice, "lab", "Which database?", "PostgreSQL.", turn=turn)
    any_md.writer.flush()
    assert any_md.list_chats(alice) == []
    assert all(m.last_used_at is None for m in any_md.list_memories(alice))
    any_md.context(alice, "lab", "Which database?")  # a normal turn does mark them
    any_md.writer.flush()
    assert all(m.last_used_at is not None for m in any_md.list_memories(alice))


def test_bad_memory_ids_are_refused(any_md: Memoryd) -> None:
    alice, _ = alice_with_memories(any_md)
    with pytest.raises(InvalidInput, match="memory_ids"):
        any_md.record_chat(alice, "lab", "hi", "hello", memory_ids="abc")
    with pytest.raises(InvalidInput, match="at most"):
        any_md.record_chat(alice, "lab", "hi", "hello", memory_ids=[str(i) for i in range(101)])
    assert any_md.list_chats(alice) == []


def test_learning_off_records_chats_that_extraction_never_reads(any_md: Memoryd) -> None:
    alice, _ = alice_with_memories(any_md)
    waiting = any_md.record_chat(alice, "lab", "I moved to Lisbon.", "Nice!")
    assert any_md.learns_from_chats(alice) is True
    assert any_md.set_learning(alice, False) == 1  # the waiting chat is closed
    assert any_md.learns_from_chats(alice) is False
    later = any_md.record_chat(alice, "lab", "My cat is Miso.", "Cute.")
    any_md.record_chat_later(alice, "lab", "I play the cello.", "Lovely.")
    any_md.writer.flush()
    chats = any_md.list_chats(alice)
    assert [c.prompt for c in chats] == [
        "I moved to Lisbon.",
        "My cat is Miso.",
        "I play the cello.",
    ]
    assert later.memory_processed is True
    assert all(c.memory_processed for c in chats)
    assert any_md.list_chats(alice, processed=False) == []
    # back on: only chats from now on are learned from
    assert any_md.set_learning(alice, True) == 0
    fresh = any_md.record_chat(alice, "lab", "I drink tea.", "OK.")
    assert [c.id for c in any_md.list_chats(alice, processed=False)] == [fresh.id]
    assert waiting.id not in [c.id for c in any_md.list_chats(alice, processed=False)]


def test_learning_switch_of_an_unknown_user(any_md: Memoryd) -> None:
    with pytest.raises(NotFound):
        any_md.set_learning(999, False)
    with pytest.raises(NotFound):
        any_md.learns_from_chats(999)
    alice, _ = alice_with_memories(any_md)
    with pytest.raises(InvalidInput):
        any_md.set_learning(alice, "no")  # type: ignore[arg-type]


def test_deleting_a_user_or_workspace_drops_the_links(any_md: Memoryd) -> None:
    alice, (first, _) = alice_with_memories(any_md)
    chat = any_md.record_chat(alice, "lab", "hi", "hello", memory_ids=[first])
    any_md.delete_workspace("lab")
    assert any_md.chat_memories(alice, [chat.id]) == {}
