"""``memoryd.evaluation.extraction`` on conversations with times and sessions (the scripted LLM).

A labelled exchange's ``time`` must be the time its chat is recorded at, and a conversation
in sessions must be extracted and scored session by session, a memory of a rule that a
later session replaced counting as stale (bench/genres.py's MemoryCode genre rests on it).
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

from memoryd import Memoryd
from memoryd.evaluation.extraction import facts_at, run_conversation, sessions_of, summarize
from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.models.llm.builtin import make_provider
from memoryd.testing import FakeOpenAIServer
from memoryd.testing.echo_extraction import EchoExtractor
from support.extraction import settings_for

OLD = {"text": "We start every function name with x_.", "session": 0, "replaced_in": 1,
       "scope": "workspace"}  # fmt: skip
NEW = {"text": "We start every function name with y_.", "session": 1, "scope": "workspace"}
RULES = {
    "id": "rules",
    "workspace": "team",
    "exchanges": [
        {
            "prompt": "We start every function name with x_.",
            "response": "Got it.",
            "session": 0,
            "time": "2025-12-19T12:00:00+00:00",
        },
        {
            "prompt": "We start every function name with y_ now.",
            "response": "Noted.",
            "session": 1,
            "time": "2025-12-22T09:30:00",
        },
    ],
    "facts": [OLD, NEW],
}


def test_facts_in_force_and_replaced_after_each_session() -> None:
    assert facts_at(RULES, 0) == ([OLD], [])
    assert facts_at(RULES, 1) == ([NEW], [OLD])
    assert facts_at(RULES, None) == ([NEW], [OLD])
    assert [key for key, _ in sessions_of(RULES)] == [0, 1]
    assert [key for key, _ in sessions_of({"exchanges": [{"prompt": "a"}]})] == [None]


def test_sessions_are_scored_in_turn_and_the_replaced_rule_is_stale(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    with FakeOpenAIServer() as srv:
        srv.responder = EchoExtractor()  # keeps both rules: the Reflector says "separate"
        settings = settings_for(srv, tmp_path)
        row = run_conversation(RULES, settings, make_provider(settings), embedder, tmp_path)
    assert [(c["session"], c["facts"], c["memories"], c["correct"]) for c in row.checkpoints] \
        == [(0, 1, 1, 1), (1, 1, 2, 1)]  # fmt: skip
    assert (row.facts, len(row.memories), row.correct, row.stale) == (1, 2, 1, 1)
    assert {j["verdict"] for j in row.judged} == {"correct", "stale"}
    assert row.wrong_scope == 0 and row.calls == 3  # Observer twice, Reflector once
    summary = summarize([row])
    assert summary["stale_share"] == 0.5 and summary["precision"] == 0.5
    assert summary["precision_over_sessions"] == round(2 / 3, 3)
    assert summary["recall_over_sessions"] == 1.0
    # each chat was recorded at its labelled time (UTC when it names no offset)
    with Memoryd(f"sqlite:///{next(tmp_path.glob('*.db'))}", embedder=embedder) as md:
        times = [c.created_at for c in md.list_chats(md.list_users()[0].id)]
    assert [(t.date(), t.hour) for t in times] == [
        (date(2025, 12, 19), 12),
        (date(2025, 12, 22), 9),
    ]
