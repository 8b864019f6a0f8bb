"""Issue 10, round 6: do topic tags written by the bundled LLM at write time help the reranker?

Measured in round 6 and shipped in round 7 (BENCHMARKS.md, "Retrieval quality"); the
shipped bank's topic directions come from ``build_answer_bank.py``. Most of what
the shipped reranker still misses on the labelled persona set are broad questions ("What
do you like to do for fun?") over pools with many candidate answers, where the readers'
choice turns on world knowledge an embedding carries poorly ("I grow roses in my garden."
is a hobby, "I fantasize about taking over the world." is not). So each memory gets 1-3
topics from a fixed list, written once by the bundled model (with the prompt of the
shipped tagging pass, ``memoryd.extraction.topics``), and the answer bank gains a
second, tiny direction per example: a ridge fit, over the same neighbouring questions'
pools as the embedding direction, from a memory's topics to whether readers labelled it
relevant. A memory gains ``weight`` x its topics' score along that direction.

    .venv/bin/python bench/topic_tags.py generate   # about 20-60 min on 2 cores, resumable
    .venv/bin/python bench/topic_tags.py measure    # dev folds (tuning), then test

``generate`` writes ``data/memory-topics.jsonl`` (one line per distinct memory of the
labelled set's dev and test pools and of the hand-written set); ``measure`` reads it.
Dev is read with ``build_answer_bank.py --folds 2``'s protocol (a bank of one half ranks
the other, the ranked pool's own memories left out of the fits); test with the bank of all
of dev, as shipped. Needs ``pip install 'memoryd[local]'``.
"""

from __future__ import annotations

import argparse
import json
import queue
import random
import secrets
import statistics
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
from build_answer_bank import NEIGHBOURS, SAME_TEXT, Examples, UnseenAnswers, bank_rows, rebank
from retrieval_quality import (
    DATA,
    PERSONA_SETS,
    Case,
    measures,
    own_cases,
    persona_cases,
    second_reader_pools,
)

from memoryd import Memoryd
from memoryd.domain.rules import normalize_content
from memoryd.domain.topics import LABELS
from memoryd.embedding.minilm import MiniLMEmbedder
from memoryd.extraction.topics import MAX_TOKENS, SCHEMA, messages
from memoryd.llm.base import Message
from memoryd.llm.local import QWEN_CODER_1_5B, compact_json_grammar, model_path
from memoryd.plugins import reranker_factories
from memoryd.rerank import EmbeddingReranker, HybridReranker, QueryEncoder
from memoryd.rerank.answer_bank import FLOOR, AnswerBank
from memoryd.rerank.embedding import question_focus

TAGS_FILE = DATA / "memory-topics.jsonl"
WEIGHTS = (0.25, 0.5, 1.0, 2.0, 3.0)
RIDGES = (1.0, 3.0, 10.0)
CHOSEN = (1.0, 0.5)  # ridge, weight: the best dev-fold reading (tied with ridge 10)


# --- generate ----------------------------------------------------------------------------
def distinct_memories() -> list[str]:
    texts: list[str] = []
    labelled = json.loads((DATA / PERSONA_SETS["labelled"]).read_text())["splits"]
    for split in ("dev", "test"):
        texts += [t for pool in labelled[split] for t in pool["memories"]]
    hand = json.loads((DATA / "retrieval.json").read_text())["pools"]
    texts += [t for pool in hand for t in pool["memories"]]
    return list(dict.fromkeys(texts))


def generate(parallel: int, models_dir: Path) -> None:
    """Tags every distinct memory not yet in ``TAGS_FILE``."""
    ask_each(
        distinct_memories(), TAGS_FILE, messages, SCHEMA, MAX_TOKENS, "topics", parallel, models_dir
    )


def ask_each(
    texts: list[str],
    out_file: Path,
    build: Callable[[str], list[Message]],
    schema: dict[str, Any],
    max_tokens: int,
    field: str,
    parallel: int,
    models_dir: Path,
) -> None:
    """Asks the bundled model about every text not yet in ``out_file``, ``parallel``
    requests at a time (llama.cpp decodes them in one batch, about 3x the throughput of
    one on 2 cores), and appends ``{"fact": text, field: answer[field]}`` lines to it."""
    import xllamacpp

    done = set()
    if out_file.exists():
        done = {json.loads(line)["fact"] for line in out_file.open()}
    todo = [t for t in texts if t not in done]
    print(f"{len(todo)} memories to ask about ({len(done)} already in {out_file.name})", flush=True)
    params = xllamacpp.CommonParams()
    params.model.path = str(model_path(QWEN_CODER_1_5B, models_dir))
    params.n_ctx = 4096
    params.n_parallel = parallel
    params.sampling.temp = 0.0
    params.sampling.top_k = 1
    params.warmup = False
    params.api_keys = [secrets.token_urlsafe(32)]
    params.verbosity = -1
    server = xllamacpp.Server(params)
    grammar = compact_json_grammar(schema)
    work: queue.Queue[str] = queue.Queue()
    for text in todo:
        work.put(text)
    lock, started, count = threading.Lock(), time.perf_counter(), [0]

    def run() -> None:
        while True:
            try:
                fact = work.get_nowait()
            except queue.Empty:
                return
            answer = server.handle_chat_completions(
                {
                    "messages": build(fact),
                    "max_tokens": max_tokens,
                    "temperature": 0.0,
                    "grammar": grammar,
                    "cache_prompt": True,
                }
            )
            try:
                value = json.loads(answer["choices"][0]["message"]["content"])[field]
            except (KeyError, IndexError, TypeError, ValueError):
                print(f"no {field} for {fact!r}: {str(answer)[:200]}", flush=True)
                continue
            with lock, out_file.open("a") as out:
                out.write(json.dumps({"fact": fact, field: value}) + "\n")
                count[0] += 1
                if count[0] % 50 == 0:
                    spent = time.perf_counter() - started
                    print(f"{count[0]} answered, {spent / count[0]:.2f} s each", flush=True)

    threads = [threading.Thread(target=run) for _ in range(parallel)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    spent = time.perf_counter() - started
    print(f"answered {count[0]} in {spent:.0f} s ({spent / max(count[0], 1):.2f} s each)")


# --- measure -----------------------------------------------------------------------------
def read_tags(path: Path = TAGS_FILE) -> dict[str, np.ndarray]:
    tags = {}
    for line in path.open():
        row = json.loads(line)
        vector = np.zeros(len(LABELS), np.float32)
        vector[[LABELS.index(t) for t in row["topics"]]] = 1.0
        tags[normalize_content(row["fact"])] = vector
    return tags


def topic_matrix(pools: list[dict[str, Any]], tags: dict[str, np.ndarray]) -> np.ndarray:
    """Topics of ``bank_rows``' memory rows (each distinct memory text, in first-seen order)."""
    rows = dict.fromkeys(normalize_content(t) for pool in pools for t in pool["memories"])
    return np.stack([tags[t] for t in rows])


def topic_direction(
    examples: Examples,
    topics: np.ndarray,
    centre: np.ndarray,
    excluded: np.ndarray,
    ridge: float,
) -> np.ndarray:
    """As ``Examples.direction``, from a memory's topics instead of its vector."""
    sims = examples.questions @ centre
    near = np.flatnonzero(sims >= FLOOR)
    near = near[np.argsort(-sims[near])[:NEIGHBOURS]]
    rows = examples.pools[near].ravel()
    keep = ~excluded[rows]
    x = np.hstack([topics[rows[keep]], np.ones((int(keep.sum()), 1), np.float32)])
    weights = np.repeat(sims[near], examples.pools.shape[1])[keep]
    y = examples.labels[near].ravel()[keep]
    weighted = x.T * weights
    solved: np.ndarray = np.linalg.solve(weighted @ x + ridge * np.eye(x.shape[1]), weighted @ y)
    return solved[:-1]


Row = tuple[Case, np.ndarray, dict[float, np.ndarray]]


def readings(
    cases: list[Case],
    scorer: Any,
    bank: AnswerBank,
    examples: Examples,
    topics: np.ndarray,
    tags: dict[str, np.ndarray],
    encoder: QueryEncoder,
    *,
    leave_out_pool: bool,
) -> list[Row]:
    """Per query: the reranker's scores and, when the bank fires, each memory's topic
    score per ridge penalty."""
    rows: list[Row] = []
    for case in cases:
        base = np.asarray(scorer(case.query, case.pool))
        (vector,) = encoder.vectors([question_focus(case.query.message)])
        best = bank.nearest(vector)
        extra: dict[float, np.ndarray] = {}
        if best is not None:
            pool_topics = np.stack([tags[m.content] for m in case.pool])
            excluded = np.zeros(len(examples.vectors), bool)
            if leave_out_pool:
                matrix = np.stack([m.embedding for m in case.pool if m.embedding is not None])
                excluded = (matrix @ examples.vectors.T).max(axis=0) >= SAME_TEXT
            for ridge in RIDGES:
                direction = topic_direction(examples, topics, bank.questions[best], excluded, ridge)
                extra[ridge] = pool_topics @ direction
        rows.append((case, base, extra))
    return rows


def recall(scores: np.ndarray, case: Case) -> float:
    return measures(list(np.argsort(-scores, kind="stable")), case.relevant)[0]


def with_topics(row: Row, ridge: float, weight: float) -> np.ndarray:
    _, base, extra = row
    return base + weight * extra[ridge] if extra else base


def report(label: str, rows: list[Row]) -> None:
    fired = sum(bool(extra) for _, _, extra in rows)
    base = [recall(b, c) for c, b, _ in rows]
    print(f"\n## {label}: {len(rows)} queries, the bank fires on {fired}")
    print(f"shipped default: recall@5 {statistics.fmean(base):.4f}")
    print(f"{'ridge':<8}" + "".join(f"{f'weight {w}':>13}" for w in WEIGHTS))
    for ridge in RIDGES:
        cells = [
            statistics.fmean(recall(with_topics(r, ridge, w), r[0]) for r in rows) for w in WEIGHTS
        ]
        print(f"{ridge:<8}" + "".join(f"{c:>13.4f}" for c in cells))
    chosen = np.array([recall(with_topics(r, *CHOSEN), r[0]) for r in rows]) - np.array(base)
    rng = np.random.default_rng(0)
    boots = [chosen[rng.integers(0, len(chosen), len(chosen))].mean() for _ in range(2000)]
    print(
        f"ridge {CHOSEN[0]:g}, weight {CHOSEN[1]:g} minus the default, per query:"
        f" {chosen.mean():+.4f} ({int((chosen > 0).sum())} better,"
        f" {int((chosen < 0).sum())} worse; 95% CI {np.percentile(boots, 2.5):+.4f}"
        f"..{np.percentile(boots, 97.5):+.4f})",
        flush=True,
    )


def dev_fold_readings(
    embedder: MiniLMEmbedder, encoder: QueryEncoder, dev: list[Any], tags: dict[str, np.ndarray]
) -> Iterator[tuple[list[Case], list[Row]]]:
    """Each dev half read with a bank and topic directions built from the other half only
    (the folds of ``build_answer_bank.py --folds 2``): its cases and their rows."""
    order = list(range(len(dev)))
    random.Random(0).shuffle(order)
    halves = [[dev[i] for i in order[::2]], [dev[i] for i in order[1::2]]]
    for half in (0, 1):
        other = halves[1 - half]
        bank, examples = bank_rows(embedder, other)
        unseen = rebank(UnseenAnswers, bank, examples=examples)
        scorer = HybridReranker(EmbeddingReranker(embedder, encoder, bank=unseen)).score
        cases = persona_cases(embedder, halves[half])
        topics = topic_matrix(other, tags)
        yield (
            cases,
            readings(cases, scorer, bank, examples, topics, tags, encoder, leave_out_pool=True),
        )


def test_readings(
    embedder: MiniLMEmbedder,
    encoder: QueryEncoder,
    labelled: dict[str, Any],
    tags: dict[str, np.ndarray],
    *,
    test: bool = True,
) -> Iterator[tuple[str, list[Case], list[Row]]]:
    """The test split (both readers) and the hand-written set, read by the shipped
    reranker with a bank and topic directions built from all of dev; with ``test=False``
    the hand-written set only (it is no held-out split: a tuning sweep may read it)."""
    shipped = reranker_factories()["hybrid"](embedder).score
    bank, examples = bank_rows(embedder, labelled["dev"])
    topics = topic_matrix(labelled["dev"], tags)
    sets = {}
    if test:
        sets["labelled test"] = persona_cases(embedder, labelled["test"])
        sets["labelled test, second reader"] = persona_cases(embedder, second_reader_pools())
    with (
        tempfile.TemporaryDirectory() as tmp,
        Memoryd(f"sqlite:///{tmp}/topics.db", embedder=embedder) as md,
    ):
        sets["hand-written"], _ = own_cases(md, json.loads((DATA / "retrieval.json").read_text()))
        for label, cases in sets.items():
            yield (
                label,
                cases,
                readings(
                    cases, shipped, bank, examples, topics, tags, encoder, leave_out_pool=False
                ),
            )


def measure() -> None:
    tags = read_tags()
    embedder = MiniLMEmbedder()
    encoder = QueryEncoder(embedder, cache_size=1_000_000)
    labelled = json.loads((DATA / PERSONA_SETS["labelled"]).read_text())["splits"]
    rows = [
        row
        for _, fold in dev_fold_readings(embedder, encoder, labelled["dev"], tags)
        for row in fold
    ]
    report("labelled dev, 2 folds (tuning)", rows)
    for label, _, set_rows in test_readings(embedder, encoder, labelled, tags):
        report(label, set_rows)


def generate_or_measure(doc: str) -> argparse.ArgumentParser:
    """The command line of a script whose steps are ``generate`` (with the bundled model)
    and ``measure``."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("step", choices=("generate", "measure"))
    parser.add_argument("--parallel", type=int, default=4, help="requests decoded together")
    parser.add_argument(
        "--models-dir",
        type=Path,
        default=Path(tempfile.gettempdir()) / "memoryd-models",
        help="where the bundled model's parts are joined",
    )
    return parser


def main() -> None:
    args = generate_or_measure(__doc__).parse_args()
    if args.step == "generate":
        generate(args.parallel, args.models_dir)
    else:
        measure()


if __name__ == "__main__":
    main()
