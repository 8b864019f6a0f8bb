"""How well each reranker picks a turn's top 5 workspace memories, on labelled data.

Three data sets (bench/data/README.md):

- ``persona_retrieval_clean.json`` (``clean``), the stricter view of Synthetic-Persona-Chat:
  only questions put to the memories' owner, labelled by a stricter matcher (rules fixed
  on dev, checked by hand); dev from the dataset's valid.csv, test from its test.csv.
- ``persona_retrieval.json`` (``persona``), built from Synthetic-Persona-Chat: 1,001 dev
  queries (from the dataset's valid.csv) and 1,000 test queries (its test.csv), each over
  a pool of 20 memories. Settings are chosen on dev only; test is reported.
- ``retrieval.json``, the hand-written set of 224 queries over 12 pools of 20 memories,
  kept as a second reading; its pools are filled through ``Memoryd.add_memory`` and the
  shipped default is also read through ``md.context()`` (what users get).

Methods: recency, BM25, plain MiniLM cosine on the concatenated query text, the hybrid
as shipped before issue 10 (mean of part vectors with the message weighing 2, + 0.15 BM25),
the hybrid of issue 10's first round (the blend 0.5 / 0.5, + 0.15 BM25, whole message) and
the shipped default (question focus, blend 0.7 / 0.3, + 0.05 BM25). Metrics: recall@5
(share of a query's relevant memories in the top 5), hit@5 (at least one in the top 5)
and MRR (1 / rank of the first relevant memory in the full ranking of 20). ``--ideas``
adds every idea tried for issue 10.

    .venv/bin/python bench/retrieval_quality.py [--set clean|persona|hand-written] [--ideas]

Without ``--set`` every set is read and printed, test splits first.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from memoryd import Memoryd
from memoryd.config import MemorydSettings
from memoryd.domain.injection import Query, build_query, top_k
from memoryd.domain.models import Memory, Scope, Source
from memoryd.domain.rules import normalize_content
from memoryd.embedding.minilm import QUANTIZE_CHOICES, MiniLMEmbedder
from memoryd.plugins import reranker_factories
from memoryd.rerank import (
    EmbeddingReranker,
    HybridReranker,
    LexicalReranker,
    QueryEncoder,
    RecencyReranker,
)
from memoryd.rerank.embedding import memory_vectors, part_weights, question_focus

DATA = Path(__file__).parent / "data"
KINDS = ("keyword", "paraphrase", "history")
PERSONA_SETS = {"clean": "persona_retrieval_clean.json", "persona": "persona_retrieval.json"}
Scorer = Callable[[Query, Sequence[Memory]], Sequence[float]]
Result = tuple[float, float, float]


@dataclass(frozen=True)
class Case:
    pool: Sequence[Memory]
    kind: str
    message: str
    history: tuple[dict[str, str], ...]
    query: Query
    relevant: frozenset[int]
    slug: str


# --- scorers that are not shipped ----------------------------------------------------------
class ConcatCosineReranker:
    """Plain MiniLM cosine with the whole query text embedded as one string."""

    name = "concat-cosine"

    def __init__(self, embedder: MiniLMEmbedder) -> None:
        self.embedder = embedder
        self.encoder = QueryEncoder(embedder)

    def score(self, query: Query, memories: Sequence[Memory]) -> list[float]:
        (vector,) = self.encoder.vectors([query.text])
        return [float(x) for x in memory_vectors(self.embedder, memories) @ vector]


def today_hybrid(embedder: MiniLMEmbedder, encoder: QueryEncoder | None = None) -> HybridReranker:
    """The default before issue 10: weighted mean of part vectors (message 2, history 1)."""
    dense = EmbeddingReranker(embedder, encoder, message_weight=2.0, history_decay=1.0,
                              max_share=0.0, remark_words=0)
    return HybridReranker(dense, lexical_weight=0.15)


def blend_hybrid(embedder: MiniLMEmbedder, encoder: QueryEncoder | None = None) -> HybridReranker:
    """The default of the first issue-10 round: the blend, whole message embedded."""
    dense = EmbeddingReranker(embedder, encoder, max_share=0.5, remark_words=0)
    return HybridReranker(dense, lexical_weight=0.15)


# --- data and metrics ----------------------------------------------------------------------
def persona_cases(embedder: MiniLMEmbedder, pools: list[dict[str, Any]]) -> list[Case]:
    """Pools as Memory objects with the vectors ``add_memory`` would store (one text per
    embed call, as it does), without writing 9,000 rows to a database."""
    vectors: dict[str, Any] = {}
    start = datetime(2026, 1, 1, tzinfo=UTC)
    cases: list[Case] = []
    for number, raw in enumerate(pools):
        memories = []
        for i, text in enumerate(raw["memories"]):
            content = normalize_content(text)
            if content not in vectors:
                vectors[content] = embedder.embed([content])[0]
            memories.append(Memory(f"{number}-{i}", 1, Scope.WORKSPACE, raw["workspace"],
                                   content, Source.USER, start + timedelta(minutes=i), start,
                                   embedding=vectors[content], embedder=embedder.name))
        cases += [make_case(memories, q, raw["workspace"]) for q in raw["queries"]]
    return cases


def make_case(pool: Sequence[Memory], q: dict[str, Any], slug: str) -> Case:
    history = tuple(q["history"])
    return Case(pool, q["kind"], q["message"], history, build_query(q["message"], history),
                frozenset(q["relevant"]), slug)


def own_cases(md: Memoryd, data: dict[str, Any]) -> tuple[list[Case], int]:
    """The hand-written set, filled through ``md.add_memory`` (the real stored vectors)."""
    user = md.create_user("bench")
    cases: list[Case] = []
    for raw in data["pools"]:
        slug = raw["workspace"]
        md.create_workspace(slug)
        index = {md.add_memory(user.id, text, "workspace", slug).id: i
                 for i, text in enumerate(raw["memories"])}
        with md.db.read() as repo:
            stored = repo.turn_memories(user.id, repo.workspace_id(slug))
        pool = sorted((m for m in stored if m.scope is Scope.WORKSPACE), key=lambda m: index[m.id])
        assert all(m.embedding is not None for m in pool), "stored vectors are missing"
        cases += [make_case(pool, q, slug) for q in raw["queries"]]
    return cases, user.id


def measures(ranked: Sequence[int], relevant: frozenset[int]) -> Result:
    """(recall@5, hit@5, reciprocal rank) of one ranking given as pool indexes."""
    found = len(set(ranked[:5]) & relevant)
    first = next((r for r, i in enumerate(ranked, 1) if i in relevant), None)
    return found / len(relevant), float(found > 0), 1 / first if first else 0.0


def evaluate(scorer: Scorer, cases: Sequence[Case]) -> list[Result]:
    results = []
    for case in cases:
        index = {m.id: i for i, m in enumerate(case.pool)}
        ordered = top_k(case.pool, scorer(case.query, case.pool), len(case.pool))
        results.append(measures([index[s.memory.id] for s in ordered], case.relevant))
    return results


def mean(results: Sequence[Result], cases: Sequence[Case],
         keep: Callable[[Case], bool] = lambda c: True) -> Result:
    rows = [r for r, c in zip(results, cases, strict=True) if keep(c)]
    if not rows:
        return (float("nan"),) * 3  # type: ignore[return-value]
    return (statistics.fmean(r[0] for r in rows), statistics.fmean(r[1] for r in rows),
            statistics.fmean(r[2] for r in rows))


# --- printing --------------------------------------------------------------------------------
def print_table(title: str, rows: dict[str, list[Result]], cases: Sequence[Case]) -> None:
    counts = {k: sum(c.kind == k for c in cases) for k in KINDS}
    print(f"\n## {title}, {len(cases)} queries: recall@5 (by query kind), hit@5, MRR")
    head = "".join(f"{f'{k} ({counts[k]})':>17}" for k in KINDS)
    print(f"{'method':<52}{'recall@5':>9}{head}{'hit@5':>8}{'MRR':>7}")
    for label, results in rows.items():
        recall, hit, mrr = mean(results, cases)
        kinds = "".join(f"{mean(results, cases, lambda c, k=k: c.kind == k)[0]:>17.3f}"
                        for k in KINDS)
        mrr_text = f"{mrr:>7.3f}" if mrr >= 0 else f"{'-':>7}"  # md.context(): top 5 only
        print(f"{label:<52}{recall:>9.3f}{kinds}{hit:>8.3f}{mrr_text}")


def print_ideas(ideas: dict[str, Scorer], sets: dict[str, list[Case]]) -> None:
    print("\n## Every idea tried for issue 10: recall@5 / MRR per set"
          " (choose on dev, with no loss on the hand-written set; test is only reported)")
    print(f"{'idea':<64}" + "".join(f"{name:>16}" for name in sets))
    for label, scorer in ideas.items():
        cells = ""
        for cases in sets.values():
            recall, _, mrr = mean(evaluate(scorer, cases), cases)
            cells += f"{recall:.3f} / {mrr:.3f}".rjust(16)
        print(f"{label:<64}{cells}", flush=True)


# --- ideas that were measured and not shipped ------------------------------------------------
class Focused:
    """The query with its message cut to its questions when the rest are short remarks;
    ``keep_message`` adds the whole message as the newest history part."""

    def __init__(self, inner: Scorer, words: int, *, keep_message: bool) -> None:
        self.inner, self.words, self.keep = inner, words, keep_message

    def score(self, query: Query, memories: Sequence[Memory]) -> Sequence[float]:
        focused = question_focus(query.message, self.words)
        if focused != query.message:
            history = (*query.history, query.message) if self.keep else query.history
            query = Query(focused, history)
        return self.inner(query, memories)


class Rrf:
    """Reciprocal rank fusion of the dense ranking and the BM25 ranking (no score scales)."""

    def __init__(self, dense: EmbeddingReranker, lexical_weight: float) -> None:
        self.dense, self.lexical, self.weight = dense, LexicalReranker(), lexical_weight

    def score(self, query: Query, memories: Sequence[Memory]) -> list[float]:
        a = np.asarray(self.dense.score(query, memories))
        b = np.asarray(self.lexical.score(query, memories))
        rank_a, rank_b = np.argsort(np.argsort(-a)), np.argsort(np.argsort(-b))
        fused = 1 / (60 + rank_a) + self.weight * np.where(b > 0, 1 / (60 + rank_b), 0) + 1e-6 * a
        return [float(x) for x in fused]


class ZScoredParts(EmbeddingReranker):
    """Each part's cosines standardised over the pool before the weighted sum."""

    def score(self, query: Query, memories: Sequence[Memory]) -> list[float]:
        matrix = memory_vectors(self.embedder, memories)
        parts = np.stack(self.encoder.vectors(query.parts))
        cos = matrix @ parts.T
        z = (cos - cos.mean(axis=0)) / (cos.std(axis=0) + 1e-6)
        return [float(x) for x in z @ np.asarray(part_weights(query, self.message_weight,
                                                              self.history_decay))]


class PoolCentred(EmbeddingReranker):
    """Memory vectors minus the pool's mean vector (removes what all memories share)."""

    def score(self, query: Query, memories: Sequence[Memory]) -> list[float]:
        matrix = memory_vectors(self.embedder, memories)
        centred = matrix - matrix.mean(axis=0)
        centred /= np.linalg.norm(centred, axis=1, keepdims=True)
        shadow = [Memory(m.id, m.user_id, m.scope, m.workspace, m.content, m.source,
                         m.created_at, m.updated_at, embedding=v, embedder=self.embedder.name)
                  for m, v in zip(memories, centred, strict=True)]
        return super().score(query, shadow)


class Feedback:
    """Pseudo-relevance feedback: add the top memories' vectors to the query, rescore."""

    def __init__(self, dense: EmbeddingReranker, k: int, beta: float) -> None:
        self.dense, self.k, self.beta = dense, k, beta

    def score(self, query: Query, memories: Sequence[Memory]) -> list[float]:
        first = np.asarray(self.dense.score(query, memories))
        matrix = memory_vectors(self.dense.embedder, memories)
        centroid = matrix[np.argsort(-first)[: self.k]].mean(axis=0)
        return [float(x) for x in first + self.beta * (matrix @ centroid)]


class Mmr:
    """Maximal marginal relevance: each next pick trades score against likeness to picks."""

    def __init__(self, inner: HybridReranker, lam: float) -> None:
        self.inner, self.lam = inner, lam

    def score(self, query: Query, memories: Sequence[Memory]) -> list[float]:
        base = np.asarray(self.inner.score(query, memories))
        matrix = memory_vectors(self.inner.dense.embedder, memories)
        span = float(base.max() - base.min()) or 1.0
        rel = (base - base.min()) / span
        picked: list[int] = []
        out = np.zeros(len(memories))
        for rank in range(len(memories)):
            left = [i for i in range(len(memories)) if i not in picked]
            sim = (matrix[left] @ matrix[picked].T).max(axis=1) if picked else np.zeros(len(left))
            best = left[int(np.argmax(self.lam * rel[left] - (1 - self.lam) * sim))]
            picked.append(best)
            out[best] = len(memories) - rank
        return [float(x) for x in out]


class MessageBoostedLexical(LexicalReranker):
    """BM25 that counts the current message's words twice."""

    def score(self, query: Query, memories: Sequence[Memory]) -> list[float]:
        both = super().score(query, memories)
        own = super().score(Query(query.message), memories) if query.message else [0.0] * len(both)
        return [a + b for a, b in zip(both, own, strict=True)]


def ideas(embedder: MiniLMEmbedder) -> dict[str, Scorer]:
    enc = QueryEncoder(embedder, cache_size=1_000_000)  # every query part of every set

    def dense(mw: float, decay: float, share: float, focus: int = 0) -> EmbeddingReranker:
        return EmbeddingReranker(embedder, enc, message_weight=mw, history_decay=decay,
                                 max_share=share, remark_words=focus)

    def hybrid(mw: float, decay: float, share: float, lw: float) -> Scorer:
        return HybridReranker(dense(mw, decay, share), lexical_weight=lw).score

    alone = dense(1, 1, 0)
    found: dict[str, Scorer] = {
        "today's hybrid (mean, message 2, history 1; + .15 BM25)": hybrid(2, 1, 0, .15),
        "today's embedding alone (no BM25)": dense(2, 1, 0).score,
        "message alone": lambda q, m: alone.score(Query(q.message), m),
    }
    for mw in (1, 3, 5):
        found[f"mean, message weight {mw}, + .15 BM25"] = hybrid(mw, 1, 0, .15)
    for decay in (.7, .5):
        found[f"mean, message 2, history decay {decay}, + .15 BM25"] = hybrid(2, decay, 0, .15)
    found["max over parts alone"] = dense(1, 1, 1).score
    found["max over parts + .15 BM25"] = hybrid(1, 1, 1, .15)
    found["z-scored parts, message 2"] = ZScoredParts(embedder, enc, message_weight=2,
                                                      history_decay=1).score
    found["pool-centred memory vectors, message 2"] = PoolCentred(
        embedder, enc, message_weight=2, history_decay=1, max_share=0,
        remark_words=0).score
    found["PRF (top 3, beta .5) on today's embedding"] = Feedback(dense(2, 1, 0), 3, .5).score
    found["PRF (top 1, beta .3) on today's embedding"] = Feedback(dense(2, 1, 0), 1, .3).score
    for share in (.3, .5, .7):
        for lw in (0, .05, .1, .15):
            found[f"blend: {1 - share:g} mean (5, decay .5) + {share:g} max, + {lw:g} BM25"] = \
                hybrid(5, .5, share, lw)
    found["blend .5/.5 (3, decay .5) + .15 BM25"] = hybrid(3, .5, .5, .15)
    found["blend .5/.5 (5, decay .5) + .15 BM25, message words x2"] = HybridReranker(
        dense(5, .5, .5), MessageBoostedLexical(), lexical_weight=.15).score
    found["MMR lambda .7 over the new default"] = Mmr(HybridReranker(dense(5, .5, .5), None, .15),
                                                      .7).score
    found["MMR lambda .9 over the new default"] = Mmr(HybridReranker(dense(5, .5, .5), None, .15),
                                                      .9).score
    # second round (the clean view): what the message is made of, and how BM25 is fused
    blend = HybridReranker(dense(5, .5, .5), lexical_weight=.15).score
    found["RRF: 1/(60 + rank) of the blend plus of BM25"] = Rrf(dense(5, .5, .5), 1.0).score
    found["RRF, BM25 ranks weighing half"] = Rrf(dense(5, .5, .5), .5).score
    for lw in (.1, .25):
        found[f"blend, + {lw:g} BM25"] = hybrid(5, .5, .5, lw)
    found["blend, message weight 8, + .15 BM25"] = hybrid(8, .5, .5, .15)
    found["blend, history decay .3, + .15 BM25"] = hybrid(5, .3, .5, .15)
    for words in (3, 5, 8):
        found[f"question sentences only, remarks <= {words} words dropped (dense and BM25)"] = \
            Focused(blend, words, keep_message=False).score
    for words in (5, 8):
        found[f"... remarks <= {words} words, whole message kept as a history part"] = \
            Focused(blend, words, keep_message=True).score
    found["question sentences only, any other sentences dropped"] = \
        Focused(blend, 10_000, keep_message=False).score
    for words in (8, 5):
        found[f"question focus in the embedding only, remarks <= {words} words"] = \
            HybridReranker(dense(5, .5, .5, focus=words), lexical_weight=.15).score
    for share in (.5, .3):
        for lw in (.15, .1, .05):
            found[f"focus (5 words) + blend {1 - share:g} / {share:g}, + {lw:g} BM25"] = \
                HybridReranker(dense(5, .5, share, focus=5), lexical_weight=lw).score
    return found


# --- the run -----------------------------------------------------------------------------------
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ideas", action="store_true", help="also measure every idea tried")
    parser.add_argument("--set", dest="only", choices=("clean", "persona", "hand-written"),
                        help="read only this set (default: all three)")
    parser.add_argument("--quantize", default="auto", choices=QUANTIZE_CHOICES,
                        help="embedding graph: re-quantised (auto/u8s8/u8u8) or 'off' (shipped)")
    args = parser.parse_args()
    started = time.perf_counter()
    embedder = MiniLMEmbedder(quantize=args.quantize)
    default = MemorydSettings.model_fields["reranker"].default
    sets: dict[str, list[Case]] = {}
    for name, filename in PERSONA_SETS.items():
        if args.only in (None, name):
            splits = json.loads((DATA / filename).read_text())["splits"]
            for split in ("test", "dev"):
                sets[f"{name} {split}"] = persona_cases(embedder, splits[split])
    with tempfile.TemporaryDirectory() as tmp, \
            Memoryd(f"sqlite:///{tmp}/quality.db", embedder=embedder, reranker=default) as md:
        user_id = 0
        if args.only in (None, "hand-written"):
            sets["hand-written"], user_id = own_cases(
                md, json.loads((DATA / "retrieval.json").read_text()))
        shipped = reranker_factories()[default](embedder)
        methods: dict[str, Scorer] = {
            "recency": RecencyReranker().score,
            "lexical (BM25)": LexicalReranker().score,
            "MiniLM cosine, concatenated query text": ConcatCosineReranker(embedder).score,
            "today's hybrid (before issue 10)": today_hybrid(embedder).score,
            "hybrid of round 1 (the blend, whole message)": blend_hybrid(embedder).score,
            f"new default '{default}'": shipped.score,
        }
        print(f"embedder {embedder.name} ({embedder.variant} graph);"
              f" default reranker '{default}'")
        for name, cases in sets.items():
            rows = {label: evaluate(scorer, cases) for label, scorer in methods.items()}
            if name == "hand-written":
                rows[f"default '{default}' via md.context()"] = via_context(md, user_id, cases)
            print_table(f"{name} set", rows, cases)
        if args.ideas:
            print_ideas(ideas(embedder), sets)
    load1, load5, _ = os.getloadavg()
    print(f"\ntook {time.perf_counter() - started:.0f} s; load average {load1:.2f} (1 min),"
          f" {load5:.2f} (5 min) on {os.cpu_count()} CPUs")


def via_context(md: Memoryd, user_id: int, cases: Sequence[Case]) -> list[Result]:
    """What users get: the top 5 of ``md.context()`` (no full ranking, so no MRR)."""
    results: list[Result] = []
    for case in cases:
        index = {m.id: i for i, m in enumerate(case.pool)}
        turn = md.context(user_id, case.slug, case.message, case.history)
        recall, hit, _ = measures([index[s.memory.id] for s in turn.workspace_memories],
                                  case.relevant)
        results.append((recall, hit, -1.0))
    return results


if __name__ == "__main__":
    main()
