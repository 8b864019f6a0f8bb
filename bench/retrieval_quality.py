"""How well each reranker picks a turn's top 5 workspace memories, on labelled data.

bench/data/retrieval.json holds 12 pools of 20 memories and 224 queries whose relevant
memories are labelled (see bench/data/README.md). Every pool becomes a workspace of one
user, filled through ``Memoryd.add_memory`` so the stored vectors are the real ones. Each
query is ranked by recency, BM25, plain MiniLM cosine on the concatenated query text, the
shipped embedding reranker and the hybrid, and by ``md.context()`` with the shipped
default (what users get). Metrics: recall@5 (share of a query's relevant memories in the
top 5), hit@5 (at least one in the top 5) and MRR (1 / rank of the first relevant memory
in the full ranking of 20).

Tuning uses pools 1-6 only; pools 7-12 are held out to report, so a setting that merely
fits the tuning half shows up as a drop on the other.

    .venv/bin/python bench/retrieval_quality.py
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import memoryd.rerank.embedding as embedding_module
from memoryd import Memoryd
from memoryd.config import MemorydSettings
from memoryd.domain.injection import Query, build_query, top_k
from memoryd.domain.models import Memory, Scope
from memoryd.embedding.minilm import QUANTIZE_CHOICES, MiniLMEmbedder
from memoryd.plugins import reranker_factories
from memoryd.rerank import (
    EmbeddingReranker,
    HybridReranker,
    LexicalReranker,
    QueryEncoder,
    RecencyReranker,
)

DATA = Path(__file__).parent / "data" / "retrieval.json"
KINDS = ("keyword", "paraphrase", "history")
TUNE_POOLS = 6  # pools 1-6 tune, 7-12 report
MESSAGE_WEIGHTS = (1.0, 1.5, 2.0, 3.0, 5.0)
LEXICAL_WEIGHTS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5)

Scorer = Callable[[Query, Sequence[Memory]], Sequence[float]]


@dataclass(frozen=True)
class Case:
    pool: int  # 0-based
    kind: str
    message: str
    history: tuple[dict[str, str], ...]
    query: Query
    relevant: frozenset[int]


@dataclass(frozen=True)
class Pool:
    slug: str
    memories: list[Memory]  # in dataset order, with their stored vectors
    index: dict[str, int]  # memory id -> dataset index


# --- scorers that are not shipped ----------------------------------------------------------
class ConcatCosineReranker:
    """Plain MiniLM cosine with the whole query text embedded as one string."""

    name = "concat-cosine"

    def __init__(self, embedder: MiniLMEmbedder) -> None:
        self.encoder = QueryEncoder(embedder)

    def score(self, query: Query, memories: Sequence[Memory]) -> list[float]:
        (vector,) = self.encoder.vectors([query.text])
        return [float(m.embedding @ vector) for m in memories if m.embedding is not None]


class MaxOverPartsReranker(EmbeddingReranker):
    """Best cosine between a memory and any one query part, instead of the weighted mean."""

    name = "embedding-max"

    def score(self, query: Query, memories: Sequence[Memory]) -> list[float]:
        matrix = embedding_module.memory_vectors(self.embedder, memories)
        parts = np.stack(self.encoder.vectors(query.parts))
        return [float(x) for x in (matrix @ parts.T).max(axis=1)]


@contextlib.contextmanager
def message_weight(weight: float) -> Iterator[None]:
    """Run the shipped QueryEncoder with another MESSAGE_WEIGHT (read at each encode)."""
    shipped = embedding_module.MESSAGE_WEIGHT
    embedding_module.MESSAGE_WEIGHT = weight
    try:
        yield
    finally:
        embedding_module.MESSAGE_WEIGHT = shipped


# --- data and metrics ----------------------------------------------------------------------
def load(md: Memoryd, data: dict[str, Any]) -> tuple[list[Pool], list[Case], int]:
    user = md.create_user("bench")
    pools: list[Pool] = []
    cases: list[Case] = []
    for number, raw in enumerate(data["pools"]):
        slug = raw["workspace"]
        md.create_workspace(slug)
        index = {md.add_memory(user.id, text, "workspace", slug).id: i
                 for i, text in enumerate(raw["memories"])}
        with md.db.read() as repo:
            stored = repo.turn_memories(user.id, repo.workspace_id(slug))
        memories = sorted((m for m in stored if m.scope is Scope.WORKSPACE),
                          key=lambda m: index[m.id])
        assert all(m.embedding is not None for m in memories), "stored vectors are missing"
        pools.append(Pool(slug, memories, index))
        for q in raw["queries"]:
            history = tuple(q["history"])
            cases.append(Case(number, q["kind"], q["message"], history,
                              build_query(q["message"], history), frozenset(q["relevant"])))
    return pools, cases, user.id


def measures(ranked: Sequence[int], relevant: frozenset[int]) -> tuple[float, float, float]:
    """(recall@5, hit@5, reciprocal rank) of one ranking given as dataset indexes."""
    top = set(ranked[:5])
    found = len(top & relevant)
    first = next((r for r, i in enumerate(ranked, 1) if i in relevant), None)
    return found / len(relevant), float(found > 0), 1 / first if first else 0.0


def rank(scorer: Scorer, pool: Pool, query: Query) -> list[int]:
    scores = scorer(query, pool.memories)
    ordered = top_k(pool.memories, scores, len(pool.memories))  # shipped order and ties
    return [pool.index[s.memory.id] for s in ordered]


def evaluate(scorer: Scorer, pools: Sequence[Pool], cases: Sequence[Case],
             query: Callable[[Case], Query] = lambda c: c.query,
             ) -> list[tuple[float, float, float]]:
    return [measures(rank(scorer, pools[c.pool], query(c)), c.relevant) for c in cases]


def user_history_only(case: Case) -> Query:
    """The query without assistant replies (the ones a chat has never embedded before)."""
    window = case.history[-3:]
    return build_query(case.message, [h for h in window if h["role"] == "user"])


def message_only(case: Case) -> Query:
    return build_query(case.message)


def summary(results: Sequence[tuple[float, float, float]], cases: Sequence[Case],
            keep: Callable[[Case], bool]) -> tuple[float, float, float]:
    rows = [r for r, c in zip(results, cases, strict=True) if keep(c)]
    return (statistics.fmean(r[0] for r in rows), statistics.fmean(r[1] for r in rows),
            statistics.fmean(r[2] for r in rows))


def in_tune(case: Case) -> bool:
    return case.pool < TUNE_POOLS


def in_report(case: Case) -> bool:
    return case.pool >= TUNE_POOLS


def every(case: Case) -> bool:
    return True


# --- printing --------------------------------------------------------------------------------
def mrr_text(mrr: float) -> str:
    """MRR needs the full ranking; md.context() returns only the top 5 (marked -1)."""
    return f"{mrr:>7.3f}" if mrr >= 0 else f"{'-':>7}"


def print_methods(rows: dict[str, list[tuple[float, float, float]]],
                  cases: Sequence[Case], *, title: str = "Methods", halves: bool = True) -> None:
    counts = {k: sum(c.kind == k for c in cases) for k in KINDS}
    print(f"\n## {title}, all {len(cases)} queries: recall@5, by query kind, hit@5, MRR")
    head = "".join(f"{f'{k} ({counts[k]})':>17}" for k in KINDS)
    print(f"{'method':<44}{'recall@5':>9}{head}{'hit@5':>8}{'MRR':>7}")
    for label, results in rows.items():
        recall, hit, mrr = summary(results, cases, every)
        kinds = "".join(f"{summary(results, cases, lambda c, k=k: c.kind == k)[0]:>17.3f}"
                        for k in KINDS)
        print(f"{label:<44}{recall:>9.3f}{kinds}{hit:>8.3f}{mrr_text(mrr)}")
    if not halves:
        return
    print(f"\n## Same methods by half: tune = pools 1-{TUNE_POOLS}"
          f" ({sum(map(in_tune, cases))} queries), report = pools {TUNE_POOLS + 1}-12"
          f" ({sum(map(in_report, cases))} queries)")
    print(f"{'method':<44}{'tune R@5':>10}{'hit@5':>8}{'MRR':>7}{'report R@5':>12}"
          f"{'hit@5':>8}{'MRR':>7}")
    for label, results in rows.items():
        t, r = summary(results, cases, in_tune), summary(results, cases, in_report)
        print(f"{label:<44}{t[0]:>10.3f}{t[1]:>8.3f}{mrr_text(t[2])}{r[0]:>12.3f}"
              f"{r[1]:>8.3f}{mrr_text(r[2])}")


def print_grid(title: str, grid: dict[tuple[str, float], list[tuple[float, float, float]]],
               cases: Sequence[Case], keep: Callable[[Case], bool]) -> None:
    print(f"\n{title}")
    lexical_weights = sorted({w for _, w in grid})
    print(f"{'dense part / lexical_weight':<28}" + "".join(f"{w:>8g}" for w in lexical_weights))
    for dense in dict.fromkeys(d for d, _ in grid):
        cells = "".join(f"{summary(grid[(dense, w)], cases, keep)[0]:>8.3f}"
                        for w in lexical_weights)
        print(f"{dense:<28}{cells}")


# --- the run -----------------------------------------------------------------------------------
def tune(embedder: MiniLMEmbedder, pools: Sequence[Pool], cases: Sequence[Case],
         shipped: tuple[str, float]) -> None:
    encoder = QueryEncoder(embedder)  # shared: every part is embedded once for the grid
    weights = sorted({*MESSAGE_WEIGHTS, embedding_module.MESSAGE_WEIGHT})
    dense_variants: dict[str, tuple[EmbeddingReranker, float]] = {
        f"mean, MESSAGE_WEIGHT={w:g}": (EmbeddingReranker(embedder, encoder), w)
        for w in weights
    }
    dense_variants["max over parts"] = (MaxOverPartsReranker(embedder, encoder), 0.0)
    grid: dict[tuple[str, float], list[tuple[float, float, float]]] = {}
    for label, (dense, weight) in dense_variants.items():
        with message_weight(weight or embedding_module.MESSAGE_WEIGHT):
            for lexical in sorted({*LEXICAL_WEIGHTS, shipped[1]}):
                hybrid = HybridReranker(dense, lexical_weight=lexical)
                grid[(label, lexical)] = evaluate(hybrid.score, pools, cases)
    print("\n## Tuning the hybrid: recall@5 (lexical_weight 0 = embedding alone)")
    print_grid(f"### tune half (pools 1-{TUNE_POOLS}) - the half used to choose",
               grid, cases, in_tune)
    print_grid(f"### report half (pools {TUNE_POOLS + 1}-12) - held out", grid, cases, in_report)
    print_grid("### all pools", grid, cases, every)

    def key(cfg: tuple[str, float]) -> tuple[float, float]:
        recall, _, mrr = summary(grid[cfg], cases, in_tune)
        return recall, mrr

    best = max(grid, key=key)
    print("\n## Chosen on the tune half (highest recall@5, then MRR) vs the shipped setting")
    print(f"{'setting':<58}{'tune R@5':>9}{'MRR':>7}{'report R@5':>12}{'MRR':>7}"
          f"{'all R@5':>9}{'MRR':>7}")
    for tag, cfg in (("shipped", shipped), ("best on tune", best)):
        t, r, a = (summary(grid[cfg], cases, keep) for keep in (in_tune, in_report, every))
        label = f"{tag}: {cfg[0]}, lexical_weight={cfg[1]:g}"
        print(f"{label:<58}{t[0]:>9.3f}{t[2]:>7.3f}{r[0]:>12.3f}{r[2]:>7.3f}"
              f"{a[0]:>9.3f}{a[2]:>7.3f}")
    changed = [(s, b) for s, b in zip(grid[shipped], grid[best], strict=True) if s[0] != b[0]]
    better = sum(b[0] > s[0] for s, b in changed)
    print(f"queries whose recall@5 differs between the two: {len(changed)}"
          f" ({better} better, {len(changed) - better} worse with the tune-half best)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-tuning", action="store_true", help="skip the tuning grid")
    parser.add_argument("--quantize", default="auto", choices=QUANTIZE_CHOICES,
                        help="embedding graph: re-quantised (auto/u8s8/u8u8) or 'off' (shipped)")
    args = parser.parse_args()
    started = time.perf_counter()
    data = json.loads(DATA.read_text())
    embedder = MiniLMEmbedder(quantize=args.quantize)
    default = MemorydSettings.model_fields["reranker"].default
    with tempfile.TemporaryDirectory() as tmp, \
            Memoryd(f"sqlite:///{tmp}/quality.db", embedder=embedder,
                    reranker=default) as md:
        pools, cases, user_id = load(md, data)
        shipped_default = reranker_factories()[default](embedder)
        methods: dict[str, Scorer] = {
            "recency": RecencyReranker().score,
            "lexical (BM25)": LexicalReranker().score,
            "MiniLM cosine, concatenated query text": ConcatCosineReranker(embedder).score,
            "embedding (mean of part vectors)": EmbeddingReranker(embedder).score,
            "hybrid (embedding + BM25)": HybridReranker(EmbeddingReranker(embedder)).score,
        }
        rows = {label: evaluate(scorer, pools, cases) for label, scorer in methods.items()}
        direct = evaluate(shipped_default.score, pools, cases)
        via_context: list[tuple[float, float, float]] = []
        same_top5 = 0
        for case, expected in zip(cases, direct, strict=True):
            pool = pools[case.pool]
            turn = md.context(user_id, pool.slug, case.message, case.history)
            top = [pool.index[s.memory.id] for s in turn.workspace_memories]
            recall, hit, _ = measures(top, case.relevant)
            same_top5 += (recall, hit) == expected[:2]
            via_context.append((recall, hit, -1.0))  # md.context() returns only the top 5
        rows[f"shipped default '{default}' via md.context()"] = via_context
        lexical_weight = HybridReranker(EmbeddingReranker(embedder)).lexical_weight
        print(f"embedder {embedder.name} ({embedder.variant} graph);"
              f" shipped default reranker '{default}'"
              f" (MESSAGE_WEIGHT={embedding_module.MESSAGE_WEIGHT:g},"
              f" hybrid lexical_weight={lexical_weight:g})")
        print_methods(rows, cases)
        print(f"md.context() gave the same recall@5 and hit@5 as the shipped reranker called"
              f" directly on {same_top5}/{len(cases)} queries")
        alternatives = {
            f"shipped '{default}', query as shipped": direct,
            f"shipped '{default}', history without replies": evaluate(
                shipped_default.score, pools, cases, user_history_only),
            f"shipped '{default}', message only": evaluate(
                shipped_default.score, pools, cases, message_only),
        }
        print_methods(alternatives, cases, halves=False,
                      title="What the query's parts are worth (alternatives, not shipped)")
        if not args.no_tuning:
            shipped = (f"mean, MESSAGE_WEIGHT={embedding_module.MESSAGE_WEIGHT:g}",
                       HybridReranker(EmbeddingReranker(embedder)).lexical_weight)
            tune(embedder, pools, cases, shipped)
    load1, load5, _ = os.getloadavg()
    print(f"\ntook {time.perf_counter() - started:.0f} s; load average {load1:.2f} (1 min),"
          f" {load5:.2f} (5 min) on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
