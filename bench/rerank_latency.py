"""What the shipped reranker costs per chat turn, against a simpler one and a floor.

The same sliding chat as bench/turn_latency.py (pool p01 of bench/data/retrieval.json: 5
global + 20 workspace memories on a temporary SQLite file; every message and reply a text
not seen before; after each turn the exchange is pre-embedded as ``record_chat`` does,
untimed; each message's last question is made unique with a turn number, "(turn 12)?", so a
reranker that embeds only the question never finds it cached from an earlier turn that
asked the same base question). Every memory carries the questions the bundled model wrote
for it (``data/memory-questions*.jsonl``, joined as the questions pass stores them) with
their vectors. Three set-ups answer the same turns, interleaved turn by turn in rotating
order so background load hits them alike:

- before: with ``--before cosine`` (the default) plain MiniLM cosine of the whole query as
  one text (``retrieval_genres.ConcatCosine``, the baseline of bench/retrieval_genres.py);
  ``--before embedding`` the ``embedding`` reranker (the shipped one without BM25);
  ``--before no-questions`` the shipped default over a copy of the database whose
  memories have no questions stored (the larger rows as well as the scoring);
- after:  the shipped default (``MemorydSettings.reranker``);
- floor:  ``reranker="recency"``, storage and bookkeeping only.

    PYTHONPATH=src .venv/bin/python bench/rerank_latency.py [--turns 600]
        [--before cosine|embedding|no-questions]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from retrieval_genres import ConcatCosine
from turn_latency import chat_turns, percentiles, populate, read_questions

from memoryd import Memoryd
from memoryd.config import MemorydSettings
from memoryd.domain.injection import build_query, history_part
from memoryd.domain.models import Scope
from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.models.rerank.base import Warmable
from memoryd.plugins import reranker_factories

DATA = Path(__file__).parent / "data" / "retrieval.json"
DEFAULT = MemorydSettings.model_fields["reranker"].default


class PlainCosine(ConcatCosine):
    name = "cosine"


BEFORE: dict[str, tuple[str, Callable[[MiniLMEmbedder], Any]]] = {
    "cosine": ("plain cosine, whole query as one text", PlainCosine),
    "embedding": ("'embedding' (no BM25)", lambda e: reranker_factories()["embedding"](e)),
    "no-questions": (
        f"'{DEFAULT}', memories without questions",
        lambda e: reranker_factories()[DEFAULT](e),
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
    times: dict[str, list[float]] = {"before": [], "after": []}
    pools = {}
    for name in times:
        with setups[name].db.read() as repo:
            pool = repo.turn_memories(user_id, repo.workspace_id(slug))
        pools[name] = [m for m in pool if m.scope is Scope.WORKSPACE]
    for message, history, _ in turns:
        query = build_query(message, history)
        for name in times:
            reranker = setups[name].reranker
            reranker.score(query, pools[name])  # every part cached from here on
            start = time.perf_counter()
            reranker.score(query, pools[name])
            times[name].append((time.perf_counter() - start) * 1000)
    return times


def ask_all(url: str, embedder: MiniLMEmbedder) -> int:
    """Every memory gets the questions the bundled model wrote for its text, embedded one
    memory's questions per call, as the questions pass stores them."""
    from sqlalchemy import create_engine, select

    from memoryd.extraction.questions import PROMPT_VERSION
    from memoryd.storage.derived import QUESTIONS, put
    from memoryd.storage.tables import memories

    asked = read_questions()
    engine = create_engine(url)
    done = 0
    with engine.begin() as conn:
        rows = conn.execute(select(memories.c.id, memories.c.content, memories.c.content_key))
        for memory_id, content, key in list(rows):
            if asked.get(content):
                vectors = embedder.embed(list(asked[content]))
                done += put(
                    conn, memory_id, key, QUESTIONS, PROMPT_VERSION, list(asked[content]),
                    vectors, embedder.name,
                )  # fmt: skip
    engine.dispose()
    return done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=600)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--seed", type=int, default=10)
    parser.add_argument(
        "--before", choices=sorted(BEFORE), default="cosine", help="what 'before' stands for"
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
    times: dict[str, list[float]] = {"before": [], "after": [], "floor": []}
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/bench.db"
        user_id, slug = populate(url, embedder, pool, other)
        before_url = url
        if args.before == "no-questions":  # a user whose memories have no questions yet
            shutil.copy(f"{tmp}/bench.db", f"{tmp}/before.db")
            before_url = f"sqlite:///{tmp}/before.db"
        asked = ask_all(url, embedder)
        print(f"{asked} memories given their questions")
        setups = {
            "before": Memoryd(
                before_url, embedder=embedder, reranker=BEFORE[args.before][1](embedder)
            ),
            "after": Memoryd(url, embedder=embedder, reranker=DEFAULT),
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
        for md in setups.values():
            md.close()
    print(
        f"## md.context() per turn, {args.turns} turns after {args.warmup} warm-up"
        f" (5 global + 20 workspace memories, SQLite)"
    )
    print(f"{'set-up':<52}{'p50 ms':>9}{'p95 ms':>9}{'mean ms':>9}")
    labels = {
        "before": f"before: {BEFORE[args.before][0]}",
        "after": f"after: shipped default '{DEFAULT}'",
        "floor": "floor: recency, no reranking",
    }
    for name, label in labels.items():
        row = percentiles(times[name])
        print(f"{label:<52}{row['p50']:>9.2f}{row['p95']:>9.2f}{row['mean']:>9.2f}")
    diffs = [a - b for a, b in zip(times["after"], times["before"], strict=True)]
    p50_after, p50_before = (statistics.median(times[n]) for n in ("after", "before"))
    print(
        f"after - before: p50 {p50_after - p50_before:+.2f} ms"
        f" (ratio {p50_after / p50_before:.3f}x); median of per-turn differences"
        f" {statistics.median(diffs):+.2f} ms"
    )
    print(
        "\n## reranker.score() alone, every query part already cached (the same turns):"
        " what the scoring itself costs"
    )
    for name in ("before", "after"):
        row = percentiles(scoring[name])
        print(
            f"{labels[name]:<52}{row['p50'] * 1000:>8.0f}us{row['p95'] * 1000:>7.0f}us"
            f"{row['mean'] * 1000:>7.0f}us"
        )
    load1, load5, _ = os.getloadavg()
    print(f"load average {load1:.2f} (1 min), {load5:.2f} (5 min) on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
