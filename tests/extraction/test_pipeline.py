"""Observer -> Reflector -> Apply against a scripted OpenAI-compatible server (real HTTP).

Well-formed runs first (create, update in place, person and project facts, verdicts),
then what the model may not do (numbers outside the batch, another user's memory, more
facts than free slots, secrets, text of its own), each checked for what changed and what
did not. The model only ever answers with numbers: every stored memory is a user
sentence rewritten by code. The issue-8 failure modes are in ``test_subjects.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memoryd import Memoryd, Scope
from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.testing import FakeOpenAIServer, Reply
from support.extraction import Clock, chat, make_md, observe, reflect


def prompt_of(request: dict[str, object]) -> str:
    """Everything a request showed the model."""
    messages = request["messages"]
    assert isinstance(messages, list)
    return "\n".join(str(m["content"]) for m in messages)


def test_creates_workspace_and_global_memories_from_user_sentences(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = xmd.create_user("ana")
    xmd.create_workspace("phoenix")
    xmd.record_chat(ana.id, "phoenix", "I'm Ana Lima, I lead the Phoenix rewrite.", "Hi Ana!")
    xmd.record_chat(ana.id, "phoenix", "Phoenix must ship by June 3.", "Noted.")
    xmd.record_chat(ana.id, "phoenix", "How do I reverse a list in Python?", "lst[::-1]")
    fake_llm.script(observe(person=[1, 2], project=[3]))

    result = xmd.extract(ana.id, "phoenix", force=True)

    assert result.error is None and result.status == "processed"
    by_text = {m.content: m for m in xmd.list_memories(ana.id)}
    assert sorted(by_text) == [
        "Phoenix must ship by June 3.",
        "The user leads the Phoenix rewrite.",
        "The user's name is Ana Lima.",
    ]
    assert by_text["The user's name is Ana Lima."].scope is Scope.GLOBAL
    # the model called it a person fact, but it is work: filed where it was said
    assert by_text["The user leads the Phoenix rewrite."].workspace == "phoenix"
    assert by_text["Phoenix must ship by June 3."].workspace == "phoenix"
    chats = xmd.list_chats(ana.id, "phoenix")
    assert all(c.memory_processed for c in chats)
    first, second = sorted(chats, key=lambda c: c.id)[:2]
    # each memory's source is the chat its sentence came from
    assert by_text["The user's name is Ana Lima."].source_chat_ids == (first.id,)
    assert by_text["Phoenix must ship by June 3."].source_chat_ids == (second.id,)
    # nothing stored was related: one call for the batch, no Reflector
    run = xmd.extraction_runs()[0]
    assert (run.memories_created, run.chats_processed, run.llm_calls) == (3, 3, 1)
    assert run.status == "ok" and run.prompt_tokens > 0 and run.completion_tokens > 0
    assert {a.actor for a in xmd.audit_log(ana.id)} == {f"extraction:{run.id}"}
    # the Observer saw the user's statements only, numbered, oldest first
    [request] = fake_llm.requests
    shown = request["messages"][-1]["content"]
    assert shown.endswith(
        "1. I'm Ana Lima\n2. I lead the Phoenix rewrite.\n3. Phoenix must ship by June 3."
    )
    assert "Hi Ana" not in shown and "reverse a list" not in shown
    assert request["response_format"]["type"] == "json_schema"


def test_replaces_verdict_revises_in_place_and_no_id_reaches_the_model(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = xmd.create_user("ana")
    xmd.create_workspace("atlas")
    old = xmd.add_memory(ana.id, "The Atlas launch is on March 14.", "workspace", "atlas")
    chat(xmd, ana.id, "atlas", 3, "Legal moved the Atlas launch to March 28.")
    fake_llm.script(observe(project=[1]), reflect("replaces"))

    result = xmd.extract(ana.id, "atlas", force=True)

    assert [m.id for m in result.updated] == [old.id] and result.created == []
    [memory] = xmd.list_memories(ana.id)
    assert memory.id == old.id and memory.content == "Legal moved the Atlas launch to March 28."
    stated_in = min(c.id for c in xmd.list_chats(ana.id, "atlas"))
    assert stated_in in memory.source_chat_ids
    reflector_prompt = prompt_of(fake_llm.requests[1])
    assert (
        "1. stored: The Atlas launch is on March 14.\n"
        "   new: Legal moved the Atlas launch to March 28."
    ) in reflector_prompt
    sent = json.dumps(fake_llm.requests)
    assert old.id not in sent and old.id[:8] not in sent
    [update] = [a for a in xmd.audit_log(ana.id, old.id) if a.action.value == "update"]
    assert update.before is not None and update.before["content"].endswith("March 14.")


def test_an_unrelated_memory_is_never_offered_for_replacement(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    """A small model once rewrote a deadline into a name: now only pairs that code found
    related reach the Reflector, and here there are none (so it is not even called)."""
    ana = xmd.create_user("ana")
    xmd.create_workspace("atlas-billing")
    old = xmd.add_memory(
        ana.id, "Atlas must be live for its first customers by March 14.", None, "atlas-billing"
    )
    chat(xmd, ana.id, "atlas-billing", 3, "My sister adopted a third cat last week.")
    fake_llm.script(observe(person=[1]), reflect("replaces"))

    result = xmd.extract(ana.id, "atlas-billing", force=True)

    assert result.updated == [] and [m.scope for m in result.created] == [Scope.GLOBAL]
    assert xmd.get_memory(ana.id, old.id).content == old.content
    assert len(fake_llm.requests) == 1


@pytest.mark.parametrize(
    ("verdicts", "contents"),
    [
        # no usable verdict: a near-duplicate with new details replaces the stored one
        ((), ["Atlas must now be live for customers by March 28."]),
        (("replaces",), ["Atlas must now be live for customers by March 28."]),
        (("same",), ["Atlas must be live for customers by March 14."]),
        (
            ("separate",),
            [
                "Atlas must be live for customers by March 14.",
                "Atlas must now be live for customers by March 28.",
            ],
        ),
    ],
)
def test_verdicts_on_a_related_pair(
    verdicts: tuple[str, ...], contents: list[str], xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = xmd.create_user("ana")
    xmd.create_workspace("atlas")
    old = xmd.add_memory(ana.id, "Atlas must be live for customers by March 14.", None, "atlas")
    chat(xmd, ana.id, "atlas", 3, "Atlas must now be live for customers by March 28.")
    fake_llm.script(observe(project=[1]), reflect(*verdicts))

    result = xmd.extract(ana.id, "atlas", force=True)

    assert result.status == "processed" and result.usage.calls == 2
    assert sorted(m.content for m in xmd.list_memories(ana.id)) == contents
    assert old.id in {m.id for m in xmd.list_memories(ana.id)}  # updated in place or kept
    assert all(c.memory_processed for c in xmd.list_chats(ana.id, "atlas"))


def test_near_duplicate_of_a_stored_memory_is_skipped(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = xmd.create_user("ana")
    xmd.create_workspace("lab")
    xmd.add_memory(ana.id, "The user prefers Polars over pandas.")
    chat(xmd, ana.id, "lab", 3, "I prefer Polars instead of pandas.")
    fake_llm.script(observe(person=[1]))

    result = xmd.extract(ana.id, "lab", force=True)

    assert result.created == [] and result.updated == [] and result.usage.calls == 1
    assert any("already says this" in r for r in result.rejected)
    assert len(xmd.list_memories(ana.id)) == 1
    assert all(c.memory_processed for c in xmd.list_chats(ana.id, "lab"))


def test_a_sentence_number_outside_the_batch_is_rejected_alone(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = xmd.create_user("ana")
    xmd.create_workspace("lab")
    chat(xmd, ana.id, "lab", 3, "I run on Mondays. The lab budget is 40k EUR.")
    fake_llm.script(observe(person=[1, 9, "one", True], project=[2, 0, 2.5]))

    result = xmd.extract(ana.id, "lab", force=True)

    assert sorted(m.content for m in result.created) == [
        "The lab budget is 40k EUR.",
        "The user runs on Mondays.",
    ]
    item_errors = [e["error"] for e in xmd.extraction_runs()[0].errors if e["kind"] == "item"]
    assert len(item_errors) == 5
    assert "person: no sentence number 9" in item_errors
    assert all(c.memory_processed for c in xmd.list_chats(ana.id, "lab"))


def test_another_users_memory_is_never_shown_nor_changed(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = xmd.create_user("ana")
    bob = xmd.create_user("bob")
    xmd.create_workspace("lab")
    bobs = xmd.add_memory(bob.id, "The user's favourite editor is Emacs.")
    chat(xmd, ana.id, "lab", 3, "My favourite editor is Vim.")
    fake_llm.script(observe(person=[1]), reflect("replaces"))

    result = xmd.extract(ana.id, "lab", force=True)

    assert result.updated == []
    assert [m.content for m in xmd.list_memories(ana.id)] == ["The user's favourite editor is Vim."]
    assert xmd.get_memory(bob.id, bobs.id).content == "The user's favourite editor is Emacs."
    assert [a.action.value for a in xmd.audit_log(bob.id)] == ["create"]
    assert len(fake_llm.requests) == 1 and "Emacs" not in json.dumps(fake_llm.requests)


def test_more_facts_than_free_slots_never_exceed_the_limits(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = xmd.create_user("ana")
    xmd.create_workspace("lab")
    for fact in ("The user is a chemist.", "The user lives in Porto.",
                 "The user speaks Portuguese.", "The user has two cats."):  # fmt: skip
        xmd.add_memory(ana.id, fact)
    chat(xmd, ana.id, "lab", 3, "I am allergic to green tea. My brother plays the cello in "
         "an orchestra. My mother is learning Japanese on weekends.")  # fmt: skip
    fake_llm.script(observe(person=[1, 2, 3]))

    result = xmd.extract(ana.id, "lab", force=True)

    assert [(m.content, m.scope) for m in result.created] == [
        ("The user is allergic to green tea.", Scope.GLOBAL),
        ("The user's brother plays the cello in an orchestra.", Scope.WORKSPACE),
        ("The user's mother is learning Japanese on weekends.", Scope.WORKSPACE),
    ]
    assert len(xmd.list_memories(ana.id, "global")) == 5
    assert result.not_stored == [
        "global full, filed in this workspace: The user's brother plays the cello in an orchestra.",
        "global full, filed in this workspace: The user's mother is learning Japanese on weekends.",
    ]
    assert result.usage.calls == 1


def test_secrets_are_never_stored_nor_shown_to_the_model(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    key = "sk-proj-7fQ2mZx9LkP4vR8tW1yB3nC6dH0jS5aE"
    ana = xmd.create_user("ana")
    xmd.create_workspace("bot")
    xmd.add_memory(ana.id, "The bot posts in #general at 10:00.", None, "bot")
    xmd.add_memory(ana.id, "The bot's OpenAI key is kept in the team vault.", None, "bot")
    xmd.record_chat(ana.id, "bot", f"My config: OPENAI_API_KEY={key}", "Revoke that key!")
    xmd.record_chat(ana.id, "bot", "The admin password is Rye&Honey!2024", "Don't share it.")
    xmd.record_chat(ana.id, "bot", "The bot posts in #standup at 9:30.", "OK")
    fake_llm.script(observe(project=[1]), reflect("separate"))

    result = xmd.extract(ana.id, "bot", force=True)

    assert [m.content for m in result.created] == ["The bot posts in #standup at 9:30."]
    observer_prompt, reflector_prompt = (prompt_of(r) for r in fake_llm.requests)
    assert "1. The bot posts in #standup at 9:30." in observer_prompt
    assert "#standup" in reflector_prompt
    for prompt in (observer_prompt, reflector_prompt):
        assert key not in prompt and "Rye&Honey" not in prompt and "password" not in prompt
    stored = json.dumps([e for r in xmd.extraction_runs() for e in r.errors])
    stored += json.dumps([m.content for m in xmd.list_memories(ana.id)])
    assert key not in stored and "Rye&Honey" not in stored
    assert sum("a sentence was left out" in r for r in result.rejected) == 2


def test_the_model_cannot_write_text_only_choose_user_sentences(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    """Extra text in an answer (here a card number the Reflector "remembered") is ignored:
    what is stored is the user's sentence, rewritten by code."""
    ana = xmd.create_user("ana")
    xmd.create_workspace("trip")
    old = xmd.add_memory(ana.id, "The user is travelling to Porto in April.")
    chat(xmd, ana.id, "trip", 3, "I'm travelling to Lisbon in May. My card is 4539 1488 0343 6467.")
    card = "The user pays with card 4539 1488 0343 6467."
    fake_llm.script(
        Reply.json({"person": [1, 2], "project": [], "text": card}),
        reflect({"pair": 1, "verdict": "replaces", "text": card, "memory": card}),
    )

    result = xmd.extract(ana.id, "trip", force=True)

    assert [m.id for m in result.updated] == [old.id] and result.created == []
    assert [m.content for m in xmd.list_memories(ana.id)] == [
        "The user is travelling to Lisbon in May."
    ]
    assert any("card number" in r for r in result.rejected)


def test_nothing_to_remember_costs_one_call_and_no_candidate_costs_none(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = xmd.create_user("ana")
    xmd.create_workspace("lab")
    chat(xmd, ana.id, "lab", 3)
    fake_llm.script(observe())
    result = xmd.extract(ana.id, "lab", force=True)
    assert result.status == "processed" and result.usage.calls == 1
    assert all(c.memory_processed for c in xmd.list_chats(ana.id, "lab"))
    for prompt in ("Hello!", "How do I center a div?", "Thanks, that works.", "ok"):
        xmd.record_chat(ana.id, "lab", prompt, "Happy to help, I'm a CSS expert.")
    result = xmd.extract(ana.id, "lab", force=True)
    assert result.status == "processed" and result.usage.calls == 0
    assert len(fake_llm.requests) == 1 and xmd.list_memories(ana.id) == []
    assert all(c.memory_processed for c in xmd.list_chats(ana.id, "lab"))


def test_fenced_json_with_trailing_comma_is_repaired(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = xmd.create_user("ana")
    xmd.create_workspace("lab")
    chat(xmd, ana.id, "lab", 3, "I use Julia for statistics.")
    fake_llm.script(
        Reply.text('Sure! Here they are:\n```json\n{"person": [1,], "project": [],}\n```')
    )
    result = xmd.extract(ana.id, "lab", force=True)
    assert [m.content for m in result.created] == ["The user uses Julia for statistics."]
    assert result.usage.calls == 1


def test_unusable_answer_is_retried_once_with_the_problem_shown(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = xmd.create_user("ana")
    xmd.create_workspace("lab")
    chat(xmd, ana.id, "lab", 3, "I use Julia for statistics.")
    fake_llm.script(Reply.text("I think the user likes Julia."), observe(person=[1]))
    result = xmd.extract(ana.id, "lab", force=True)
    assert [m.content for m in result.created] == ["The user uses Julia for statistics."]
    assert result.usage.calls == 2
    retry = fake_llm.requests[1]["messages"]
    assert retry[-2] == {"role": "assistant", "content": "I think the user likes Julia."}
    assert "not usable" in retry[-1]["content"]


def test_backlog_is_processed_batch_after_batch_oldest_first(
    database_url: str,
    fake_llm: FakeOpenAIServer,
    tmp_path: Path,
    embedder: MiniLMEmbedder,
    clock: Clock,
) -> None:
    md = make_md(database_url, fake_llm, tmp_path, embedder, clock, extraction_batch_chats=4)
    ana = md.create_user("ana")
    md.create_workspace("lab")
    for n in range(10):
        md.record_chat(ana.id, "lab", f"message number {n:02d}", "ok")
        clock.advance(seconds=1)
    fake_llm.responder = lambda body: observe()

    result = md.extract(ana.id, "lab", force=True)

    assert result.batches == 3 and len(result.chats_processed) == 10
    seen = [prompt_of(r) for r in fake_llm.requests]
    assert "1. message number 00" in seen[0] and "number 04" not in seen[0]
    assert "1. message number 04" in seen[1] and "1. message number 08" in seen[2]
    md.close()


def test_dry_run_writes_nothing(xmd: Memoryd, fake_llm: FakeOpenAIServer) -> None:
    ana = xmd.create_user("ana")
    xmd.create_workspace("lab")
    chat(xmd, ana.id, "lab", 3, "I use Julia for statistics.")
    fake_llm.script(observe(person=[1]))
    result = xmd.extract(ana.id, "lab", force=True, dry_run=True)
    assert result.planned == ["create workspace: The user uses Julia for statistics."]
    assert xmd.list_memories(ana.id) == [] and xmd.extraction_runs() == []
    assert not any(c.memory_processed for c in xmd.list_chats(ana.id, "lab"))


def test_memory_disabled_extracts_nothing(xmd: Memoryd, fake_llm: FakeOpenAIServer) -> None:
    ana = xmd.create_user("ana")
    xmd.create_workspace("lab")
    chat(xmd, ana.id, "lab", 3)
    xmd.set_setting("memory_enabled", False)
    result = xmd.extract(ana.id, "lab", force=True)
    assert (result.status, result.reason) == ("skipped", "memory disabled")
    assert fake_llm.requests == []


def test_anthropic_provider_end_to_end(
    database_url: str,
    fake_llm: FakeOpenAIServer,
    tmp_path: Path,
    embedder: MiniLMEmbedder,
    clock: Clock,
) -> None:
    md = make_md(database_url, fake_llm, tmp_path, embedder, clock, llm_provider="anthropic")
    ana = md.create_user("ana")
    md.create_workspace("lab")
    md.add_memory(ana.id, "The user uses R for statistics.")
    chat(md, ana.id, "lab", 3, "I use Julia for statistics.")
    fake_llm.script(observe(person=[1]), reflect("separate"))
    result = md.extract(ana.id, "lab", force=True)
    assert [m.content for m in result.created] == ["The user uses Julia for statistics."]
    assert [r.path for r in fake_llm.requests] == ["/v1/messages", "/v1/messages"]
    tools = [r["tool_choice"] for r in fake_llm.requests]
    assert tools == [{"type": "tool", "name": "selection"}, {"type": "tool", "name": "verdicts"}]
    md.close()
