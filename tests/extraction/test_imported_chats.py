"""Imported chats keep their place in extraction's backlog (on SQLite and PostgreSQL).

A chat extraction had already read comes in processed and is never shown to the model
again, so an import does not learn a memory twice; one it had not read yet is read by the
next run, as if it had been recorded on the target.
"""

from __future__ import annotations

from typing import Any

from memoryd import Memoryd
from memoryd.testing import FakeOpenAIServer
from support.extraction import observe

ABOUT_ANA = "I work at the Porto lab."
ABOUT_LAB = "The lab now uses Slurm 23."


def shown(request: Any) -> str:
    """What the model was shown: the user sentences of the batch."""
    return str(request["messages"][-1]["content"])


def test_processed_chats_are_not_learned_again_and_the_backlog_is(
    team_md: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana, bo = team_md.get_user("ana").id, team_md.get_user("bo").id
    learned_from = team_md.record_chat(ana, "lab", ABOUT_ANA, "Nice.")
    fake_llm.script(observe(person=[1]))
    assert team_md.extract(ana, "lab", force=True).status == "processed"
    team_md.record_chat(ana, "lab", ABOUT_LAB, "Noted.")  # not read yet
    exported = team_md.export_memories(ana)
    requests_before = len(fake_llm.requests)

    result = team_md.import_memories(bo, exported)  # as if bo's history moved here

    assert (result.created, result.chats_created) == (1, 2)
    moved = {c.prompt: c for c in team_md.list_chats(bo)}
    assert moved[ABOUT_ANA].memory_processed and not moved[ABOUT_LAB].memory_processed
    [memory] = team_md.list_memories(bo)
    assert memory.content == "The user works at the Porto lab."
    assert memory.source_chat_ids == (moved[ABOUT_ANA].id,)
    assert learned_from.id != moved[ABOUT_ANA].id

    fake_llm.script(observe(project=[1]))
    assert team_md.extract(bo, "lab", force=True).status == "processed"

    [request] = fake_llm.requests[requests_before:]
    assert ABOUT_LAB in shown(request) and "Porto" not in shown(request)
    contents = sorted(m.content for m in team_md.list_memories(bo))
    assert contents == [ABOUT_LAB, memory.content]  # nothing learned twice
    assert all(c.memory_processed for c in team_md.list_chats(bo))
    # a second import of the same file adds nothing to the backlog
    assert team_md.import_memories(bo, exported).chats_skipped == 2
    assert team_md.list_chats(bo, processed=False) == []
