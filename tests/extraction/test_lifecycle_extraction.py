"""Extraction and the memory lifecycle, against the scripted OpenAI-compatible server.

A fact about one future day gets an expiry resolved from the chat's time; recurring or
past facts do not. Under ``memory_review`` the changes wait as suggestions (updates with
the memory they would replace) and nothing is written until the user accepts.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from memoryd import Memoryd
from memoryd.domain.errors import InvalidInput, NotFound
from memoryd.domain.models import Scope, SuggestionKind
from memoryd.extraction.timebound import event_day, expiry_for
from memoryd.testing import FakeOpenAIServer
from support.extraction import START, Clock, chat, observe, reflect

TUESDAY = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("The demo is on Friday.", date(2026, 12, 4)),
        ("The release is next Tuesday.", date(2026, 12, 8)),
        ("Has a dentist appointment tomorrow.", date(2026, 12, 2)),
        ("The flight to Lisbon is on March 3rd.", date(2027, 3, 3)),
        ("The deadline is 14th of December.", date(2026, 12, 14)),
        ("The launch is on 2026-12-10.", date(2026, 12, 10)),
        ("The party is tonight.", date(2026, 12, 1)),
        # never: recurring, past, not an event, two days, a date gone by
        ("Goes swimming on Fridays.", None),
        ("Has yoga every Friday.", None),
        ("The demo was on Friday.", None),
        ("Was born on March 3.", None),
        ("Works from home on Friday.", None),
        ("The meeting moved from Friday to Monday.", None),
        ("The launch is on 2026-11-10.", None),
        ("Likes Python.", None),
    ],
)
def test_event_day_is_conservative(text: str, day: date | None) -> None:
    assert event_day(text, TUESDAY) == day


def test_expiry_is_the_end_of_the_day_after_the_event() -> None:
    assert expiry_for("The demo is on Friday.", TUESDAY) == datetime(2026, 12, 6, tzinfo=UTC)
    assert expiry_for("Likes Python.", TUESDAY) is None


def test_extracted_time_bound_fact_expires_and_recurring_one_does_not(
    xmd: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    ana = xmd.create_user("ana")
    xmd.create_workspace("atlas")
    chat(xmd, ana.id, "atlas", 3, "The Atlas demo is on Friday. I go swimming on Fridays.")
    fake_llm.script(observe(person=[2], project=[1]))
    result = xmd.extract(ana.id, "atlas", force=True)
    assert result.error is None, result.rejected
    by_text = {m.content: m for m in xmd.list_memories(ana.id)}
    assert START.weekday() == 6  # Sunday March 1: Friday is March 6
    assert by_text["The Atlas demo is on Friday."].expires_at == datetime(2026, 3, 8, tzinfo=UTC)
    [swimming] = [m for t, m in by_text.items() if "swimming" in t]
    assert swimming.expires_at is None
    clock.advance(days=7)  # Sunday March 8: the demo is over
    turn = xmd.context(ana.id, "atlas", "what is happening this week?")
    assert [m.content for m in turn.memories] == [swimming.content]


def test_review_updates_files_a_contradiction_and_writes_nothing(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = xmd.create_user("ana")
    xmd.create_workspace("atlas")
    old = xmd.add_memory(ana.id, "The Atlas launch is on March 14.", "workspace", "atlas")
    xmd.set_setting("memory_review", "updates")
    chat(xmd, ana.id, "atlas", 3, "Legal moved the Atlas launch to March 28.")
    fake_llm.script(observe(project=[1]), reflect("replaces"))

    result = xmd.extract(ana.id, "atlas", force=True)

    assert result.error is None and result.updated == [] and len(result.suggested) == 1
    assert xmd.get_memory(ana.id, old.id).content == "The Atlas launch is on March 14."
    assert all(c.memory_processed for c in xmd.list_chats(ana.id, "atlas"))
    [waiting] = xmd.list_suggestions(ana.id)
    assert (waiting.kind, waiting.target_id, waiting.target_content) == (
        SuggestionKind.UPDATE,
        old.id,
        "The Atlas launch is on March 14.",
    )
    assert waiting.content == "Legal moved the Atlas launch to March 28."
    assert waiting.expires_at == datetime(2026, 3, 30, tzinfo=UTC)
    assert waiting.run_id == xmd.extraction_runs()[0].id
    assert xmd.extraction_runs()[0].status == "ok"
    revised = xmd.accept_suggestion(ana.id, waiting.id)
    assert revised.id == old.id and revised.content == waiting.content
    assert revised.expires_at == waiting.expires_at
    assert [e.action.value for e in xmd.audit_log(ana.id, old.id)] == ["create", "update"]


def test_review_everything_holds_new_memories_and_a_rejection_sticks(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = xmd.create_user("ana")
    xmd.create_workspace("atlas")
    xmd.set_setting("memory_review", "everything")
    chat(xmd, ana.id, "atlas", 3, "I keep my lab notes in Obsidian.")
    fake_llm.script(observe(person=[1]))
    first = xmd.extract(ana.id, "atlas", force=True)
    assert first.created == [] and xmd.list_memories(ana.id) == []
    [waiting] = xmd.list_suggestions(ana.id)
    assert (waiting.kind, waiting.scope) == (SuggestionKind.CREATE, Scope.WORKSPACE)
    xmd.reject_suggestion(ana.id, waiting.id)

    chat(xmd, ana.id, "atlas", 3, "I keep my lab notes in Obsidian.")
    fake_llm.script(observe(person=[1]))
    again = xmd.extract(ana.id, "atlas", force=True)
    assert again.suggested == [] and any("rejected before" in r for r in again.rejected)
    assert xmd.list_suggestions(ana.id) == [] and xmd.list_memories(ana.id) == []


def test_review_updates_still_applies_new_memories(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = xmd.create_user("ana")
    xmd.create_workspace("atlas")
    xmd.set_setting("memory_review", "updates")
    chat(xmd, ana.id, "atlas", 3, "I keep my lab notes in Obsidian.")
    fake_llm.script(observe(person=[1]))
    result = xmd.extract(ana.id, "atlas", force=True)
    assert len(result.created) == 1 and result.suggested == []


def test_a_users_own_review_mode_beats_the_instance_setting(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana, bo = xmd.create_user("ana"), xmd.create_user("bo")
    xmd.create_workspace("atlas")
    assert xmd.review_preference(ana.id) is None and xmd.review_mode(ana.id) == "off"
    xmd.set_review_preference(ana.id, "Everything")  # ana asks to see every change first
    assert (xmd.review_preference(ana.id), xmd.review_mode(ana.id)) == ("everything", "everything")
    assert xmd.review_mode(bo.id) == "off"  # bo follows the instance setting
    for user in (ana, bo):
        chat(xmd, user.id, "atlas", 3, "I keep my lab notes in Obsidian.")
        fake_llm.script(observe(person=[1]))
        xmd.extract(user.id, "atlas", force=True)
    assert xmd.list_memories(ana.id) == [] and len(xmd.list_suggestions(ana.id)) == 1
    assert len(xmd.list_memories(bo.id)) == 1 and xmd.list_suggestions(bo.id) == []

    xmd.set_setting("memory_review", "everything")
    xmd.set_review_preference(bo.id, "off")  # bo opts out of the instance's review
    chat(xmd, bo.id, "atlas", 3, "I run every morning.")
    fake_llm.script(observe(person=[1]))
    xmd.extract(bo.id, "atlas", force=True)
    assert len(xmd.list_memories(bo.id)) == 2 and xmd.list_suggestions(bo.id) == []

    xmd.set_review_preference(bo.id, None)  # back to the instance setting
    assert xmd.review_preference(bo.id) is None and xmd.review_mode(bo.id) == "everything"
    with pytest.raises(InvalidInput, match="expected one of off, updates, everything"):
        xmd.set_review_preference(bo.id, "sometimes")
    with pytest.raises(NotFound):
        xmd.review_mode(999)
