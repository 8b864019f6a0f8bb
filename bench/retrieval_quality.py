"""How well each reranker picks a turn's top 5 workspace memories, on labelled data.

Four data sets (bench/data/README.md); settings are chosen on dev, test is reported:

- ``persona_retrieval_labelled.json`` (``labelled``), the set to quote: the persona set's
  pools and queries (plus more dev queries) labelled by reading with every memory the turn
  calls for; dev 1,805 queries from the dataset's valid.csv, test 815 from its test.csv.
- ``persona_retrieval_clean.json`` (``clean``), the stricter matcher-labelled view of
  Synthetic-Persona-Chat: only questions put to the memories' owner.
- ``persona_retrieval.json`` (``persona``), the first matcher-labelled view: 1,001 dev and
  1,000 test queries, each over a pool of 20 memories.
- ``retrieval.json``, the hand-written set of 224 queries over 12 pools of 20 memories,
  kept as a second reading; its pools are filled through ``Memoryd.add_memory`` and the
  shipped default is also read through ``md.context()`` (what users get).

Methods: recency, BM25, plain MiniLM cosine on the concatenated query text, the hybrid
as shipped before issue 10 (mean of part vectors with the message weighing 2, + 0.15 BM25),
the hybrids of issue 10's first round (the blend 0.5 / 0.5, + 0.15 BM25, whole message) and
second round (question focus, blend 0.7 / 0.3, + 0.05 BM25), the third round (the second's
plus the first answer bank: likeness to the answers of like questions) and the shipped
default (the second round's plus the answer bank with fitted answer directions,
``docs/reranking.md``), read twice: with the memories untagged (a user with no LLM) and
with the topics the bundled model wrote for them (``data/memory-topics.jsonl``, what the
background pass stores; the bank's topic directions are fitted on dev's), and a third
time with the questions it wrote for them as well (``data/memory-questions.jsonl`` and
``data/memory-questions-work.jsonl``, one file per prompt, joined as the questions pass
stores them since round 14, embedded one memory's questions per call as it does): the
row "shipped default" is what a user whose memories the LLM has tagged and asked about
gets. Metrics:
recall@5 (share of a query's relevant memories in the top 5, at most 5 counted), hit@5
(at least one in the top 5) and MRR (1 / rank of the first relevant memory in the full
ranking of 20). ``--ideas`` adds every idea tried for issue 10 (``retrieval_ideas.py``).
The answer bank is built from the labelled dev split, so the default's dev figures there
are in-sample.

    .venv/bin/python bench/retrieval_quality.py [--set labelled|clean|persona|hand-written]
        [--ideas] [--quantize off] [--topics FILE] [--questions FILE [FILE ...]]

``--topics`` and ``--questions`` read the shipped default with another LLM's answers to
the same pass prompts (round 23: ``data/judge-topics.jsonl``, ``data/judge-questions.jsonl``
and ``data/judge-questions-work.jsonl``, written by a stronger judge than the bundled model).

Without ``--set`` every set is read and printed, test splits first.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memoryd import Memoryd
from memoryd.config import MemorydSettings
from memoryd.domain import topics
from memoryd.domain.injection import Query, build_query, top_k
from memoryd.domain.models import Memory, Scope, Source
from memoryd.domain.rules import normalize_content
from memoryd.embedding.minilm import QUANTIZE_CHOICES, MiniLMEmbedder
from memoryd.extraction.questions import union
from memoryd.plugins import reranker_factories
from memoryd.rerank import (
    EmbeddingReranker,
    HybridReranker,
    LexicalReranker,
    QueryEncoder,
    RecencyReranker,
)
from memoryd.rerank.embedding import memory_vectors
from memoryd.retrieval_evaluation import measures

DATA = Path(__file__).parent / "data"
sys.path.insert(0, str(DATA))
from apply_labels import read_labels  # noqa: E402 (bench/data is a folder of scripts)
from build_answer_bank import TOPICS_FILE, read_topic_keys  # noqa: E402
from build_persona_retrieval import kind  # noqa: E402

KINDS = ("keyword", "paraphrase", "history")
PERSONA_SETS = {
    "labelled": "persona_retrieval_labelled.json",
    "clean": "persona_retrieval_clean.json",
    "persona": "persona_retrieval.json",
}
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
    dense = EmbeddingReranker(
        embedder,
        encoder,
        message_weight=2.0,
        history_decay=1.0,
        question_weight=None,
        max_share=0.0,
        remark_words=0,
    )
    return HybridReranker(dense, lexical_weight=0.15)


def blend_hybrid(embedder: MiniLMEmbedder, encoder: QueryEncoder | None = None) -> HybridReranker:
    """The default of the first issue-10 round: the blend, whole message embedded."""
    dense = EmbeddingReranker(
        embedder, encoder, max_share=0.5, remark_words=0, question_weight=None
    )
    return HybridReranker(dense, lexical_weight=0.15)


def round2_hybrid(embedder: MiniLMEmbedder, encoder: QueryEncoder | None = None) -> HybridReranker:
    """The default of issue 10's second round: question focus and the blend, no answer bank."""
    return HybridReranker(EmbeddingReranker(embedder, encoder, question_weight=None))


# --- data and metrics ----------------------------------------------------------------------
def tagged(
    cases: Sequence[Case],
    keys: dict[str, tuple[str, ...]],
    pastimes: dict[str, bool] | None = None,
) -> list[Case]:
    """The cases with every memory the file holds tagged (the others stay untagged), and
    given its pastime answer from ``pastimes`` (the others not asked)."""
    memo: dict[str, Memory] = {}
    answers = pastimes or {}

    def tag(memory: Memory) -> Memory:
        if memory.id not in memo:
            memo[memory.id] = replace(
                memory, topics=keys.get(memory.content), pastime=answers.get(memory.content)
            )
        return memo[memory.id]

    return [replace(case, pool=[tag(m) for m in case.pool]) for case in cases]


QUESTION_FILES = (DATA / "memory-questions.jsonl", DATA / "memory-questions-work.jsonl")


def read_questions(files: Sequence[Path] = QUESTION_FILES) -> dict[str, tuple[str, ...]]:
    """The questions the bundled model wrote per memory text, joined as the questions pass
    stores them since round 14 (``memoryd.extraction.questions.union``): by default the
    first prompt's (round 8's file) then the work prompt's (round 13's)."""
    written: dict[str, list[tuple[str, ...]]] = {}
    for path in files:
        for line in path.open():
            row = json.loads(line)
            written.setdefault(normalize_content(row["fact"]), []).append(tuple(row["questions"]))
    return {text: union(tuple(answers)) for text, answers in written.items()}


def question_matrices(
    embedder: MiniLMEmbedder, asked: dict[str, tuple[str, ...]], texts: set[str]
) -> dict[str, Any]:
    """Each memory's question vectors, one embed call per memory as the questions pass
    makes (only for the memories of ``texts``)."""
    import numpy as np

    return {
        text: np.asarray(embedder.embed(list(asked[text])), np.float32)
        for text in sorted(texts)
        if asked.get(text)
    }


def questioned(
    cases: Sequence[Case],
    asked: dict[str, tuple[str, ...]],
    vectors: dict[str, Any],
    embedder_name: str,
) -> list[Case]:
    """The cases with every memory the file holds given its questions and their vectors."""
    memo: dict[str, Memory] = {}

    def ask(memory: Memory) -> Memory:
        if memory.id not in memo:
            found = memory.content in vectors
            memo[memory.id] = replace(
                memory,
                questions=asked.get(memory.content) if found else None,
                question_vectors=vectors.get(memory.content),
                question_embedder=embedder_name if found else None,
            )
        return memo[memory.id]

    return [replace(case, pool=[ask(m) for m in case.pool]) for case in cases]


def store_questions(
    md: Memoryd, cases: Sequence[Case], asked: dict[str, tuple[str, ...]], vectors: dict[str, Any]
) -> None:
    """Write the file's questions on the stored memories, as the questions pass would."""
    from memoryd.domain.rules import content_key
    from memoryd.storage.questions import set_questions

    with md.db.write() as repo:
        for memory in {m.id: m for case in cases for m in case.pool}.values():
            if memory.content in vectors:
                set_questions(
                    repo.conn,
                    memory.id,
                    content_key(memory.content),
                    asked[memory.content],
                    vectors[memory.content],
                    md.embedder.name,
                )


def read_pastimes(path: Path | None) -> dict[str, bool]:
    """Per memory text, the pastime pass's answer in ``path`` (none without a file)."""
    if path is None:
        return {}
    rows = (json.loads(line) for line in path.open())
    return {normalize_content(row["fact"]): bool(row["free_time"]) for row in rows}


def store_topics(
    md: Memoryd,
    cases: Sequence[Case],
    keys: dict[str, tuple[str, ...]],
    pastimes: dict[str, bool] | None = None,
) -> None:
    """Write the file's topics (and pastime answers) on the stored memories, as the
    background passes would."""
    from sqlalchemy import update

    from memoryd.storage.tables import memories

    with md.db.write() as repo:
        for memory in {m.id: m for case in cases for m in case.pool}.values():
            if memory.content in keys:
                repo.conn.execute(
                    update(memories)
                    .where(memories.c.id == memory.id)
                    .values(
                        topics=topics.encode(keys[memory.content]),
                        pastime=(pastimes or {}).get(memory.content),
                    )
                )


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
            memories.append(
                Memory(
                    f"{number}-{i}",
                    1,
                    Scope.WORKSPACE,
                    raw["workspace"],
                    content,
                    Source.USER,
                    start + timedelta(minutes=i),
                    start,
                    embedding=vectors[content],
                    embedder=embedder.name,
                )
            )
        cases += [make_case(memories, q, raw["workspace"]) for q in raw["queries"]]
    return cases


def second_reader_pools() -> list[dict[str, Any]]:
    """The test queries both readers kept, with the second reader's labels
    (``labels/test-second.jsonl``: the whole test split read again, on its own)."""
    first = read_labels(DATA / "labels" / "test.jsonl")
    second = read_labels(DATA / "labels" / "test-second.jsonl")
    pools = []
    for pool in json.loads((DATA / PERSONA_SETS["persona"]).read_text())["splits"]["test"]:
        queries = []
        for n, query in enumerate(pool["queries"]):
            key = f"{pool['id']}#{n}"
            if first[key]["drop"] or second[key]["drop"]:
                continue
            relevant = second[key]["relevant"]
            facts = [pool["memories"][i] for i in relevant]
            queries.append(
                {
                    **query,
                    "relevant": relevant,
                    "kind": kind(query["message"], query["history"], facts),
                }
            )
        if queries:
            pools.append({**pool, "queries": queries})
    return pools


def make_case(pool: Sequence[Memory], q: dict[str, Any], slug: str) -> Case:
    history = tuple(q["history"])
    return Case(
        pool,
        q["kind"],
        q["message"],
        history,
        build_query(q["message"], history),
        frozenset(q["relevant"]),
        slug,
    )


def own_cases(md: Memoryd, data: dict[str, Any]) -> tuple[list[Case], int]:
    """The hand-written set, filled through ``md.add_memory`` (the real stored vectors)."""
    user = md.create_user("bench")
    cases: list[Case] = []
    for raw in data["pools"]:
        slug = raw["workspace"]
        md.create_workspace(slug)
        index = {
            md.add_memory(user.id, text, "workspace", slug).id: i
            for i, text in enumerate(raw["memories"])
        }
        with md.db.read() as repo:
            stored = repo.turn_memories(user.id, repo.workspace_id(slug))
        pool = sorted((m for m in stored if m.scope is Scope.WORKSPACE), key=lambda m: index[m.id])
        assert all(m.embedding is not None for m in pool), "stored vectors are missing"
        cases += [make_case(pool, q, slug) for q in raw["queries"]]
    return cases, user.id


def evaluate(scorer: Scorer, cases: Sequence[Case]) -> list[Result]:
    results = []
    for case in cases:
        index = {m.id: i for i, m in enumerate(case.pool)}
        ordered = top_k(case.pool, scorer(case.query, case.pool), len(case.pool))
        results.append(measures([index[s.memory.id] for s in ordered], case.relevant))
    return results


def mean(
    results: Sequence[Result], cases: Sequence[Case], keep: Callable[[Case], bool] = lambda c: True
) -> Result:
    rows = [r for r, c in zip(results, cases, strict=True) if keep(c)]
    if not rows:
        return (float("nan"),) * 3  # type: ignore[return-value]
    return (
        statistics.fmean(r[0] for r in rows),
        statistics.fmean(r[1] for r in rows),
        statistics.fmean(r[2] for r in rows),
    )


# --- printing --------------------------------------------------------------------------------
def print_table(title: str, rows: dict[str, list[Result]], cases: Sequence[Case]) -> None:
    counts = {k: sum(c.kind == k for c in cases) for k in KINDS}
    print(f"\n## {title}, {len(cases)} queries: recall@5 (by query kind), hit@5, MRR")
    head = "".join(f"{f'{k} ({counts[k]})':>17}" for k in KINDS)
    print(f"{'method':<52}{'recall@5':>9}{head}{'hit@5':>8}{'MRR':>7}")
    for label, results in rows.items():
        recall, hit, mrr = mean(results, cases)
        kinds = "".join(
            f"{mean(results, cases, lambda c, k=k: c.kind == k)[0]:>17.3f}" for k in KINDS
        )
        mrr_text = f"{mrr:>7.3f}" if mrr >= 0 else f"{'-':>7}"  # md.context(): top 5 only
        print(f"{label:<52}{recall:>9.3f}{kinds}{hit:>8.3f}{mrr_text}")


# --- the run -----------------------------------------------------------------------------------
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ideas", action="store_true", help="also measure every idea tried")
    parser.add_argument(
        "--default-only",
        action="store_true",
        help="only the shipped default's rows (untagged, tagged, + questions)",
    )
    parser.add_argument(
        "--set",
        dest="only",
        choices=(*PERSONA_SETS, "hand-written"),
        help="read only this set (default: all four)",
    )
    parser.add_argument(
        "--quantize",
        default="auto",
        choices=QUANTIZE_CHOICES,
        help="embedding graph: re-quantised (auto/u8s8/u8u8) or 'off' (shipped)",
    )
    parser.add_argument(
        "--topics",
        type=Path,
        default=TOPICS_FILE,
        help="the topics pass's answers per memory (default: the bundled model's)",
    )
    parser.add_argument(
        "--questions",
        type=Path,
        nargs="+",
        default=list(QUESTION_FILES),
        help="the questions pass's answers, one file per prompt in its order"
        " (default: the bundled model's two)",
    )
    parser.add_argument(
        "--pastime",
        type=Path,
        help="the pastime pass's answers (default: none, the pass is off by default)",
    )
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
            if name == "labelled":
                sets["labelled test, second reader (both kept)"] = persona_cases(
                    embedder, second_reader_pools()
                )
    with (
        tempfile.TemporaryDirectory() as tmp,
        Memoryd(f"sqlite:///{tmp}/quality.db", embedder=embedder, reranker=default) as md,
    ):
        user_id = 0
        if args.only in (None, "hand-written"):
            sets["hand-written"], user_id = own_cases(
                md, json.loads((DATA / "retrieval.json").read_text())
            )
        shipped = reranker_factories()[default](embedder)
        from retrieval_ideas import round3_hybrid  # it imports this module

        untagged = f"new default '{default}', memories untagged (no LLM)"
        methods: dict[str, Scorer] = (
            {untagged: shipped.score}
            if args.default_only
            else {
                "recency": RecencyReranker().score,
                "lexical (BM25)": LexicalReranker().score,
                "MiniLM cosine, concatenated query text": ConcatCosineReranker(embedder).score,
                "today's hybrid (before issue 10)": today_hybrid(embedder).score,
                "hybrid of round 1 (the blend, whole message)": blend_hybrid(embedder).score,
                "hybrid of round 2 (question focus, no answer bank)": round2_hybrid(embedder).score,
                "hybrid of round 3 (answer bank: likeness to answers)": round3_hybrid(
                    embedder
                ).score,
                f"new default '{default}', memories untagged (no LLM)": shipped.score,
            }
        )
        keys = read_topic_keys(args.topics)
        asked = read_questions(args.questions)
        pastimes = read_pastimes(args.pastime)
        print(
            f"passes' answers: topics {args.topics.name}, questions",
            *(p.name for p in args.questions),
            f"pastime {args.pastime.name if args.pastime else '(pass off)'}",
        )
        with_topics = "default before round 10, memories tagged by LLM"
        shipped_row = f"shipped default '{default}', tagged + questions (LLM)"
        print(f"embedder {embedder.name} ({embedder.variant} graph); default reranker '{default}'")
        for name, cases in sets.items():
            rows = {label: evaluate(scorer, cases) for label, scorer in methods.items()}
            rows[with_topics] = evaluate(shipped.score, tagged(cases, keys))
            vectors = question_matrices(
                embedder, asked, {m.content for case in cases for m in case.pool}
            )
            rows[shipped_row] = evaluate(
                shipped.score,
                questioned(tagged(cases, keys, pastimes), asked, vectors, embedder.name),
            )
            if name == "hand-written":
                rows[f"default '{default}' via md.context(), untagged"] = via_context(
                    md, user_id, cases
                )
                store_topics(md, cases, keys, pastimes)
                rows[f"default '{default}' via md.context(), tagged"] = via_context(
                    md, user_id, cases
                )
                store_questions(md, cases, asked, vectors)
                rows[f"shipped '{default}' via md.context(), tagged + questions"] = via_context(
                    md, user_id, cases
                )
            untagged_recall, tagged_recall = (
                mean(rows[untagged], cases)[0],
                mean(rows[with_topics], cases)[0],
            )
            tagged_share = statistics.fmean(m.content in keys for case in cases for m in case.pool)
            asked_share = statistics.fmean(
                m.content in vectors for case in cases for m in case.pool
            )
            print_table(f"{name} set", rows, cases)
            print(
                f"topics: {tagged_share:.0%} of the pools' memories tagged, {asked_share:.0%}"
                f" with questions; recall@5 {untagged_recall:.3f} untagged,"
                f" {tagged_recall:.3f} tagged, {mean(rows[shipped_row], cases)[0]:.3f}"
                " tagged + questions (shipped)"
            )
        if args.ideas:
            from retrieval_ideas import ideas, print_ideas

            print_ideas(ideas(embedder), sets)
    load1, load5, _ = os.getloadavg()
    print(
        f"\ntook {time.perf_counter() - started:.0f} s; load average {load1:.2f} (1 min),"
        f" {load5:.2f} (5 min) on {os.cpu_count()} CPUs"
    )


def via_context(md: Memoryd, user_id: int, cases: Sequence[Case]) -> list[Result]:
    """What users get: the top 5 of ``md.context()`` (no full ranking, so no MRR)."""
    results: list[Result] = []
    for case in cases:
        index = {m.id: i for i, m in enumerate(case.pool)}
        turn = md.context(user_id, case.slug, case.message, case.history)
        recall, hit, _ = measures(
            [index[s.memory.id] for s in turn.workspace_memories], case.relevant
        )
        results.append((recall, hit, -1.0))
    return results


if __name__ == "__main__":
    main()
