"""Train the fact filter: which first-person user sentences state a lasting fact.

    .venv/bin/python bench/train_fact_filter.py           # writes src/memoryd/data/fact-filter.json
    .venv/bin/python bench/train_fact_filter.py --check   # shipped vs fresh weights, held out

Training data is the dev split only: Synthetic-Persona-Chat valid.csv (CC-BY 4.0), less
the conversations ``bench/genres.py --genres persona --split dev`` samples for tuning, so
that sample stays a fair check of the whole pipeline. Every candidate sentence of User
1 (``memoryd.extraction.sentences.user_sentences``, the pipeline's own candidates) is
labelled by meaning against User 1's persona lines (``memoryd.evaluation.core`` forms,
MiniLM cosine): >= POSITIVE is a fact, < NEGATIVE is not, in between is left out. The
model is a logistic regression over the sentence's MiniLM vector, fitted with numpy
(L2-regularised gradient descent, classes weighted equally); it ships as 384 weights
and a bias.

``--check`` writes nothing. It labels the held-out conversations (the first
HELD_OUT_FOR_TUNING, left out of training) the same way and reports precision, recall
and accuracy at the pipeline's threshold for the shipped weights and for weights
trained afresh, on all labelled sentences and on those the pipeline lets the filter
judge (first person, ``fact_filter.applies_to``). It also counts how many of the shipped
filter's decisions on the held-out candidates change when their vectors are embedded in
one batch (the embedder's way before it ran each text alone) instead of alone.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from embed_batching import batched  # noqa: E402
from persona_chat import DATASET, sample_order, to_conversation  # noqa: E402

from memoryd.domain.models import Chat  # noqa: E402
from memoryd.embedding.minilm import MiniLMEmbedder  # noqa: E402
from memoryd.evaluation import core  # noqa: E402
from memoryd.extraction.fact_filter import THRESHOLD, applies_to  # noqa: E402
from memoryd.extraction.sentences import is_first_person, memory_form, user_sentences  # noqa: E402

POSITIVE = 0.7
NEGATIVE = 0.5
HELD_OUT_FOR_TUNING = 100  # the first N of the dev sample order stay out of training
OUT = HERE.parent / "src" / "memoryd" / "data" / "fact-filter.json"


def candidates(dataset: Path, held_out: bool) -> tuple[list[str], list[list[str]]]:
    """Each candidate sentence of the training (or held-out) conversations, with the
    persona lines of its speaker."""
    with (dataset / "valid.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    held = set(sample_order(len(rows))[:HELD_OUT_FOR_TUNING])
    sentences: list[str] = []
    truths: list[list[str]] = []
    now = datetime.now(UTC)
    for index, row in enumerate(rows):
        if (index in held) != held_out:
            continue
        conv = to_conversation(row, f"dev-{index}")
        chats = [
            Chat(n, 1, "chat", e["prompt"], e["response"], now, memory_processed=False)
            for n, e in enumerate(conv["exchanges"])
        ]
        for sentence in user_sentences(chats, 1000):
            sentences.append(sentence.text)
            truths.append(conv["facts"])
    return sentences, truths


def labels(
    embedder: MiniLMEmbedder, texts: list[str], truths: list[list[str]]
) -> tuple[np.ndarray, np.ndarray]:
    """The indices of the sentences that get a label, and their labels (1.0 = a fact)."""
    cores = embedder.embed([core(memory_form(t)) for t in texts])
    keep: list[int] = []
    found: list[float] = []
    persona: dict[str, np.ndarray] = {}
    for i, facts in enumerate(truths):
        key = "\n".join(facts)
        if key not in persona:
            persona[key] = embedder.embed([core(f) for f in facts])
        best = float((persona[key] @ cores[i]).max())
        if best >= POSITIVE or best < NEGATIVE:
            keep.append(i)
            found.append(1.0 if best >= POSITIVE else 0.0)
    return np.asarray(keep, dtype=np.int64), np.asarray(found)


def fit(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float]:
    weight = np.where(y == 1, 0.5 / y.mean(), 0.5 / (1 - y.mean()))
    w = np.zeros(x.shape[1])
    b = 0.0
    for _ in range(3000):
        p = probability(x, w, b)
        grad = (p - y) * weight
        w -= 0.5 * (x.T @ grad / len(y) + 1e-3 * w)
        b -= 0.5 * float(grad.mean())
    return w, b


def probability(x: np.ndarray, w: np.ndarray, b: float) -> np.ndarray:
    return np.asarray(1 / (1 + np.exp(-(x @ w + b))))


def training_set(embedder: MiniLMEmbedder, dataset: Path) -> tuple[np.ndarray, np.ndarray]:
    texts, truths = candidates(dataset, held_out=False)
    print(f"{len(texts)} candidate sentences", flush=True)
    x = np.asarray(embedder.embed(texts), dtype=np.float64)
    keep, y = labels(embedder, texts, truths)
    print(f"labelled {len(y)}: {int(y.sum())} facts, {int(len(y) - y.sum())} not", flush=True)
    return x[keep], y


def train(embedder: MiniLMEmbedder, dataset: Path) -> dict[str, Any]:
    x, y = training_set(embedder, dataset)
    w, b = fit(x, y)
    accuracy = float(((probability(x, w, b) >= 0.5) == (y == 1)).mean())
    print(f"training accuracy {accuracy:.3f}")
    return {
        "description": "Logistic regression over all-MiniLM-L6-v2 vectors of a user's "
        "first-person sentence: the probability that it states a lasting fact about "
        "them. Made by bench/train_fact_filter.py from Synthetic-Persona-Chat "
        "valid.csv (CC-BY 4.0, Jandaghi et al. 2023, arXiv 2312.10007).",
        "labelled": len(y),
        "training_accuracy": round(accuracy, 4),
        "bias": round(b, 6),
        "weights": [round(float(v), 6) for v in w],
    }


def scores(decided: np.ndarray, y: np.ndarray) -> str:
    facts = y == 1
    hits = int((decided & facts).sum())
    precision = hits / max(int(decided.sum()), 1)
    recall = hits / max(int(facts.sum()), 1)
    accuracy = float((decided == facts).mean())
    return f"precision {precision:.3f}  recall {recall:.3f}  accuracy {accuracy:.3f}"


def check(embedder: MiniLMEmbedder, dataset: Path) -> None:
    texts, truths = candidates(dataset, held_out=True)
    alone = embedder.embed(texts)
    keep, y = labels(embedder, texts, truths)
    judged = np.asarray([is_first_person(texts[i]) and applies_to(texts[i]) for i in keep])
    print(
        f"held out: {len(texts)} candidates, labelled {len(y)} ({int(y.sum())} facts), "
        f"{int(judged.sum())} of them judged by the filter in the pipeline "
        f"({int(y[judged].sum())} facts); threshold {THRESHOLD}"
    )
    shipped = json.loads(OUT.read_text(encoding="utf-8"))
    models = {
        "shipped": (np.asarray(shipped["weights"]), float(shipped["bias"])),
        "fresh": fit(*training_set(embedder, dataset)),
    }
    for name, (w, b) in models.items():
        decided = probability(alone[keep], w, b) >= THRESHOLD
        print(f"{name:8} all labelled:  {scores(decided, y)}")
        print(f"{name:8} judged subset: {scores(decided[judged], y[judged])}")
    w, b = models["shipped"]
    in_batch = batched(embedder, texts)
    flips = (probability(alone, w, b) >= THRESHOLD) != (probability(in_batch, w, b) >= THRESHOLD)
    mask = np.asarray([is_first_person(t) and applies_to(t) for t in texts])
    print(
        f"shipped, alone vs one batch: {int(flips.sum())} of {len(texts)} decisions "
        f"change ({int(flips[mask].sum())} of {int(mask.sum())} the filter judges)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="evaluate on held out, write nothing")
    parser.add_argument("--persona-chat", type=Path, default=DATASET, help="the dataset folder")
    args = parser.parse_args()
    embedder = MiniLMEmbedder()
    if args.check:
        check(embedder, args.persona_chat)
        return 0
    OUT.write_text(json.dumps(train(embedder, args.persona_chat)))
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
