"""What the issue-10 reranker costs per chat turn, against the hybrid it replaced.

The same sliding chat as bench/turn_latency.py (pool p01 of bench/data/retrieval.json: 5
global + 20 workspace memories on a temporary SQLite file; every message and reply a text
not seen before; after each turn the exchange is pre-embedded as ``record_chat`` does,
untimed; each message's last question is made unique with a turn number, "(turn 12)?", so a
reranker that embeds only the question never finds it cached from an earlier turn that
asked the same base question). Three set-ups answer the same turns, interleaved turn by
turn in rotating order so background load hits them alike:

- before: the default before issue 10 (weighted mean of part vectors, message 2, + BM25),
  or with ``--before round1`` the default of issue 10's first round (the blend, whole
  message embedded; what the question focus is measured against), or with ``--before
  round2`` the default of its second round (no answer bank), or with ``--before round3``
  the default of its third round (the first answer bank), or with ``--before round9`` the
  default before round 10 shipped the questions (topics, no questions): that set-up reads a
  copy of the database whose memories have no questions stored, so the difference is the
  larger rows as well as the scoring;
- after:  the shipped default (``MemorydSettings.reranker``);
- floor:  ``reranker="recency"``, storage and bookkeeping only.

Every memory carries the topics the bundled model wrote for it (``data/memory-topics.jsonl``),
as the background tagging pass leaves them, and (since round 10) the questions it wrote for
it (``data/memory-questions.jsonl``) with their vectors, as the questions pass leaves them.
No turn of this chat is like the answer bank's questions, so a last reading times the bank's
gain where it fires, with and without topics. With ``--pastime`` every memory also carries
a pastime answer (round 23; alternating yes and no, as a user with the pastime pass on has
them: the time does not depend on the answers, only on there being two kinds), so every
turn of the shipped default checks its message against the fun questions; a reading
times the lift on a fun message.

    .venv/bin/python bench/rerank_latency.py [--turns 600]
        [--before issue10|round1|round2|round3|round9] [--pastime]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from build_answer_bank import read_topic_keys
from retrieval_ideas import round3_hybrid
from retrieval_quality import blend_hybrid, read_questions, round2_hybrid, today_hybrid
from turn_latency import chat_turns, percentiles, populate

from memoryd import Memoryd
from memoryd.config import MemorydSettings
from memoryd.domain import topics
from memoryd.domain.injection import build_query, history_part
from memoryd.domain.models import Scope
from memoryd.embedding.minilm import MiniLMEmbedder
from memoryd.rerank import EmbeddingReranker, HybridReranker
from memoryd.rerank.answer_bank import load_bank
from memoryd.rerank.base import Warmable
from memoryd.rerank.embedding import memory_vectors

DATA = Path(__file__).parent / "data" / "retrieval.json"
BEFORE = {
    "issue10": ("hybrid as shipped before issue 10", today_hybrid),
    "round1": ("hybrid of issue 10's first round", blend_hybrid),
    "round2": ("hybrid of issue 10's second round (no answer bank)", round2_hybrid),
    "round3": ("hybrid of issue 10's third round (the first answer bank)", round3_hybrid),
    "round9": (
        "default before round 10 (topics, no questions)",
        lambda embedder: HybridReranker(
            EmbeddingReranker(
                embedder, bank=load_bank(embedder.name, embedder.dimensions), questions_weight=0.0
            )
        ),
    ),
}


def distinct_questions(
    turns: Sequence[tuple[str, list[dict[str, str]], str]],
) -> list[tuple[str, list[dict[str, str]], str]]:
    """The turns with every message's last question numbered, history quoting the same."""
    renamed: dict[str, str] = {}
    for n, (message, _, _) in enumerate(turns):
        at = message.rfind("?")
        renamed[message] = f"{message[:at]} (turn {n}){message[at:]}" if at >= 0 else message
    return [
        (
            renamed[m],
            [{**h, "content": renamed.get(h["content"], h["content"])} for h in history],
            reply,
        )
        for m, history, reply in turns
    ]


def scoring_only(
    setups: dict[str, Memoryd],
    user_id: int,
    slug: str,
    turns: Sequence[tuple[str, list[dict[str, str]], str]],
) -> dict[str, list[float]]:
    with setups["after"].db.read() as repo:
        pool = repo.turn_memories(user_id, repo.workspace_id(slug))
    candidates = [m for m in pool if m.scope is Scope.WORKSPACE]
    times: dict[str, list[float]] = {"before": [], "after": []}
    for message, history, _ in turns:
        query = build_query(message, history)
        for name in times:
            reranker = setups[name].reranker
            reranker.score(query, candidates)  # every part cached from here on
            start = time.perf_counter()
            reranker.score(query, candidates)
            times[name].append((time.perf_counter() - start) * 1000)
    return times


def tag_all(url: str, keys: dict[str, tuple[str, ...]]) -> None:
    """Every memory gets the topics the bundled model wrote for its text."""
    from sqlalchemy import create_engine, update

    from memoryd.storage.tables import memories

    engine = create_engine(url)
    with engine.begin() as conn:
        for text, found in keys.items():
            conn.execute(
                update(memories)
                .where(memories.c.content == text)
                .values(topics=topics.encode(found))
            )
    engine.dispose()


def ask_all(url: str, embedder: MiniLMEmbedder) -> int:
    """Every memory gets the questions the bundled model wrote for its text, embedded one
    memory's questions per call, as the questions pass stores them."""
    from sqlalchemy import create_engine, select

    from memoryd.storage.questions import set_questions
    from memoryd.storage.tables import memories

    asked = read_questions()
    engine = create_engine(url)
    done = 0
    with engine.begin() as conn:
        rows = conn.execute(select(memories.c.id, memories.c.content, memories.c.content_key))
        for memory_id, content, key in list(rows):
            if asked.get(content):
                vectors = embedder.embed(list(asked[content]))
                done += set_questions(conn, memory_id, key, asked[content], vectors, embedder.name)
    engine.dispose()
    return done


def judge_all(url: str) -> None:
    """Every memory gets a pastime answer, yes and no in turn (by id order)."""
    from sqlalchemy import create_engine, select, update

    from memoryd.storage.tables import memories

    engine = create_engine(url)
    with engine.begin() as conn:
        ids = sorted(conn.execute(select(memories.c.id)).scalars())
        for n, memory_id in enumerate(ids):
            conn.execute(
                update(memories).where(memories.c.id == memory_id).values(pastime=n % 2 == 0)
            )
    engine.dispose()


def lift_when_it_fires(
    md: Memoryd, user_id: int, slug: str, repeats: int = 2000
) -> dict[str, float]:
    """What the pastime lift adds to a fun turn's scores (its vector cached, as the
    reranker leaves it)."""
    lift = md.reranker.pastime  # type: ignore[attr-defined]
    with md.db.read() as repo:
        pool = [
            m
            for m in repo.turn_memories(user_id, repo.workspace_id(slug))
            if m.scope is Scope.WORKSPACE
        ]
    focus = "What do you like to do for fun?"
    scores = [float(i) for i in range(len(pool))]
    if lift.lift(focus, scores, pool) == scores:
        raise SystemExit("the lift does not fire on the timed message")
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        lift.lift(focus, scores, pool)
        times.append((time.perf_counter() - start) * 1000)
    return percentiles(times)


def bank_when_it_fires(
    md: Memoryd, user_id: int, slug: str, repeats: int = 2000
) -> dict[str, dict[str, float]]:
    """What the answer bank adds to a turn where it fires, without and with topics."""
    reranker = md.reranker
    dense = getattr(reranker, "dense", reranker)
    bank = dense.bank
    if bank is None:
        raise SystemExit("the shipped default has no answer bank")
    with md.db.read() as repo:
        pool = [
            m
            for m in repo.turn_memories(user_id, repo.workspace_id(slug))
            if m.scope is Scope.WORKSPACE
        ]
    if not all(m.topics is not None for m in pool):
        raise SystemExit("the pool's memories are not all tagged")
    (question,) = md.embedder.embed(["What do you like to do for fun?"])
    matrix = memory_vectors(md.embedder, pool)
    keys = [m.topics for m in pool]
    if bank.boost(question, matrix) is None:
        raise SystemExit("the bank does not fire on the timed message")
    times: dict[str, list[float]] = {
        "vectors only (untagged memories)": [],
        "vectors and topics (tagged memories)": [],
    }
    for _ in range(repeats):
        for label, given in zip(times, (None, keys), strict=True):
            start = time.perf_counter()
            bank.boost(question, matrix, given)
            times[label].append((time.perf_counter() - start) * 1000)
    return {label: percentiles(values) for label, values in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=600)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--seed", type=int, default=10)
    parser.add_argument(
        "--before",
        choices=sorted(BEFORE),
        default="issue10",
        help="the reranker 'before' stands for",
    )
    parser.add_argument(
        "--pastime", action="store_true", help="every memory carries a pastime answer"
    )
    args = parser.parse_args()
    data = json.loads(DATA.read_text())
    pool, other = data["pools"][0], data["pools"][1]
    replies = [
        h["content"]
        for p in data["pools"]
        for q in p["queries"]
        for h in q["history"]
        if h["role"] == "assistant"
    ]
    turns = distinct_questions(chat_turns(pool, replies, args.warmup + args.turns, args.seed))
    embedder = MiniLMEmbedder()
    embedder.embed(["warm up"])
    default = MemorydSettings.model_fields["reranker"].default
    times: dict[str, list[float]] = {"before": [], "after": [], "floor": []}
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/bench.db"
        user_id, slug = populate(url, embedder, pool, other)
        tag_all(url, read_topic_keys())  # as the background pass leaves them
        before_url = url
        if args.before == "round9":  # a user whose memories have no questions yet
            shutil.copy(f"{tmp}/bench.db", f"{tmp}/before.db")
            before_url = f"sqlite:///{tmp}/before.db"
        asked = ask_all(url, embedder)
        print(f"{asked} memories given their questions")
        if args.pastime:
            judge_all(url)
            print("every memory given a pastime answer")
        setups = {
            "before": Memoryd(
                before_url, embedder=embedder, reranker=BEFORE[args.before][1](embedder)
            ),
            "after": Memoryd(url, embedder=embedder, reranker=default),
            "floor": Memoryd(url, embedder=embedder, reranker="recency"),
        }
        names = list(setups)
        for i, (message, history, reply) in enumerate(turns):
            for name in names[i % 3 :] + names[: i % 3]:
                start = time.perf_counter()
                turn = setups[name].context(user_id, slug, message, history)
                elapsed = (time.perf_counter() - start) * 1000
                if turn.fallback_reason or len(turn.workspace_memories) != 5:
                    raise SystemExit(f"{name}: turn {i} fell back: {turn.fallback_reason}")
                if i >= args.warmup:
                    times[name].append(elapsed)
            for md in setups.values():  # what record_chat does for the next turns, untimed
                reranker = md.reranker
                if isinstance(reranker, Warmable):
                    reranker.warm([history_part(message), history_part(reply)])
        scoring = scoring_only(setups, user_id, slug, turns[args.warmup :])
        bank_cost = bank_when_it_fires(setups["after"], user_id, slug)
        lift_cost = lift_when_it_fires(setups["after"], user_id, slug) if args.pastime else None
        for md in setups.values():
            md.close()
    print(
        f"## md.context() per turn, {args.turns} turns after {args.warmup} warm-up"
        f" (5 global + 20 workspace memories, SQLite)"
    )
    print(f"{'set-up':<48}{'p50 ms':>9}{'p95 ms':>9}{'mean ms':>9}")
    labels = {
        "before": f"before: {BEFORE[args.before][0]}",
        "after": f"after: shipped default '{default}'",
        "floor": "floor: recency, no reranking",
    }
    for name, label in labels.items():
        row = percentiles(times[name])
        print(f"{label:<48}{row['p50']:>9.2f}{row['p95']:>9.2f}{row['mean']:>9.2f}")
    diffs = [a - b for a, b in zip(times["after"], times["before"], strict=True)]
    p50_after, p50_before = (statistics.median(times[n]) for n in ("after", "before"))
    print(
        f"after - before: p50 {p50_after - p50_before:+.2f} ms"
        f" (ratio {p50_after / p50_before:.3f}x); median of per-turn differences"
        f" {statistics.median(diffs):+.2f} ms   (budget: +1 ms)"
    )
    print(
        "\n## reranker.score() alone, every query part already cached (the same turns):"
        " what the scoring itself costs"
    )
    for name in ("before", "after"):
        row = percentiles(scoring[name])
        print(
            f"{labels[name]:<48}{row['p50'] * 1000:>8.0f}us{row['p95'] * 1000:>7.0f}us"
            f"{row['mean'] * 1000:>7.0f}us"
        )
    print(
        "\n## when the answer bank fires (no turn of this chat is like its questions):"
        " bank.boost() over the 20 workspace memories, message 'What do you like to do"
        " for fun?'"
    )
    for label, row in bank_cost.items():
        print(
            f"{label:<48}{row['p50'] * 1000:>8.0f}us{row['p95'] * 1000:>7.0f}us"
            f"{row['mean'] * 1000:>7.0f}us"
        )
    if lift_cost is not None:
        print(
            "\n## when the pastime lift fires: lift() over the 20 workspace memories, message"
            " 'What do you like to do for fun?'"
        )
        print(
            f"{'gate and lift':<48}{lift_cost['p50'] * 1000:>8.0f}us"
            f"{lift_cost['p95'] * 1000:>7.0f}us{lift_cost['mean'] * 1000:>7.0f}us"
        )
    load1, load5, _ = os.getloadavg()
    print(f"load average {load1:.2f} (1 min), {load5:.2f} (5 min) on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
