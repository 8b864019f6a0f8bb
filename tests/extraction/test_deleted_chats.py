"""Extraction never learns from a chat the user deleted, even one it was already reading.

A chat deleted before a run is never shown to the model. A chat deleted while its batch
is with the model drops that batch (nothing of it is written, the chat is not brought
back) and the pair's remaining chats are read again in the same run, which ends well.
Memories learned before a deletion stay. On SQLite and PostgreSQL (``team_md``).
"""

from __future__ import annotations

from typing import Any

from memoryd import Memoryd
from memoryd.testing import FakeOpenAIServer, Reply
from support.extraction import FILLER, observe

ABOUT_ANA = "I work at the Porto lab."
ABOUT_LAB = "The lab now uses Slurm 23."


def shown(request: Any) -> str:
    """What the model was shown: the user sentences of the batch."""
    return str(request["messages"][-1]["content"])


def record(md: Memoryd, user_id: int) -> tuple[int, int]:
    """Three chats in lab: one about Ana, one about the lab, a thank-you."""
    about_ana = md.record_chat(user_id, "lab", ABOUT_ANA, "Nice.")
    about_lab = md.record_chat(user_id, "lab", ABOUT_LAB, "Noted.")
    md.record_chat(user_id, "lab", FILLER, "You're welcome.")
    return about_ana.id, about_lab.id


def test_a_chat_deleted_before_the_run_is_never_shown(
    team_md: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = team_md.get_user("ana").id
    about_ana, about_lab = record(team_md, ana)
    team_md.delete_chat(ana, about_ana)
    fake_llm.script(observe(project=[1]))

    result = team_md.extract(ana, "lab", force=True)

    assert result.status == "processed" and result.error is None
    [request] = fake_llm.requests
    assert ABOUT_LAB in shown(request) and "Porto" not in shown(request)
    [memory] = team_md.list_memories(ana)
    assert (memory.content, memory.source_chat_ids) == (ABOUT_LAB, (about_lab,))


def test_a_chat_deleted_while_its_batch_is_read_is_not_learned_from(
    team_md: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = team_md.get_user("ana").id
    about_ana, about_lab = record(team_md, ana)

    def responder(body: dict[str, object]) -> Reply:
        if len(fake_llm.requests) == 1:  # the model has the batch: Ana deletes a chat
            assert team_md.delete_chat(ana, about_ana) == 1
            return observe(person=[1], project=[2])
        return observe(project=[1])  # the batch again, without the deleted chat

    fake_llm.responder = responder
    result = team_md.extract(ana, "lab", force=True)

    assert result.status == "processed" and result.error is None
    first, second = fake_llm.requests
    assert "Porto" in shown(first) and "Porto" not in shown(second)
    assert [(m.content, m.source_chat_ids) for m in team_md.list_memories(ana)] == [
        (ABOUT_LAB, (about_lab,))
    ]
    remaining = team_md.list_chats(ana, "lab")
    assert about_ana not in [c.id for c in remaining]  # not brought back by the batch
    assert len(remaining) == 2 and all(c.memory_processed for c in remaining)
    run = team_md.extraction_runs()[0]
    assert run.status == "ok" and run.pairs_failed == 0 and run.chats_processed == 2
    assert team_md.extraction_failures() == []


def test_clearing_the_history_while_a_batch_is_read_ends_the_pair_quietly(
    team_md: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = team_md.get_user("ana").id
    record(team_md, ana)
    bo = team_md.get_user("bo").id
    bos = team_md.record_chat(bo, "lab", "Bo's own words.", "ok")

    def responder(body: dict[str, object]) -> Reply:
        assert team_md.clear_chats(ana, "lab") == 3
        return observe(person=[1], project=[2])

    fake_llm.responder = responder
    result = team_md.extract(ana, "lab", force=True)

    assert result.status == "nothing_to_do" and result.error is None
    assert len(fake_llm.requests) == 1
    assert team_md.list_chats(ana) == [] and team_md.list_memories(ana) == []
    assert [c.id for c in team_md.list_chats(bo)] == [bos.id]
    assert team_md.extraction_runs()[0].status == "ok"


def test_memories_learned_before_a_chat_is_deleted_stay(
    team_md: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = team_md.get_user("ana").id
    _, about_lab = record(team_md, ana)
    fake_llm.script(observe(project=[2]))
    assert team_md.extract(ana, "lab", force=True).status == "processed"
    [memory] = team_md.list_memories(ana)

    assert team_md.clear_chats(ana) == 3

    detail = team_md.memory_detail(ana, memory.id)
    assert detail.memory.content == ABOUT_LAB
    assert detail.source_chats == () and detail.deleted_source_chat_ids == (about_lab,)
    assert detail.created_by is not None and detail.created_by.startswith("extraction:")
