"""Train the fact filter: which first-person user sentences state a lasting fact.

    .venv/bin/python bench/train_fact_filter.py    # writes src/memoryd/data/fact-filter.json

Training data is the dev split only: Synthetic-Persona-Chat valid.csv (CC-BY 4.0), less
the conversations ``bench/extraction_quality.py --split dev`` samples for tuning, so
that sample stays a fair check of the whole pipeline. Every candidate sentence of User
1 (``memoryd.extraction.sentences.user_sentences``, the pipeline's own candidates) is
labelled by meaning against User 1's persona lines (``memoryd.evaluation.core`` forms,
MiniLM cosine): >= POSITIVE is a fact, < NEGATIVE is not, in between is left out. The
model is a logistic regression over the sentence's MiniLM vector, fitted with numpy
(L2-regularised gradient descent, classes weighted equally); it ships as 384 weights
and a bias.
"""

from __future__ import annotations

import csv
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from persona_chat import DATASET, sample_order, to_conversation  # noqa: E402

from memoryd.domain.models import Chat  # noqa: E402
from memoryd.embedding.minilm import MiniLMEmbedder  # noqa: E402
from memoryd.evaluation import core  # noqa: E402
from memoryd.extraction.sentences import memory_form, user_sentences  # noqa: E402

POSITIVE = 0.7
NEGATIVE = 0.5
HELD_OUT_FOR_TUNING = 100  # the first N of the dev sample order stay out of training
OUT = HERE.parent / "src" / "memoryd" / "data" / "fact-filter.json"


def candidates() -> tuple[list[str], list[list[str]]]:
    with (DATASET / "valid.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    held = set(sample_order(len(rows))[:HELD_OUT_FOR_TUNING])
    sentences: list[str] = []
    truths: list[list[str]] = []
    now = datetime.now(UTC)
    for index, row in enumerate(rows):
        if index in held:
            continue
        conv = to_conversation(row, f"train-{index}")
        chats = [
            Chat(n, 1, "chat", e["prompt"], e["response"], now, memory_processed=False)
            for n, e in enumerate(conv["exchanges"])
        ]
        for sentence in user_sentences(chats, 1000):
            sentences.append(sentence.text)
            truths.append(conv["facts"])
    return sentences, truths


def main() -> int:
    embedder = MiniLMEmbedder()
    texts, truths = candidates()
    print(f"{len(texts)} candidate sentences", flush=True)
    x = np.asarray(embedder.embed(texts), dtype=np.float64)
    cores = np.asarray(embedder.embed([core(memory_form(t)) for t in texts]))
    labels = []
    keep = []
    cache: dict[str, np.ndarray] = {}
    for i, facts in enumerate(truths):
        key = "\n".join(facts)
        if key not in cache:
            cache[key] = np.asarray(embedder.embed([core(f) for f in facts]))
        best = float((cache[key] @ cores[i]).max())
        if best >= POSITIVE or best < NEGATIVE:
            keep.append(i)
            labels.append(1.0 if best >= POSITIVE else 0.0)
    x, y = x[keep], np.asarray(labels)
    print(f"labelled {len(y)}: {int(y.sum())} facts, {int(len(y) - y.sum())} not", flush=True)
    weight = np.where(y == 1, 0.5 / y.mean(), 0.5 / (1 - y.mean()))
    w = np.zeros(x.shape[1])
    b = 0.0
    for _ in range(3000):
        p = 1 / (1 + np.exp(-(x @ w + b)))
        grad = (p - y) * weight
        w -= 0.5 * (x.T @ grad / len(y) + 1e-3 * w)
        b -= 0.5 * float(grad.mean())
    p = 1 / (1 + np.exp(-(x @ w + b)))
    accuracy = float(((p >= 0.5) == (y == 1)).mean())
    print(f"training accuracy {accuracy:.3f}")
    OUT.write_text(
        json.dumps(
            {
                "description": "Logistic regression over all-MiniLM-L6-v2 vectors of a user's "
                "first-person sentence: the probability that it states a lasting fact about "
                "them. Made by bench/train_fact_filter.py from Synthetic-Persona-Chat "
                "valid.csv (CC-BY 4.0, Jandaghi et al. 2023, arXiv 2312.10007).",
                "labelled": len(y),
                "training_accuracy": round(accuracy, 4),
                "bias": round(b, 6),
                "weights": [round(float(v), 6) for v in w],
            }
        )
    )
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
