"""Build src/memoryd/data/answer-bank.npz from the dev split of the labelled persona set.

Each dev query of ``bench/data/persona_retrieval_labelled.json`` gives one example: the
vector of its message as the reranker embeds it (the question alone when the rest are short
remarks) and the vectors of the memories labelled relevant to it (each distinct memory
stored once). Only dev is
read: the test split stays unseen by anything that ships. The data is Synthetic-Persona-Chat
(Jandaghi et al. 2023, CC-BY 4.0), see bench/data/README.md.

``--folds 2`` measures instead of building: a bank made from half of dev ranks the other
half, and the other way round, so the gain is read on queries the bank never held (and,
in the second reading, on memories it never held, see ``folds``).

    .venv/bin/python bench/build_answer_bank.py [--folds 2]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
from pathlib import Path
from typing import Any

import numpy as np

from memoryd.domain.rules import normalize_content
from memoryd.embedding.minilm import MiniLMEmbedder
from memoryd.rerank import HybridReranker, QueryEncoder
from memoryd.rerank.answer_bank import FILE, AnswerBank
from memoryd.rerank.embedding import EmbeddingReranker, question_focus

DATA = Path(__file__).parent / "data" / "persona_retrieval_labelled.json"
OUT = Path(__file__).resolve().parents[1] / "src" / "memoryd" / "data" / FILE
SAME_TEXT = 0.98  # cosine from which an answer is taken for the memory itself


def bank_rows(embedder: MiniLMEmbedder, pools: list[dict[str, Any]]) -> AnswerBank:
    encoder = QueryEncoder(embedder, cache_size=1_000_000)
    answer: dict[str, int] = {}  # memory text -> row of answers
    vectors: list[np.ndarray] = []
    questions: list[np.ndarray] = []
    offsets, ids = [0], []
    for pool in pools:
        for query in pool["queries"]:
            for i in query["relevant"]:
                text = normalize_content(pool["memories"][i])
                if text not in answer:
                    answer[text] = len(vectors)
                    vectors.append(embedder.embed([text])[0])  # one at a time, as stored
                ids.append(answer[text])
            offsets.append(len(ids))
            (vector,) = encoder.vectors([question_focus(query["message"])])
            questions.append(vector)
    return AnswerBank(
        np.stack(questions), np.stack(vectors), np.asarray(offsets), np.asarray(ids), embedder.name
    )


class UnseenAnswers(AnswerBank):
    """The bank with every answer that is one of the ranked pool's own memories left out,
    as for a user, whose memories the bank never held."""

    def boost(self, question: np.ndarray, memories: np.ndarray) -> np.ndarray | None:
        ids = self.near_answers(question)
        if ids is None:
            return None
        cosines = memories @ self.answers.T
        unseen = cosines.max(axis=0) < SAME_TEXT
        return self.gain(cosines, ids[unseen[ids]], question, unseen)


def folds(embedder: MiniLMEmbedder, pools: list[dict[str, Any]]) -> None:
    """What the bank adds on dev, over two folds by pool (the bank holds the other half's
    queries), read twice: as is (dev pools share their facts, so the bank holds most of
    a pool's memories as answers) and with the pool's own memories left out of the
    answers (a user's memories are not in the bank; the reading to tune on)."""
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
            bank = banks[half]
            if unseen:
                bank = UnseenAnswers(
                    bank.questions, bank.answers, bank.offsets, bank.answer_ids, bank.embedder
                )
            ranked = HybridReranker(EmbeddingReranker(embedder, encoder, bank=bank))
            found += [r[0] for r in evaluate(ranked.score, cases[half])]
        print(f"  with a bank of the other fold, {name}: {statistics.fmean(found):.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folds", type=int, choices=(2,), help="measure on dev halves")
    args = parser.parse_args()
    embedder = MiniLMEmbedder()
    dev = json.loads(DATA.read_text())["splits"]["dev"]
    if args.folds:
        folds(embedder, dev)
        return
    bank = bank_rows(embedder, dev)
    bank.save(OUT)
    print(
        f"{OUT}: {len(bank.questions)} example questions, {len(bank.answers)} answers,"
        f" embedder {bank.embedder},"
        f" {OUT.stat().st_size / 1024:.0f} KiB"
    )


if __name__ == "__main__":
    main()
