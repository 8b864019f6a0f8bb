"""The per-process caches of a turn's lookups stay correct when another process (here
another ``Memoryd`` on the same database, with its own caches) changes things."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memoryd import Memoryd
from memoryd.domain.errors import NotFound
from memoryd.embedding.minilm import MiniLMEmbedder


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
