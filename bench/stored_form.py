"""Issue 10, round 18: the labelled set's memories as memoryd stores them, and the vector
taken from the user's own words.

The labelled persona set holds memories as the persona lines say them ("I run a dog
obedience school."), but extraction stores a user's sentence in the third person ("The
user runs a dog obedience school.", ``memoryd.extraction.sentences.memory_form``), so the
set's figures are not what a user whose memories were learned meets. This script reads
the shipped default three ways, with the same queries, labels, topics and questions:

- **as written**: the memories as the set holds them (every earlier round's figure);
- **as stored**: each memory's text and vector from ``memory_form`` (memoryd before
  round 18);
- **stored, first-person vector**: the text from ``memory_form``, the vector from
  ``memoryd.domain.perspective.first_person`` of it (round 18).

``--subject User`` reads the same three ways with the memories as apps and agents write
them through the API or MCP ("User runs a dog obedience school."; round 19): as written,
that text's vector as written (memoryd before round 19), and its first-person vector.

Topics and questions are looked up by the memory's original text (the bundled model
wrote them for the persona lines; for "The user ..." texts it writes the same kinds).
Dev is read on round 9's folds (a bank of one half ranks the other, the pool's own
memories left out of it) for the two readings whose vectors the bank's leave-out can
match (as written, first-person vector), plus as stored with the folds' bank fitted on
stored texts too; ``--test`` reads the labelled test split (both readers) once with the
shipped bank, all three ways.

    PYTHONPATH=src .venv/bin/python bench/stored_form.py            # dev folds
    PYTHONPATH=src .venv/bin/python bench/stored_form.py --test     # test, once
    PYTHONPATH=src .venv/bin/python bench/stored_form.py --subject User [--test]
"""

from __future__ import annotations

import argparse
import copy
import json
import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
from build_answer_bank import UnseenAnswers, bank_rows, rebank
from doc2query import CHOSEN as QUESTIONS
from doc2query import question_signals, question_vectors
from doc2query import recalls as default_recalls
from retrieval_quality import (
    DATA,
    PERSONA_SETS,
    QUESTION_FILES,
    Case,
    persona_cases,
    second_reader_pools,
)
from topic_tags import read_tags, readings, topic_matrix

from memoryd.domain.perspective import first_person
from memoryd.domain.rules import normalize_content
from memoryd.embedding.minilm import MiniLMEmbedder
from memoryd.extraction.sentences import QUOTED, memory_form
from memoryd.plugins import reranker_factories
from memoryd.rerank import EmbeddingReranker, HybridReranker, QueryEncoder

SUBJECTS = ("The user", "User")
SUBJECT = "The user"  # what a memory's text opens with; main() sets it from --subject


def stored(text: str) -> str:
    """The memory as extraction stores it, or with ``--subject User`` as an app would
    write it ("User runs ...", "User's sister ..."); quoted sentences stay quoted."""
    form = normalize_content(memory_form(text))
    if SUBJECT != "The user" and form.startswith("The user") and not form.startswith(QUOTED):
        return SUBJECT + form[len("The user") :]
    return form


def identity(text: str) -> str:
    return text


# how a reading turns a memory's stored text into the text its vector is taken from
READINGS: dict[str, Callable[[str], str] | None] = {
    "as written": None,
    "as stored": identity,
    "stored, first-person vector": first_person,
}


class Restated:
    """Cases with each memory's text as memoryd stores it and its vector from
    ``vector_text`` of that text; topics and questions re-keyed to the new texts."""

    def __init__(self, embedder: MiniLMEmbedder, vector_text: Callable[[str], str]) -> None:
        self.embedder, self.vector_text = embedder, vector_text
        self.vectors: dict[str, np.ndarray] = {}

    def cases(self, cases: list[Case]) -> list[Case]:
        def restate(memory: Any) -> Any:
            text = stored(memory.content)
            vector_text = self.vector_text(text)
            if vector_text not in self.vectors:
                self.vectors[vector_text] = self.embedder.embed([vector_text])[0]
            return replace(memory, content=text, embedding=self.vectors[vector_text])

        memo: dict[str, Any] = {}
        out = []
        for case in cases:
            pool = []
            for memory in case.pool:
                if memory.id not in memo:
                    memo[memory.id] = restate(memory)
                pool.append(memo[memory.id])
            out.append(replace(case, pool=pool))
        return out


def rekeyed(table: dict[str, Any]) -> dict[str, Any]:
    """A table keyed by memory text, also keyed by the text as stored."""
    return table | {stored(text): value for text, value in table.items()}


def halves(dev: list[Any]) -> list[list[Any]]:
    order = list(range(len(dev)))
    random.Random(0).shuffle(order)
    return [[dev[i] for i in order[::2]], [dev[i] for i in order[1::2]]]


def as_stored_pools(pools: list[Any]) -> list[Any]:
    out = copy.deepcopy(pools)
    for pool in out:
        pool["memories"] = [stored(m) for m in pool["memories"]]
    return out


def dev_reading(
    embedder: MiniLMEmbedder,
    encoder: QueryEncoder,
    dev: list[Any],
    tags: dict[str, np.ndarray],
    questions: dict[str, np.ndarray],
    vector_text: Callable[[str], str] | None,
    *,
    bank_on_stored: bool = False,
) -> np.ndarray:
    """recall@5 per dev query over the two folds (``topic_tags.dev_fold_readings``'s
    protocol), memories restated unless ``vector_text`` is None."""
    found: list[np.ndarray] = []
    split = halves(dev)
    for half in (0, 1):
        other = as_stored_pools(split[1 - half]) if bank_on_stored else split[1 - half]
        bank, examples = bank_rows(embedder, other)
        unseen = rebank(UnseenAnswers, bank, examples=examples)
        scorer = HybridReranker(EmbeddingReranker(embedder, encoder, bank=unseen)).score
        cases = persona_cases(embedder, split[half])
        if vector_text is not None:
            cases = Restated(embedder, vector_text).cases(cases)
        topics = topic_matrix(other, tags)
        rows = readings(cases, scorer, bank, examples, topics, tags, encoder, leave_out_pool=True)
        signals = question_signals(cases, questions, encoder)
        found.append(default_recalls((rows, signals), QUESTIONS))
    return np.concatenate(found)


def test_reading(
    embedder: MiniLMEmbedder,
    encoder: QueryEncoder,
    cases: list[Case],
    dev: list[Any],
    tags: dict[str, np.ndarray],
    questions: dict[str, np.ndarray],
    vector_text: Callable[[str], str] | None,
) -> np.ndarray:
    """recall@5 per query of the shipped default (its bank from all of dev)."""
    shipped = reranker_factories()["hybrid"](embedder).score
    bank, examples = bank_rows(embedder, dev)
    if vector_text is not None:
        cases = Restated(embedder, vector_text).cases(cases)
    topics = topic_matrix(dev, tags)
    rows = readings(cases, shipped, bank, examples, topics, tags, encoder, leave_out_pool=False)
    return default_recalls((rows, question_signals(cases, questions, encoder)), QUESTIONS)


def compare(label: str, results: dict[str, np.ndarray]) -> None:
    base = results["as written"]
    print(f"\n## {label}: {len(base)} queries, recall@5")
    for name, found in results.items():
        diff = found - base
        cells = f"{found.mean():.4f}"
        if name != "as written":
            cells += (
                f"  ({diff.mean():+.4f} on as written: {int((diff > 0).sum())} better,"
                f" {int((diff < 0).sum())} worse)"
            )
        print(f"{name:<44} {cells}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--test", action="store_true", help="read the test split (once)")
    parser.add_argument(
        "--subject", choices=SUBJECTS, default="The user", help="what memories open with"
    )
    args = parser.parse_args()
    global SUBJECT
    SUBJECT = args.subject
    print(f"memories open with {SUBJECT!r}", flush=True)
    embedder = MiniLMEmbedder()
    encoder = QueryEncoder(embedder, cache_size=1_000_000)
    tags = rekeyed(read_tags())
    questions = rekeyed(question_vectors(embedder, list(QUESTION_FILES)))
    labelled = json.loads((DATA / PERSONA_SETS["labelled"]).read_text())["splits"]
    if not args.test:
        results = {
            name: dev_reading(embedder, encoder, labelled["dev"], tags, questions, form)
            for name, form in READINGS.items()
            if name != "as stored"
        }
        results["as stored, the folds' bank fitted on stored texts"] = dev_reading(
            embedder, encoder, labelled["dev"], tags, questions, identity, bank_on_stored=True
        )
        compare("labelled dev, 2 folds", results)
        return
    sets = {
        "labelled test": persona_cases(embedder, labelled["test"]),
        "labelled test, second reader": persona_cases(embedder, second_reader_pools()),
    }
    for label, cases in sets.items():
        compare(
            label,
            {
                name: test_reading(embedder, encoder, cases, labelled["dev"], tags, questions, form)
                for name, form in READINGS.items()
            },
        )


if __name__ == "__main__":
    main()
