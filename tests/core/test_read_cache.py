"""The per-process caches of a turn's lookups stay correct when another process (here
another ``Memoryd`` on the same database, with its own caches) changes things."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy.dialects import sqlite

from memoryd import Memoryd
from memoryd.domain.errors import NotFound
from memoryd.domain.models import Memory
from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.storage.turn_rows import TurnRows


@pytest.fixture
def pair(any_md: Memoryd, embedder: MiniLMEmbedder) -> Iterator[tuple[Memoryd, Memoryd]]:
    other = Memoryd(any_md.url, embedder=embedder)
    yield any_md, other
    other.close()


def _warm(md: Memoryd, uid: int, slug: str | None) -> list[str]:
    md.context(uid, slug, "warm the caches")
    return [m.content for m in md.context(uid, slug, "what do I know?").memories]


def test_a_recreated_workspace_is_seen_by_a_process_that_cached_the_old_one(
    pair: tuple[Memoryd, Memoryd],
) -> None:
    here, there = pair
    uid = here.create_user("alice").id
    here.create_workspace("alpha")
    here.add_memory(uid, "old alpha fact", workspace="alpha")
    assert _warm(here, uid, "alpha") == ["old alpha fact"]
    there.delete_workspace("alpha")
    there.create_workspace("beta")  # takes ids, so the new alpha gets another one
    there.create_workspace("alpha")
    there.add_memory(uid, "new alpha fact", workspace="alpha")
    assert [m.content for m in here.context(uid, "alpha", "hi").memories] == ["new alpha fact"]


def test_a_deleted_workspace_or_user_is_not_found_at_once(
    pair: tuple[Memoryd, Memoryd],
) -> None:
    here, there = pair
    uid = here.create_user("bob").id
    here.create_workspace("alpha")
    _warm(here, uid, "alpha")
    there.delete_workspace("alpha")
    with pytest.raises(NotFound, match="alpha"):
        here.context(uid, "alpha", "hi")
    _warm(here, uid, None)
    there.delete_user(uid)
    with pytest.raises(NotFound, match="user"):
        here.context(uid, None, "hi")


def test_switching_memory_off_elsewhere_applies_to_the_next_turn(
    pair: tuple[Memoryd, Memoryd],
) -> None:
    here, there = pair
    uid = here.create_user("carol").id
    here.add_memory(uid, "Carol likes tea")
    assert _warm(here, uid, None) == ["Carol likes tea"]
    there.set_setting("memory_enabled", False)
    turn = here.context(uid, None, "hi")
    assert turn.enabled is False and turn.memories == []
    there.set_setting("memory_enabled", True)
    assert [m.content for m in here.context(uid, None, "hi").memories] == ["Carol likes tea"]


def test_a_cached_turn_reads_the_database_once(any_md: Memoryd) -> None:
    from sqlalchemy import event

    uid = any_md.create_user("dave").id
    any_md.create_workspace("alpha")
    any_md.add_memory(uid, "Dave likes jazz", workspace="alpha")
    _warm(any_md, uid, "alpha")
    statements: list[str] = []

    def count(_conn: object, _cursor: object, statement: str, *_args: object) -> None:
        if statement.lstrip().upper().startswith("SELECT"):
            statements.append(statement)

    event.listen(any_md.db.engine, "before_cursor_execute", count)
    try:
        any_md.context(uid, "alpha", "music?")
    finally:
        event.remove(any_md.db.engine, "before_cursor_execute", count)
    assert len(statements) == 1, statements


def test_a_turn_rebuilds_only_changed_memories_and_sees_every_change(
    pair: tuple[Memoryd, Memoryd], embedder: MiniLMEmbedder
) -> None:
    here, there = pair
    uid = here.create_user("alice").id
    here.create_workspace("alpha")
    kept = here.add_memory(uid, "Alice takes her coffee black")
    edited = here.add_memory(uid, "The alpha release is in May", workspace="alpha")

    def by_id() -> dict[str, Memory]:
        return {m.id: m for m in here.context(uid, "alpha", "what do I know?").memories}

    first = by_id()
    assert first[kept.id] == here.get_memory(uid, kept.id)  # what the regular read says
    assert first[kept.id].last_used_at is None and first[kept.id].created_at.tzinfo is not None
    here.finish_writes()  # the turn's last_used_at marks
    second = by_id()
    used = second[kept.id]
    assert used.last_used_at is not None and used.last_used_at.tzinfo is not None
    assert used == here.get_memory(uid, kept.id)
    assert by_id()[kept.id] is used  # an unchanged row: the same object again
    there.edit_memory(uid, edited.id, "The alpha release moved to June")
    third = by_id()
    assert third[edited.id].content == "The alpha release moved to June"
    assert third[edited.id] == there.get_memory(uid, edited.id)
    vector = third[edited.id].embedding
    assert vector is not None
    assert float(vector @ embedder.embed(["The alpha release moved to June"])[0]) > 0.999
    assert third[kept.id] is used


def test_the_turn_memo_is_bounded_and_follows_the_row() -> None:
    memo = TurnRows(size=2)
    dialect = sqlite.dialect()
    raw = ["m1", 1, "global", None, "fact", "user", "2026-01-01 10:00:00.000000",
           "2026-01-01 10:00:00.000000", None, "[3]", None, None, None, None, None, None,
           None]  # fmt: skip
    first = memo.memory(raw, dialect)
    assert first.source_chat_ids == (3,) and first.created_at.tzinfo is not None
    assert first.questions is None
    assert memo.memory(list(raw), dialect) is first
    raw[8] = "2026-01-02 10:00:00.000000"
    touched = memo.memory(raw, dialect)
    assert touched is not first and touched.last_used_at is not None
    raw[12], raw[15], raw[16] = '["Do you play?"]', bytes(4 * 384), "minilm"  # questions
    asked = memo.memory(raw, dialect)
    assert asked is not touched and asked.questions == ("Do you play?",)
    assert asked.question_vectors is not None and asked.question_vectors.shape == (1, 384)
    for n in range(5):
        memo.memory([f"other{n}", *raw[1:]], dialect)
    assert len(memo) == 2
