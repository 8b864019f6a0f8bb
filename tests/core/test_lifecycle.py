"""Memory lifecycle in the library: expiry ("remember until"), purge after the grace
period, the review queue's accept / edit / reject, and a memory's detail.

Limits, revival and accepting run on SQLite and PostgreSQL (``any_md``-style fixtures).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from memoryd import Memoryd
from memoryd.domain.errors import (
    DuplicateMemory,
    InvalidInput,
    InvalidScope,
    NotFound,
    ScopeFull,
)
from memoryd.domain.models import SuggestionKind, SuggestionStatus
from memoryd.domain.rules import Limits, parse_expiry
from memoryd.models.embedding.minilm import MiniLMEmbedder
from support.extraction import Clock
from support.lifecycle import file_suggestion as file_for

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)  # a Monday


@pytest.fixture
def clock() -> Clock:
    return Clock(NOW)


@pytest.fixture
def lmd(db_url: str, embedder: MiniLMEmbedder, clock: Clock) -> Iterator[Memoryd]:
    """A Memoryd with a hand-moved clock and small limits, on SQLite and PostgreSQL."""
    limits = Limits(global_per_user=2, workspace_per_pair=3)
    with Memoryd(db_url, embedder=embedder, clock=clock, limits=limits) as md:
        yield md


def file_suggestion(md: Memoryd, user_id: int, text: str, target_id: str | None = None) -> str:
    """A pending suggestion, filed the way extraction files one."""
    return file_for(md, user_id, text, target_id, run_id="run1")


# expiry ------------------------------------------------------------------------------
def test_parse_expiry_reads_dates_times_and_refuses_the_past() -> None:
    assert parse_expiry("2026-03-06", NOW) == datetime(2026, 3, 7, tzinfo=UTC)
    assert parse_expiry("2026-03-06T18:00:00+01:00", NOW) == datetime(2026, 3, 6, 17, tzinfo=UTC)
    assert parse_expiry("2026-03-06T18:00", NOW) == datetime(2026, 3, 6, 18, tzinfo=UTC)
    assert parse_expiry("", NOW) is None and parse_expiry(None, NOW) is None
    with pytest.raises(InvalidInput, match="already passed"):
        parse_expiry("2026-03-01", NOW)
    with pytest.raises(InvalidInput, match="YYYY-MM-DD"):
        parse_expiry("next friday", NOW)


def test_expired_memory_is_listed_but_never_injected(lmd: Memoryd, clock: Clock) -> None:
    user = lmd.create_user("ana")
    lmd.create_workspace("atlas")
    demo = lmd.add_memory(user.id, "The demo is on Friday", "global", expires_at="2026-03-06")
    lmd.add_memory(user.id, "Prefers tea")
    lmd.add_memory(user.id, "Atlas demo room is B2", workspace="atlas", expires_at="2026-03-06")
    assert demo.expires_at == datetime(2026, 3, 7, tzinfo=UTC)
    before = lmd.context(user.id, "atlas", "when is the demo?")
    assert len(before.memories) == 3
    clock.advance(days=5)  # Saturday March 7, 12:00: past the end of Friday
    after = lmd.context(user.id, "atlas", "when is the demo?")
    assert [m.content for m in after.memories] == ["Prefers tea"]
    listed = {m.content: m for m in lmd.list_memories(user.id)}
    assert listed["The demo is on Friday"].is_expired(clock()) is True
    assert listed["Prefers tea"].is_expired(clock()) is False


def test_expired_memories_hold_no_slot_and_reviving_one_needs_room(
    lmd: Memoryd, clock: Clock
) -> None:
    user = lmd.create_user("ana")
    old = lmd.add_memory(user.id, "The demo is on Friday", "global", expires_at="2026-03-06")
    tea = lmd.add_memory(user.id, "Prefers tea")
    with pytest.raises(ScopeFull):
        lmd.add_memory(user.id, "Lives in Porto")
    clock.advance(days=5)
    lmd.add_memory(user.id, "Lives in Porto")  # the expired one holds no slot
    with pytest.raises(ScopeFull):  # bringing it back would make three live globals
        lmd.edit_memory(user.id, old.id, expires_at=None)
    with pytest.raises(InvalidInput, match="already passed"):
        lmd.edit_memory(user.id, old.id, expires_at="2026-03-01")
    lmd.delete_memory(user.id, tea.id)
    revived = lmd.edit_memory(user.id, old.id, expires_at="2026-03-20")
    assert revived.expires_at == datetime(2026, 3, 21, tzinfo=UTC)
    cleared = lmd.edit_memory(user.id, old.id, expires_at=None)
    assert cleared.expires_at is None and cleared.content == "The demo is on Friday"
    history = lmd.audit_log(user.id, old.id)
    assert history[-1].after is not None and history[-1].after["expires_at"] is None
    assert history[-2].after is not None
    assert history[-2].after["expires_at"] == "2026-03-21T00:00:00+00:00"


def test_purge_deletes_after_the_grace_period_with_an_audit_entry(
    lmd: Memoryd, clock: Clock
) -> None:
    user = lmd.create_user("ana")
    doomed = lmd.add_memory(user.id, "The demo is on Friday", "global", expires_at="2026-03-06")
    kept = lmd.add_memory(user.id, "Prefers tea")
    clock.advance(days=5)
    assert lmd.purge_expired() == 0  # expired, but inside the 30-day grace period
    clock.advance(days=29)
    assert lmd.purge_expired() == 0
    clock.advance(days=2)
    assert lmd.purge_expired() == 1
    assert [m.id for m in lmd.list_memories(user.id)] == [kept.id]
    last = lmd.audit_log(user.id, doomed.id)[-1]
    assert (last.action.value, last.actor, last.after) == ("delete", "system", None)
    lmd.set_setting("expired_grace_days", "0")
    lmd.edit_memory(user.id, kept.id, expires_at="2026-04-08")
    clock.advance(days=3)
    assert lmd.purge_expired() == 1 and lmd.list_memories(user.id) == []


# review queue ----------------------------------------------------------------------------
def test_accept_edit_and_reject_suggestions(lmd: Memoryd, clock: Clock) -> None:
    user = lmd.create_user("ana")
    porto = lmd.add_memory(user.id, "Lives in Porto")
    create_id = file_suggestion(lmd, user.id, "Plays the cello")
    clock.advance(seconds=1)
    update_id = file_suggestion(lmd, user.id, "Moved to Lisbon", porto.id)
    pending = lmd.list_suggestions(user.id)
    assert [(s.kind, s.target_content) for s in pending] == [
        (SuggestionKind.CREATE, None),
        (SuggestionKind.UPDATE, "Lives in Porto"),
    ]
    accepted = lmd.accept_suggestion(user.id, update_id, content="Lives in Lisbon since May")
    assert (accepted.id, accepted.content) == (porto.id, "Lives in Lisbon since May")
    rejected = lmd.reject_suggestion(user.id, create_id)
    assert rejected.status is SuggestionStatus.REJECTED and rejected.decided_at is not None
    assert lmd.list_suggestions(user.id) == []
    assert {s.status for s in lmd.list_suggestions(user.id, "all")} == {
        SuggestionStatus.ACCEPTED,
        SuggestionStatus.REJECTED,
    }
    assert [m.content for m in lmd.list_memories(user.id)] == ["Lives in Lisbon since May"]
    with pytest.raises(InvalidInput, match="already rejected"):
        lmd.accept_suggestion(user.id, create_id)
    # the same text is not suggested again once rejected
    with pytest.raises(Exception, match="rejected before"):
        file_suggestion(lmd, user.id, "plays the cello")


def test_accepting_obeys_limits_duplicates_and_ownership(lmd: Memoryd, clock: Clock) -> None:
    ana = lmd.create_user("ana")
    bob = lmd.create_user("bob")
    lmd.add_memory(ana.id, "Prefers tea")
    first = file_suggestion(lmd, ana.id, "Plays the cello")
    clock.advance(seconds=1)
    second = file_suggestion(lmd, ana.id, "Runs on Sundays")
    clock.advance(seconds=1)
    third = file_suggestion(lmd, ana.id, "Prefers TEA")
    with pytest.raises(NotFound):
        lmd.accept_suggestion(bob.id, first)
    with pytest.raises(DuplicateMemory):
        lmd.accept_suggestion(ana.id, third)
    made = lmd.accept_suggestion(ana.id, first)
    assert (made.source.value, made.run_id) == ("extraction", "run1")
    assert lmd.audit_log(ana.id, made.id)[0].actor == f"user:{ana.id}"
    with pytest.raises(ScopeFull):
        lmd.accept_suggestion(ana.id, second)
    assert [s.id for s in lmd.list_suggestions(ana.id)] == [second, third]  # still waiting


def test_accepting_an_update_of_a_deleted_memory_is_refused(lmd: Memoryd) -> None:
    ana = lmd.create_user("ana")
    porto = lmd.add_memory(ana.id, "Lives in Porto")
    update_id = file_suggestion(lmd, ana.id, "Lives in Lisbon", porto.id)
    lmd.delete_memory(ana.id, porto.id)
    with pytest.raises(NotFound, match="was deleted"):
        lmd.accept_suggestion(ana.id, update_id)


def test_accepting_into_a_chosen_scope(lmd: Memoryd, clock: Clock) -> None:
    """A new memory goes into global or the workspace its chats were in (``origin``); a
    change to a memory stays where that memory is; with its chats deleted, a global
    suggestion has no workspace to go to."""
    ana = lmd.create_user("ana")
    lmd.create_workspace("atlas")
    chat = lmd.record_chat(ana.id, "atlas", "I play the cello", "Nice").id
    cello = file_for(lmd, ana.id, "Plays the cello", chats=[chat], run_id="run1")
    clock.advance(seconds=1)
    tea = file_for(lmd, ana.id, "Prefers tea", workspace="atlas", run_id="run1")
    clock.advance(seconds=1)
    runs = file_for(lmd, ana.id, "Runs on Sundays", chats=[chat], run_id="run1")
    assert [s.origin for s in lmd.list_suggestions(ana.id)] == ["atlas", "atlas", "atlas"]
    made = lmd.accept_suggestion(ana.id, cello, scope="workspace")
    assert (made.scope.value, made.workspace) == ("workspace", "atlas")
    made = lmd.accept_suggestion(ana.id, tea, scope="global")
    assert (made.scope.value, made.workspace) == ("global", None)
    porto = lmd.add_memory(ana.id, "Lives in Porto")
    update = file_for(lmd, ana.id, "Lives in Lisbon", porto.id, run_id="run1")
    with pytest.raises(InvalidScope, match="where that memory is"):
        lmd.accept_suggestion(ana.id, update, scope="workspace")
    with pytest.raises(InvalidScope, match="unknown scope"):
        lmd.accept_suggestion(ana.id, runs, scope="elsewhere")
    lmd.delete_chat(ana.id, chat)
    assert lmd.get_suggestion(ana.id, runs).origin is None
    with pytest.raises(InvalidScope, match="accept it into global"):
        lmd.accept_suggestion(ana.id, runs, scope="workspace")
    lmd.delete_memory(ana.id, porto.id)  # room in global (2 here)
    assert lmd.accept_suggestion(ana.id, runs).scope.value == "global"


def test_a_deletion_keeps_its_reason_in_the_audit_log(lmd: Memoryd) -> None:
    ana = lmd.create_user("ana")
    memory = lmd.add_memory(ana.id, "Lives in Porto")
    with pytest.raises(InvalidInput, match="reason"):
        lmd.delete_memory(ana.id, memory.id, reason="x" * 201)
    lmd.delete_memory(ana.id, memory.id, reason="  Reported as   wrong ")
    entry = lmd.audit_log(ana.id, memory.id)[-1]
    assert entry.action.value == "delete" and entry.before is not None
    assert (entry.before["reason"], entry.before["content"]) == (
        "Reported as wrong",
        "Lives in Porto",
    )


# detail ---------------------------------------------------------------------------------
def test_memory_detail_has_source_chats_and_history(lmd: Memoryd, clock: Clock) -> None:
    ana = lmd.create_user("ana")
    lmd.create_workspace("atlas")
    chat = lmd.record_chat(ana.id, "atlas", "I play the cello.", "Nice!")
    memory = lmd.add_memory(ana.id, "Plays the cello", "global", source_chat_ids=[chat.id])
    clock.advance(minutes=5)
    lmd.edit_memory(ana.id, memory.id, "Plays the cello in an orchestra")
    detail = lmd.memory_detail(ana.id, memory.id)
    assert detail.created_by == f"user:{ana.id}" and detail.expired is False
    assert [c.prompt for c in detail.source_chats] == ["I play the cello."]
    assert [e.action.value for e in detail.history] == ["create", "update"]
    assert detail.memory.updated_at - detail.memory.created_at == timedelta(minutes=5)
    with pytest.raises(NotFound):
        lmd.memory_detail(lmd.create_user("bob").id, memory.id)
