"""Observer -> Reflector -> Apply against a scripted OpenAI-compatible server (real HTTP).

Well-formed runs first (create, update in place, global facts, contradictions), then
what the model may not do (unknown handles, another user's memory, too many creates,
secrets), each checked for what changed and what did not.
"""

from __future__ import annotations

import json
from pathlib import Path

from memoryd import Memoryd, Scope
from memoryd.embedding.minilm import MiniLMEmbedder
from memoryd.testing import FakeOpenAIServer, Reply
from support.extraction import Clock, chat, make_md, observe, reflect


def user_prompt(request: dict[str, object]) -> str:
    messages = request["messages"]
    assert isinstance(messages, list)
    return "\n".join(str(m["content"]) for m in messages)


def test_creates_workspace_and_global_memories_and_marks_chats(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = xmd.create_user("ana")
    xmd.create_workspace("phoenix")
    xmd.record_chat(ana.id, "phoenix", "I'm Ana Lima, I lead the Phoenix rewrite.", "Hi Ana!")
    xmd.record_chat(ana.id, "phoenix", "Phoenix must ship by June 3.", "Noted.")
    xmd.record_chat(ana.id, "phoenix", "How do I reverse a list in Python?", "lst[::-1]")
    fake_llm.script(
        observe(
            ("The user's name is Ana Lima.", "GLOBAL"),
            ("Phoenix must ship by June 3.", "WORKSPACE"),
        ),
        reflect({"candidate": 1, "scope": "GLOBAL"}, {"candidate": 2}),
    )

    result = xmd.extract(ana.id, "phoenix", force=True)

    assert result.error is None and result.status == "processed"
    assert sorted(m.content for m in result.created) == [
        "Phoenix must ship by June 3.",
        "The user's name is Ana Lima.",
    ]
    by_text = {m.content: m for m in xmd.list_memories(ana.id)}
    assert by_text["The user's name is Ana Lima."].scope is Scope.GLOBAL
    assert by_text["Phoenix must ship by June 3."].workspace == "phoenix"
    chats = xmd.list_chats(ana.id, "phoenix")
    assert all(c.memory_processed for c in chats)
    assert set(by_text["Phoenix must ship by June 3."].source_chat_ids) == {c.id for c in chats}
    run = xmd.extraction_runs()[0]
    assert (run.memories_created, run.chats_processed, run.llm_calls) == (2, 3, 2)
    assert run.status == "ok" and run.prompt_tokens > 0 and run.completion_tokens > 0
    audit = xmd.audit_log(ana.id)
    assert {a.actor for a in audit} == {f"extraction:{run.id}"}
    # the Observer saw the chats oldest first; both calls asked for a JSON schema
    observer_text = user_prompt(fake_llm.requests[0])
    assert observer_text.index("Ana Lima") < observer_text.index("reverse a list")
    assert all(r["response_format"]["type"] == "json_schema" for r in fake_llm.requests)


def test_update_by_handle_revises_in_place_and_ids_never_reach_the_model(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = xmd.create_user("ana")
    xmd.create_workspace("atlas")
    old = xmd.add_memory(ana.id, "The Atlas launch is on March 14.", "workspace", "atlas")
    chat(xmd, ana.id, "atlas", 3, "Legal moved the Atlas launch to March 28")
    fake_llm.script(
        observe(("The Atlas launch moved to March 28.", "WORKSPACE", "update")),
        reflect({"candidate": 1, "action": "update", "target": "W1"}),
    )

    result = xmd.extract(ana.id, "atlas", force=True)

    assert [m.id for m in result.updated] == [old.id] and result.created == []
    [memory] = xmd.list_memories(ana.id)
    assert memory.id == old.id and memory.content == "The Atlas launch moved to March 28."
    reflector_prompt = user_prompt(fake_llm.requests[1])
    assert "W1: The Atlas launch is on March 14." in reflector_prompt
    assert old.id not in json.dumps(fake_llm.requests)
    [update] = [a for a in xmd.audit_log(ana.id, old.id) if a.action.value == "update"]
    assert update.before is not None and update.before["content"].endswith("March 14.")


def test_update_aimed_at_an_unrelated_memory_becomes_a_create(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    """A small model once rewrote a deadline into a name; code checks the target."""
    ana = xmd.create_user("ana")
    xmd.create_workspace("atlas-billing")
    old = xmd.add_memory(
        ana.id, "Atlas must be live for its first customers by March 14.", None, "atlas-billing"
    )
    chat(xmd, ana.id, "atlas-billing", 3, "Everyone here says I am named Atlas-Billing")
    fake_llm.script(
        observe(("The user is named Atlas-Billing", "GLOBAL", "update")),
        reflect({"candidate": 1, "action": "update", "target": "W1", "scope": "GLOBAL"}),
    )
    result = xmd.extract(ana.id, "atlas-billing", force=True)
    assert result.updated == [] and [m.scope for m in result.created] == [Scope.GLOBAL]
    assert xmd.get_memory(ana.id, old.id).content == old.content


def test_contradiction_proposed_as_create_becomes_an_update(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = xmd.create_user("ana")
    xmd.create_workspace("atlas")
    old = xmd.add_memory(ana.id, "Atlas must be live for customers by March 14.", None, "atlas")
    chat(xmd, ana.id, "atlas", 3, "Atlas must now be live for customers by March 28")
    fake_llm.script(
        observe(("Atlas must be live for customers by March 28.", "WORKSPACE")),
        reflect({"candidate": 1, "action": "create"}),
    )

    result = xmd.extract(ana.id, "atlas", force=True)

    assert result.created == [] and [m.id for m in result.updated] == [old.id]
    assert [m.content for m in xmd.list_memories(ana.id)] == [
        "Atlas must be live for customers by March 28."
    ]


def test_near_duplicate_of_a_stored_memory_is_skipped(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = xmd.create_user("ana")
    xmd.create_workspace("lab")
    xmd.add_memory(ana.id, "The user prefers Polars over pandas.")
    chat(xmd, ana.id, "lab", 3, "I prefer Polars, never pandas")
    fake_llm.script(
        observe(("The user prefers Polars instead of pandas.", "GLOBAL")),
        reflect({"candidate": 1, "scope": "GLOBAL"}),
    )

    result = xmd.extract(ana.id, "lab", force=True)

    assert result.created == [] and result.updated == []
    assert any("near-duplicate" in r for r in result.rejected)
    assert len(xmd.list_memories(ana.id)) == 1
    assert all(c.memory_processed for c in xmd.list_chats(ana.id, "lab"))


def test_unknown_handle_is_rejected_alone(xmd: Memoryd, fake_llm: FakeOpenAIServer) -> None:
    ana = xmd.create_user("ana")
    xmd.create_workspace("lab")
    kept = xmd.add_memory(ana.id, "The lab uses Slurm for jobs.", None, "lab")
    chat(xmd, ana.id, "lab", 3, "I'm Ana, I run on Mondays; the lab budget is 40k EUR")
    fake_llm.script(
        observe(("The lab budget is 40k EUR.", "WORKSPACE"), ("Ana runs on Mondays.", "GLOBAL")),
        reflect(
            {"candidate": 1, "action": "update", "target": "W7"},
            {"candidate": 2, "scope": "GLOBAL"},
        ),
    )

    result = xmd.extract(ana.id, "lab", force=True)

    assert [m.content for m in result.created] == ["Ana runs on Mondays."]
    assert xmd.get_memory(ana.id, kept.id).content == "The lab uses Slurm for jobs."
    run = xmd.extraction_runs()[0]
    assert any("'W7'" in e["error"] for e in run.errors if e["kind"] == "item")
    assert all(c.memory_processed for c in xmd.list_chats(ana.id, "lab"))


def test_update_cannot_reach_another_users_memory(xmd: Memoryd, fake_llm: FakeOpenAIServer) -> None:
    ana = xmd.create_user("ana")
    bob = xmd.create_user("bob")
    xmd.create_workspace("lab")
    bobs = xmd.add_memory(bob.id, "Bob's favourite editor is Emacs.")
    chat(xmd, ana.id, "lab", 3, "I'm Ana and my favourite editor is Vim")
    fake_llm.script(
        observe(("Ana's favourite editor is Vim.", "GLOBAL", "update")),
        # G1 exists for Bob, not for Ana; the raw id is not a handle either
        reflect(
            {"candidate": 1, "action": "update", "target": "G1", "scope": "GLOBAL"},
            {"candidate": 1, "action": "update", "target": bobs.id[:4], "scope": "GLOBAL"},
        ),
    )

    result = xmd.extract(ana.id, "lab", force=True)

    assert result.updated == [] and result.created == []
    assert len(result.rejected) == 2
    assert xmd.get_memory(bob.id, bobs.id).content == "Bob's favourite editor is Emacs."
    assert xmd.list_memories(ana.id) == []
    assert [a.action.value for a in xmd.audit_log(bob.id)] == ["create"]


def test_more_creates_than_free_slots(xmd: Memoryd, fake_llm: FakeOpenAIServer) -> None:
    ana = xmd.create_user("ana")
    xmd.create_workspace("lab")
    for fact in ("Ana is a chemist.", "Ana lives in Porto.", "Ana speaks Portuguese.",
                 "Ana has two cats."):  # fmt: skip
        xmd.add_memory(ana.id, fact)
    chat(
        xmd,
        ana.id,
        "lab",
        3,
        "I'm Ana: I drink green tea every morning, play the cello "
        "in an orchestra and I am learning Japanese on weekends",
    )
    fake_llm.script(
        observe(
            ("Ana drinks green tea every morning.", "GLOBAL"),
            ("Ana plays the cello in an orchestra.", "GLOBAL"),
            ("Ana is learning Japanese on weekends.", "GLOBAL"),
        ),
        reflect(*({"candidate": n, "scope": "GLOBAL"} for n in (1, 2, 3))),
    )

    result = xmd.extract(ana.id, "lab", force=True)

    assert [m.content for m in result.created] == ["Ana drinks green tea every morning."]
    assert sum("no free global slot" in r for r in result.rejected) == 2
    assert len(xmd.list_memories(ana.id, "global")) == 5
    assert "Free slots: GLOBAL 1, WORKSPACE 20" in user_prompt(fake_llm.requests[1])


def test_secrets_are_never_stored_nor_shown_to_the_reflector(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    key = "sk-proj-7fQ2mZx9LkP4vR8tW1yB3nC6dH0jS5aE"
    ana = xmd.create_user("ana")
    xmd.create_workspace("bot")
    xmd.record_chat(ana.id, "bot", f"My config: OPENAI_API_KEY={key}", "Revoke that key!")
    xmd.record_chat(ana.id, "bot", "The admin password is Rye&Honey!2024", "Don't share it.")
    xmd.record_chat(ana.id, "bot", "The bot posts in #standup at 9:30.", "OK")
    fake_llm.script(
        observe(
            (f"The bot's OpenAI key is {key}.", "WORKSPACE"),
            ("The admin login uses Rye&Honey!2024.", "WORKSPACE"),
            ("The bot posts in #standup at 9:30.", "WORKSPACE"),
        ),
        reflect({"candidate": 1}),
    )

    result = xmd.extract(ana.id, "bot", force=True)

    assert [m.content for m in result.created] == ["The bot posts in #standup at 9:30."]
    reflector_prompt = user_prompt(fake_llm.requests[1])
    assert key not in reflector_prompt and "Rye&Honey" not in reflector_prompt
    stored = json.dumps([e for r in xmd.extraction_runs() for e in r.errors])
    assert key not in stored and "Rye&Honey" not in stored


def test_reflector_text_with_a_secret_is_dropped(xmd: Memoryd, fake_llm: FakeOpenAIServer) -> None:
    ana = xmd.create_user("ana")
    xmd.create_workspace("trip")
    chat(xmd, ana.id, "trip", 3, "I'm Ana, travelling to Lisbon; my card is 4539 1488 0343 6467")
    fake_llm.script(
        observe(("Ana is travelling to Lisbon.", "WORKSPACE")),
        reflect({"candidate": 1, "text": "Ana pays with card 4539 1488 0343 6467."}),
    )
    result = xmd.extract(ana.id, "trip", force=True)
    assert result.created == [] and xmd.list_memories(ana.id) == []
    assert any("card number" in r for r in result.rejected)


def test_nothing_to_remember_costs_one_call(xmd: Memoryd, fake_llm: FakeOpenAIServer) -> None:
    ana = xmd.create_user("ana")
    xmd.create_workspace("lab")
    chat(xmd, ana.id, "lab", 3)
    fake_llm.script(Reply.json({"facts": []}))
    result = xmd.extract(ana.id, "lab", force=True)
    assert result.status == "processed" and result.usage.calls == 1
    assert all(c.memory_processed for c in xmd.list_chats(ana.id, "lab"))


def test_fenced_json_with_trailing_comma_is_repaired(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = xmd.create_user("ana")
    xmd.create_workspace("lab")
    chat(xmd, ana.id, "lab", 3, "I'm Ana and I use Julia")
    fake_llm.script(
        Reply.text(
            'Sure! Here are the facts:\n```json\n{"facts": [{"text": "Ana uses Julia.", '
            '"scope": "GLOBAL", "action": "create"},]}\n```'
        ),
        Reply.text(
            '{"memories": [{"candidate": 1, "action": "create", "target": "", "scope": "GLOBAL"}]}'
        ),
    )
    result = xmd.extract(ana.id, "lab", force=True)
    assert [m.content for m in result.created] == ["Ana uses Julia."]
    assert result.usage.calls == 2


def test_unusable_answer_is_retried_once_with_the_problem_shown(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = xmd.create_user("ana")
    xmd.create_workspace("lab")
    chat(xmd, ana.id, "lab", 3, "I'm Ana and I use Julia")
    fake_llm.script(
        Reply.text("I think the user likes Julia."),
        observe(("Ana uses Julia.", "GLOBAL")),
        reflect({"candidate": 1, "scope": "GLOBAL"}),
    )
    result = xmd.extract(ana.id, "lab", force=True)
    assert [m.content for m in result.created] == ["Ana uses Julia."]
    assert result.usage.calls == 3
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
    fake_llm.responder = lambda body: Reply.json({"facts": []})

    result = md.extract(ana.id, "lab", force=True)

    assert result.batches == 3 and len(result.chats_processed) == 10
    seen = [user_prompt(r) for r in fake_llm.requests]
    assert "number 00" in seen[0] and "number 04" not in seen[0]
    assert "number 04" in seen[1] and "number 08" in seen[2]
    md.close()


def test_dry_run_writes_nothing(xmd: Memoryd, fake_llm: FakeOpenAIServer) -> None:
    ana = xmd.create_user("ana")
    xmd.create_workspace("lab")
    chat(xmd, ana.id, "lab", 3, "I'm Ana and I use Julia")
    fake_llm.script(observe(("Ana uses Julia.", "GLOBAL")), reflect({"candidate": 1}))
    result = xmd.extract(ana.id, "lab", force=True, dry_run=True)
    assert result.planned == ["create workspace: Ana uses Julia."]
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
    chat(md, ana.id, "lab", 3, "I'm Ana and I use Julia")
    fake_llm.script(observe(("Ana uses Julia.", "GLOBAL")), reflect({"candidate": 1}))
    result = md.extract(ana.id, "lab", force=True)
    assert [m.content for m in result.created] == ["Ana uses Julia."]
    assert [r.path for r in fake_llm.requests] == ["/v1/messages", "/v1/messages"]
    assert fake_llm.requests[1]["tool_choice"] == {"type": "tool", "name": "decisions"}
    md.close()


def test_facts_the_user_never_stated_are_dropped(xmd: Memoryd, fake_llm: FakeOpenAIServer) -> None:
    """Small models pad answers with the prompt's own words; code checks the chats."""
    ana = xmd.create_user("ana")
    xmd.create_workspace("web")
    chat(xmd, ana.id, "web", 3, "How do I center a div with flexbox?")
    fake_llm.script(
        observe(
            ("The user's job is [User's job].", "GLOBAL"),
            ("The user prefers to never use jokes or moods.", "GLOBAL"),
            ("The web project centers a div with flexbox.", "WORKSPACE"),
        ),
        reflect({"candidate": 1}),
    )
    result = xmd.extract(ana.id, "web", force=True)
    assert [m.content for m in result.created] == ["The web project centers a div with flexbox."]
    assert sum("not stated by the user" in r for r in result.rejected) == 2
    assert "[User's job]" not in user_prompt(fake_llm.requests[1])
