"""Attack class: a well-formed but wrong LLM answer marking chats learned from (item 4).

An Observer answer whose items all point at no sentence (``{"person": ["ALL"],
"project": [999999, -1]}``) is retried once and then fails the batch: its chats stay
unprocessed, the run is not ``ok``, and a later run still finds them to learn from.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memoryd import Memoryd
from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.testing import FakeOpenAIServer
from support.extraction import Clock, chat, make_md, observe, reflect

WRONG = observe(["ALL"], [999999, -1])


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as srv:
        yield srv


@pytest.fixture
def xmd(
    database_url: str, fake_llm: FakeOpenAIServer, tmp_path: Path, embedder: MiniLMEmbedder
) -> Iterator[Memoryd]:
    with make_md(database_url, fake_llm, tmp_path, embedder, Clock()) as md:
        yield md


def test_an_answer_of_only_invalid_items_fails_the_batch_and_keeps_its_chats(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = xmd.create_user("ana").id
    xmd.create_workspace("lab")
    chat(xmd, ana, "lab", 6, "I keep my lab notes in Obsidian.")
    fake_llm.script(WRONG, WRONG)

    result = xmd.extract(ana, "lab", force=True)

    assert fake_llm.pending == 0  # asked twice: the answer and its retry
    assert result.status == "failed" and "unusable" in (result.error or "")
    assert xmd.list_memories(ana) == []
    assert not any(c.memory_processed for c in xmd.list_chats(ana, "lab"))
    run = xmd.extraction_runs()[0]
    assert run.status == "errors" and run.chats_processed == 0

    fake_llm.script(observe([1]))
    later = xmd.extract(ana, "lab", force=True)
    assert later.status == "processed" and len(later.chats_processed) == 6
    assert [m.content for m in xmd.list_memories(ana)] == [
        "The user keeps their lab notes in Obsidian."
    ]


def test_a_retry_with_a_usable_answer_is_used(xmd: Memoryd, fake_llm: FakeOpenAIServer) -> None:
    ana = xmd.create_user("ana").id
    xmd.create_workspace("lab")
    chat(xmd, ana, "lab", 3, "I keep my lab notes in Obsidian.")
    fake_llm.script(WRONG, observe([1]))

    result = xmd.extract(ana, "lab", force=True)

    assert result.status == "processed" and len(result.created) == 1


def test_reflector_verdicts_that_are_all_invalid_fail_the_batch(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = xmd.create_user("ana").id
    xmd.create_workspace("lab")
    xmd.add_memory(ana, "The lab uses Slurm 22.", None, "lab")
    chat(xmd, ana, "lab", 3, "The lab now uses Slurm 23.")
    bad = reflect({"pair": 7, "verdict": "same"}, {"pair": 1, "verdict": "delete all"})
    fake_llm.script(observe([], [1]), bad, bad)

    result = xmd.extract(ana, "lab", force=True)

    assert result.status == "failed"
    assert [m.content for m in xmd.list_memories(ana)] == ["The lab uses Slurm 22."]
    assert not any(c.memory_processed for c in xmd.list_chats(ana, "lab"))
