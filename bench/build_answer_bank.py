"""Build src/memoryd/data/answer-bank.npz from the dev split of the labelled persona set.

Each dev query of ``bench/data/persona_retrieval_labelled.json`` gives one example: the
vector of its message as the reranker embeds it (the question alone when the rest are short
remarks), the vectors of the memories labelled relevant to it (each distinct memory stored
once), and its **answer direction**: a ridge regression, over the memories of the pools
of the example and its neighbouring questions (cosine >= the bank's floor, at most
``NEIGHBOURS``, each weighing its cosine), from a memory's vector to whether it was
labelled relevant. Only dev is read: the test split stays unseen by anything that ships.
The data is Synthetic-Persona-Chat (Jandaghi et al. 2023, CC-BY 4.0), see
bench/data/README.md.

``--folds 2`` measures instead of building: a bank made from half of dev ranks the other
half, and the other way round, so the gain is read on queries the bank never held (and,
in the second reading, on memories it never held, see ``folds``).

Each example question also gets a **topic direction**, fitted the same way from the
memories' topics (``data/memory-topics.jsonl``, written by the bundled model with
``bench/topic_tags.py generate``) instead of their vectors.

    .venv/bin/python bench/build_answer_bank.py [--folds 2 | --topics-only]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from memoryd.domain import topics as topic_list
from memoryd.domain.rules import normalize_content
from memoryd.embedding.minilm import MiniLMEmbedder
from memoryd.rerank import HybridReranker, QueryEncoder
from memoryd.rerank.answer_bank import FILE, FLOOR, AnswerBank, read_bank
from memoryd.rerank.embedding import EmbeddingReranker, question_focus

DATA = Path(__file__).parent / "data" / "persona_retrieval_labelled.json"
OUT = Path(__file__).resolve().parents[1] / "src" / "memoryd" / "data" / FILE
Bank = TypeVar("Bank", bound=AnswerBank)
SAME_TEXT = 0.98  # cosine from which a bank memory is taken for the pool's memory itself
NEIGHBOURS = 100  # example questions whose pools an answer direction is fitted on
RIDGE = 3.0  # the ridge penalty of that fit (tuned with --folds 2: 1 / 3 / 10)
TOPIC_RIDGE = 1.0  # of the topic directions' fit (tuned by bench/topic_tags.py measure)
TOPICS_FILE = Path(__file__).parent / "data" / "memory-topics.jsonl"


@dataclass(frozen=True)
class Examples:
    """What the directions are fitted on: per example question, its pool of memories
    (rows of ``vectors``) and which of them were labelled relevant."""

    questions: np.ndarray  # (n, dimensions)
    pools: np.ndarray  # (n, pool size): rows of vectors
    labels: np.ndarray  # (n, pool size): 1.0 where relevant
    vectors: np.ndarray  # (k, dimensions): each distinct memory once

    def direction(self, centre: np.ndarray, excluded: np.ndarray | None = None) -> np.ndarray:
        """The answer direction of questions like ``centre``; ``excluded`` marks memory
        rows left out of the fit."""
        return fit(self.questions, self.pools, self.labels, self.vectors, centre, RIDGE, excluded)


def fit(
    questions: np.ndarray,
    pools: np.ndarray,
    labels: np.ndarray,
    features: np.ndarray,
    centre: np.ndarray,
    ridge: float,
    excluded: np.ndarray | None = None,
) -> np.ndarray:
    """A ridge regression over the pools of the questions like ``centre`` (cosine >= the
    bank's floor, at most ``NEIGHBOURS``, each weighing its cosine), from a memory's
    ``features`` (one row per memory row of ``pools``) to whether it was labelled
    relevant; ``excluded`` marks memory rows left out."""
    sims = questions @ centre
    near = np.flatnonzero(sims >= FLOOR)
    near = near[np.argsort(-sims[near])[:NEIGHBOURS]]
    rows = pools[near].ravel()
    keep = np.ones(len(rows), bool) if excluded is None else ~excluded[rows]
    x = np.hstack([features[rows[keep]], np.ones((int(keep.sum()), 1), np.float32)])
    weights = np.repeat(sims[near], pools.shape[1])[keep]
    y = labels[near].ravel()[keep]
    weighted = x.T * weights
    coef: np.ndarray = np.linalg.solve(weighted @ x + ridge * np.eye(x.shape[1]), weighted @ y)
    return coef[:-1]  # the intercept moves every memory alike


def read_topic_keys(path: Path = TOPICS_FILE) -> dict[str, tuple[str, ...]]:
    """Per memory text (normalised), the topic keys the bundled model gave it
    (``bench/topic_tags.py generate``'s output, with the prompt of the shipped pass)."""
    found: dict[str, tuple[str, ...]] = {}
    for line in path.open():
        row = json.loads(line)
        keys = (topic_list.key_of(label) for label in row["topics"])
        found[normalize_content(row["fact"])] = tuple(k for k in keys if k)
    return found


def read_topics(path: Path = TOPICS_FILE) -> dict[str, np.ndarray]:
    """``read_topic_keys`` as 0/1 rows over ``topics.KEYS``."""
    tagged = {}
    for text, keys in read_topic_keys(path).items():
        vector = np.zeros(len(topic_list.KEYS), np.float32)
        vector[topic_list.indices(keys)] = 1.0
        tagged[text] = vector
    return tagged


def example_pools(pools: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """As ``bank_rows`` lays them out, without embedding: per example question its pool
    (rows of the returned distinct memory texts) and its labels."""
    memory: dict[str, int] = {}
    members, labels = [], []
    for pool in pools:
        rows = [memory.setdefault(normalize_content(t), len(memory)) for t in pool["memories"]]
        for query in pool["queries"]:
            members.append(rows)
            labels.append([float(i in query["relevant"]) for i in range(len(rows))])
    return np.asarray(members), np.asarray(labels, np.float32), list(memory)


def with_topic_directions(
    bank: AnswerBank, pools: list[dict[str, Any]], tagged: dict[str, np.ndarray]
) -> AnswerBank:
    """The bank with a topic direction per example question, fitted as the answer
    directions are (centred on the question as the bank stores it), from the memories'
    topics; a memory with no tags in ``tagged`` counts as having no topic."""
    members, labels, texts = example_pools(pools)
    missing = np.zeros(len(topic_list.KEYS), np.float32)
    features = np.stack([tagged.get(text, missing) for text in texts])
    directions = np.stack(
        [fit(bank.questions, members, labels, features, q, TOPIC_RIDGE) for q in bank.questions]
    )
    return replace(bank, topic_directions=directions)


def embed_once(
    embedder: MiniLMEmbedder, rows: dict[str, int], vectors: list[np.ndarray], text: str
) -> int:
    text = normalize_content(text)
    if text not in rows:
        rows[text] = len(vectors)
        vectors.append(embedder.embed([text])[0])  # one at a time, as stored
    return rows[text]


def bank_rows(embedder: MiniLMEmbedder, pools: list[dict[str, Any]]) -> tuple[AnswerBank, Examples]:
    encoder = QueryEncoder(embedder, cache_size=1_000_000)
    answer: dict[str, int] = {}  # memory text -> row of answers
    answers: list[np.ndarray] = []
    memory: dict[str, int] = {}  # memory text -> row of every pool memory
    memories: list[np.ndarray] = []
    questions: list[np.ndarray] = []
    offsets, ids, members, labels = [0], [], [], []
    for pool in pools:
        rows = [embed_once(embedder, memory, memories, text) for text in pool["memories"]]
        for query in pool["queries"]:
            ids += [
                embed_once(embedder, answer, answers, pool["memories"][i])
                for i in query["relevant"]
            ]
            offsets.append(len(ids))
            (vector,) = encoder.vectors([question_focus(query["message"])])
            questions.append(vector)
            members.append(rows)
            labels.append([float(i in query["relevant"]) for i in range(len(rows))])
    examples = Examples(
        np.stack(questions), np.asarray(members), np.asarray(labels, np.float32), np.stack(memories)
    )
    directions = np.stack([examples.direction(q) for q in examples.questions])
    bank = AnswerBank(
        examples.questions,
        directions,
        np.stack(answers),
        np.asarray(offsets),
        np.asarray(ids),
        embedder.name,
    )
    return bank, examples


def rebank(kind: type[Bank], bank: AnswerBank, **changes: Any) -> Bank:
    """The bank as another kind of bank (a subclass that reads it differently)."""
    return kind(**{f.name: getattr(bank, f.name) for f in fields(AnswerBank)} | changes)


@dataclass(frozen=True)
class UnseenAnswers(AnswerBank):
    """The bank as for a user, whose memories it never held: the ranked pool's own
    memories are left out of the answer direction's fit and of the answers."""

    examples: Examples | None = None

    def boost(
        self, question: np.ndarray, memories: np.ndarray, topics: Any = None
    ) -> np.ndarray | None:
        """Without topics: ``bench/topic_tags.py measure`` reads those on the folds."""
        best = self.nearest(question)
        if best is None or self.examples is None:
            return None
        excluded = (memories @ self.examples.vectors.T).max(axis=0) >= SAME_TEXT
        direction = self.examples.direction(self.questions[best], excluded)
        unseen = (memories @ self.answers.T).max(axis=0) < SAME_TEXT
        return self.gain(memories, direction, question, unseen)


def folds(embedder: MiniLMEmbedder, pools: list[dict[str, Any]]) -> None:
    """What the bank adds on dev, over two folds by pool (the bank holds the other half's
    queries), read twice: as is (dev pools share their facts, so the bank holds most of
    a pool's memories) and with the pool's own memories left out (a user's memories are
    not in the bank; the reading to tune on)."""
    # the import is here so building the bank does not need the bench's data loaders
    from retrieval_quality import evaluate, persona_cases

    encoder = QueryEncoder(embedder, cache_size=1_000_000)
    plain = HybridReranker(EmbeddingReranker(embedder, encoder))
    order = list(range(len(pools)))
    random.Random(0).shuffle(order)
    halves = [[pools[i] for i in order[::2]], [pools[i] for i in order[1::2]]]
    cases = [persona_cases(embedder, half) for half in halves]
    banks = [bank_rows(embedder, halves[1]), bank_rows(embedder, halves[0])]
    without = [r[0] for half in (0, 1) for r in evaluate(plain.score, cases[half])]
    print(
        f"dev, 2 folds by pool, {len(without)} queries: recall@5 without the bank"
        f" {statistics.fmean(without):.3f}"
    )
    for name, unseen in (("as is", False), ("the pool's own memories left out", True)):
        found = []
        for half in (0, 1):
            bank, examples = banks[half]
            if unseen:
                bank = rebank(UnseenAnswers, bank, examples=examples)
            ranked = HybridReranker(EmbeddingReranker(embedder, encoder, bank=bank))
            found += [r[0] for r in evaluate(ranked.score, cases[half])]
        print(f"  with a bank of the other fold, {name}: {statistics.fmean(found):.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folds", type=int, choices=(2,), help="measure on dev halves")
    parser.add_argument(
        "--topics-only",
        action="store_true",
        help="keep the shipped bank's vectors and refit only its topic directions "
        "(embeds nothing, so the result does not depend on this CPU's embedder graph)",
    )
    args = parser.parse_args()
    dev = json.loads(DATA.read_text())["splits"]["dev"]
    if args.topics_only:
        bank = read_bank(OUT.read_bytes())
    else:
        embedder = MiniLMEmbedder()
        if args.folds:
            folds(embedder, dev)
            return
        bank, _ = bank_rows(embedder, dev)
    bank = with_topic_directions(bank, dev, read_topics())
    bank.save(OUT)
    print(
        f"{OUT}: {len(bank.questions)} example questions with their answer and topic"
        f" directions, {len(bank.answers)} answers, embedder {bank.embedder},"
        f" {OUT.stat().st_size / 1024:.0f} KiB"
    )


if __name__ == "__main__":
    main()
