"""One text per model call against batches: how far a batch moves a text's vector, and
what each way costs (the embedder's "one text per call" rule, BENCHMARKS.md).

The re-quantised MiniLM graph quantises its activations with one scale per call, so a
text embedded in a batch comes out a little different from the same text alone, and
different again beside other texts. memoryd now runs each text alone; this measures,
in one run, against batching (the way memoryd embedded before, reproduced here):

- drift: cosine between each text's vector alone and in one batch of all the texts
  (the labelled set's memories, sorted as stored), and in batches of 16;
- cost: the turn's query parts (the message and up to 3 history messages, as
  ``QueryEncoder`` embeds those it has not cached) and an import of 300 memories, each
  embedded both ways, best of 5.

    .venv/bin/python bench/embed_batching.py
"""

from __future__ import annotations

import json
import os
import timeit
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from memoryd.models.embedding.minilm import MiniLMEmbedder

DATA = Path(__file__).parent / "data"


def batched(embedder: MiniLMEmbedder, texts: Sequence[str]) -> np.ndarray:
    """The texts in one call, padded to the longest: how memoryd embedded before."""
    tokenizer = embedder._tokenizer  # the bench reproduces the old path
    encodings = tokenizer.encode_batch(list(texts))
    width = max(len(e.ids) for e in encodings)
    ids = np.zeros((len(texts), width), dtype=np.int64)
    mask = np.zeros_like(ids)
    for row, e in enumerate(encodings):
        ids[row, : len(e.ids)] = e.ids
        mask[row, : len(e.ids)] = 1
    (hidden,) = embedder._session.run(
        None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    )
    weights = mask[:, :, None].astype(np.float32)
    pooled = (hidden * weights).sum(axis=1) / weights.sum(axis=1)
    return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)


def memories() -> list[str]:
    pools = json.loads((DATA / "persona_retrieval_labelled.json").read_text())["splits"]["test"]
    texts = [m for pool in pools for m in pool["memories"]]
    return list(dict.fromkeys(texts))


def best_ms(call: object, number: int) -> float:
    return min(timeit.repeat(call, number=number, repeat=5)) / number * 1000  # type: ignore[arg-type]


def main() -> None:
    embedder = MiniLMEmbedder()
    embedder.embed(["load the model"])
    texts = memories()
    alone = embedder.embed(texts)
    whole = batched(embedder, texts)
    sixteen = np.concatenate(
        [batched(embedder, texts[i : i + 16]) for i in range(0, len(texts), 16)]
    )
    print(f"embedder {embedder.name} ({embedder.variant} graph); {len(texts)} memories")
    for label, other in (("one batch of all", whole), ("batches of 16", sixteen)):
        cos = (alone * other).sum(axis=1)
        print(
            f"drift, alone vs {label}: cosine min {cos.min():.4f}, p5 "
            f"{np.percentile(cos, 5):.4f}, mean {cos.mean():.4f}"
        )
    parts = [
        "and when does it start?",
        "Which libraries and tracking tools are you using?",
        "We use pytest and sentry for the backend, and Grafana for the dashboards.",
        "Can you write the boilerplate?",
    ]
    print("\ncost (ms, best of 5)        batched    alone   alone/batched")
    for n in (1, 2, 4):
        b = best_ms(lambda n=n: batched(embedder, parts[:n]), 50)
        a = best_ms(lambda n=n: embedder.embed(parts[:n]), 50)
        print(f"turn, {n} new query part(s)  {b:8.2f} {a:8.2f}   {a / b:5.2f}x")
    rows = texts[:300]
    b = best_ms(lambda: batched(embedder, rows), 1)
    a = best_ms(lambda: embedder.embed(rows), 1)
    print(f"import, {len(rows)} memories     {b:8.0f} {a:8.0f}   {a / b:5.2f}x")
    load1, _, _ = os.getloadavg()
    print(f"\nload average {load1:.2f} (1 min) on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
