"""Measuring rerankers on labelled chat turns (``memoryd eval retrieval``).

Before switching a deployment to another reranker one wants to know whether it picks
better memories on one's own kind of turns, and what it costs a turn. This module loads a
labelled set of pools into a temporary SQLite database through ``Memoryd.add_memory`` (the
vectors a real write stores), then asks ``Memoryd.context`` for every turn with each
reranker in turn, as a chat would, and scores the 5 workspace memories it chose. The
set's format and the figures (recall@5 counting at most 5 relevant memories, hit@5,
MRR@5, p50 and p95 time, fallbacks) are docs/reranking.md's ("Measuring a reranker on
your own turns"); given an LLM, the questions pass runs over every memory first, as the
background would.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memoryd.app.service import Memoryd
from memoryd.domain.errors import InvalidContent, InvalidInput, MemorydError
from memoryd.domain.injection import WORKSPACE_TOP_K
from memoryd.domain.rules import Limits, normalize_content
from memoryd.evaluation.labelled_data import read_items
from memoryd.extraction.memory_pass import PassJob
from memoryd.extraction.questions import QuestionsPass
from memoryd.models.embedding.base import Embedder
from memoryd.models.llm.base import LLMProvider

SAMPLE = "retrieval-sample.json"
MAX_POOL = 200


@dataclass(frozen=True)
class LabelledTurn:
    message: str
    history: tuple[dict[str, str], ...]
    relevant: frozenset[int]


@dataclass(frozen=True)
class Pool:
    """One workspace's memories and the turns labelled over them."""

    id: str
    memories: tuple[str, ...]
    turns: tuple[LabelledTurn, ...]


@dataclass(frozen=True)
class TurnResult:
    pool: int  # the pool's index in the set
    turn: int
    recall: float
    hit: float
    reciprocal_rank: float
    ms: float
    fallback: str | None
    chosen: tuple[int, ...]  # the pool indexes injected, best first


@dataclass(frozen=True)
class RerankerReport:
    reranker: str
    turns: tuple[TurnResult, ...]

    def misses(self, pools: Sequence[Pool], limit: int) -> list[dict[str, Any]]:
        """Up to ``limit`` turns that did not get every relevant memory they could, worst
        first, with the memories chosen and the relevant ones left out (as texts)."""
        worst = sorted((t for t in self.turns if t.recall < 1), key=lambda t: t.recall)
        rows = []
        for result in worst[:limit]:
            pool = pools[result.pool]
            turn = pool.turns[result.turn]
            rows.append(
                {
                    "pool": pool.id,
                    "turn": result.turn,
                    "message": turn.message,
                    "recall_at_5": round(result.recall, 4),
                    "chosen": [pool.memories[i] for i in result.chosen],
                    "missed": [
                        pool.memories[i] for i in sorted(turn.relevant - set(result.chosen))
                    ],
                }
            )
        return rows

    def summary(self) -> dict[str, Any]:
        times = sorted(t.ms for t in self.turns)
        fell_back = [t.fallback for t in self.turns if t.fallback]
        count = len(self.turns)
        return {
            "reranker": self.reranker,
            "turns": count,
            "recall_at_5": round(sum(t.recall for t in self.turns) / count, 4),
            "hit_at_5": round(sum(t.hit for t in self.turns) / count, 4),
            "mrr_at_5": round(sum(t.reciprocal_rank for t in self.turns) / count, 4),
            "p50_ms": round(statistics.median(times), 2),
            "p95_ms": round(times[min(count - 1, int(0.95 * count))], 2),
            "fallbacks": len(fell_back),
            "first_fallback": fell_back[0] if fell_back else None,
        }


def measures(ranked: Sequence[int], relevant: frozenset[int]) -> tuple[float, float, float]:
    """(recall@5, hit@5, reciprocal rank) of a ranking given as pool indexes, best first.
    Recall counts at most 5 relevant memories; the rank is read over all of ``ranked``."""
    found = len(set(ranked[:WORKSPACE_TOP_K]) & relevant)
    first = next((rank for rank, i in enumerate(ranked, 1) if i in relevant), None)
    return (
        found / min(len(relevant), WORKSPACE_TOP_K),
        float(found > 0),
        1 / first if first else 0.0,
    )


def load_retrieval_set(path: Path | None) -> list[Pool]:
    """Pools from a JSON or JSON lines file, or the bundled sample when ``path`` is None.
    Raises InvalidInput naming the first thing that is wrong."""
    pools = read_items(path, SAMPLE, "pools", "pools")
    loaded = [_pool(p, n) for n, p in enumerate(pools, 1)]
    seen: set[str] = set()
    for pool in loaded:
        if pool.id in seen:
            raise InvalidInput(f"pool id {pool.id!r} appears twice")
        seen.add(pool.id)
    return loaded


def _pool(raw: Any, number: int) -> Pool:
    if not isinstance(raw, dict):
        raise InvalidInput(f"pool {number} is not an object")
    name = str(raw.get("id") or number)
    where = f"pool {name}"
    memories = raw.get("memories")
    if not isinstance(memories, list) or not all(isinstance(m, str) for m in memories):
        raise InvalidInput(f"{where}: memories must be a list of strings")
    texts = []
    for i, memory in enumerate(memories):
        try:
            texts.append(normalize_content(memory))
        except InvalidContent as exc:
            raise InvalidInput(f"{where}, memory {i}: {exc}") from None
    if not WORKSPACE_TOP_K < len(texts) <= MAX_POOL:
        raise InvalidInput(
            f"{where} has {len(texts)} memories; a reranker runs only over more than"
            f" {WORKSPACE_TOP_K}, and a pool holds at most {MAX_POOL}"
        )
    if len(set(texts)) != len(texts):
        raise InvalidInput(f"{where}: a memory appears twice")
    queries = raw.get("queries")
    if not isinstance(queries, list) or not queries:
        raise InvalidInput(f"{where}: queries must be a non-empty list")
    turns = tuple(_turn(q, f"{where}, query {i}", len(texts)) for i, q in enumerate(queries))
    return Pool(name, tuple(texts), turns)


def _turn(raw: Any, where: str, size: int) -> LabelledTurn:
    if not isinstance(raw, dict):
        raise InvalidInput(f"{where} is not an object")
    message = raw.get("message")
    if not isinstance(message, str) or not message.strip():
        raise InvalidInput(f"{where}: message must be non-empty text")
    history = raw.get("history", [])
    if not isinstance(history, list) or not all(
        isinstance(h, dict)
        and h.get("role") in ("user", "assistant")
        and isinstance(h.get("content"), str)
        for h in history
    ):
        raise InvalidInput(f'{where}: history must be a list of {{"role", "content"}} messages')
    relevant = raw.get("relevant")
    if (
        not isinstance(relevant, list)
        or not relevant
        or not all(isinstance(i, int) and not isinstance(i, bool) for i in relevant)
    ):
        raise InvalidInput(f"{where}: relevant must be a non-empty list of memory indexes")
    for i in relevant:
        if not 0 <= i < size:
            raise InvalidInput(f"{where}: relevant index {i} is not one of the pool's {size}")
    return LabelledTurn(
        message,
        tuple({"role": h["role"], "content": h["content"]} for h in history),
        frozenset(relevant),
    )


@dataclass(frozen=True)
class PassesRun:
    """What the questions pass did before the turns (``llm`` given)."""

    memories: int
    asked: int
    error: str | None


class PassesFailed(MemorydError):
    """The LLM could not run the passes at all (unreachable, refused its settings)."""


def evaluate_retrieval(
    pools: Sequence[Pool],
    embedder: Embedder,
    rerankers: Sequence[str],
    progress: Callable[[str], None] | None = None,
    llm: LLMProvider | None = None,
) -> tuple[list[RerankerReport], PassesRun | None]:
    """Each reranker's turns over the pools, on one temporary SQLite database, after the
    questions pass when ``llm`` is given (with what it did). Raises
    InvalidInput for an unknown reranker or one its settings cannot build, and
    PassesFailed when the LLM cannot run the passes at all."""
    from memoryd.plugins import pick, reranker_factories  # plugins load on first use

    factories = reranker_factories()
    built = {name: pick("reranker", name, factories)(embedder) for name in rerankers}
    limits = Limits(workspace_per_pair=max(len(p.memories) for p in pools))
    with tempfile.TemporaryDirectory(prefix="memoryd-eval-") as tmp:
        url = f"sqlite:///{Path(tmp) / 'eval.db'}"
        with Memoryd(url, embedder=embedder, reranker="recency", limits=limits) as md:
            user_id, indexes = _store(md, pools)
            total = sum(len(p.memories) for p in pools)
            if progress:
                progress(f"{total} memories stored")
            passes = None if llm is None else _run_passes(md, llm, total, progress)
        reports = []
        for name, reranker in built.items():
            with Memoryd(url, embedder=embedder, reranker=reranker, limits=limits) as md:
                results = tuple(_run_turns(md, user_id, pools, indexes))
            reports.append(RerankerReport(name, results))
            if progress:
                progress(f"{name}: {len(results)} turns")
        return reports, passes


def _store(md: Memoryd, pools: Sequence[Pool]) -> tuple[int, list[dict[str, int]]]:
    """One user with a workspace per pool (``pool-N``) holding its memories; the user's
    id, and per pool its memory ids' indexes."""
    user = md.create_user("eval")
    indexes = []
    for number, pool in enumerate(pools):
        slug = f"pool-{number}"
        md.create_workspace(slug)
        indexes.append(
            {
                md.add_memory(user.id, text, "workspace", slug).id: i
                for i, text in enumerate(pool.memories)
            }
        )
    md.finish_writes()
    return user.id, indexes


def _run_passes(
    md: Memoryd, llm: LLMProvider, total: int, progress: Callable[[str], None] | None
) -> PassesRun:
    """The questions pass for the ``total`` memories stored, as the background would."""
    done = [0]

    def tick() -> None:
        done[0] += 1
        if progress and done[0] % 25 == 0:
            progress(f"questions pass: {done[0]} of {total} memories")

    job = PassJob(md.db, llm, md.embedder, md.clock(), on_memory=tick)
    asking = QuestionsPass().run(job, total)
    if asking.unavailable:
        raise PassesFailed(f"the questions pass could not run: {asking.error}")
    return PassesRun(total, asking.stored, asking.error)


def _run_turns(
    md: Memoryd, user_id: int, pools: Sequence[Pool], indexes: Sequence[dict[str, int]]
) -> Iterator[TurnResult]:
    for number, pool in enumerate(pools):
        for i, turn in enumerate(pool.turns):
            start = time.perf_counter()
            chosen = md.context(user_id, f"pool-{number}", turn.message, turn.history, record=False)
            ms = (time.perf_counter() - start) * 1000
            ranked = tuple(indexes[number][s.memory.id] for s in chosen.workspace_memories)
            recall, hit, rank = measures(ranked, turn.relevant)
            yield TurnResult(number, i, recall, hit, rank, ms, chosen.fallback_reason, ranked)
