"""Issue 10, round 15: does a similarity learned from the labelled dev split help the
shipped reranker, and can dev folds tell?

The idea: a low-rank bilinear score ``(Uq) . (Vm)`` between a query's vectors ``q`` (the
message as the reranker embeds it, its question focus, and the newest history message)
and a memory's stored vector ``m``, fitted with numpy (Adam, a listwise softmax loss over
each pool of 20, the labelled memories as targets, L2 on U and V) to the labelled dev
queries, and added to the shipped score (default with topics and both prompts'
questions) as ``weight x score / 10``. It is what a small cross-encoder would learn, at
the cost of two 384 x 32 matrices, where the answer bank (``docs/reranking.md``) keeps
examples and directions.

Dev is read two ways:

- ``folds``: round 9's two halves of the dev pools (``doc2query.py``), one fitted on and
  the other read. Every one of dev's 494 memory texts is in pools of both halves (the
  set draws its pools from the same personas), so a score learned per memory is read on
  memories it was fitted on: these folds measure memorising, not what a user's unseen
  memories get.
- ``unseen``: the memories split in two by a hash of their text. The score is fitted on
  one half of the pools with the other group's memories left out of every list, and read
  on the other half's pools cut to the other group's memories (about 10 a pool, so
  recall@3, against the shipped score on the same cut pools): every memory read is one
  the score never saw, as on test (which shares 14 of its ~490 memories with dev). Four
  readings (two halves x two groups), pooled.

``--test`` then fits on all of dev and reads ``CHOSEN`` (the best ``folds`` cell) once on
the labelled test split (both readers) and the hand-written set.

    PYTHONPATH=src .venv/bin/python bench/learned_adapter.py          # dev (about 7 min)
    PYTHONPATH=src .venv/bin/python bench/learned_adapter.py --test   # + test, once
"""

from __future__ import annotations

import argparse
import itertools
import json
import zlib
from dataclasses import dataclass

import numpy as np
from doc2query import CHOSEN as QUESTIONS
from doc2query import FORMS, question_signals, question_vectors
from retrieval_quality import DATA, PERSONA_SETS, QUESTION_FILES, Case
from topic_tags import CHOSEN as TOPICS
from topic_tags import Row, dev_fold_readings, read_tags, test_readings, with_topics

from memoryd.embedding.minilm import MiniLMEmbedder
from memoryd.rerank import QueryEncoder
from memoryd.rerank.embedding import question_focus

RANK, L2, EPOCHS, SCALE = 32, 1e-3, 300, 10.0
WEIGHTS = (0.25, 0.5, 1.0, 2.0)
CHOSEN = 1.0  # the best ``folds`` weight whose hand-written reading loses least (round 15)


@dataclass(frozen=True)
class Queries:
    """A set's queries as arrays: query vectors (focus ++ newest history), pool vectors,
    labels, the shipped score, and each pool memory's text."""

    q: np.ndarray  # n x 768
    m: np.ndarray  # n x 20 x 384
    y: np.ndarray  # n x 20, bool
    base: np.ndarray  # n x 20
    texts: list[list[str]]

    def take(self, keep: np.ndarray) -> Queries:
        return Queries(
            self.q[keep],
            self.m[keep],
            self.y[keep],
            self.base[keep],
            [t for t, k in zip(self.texts, keep, strict=True) if k],
        )


def queries(cases: list[Case], rows: list[Row], signals: list, encoder: QueryEncoder) -> Queries:
    qs, ms, ys, bases = [], [], [], []
    for case, row, signal in zip(cases, rows, signals, strict=True):
        base = with_topics(row, *TOPICS)
        if signal is not None:
            base = base + QUESTIONS[1] * FORMS[QUESTIONS[0]](signal, bool(row[2]))
        focus, *history = encoder.vectors(
            [question_focus(case.query.message), *case.query.parts[1:2]]
        )
        newest = history[0] if history else np.zeros_like(focus)
        qs.append(np.concatenate([focus, newest]))
        ms.append(np.stack([m.embedding for m in case.pool if m.embedding is not None]))
        y = np.zeros(len(case.pool), bool)
        y[list(case.relevant)] = True
        ys.append(y)
        bases.append(base)
    return Queries(
        np.asarray(qs, np.float32),
        np.asarray(ms, np.float32),
        np.asarray(ys),
        np.asarray(bases, np.float32),
        [[m.content for m in case.pool] for case in cases],
    )


def fit(data: Queries, listed: np.ndarray, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """U, V by full-batch Adam on the mean listwise cross-entropy; ``listed`` masks the
    memories that take part in each list."""
    rng = np.random.default_rng(seed)
    u = rng.normal(0, 0.01, (data.q.shape[1], RANK)).astype(np.float32)
    v = rng.normal(0, 0.01, (data.m.shape[2], RANK)).astype(np.float32)
    y = (data.y & listed).astype(np.float32)
    target = y / y.sum(axis=1, keepdims=True)
    n, j, d = data.m.shape
    flat = data.m.reshape(-1, d)
    moments = [[np.zeros_like(u), np.zeros_like(u)], [np.zeros_like(v), np.zeros_like(v)]]
    for t in range(1, EPOCHS + 1):
        a, b = data.q @ u, (flat @ v).reshape(n, j, -1)
        logits = np.where(listed, np.einsum("nr,njr->nj", a, b), -1e9)
        p = np.exp(logits - logits.max(axis=1, keepdims=True)) * listed
        g = (p / p.sum(axis=1, keepdims=True) - target) / n
        grad_u = data.q.T @ np.einsum("nj,njr->nr", g, b) + L2 * u
        grad_v = flat.T @ (g[:, :, None] * a[:, None, :]).reshape(n * j, -1) + L2 * v
        for param, grad, (m1, m2) in ((u, grad_u, moments[0]), (v, grad_v, moments[1])):
            m1 *= 0.9
            m1 += 0.1 * grad
            m2 *= 0.999
            m2 += 0.001 * grad * grad
            param -= 1e-2 * (m1 / (1 - 0.9**t)) / (np.sqrt(m2 / (1 - 0.999**t)) + 1e-8)
    return u, v


def learned(data: Queries, uv: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    u, v = uv
    return np.einsum("nr,njr->nj", data.q @ u, data.m @ v) / SCALE


def recall_at(scores: np.ndarray, y: np.ndarray, listed: np.ndarray, k: int) -> np.ndarray:
    """Per query, recall@k over the listed memories (at most k relevant counted)."""
    out = []
    for s, rel, keep in zip(scores, y, listed, strict=True):
        idx = np.flatnonzero(keep)
        top = idx[np.argsort(-s[idx], kind="stable")[:k]]
        out.append(rel[top].sum() / min(k, rel[idx].sum()))
    return np.array(out)


def everything(data: Queries) -> np.ndarray:
    return np.ones(data.y.shape, bool)


def group(text: str) -> int:
    return zlib.crc32(text.encode()) % 2


def in_group(data: Queries, g: int) -> np.ndarray:
    return np.array([[group(t) == g for t in texts] for texts in data.texts])


def read_folds(halves: list[Queries], hand: Queries, on_all: tuple[np.ndarray, np.ndarray]) -> None:
    """``on_all``: the score fitted on all of dev, for the hand-written set."""
    fitted = [fit(halves[1 - k], everything(halves[1 - k])) for k in (0, 1)]
    hand_learned = learned(hand, on_all)
    print("\n## dev folds (every memory read was fitted on) / hand-written, recall@5")
    for w in (0.0, *WEIGHTS):
        dev = np.concatenate(
            [
                recall_at(h.base + w * learned(h, uv), h.y, everything(h), 5)
                for h, uv in zip(halves, fitted, strict=True)
            ]
        )
        hw = recall_at(hand.base + w * hand_learned, hand.y, everything(hand), 5)
        print(f"weight {w:<5g} dev {dev.mean():.4f}   hand-written {hw.mean():.4f}", flush=True)


def read_unseen(halves: list[Queries]) -> None:
    print("\n## dev, unseen memories (fitted on one group, read on the other), recall@3")
    scores: dict[float, list[np.ndarray]] = {w: [] for w in (0.0, *WEIGHTS)}
    for k, g in itertools.product((0, 1), (0, 1)):
        train, read = halves[1 - k], halves[k]
        listed = in_group(train, g)
        keep = (train.y & listed).any(axis=1)
        uv = fit(train.take(keep), listed[keep])
        cut = in_group(read, 1 - g)
        keep = (read.y & cut).any(axis=1)
        read, cut = read.take(keep), cut[keep]
        extra = learned(read, uv)
        for w in scores:
            scores[w].append(recall_at(read.base + w * extra, read.y, cut, 3))
    for w, parts in scores.items():
        together = np.concatenate(parts)
        print(f"weight {w:<5g} {together.mean():.4f} ({len(together)} queries)", flush=True)


def join(parts: list[Queries]) -> Queries:
    return Queries(
        np.concatenate([p.q for p in parts]),
        np.concatenate([p.m for p in parts]),
        np.concatenate([p.y for p in parts]),
        np.concatenate([p.base for p in parts]),
        [t for p in parts for t in p.texts],
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--test", action="store_true", help="also read CHOSEN on test, once")
    args = parser.parse_args()
    tags = read_tags()
    embedder = MiniLMEmbedder()
    encoder = QueryEncoder(embedder, cache_size=1_000_000)
    questions = question_vectors(embedder, list(QUESTION_FILES))
    labelled = json.loads((DATA / PERSONA_SETS["labelled"]).read_text())["splits"]
    halves = [
        queries(cases, rows, question_signals(cases, questions, encoder), encoder)
        for cases, rows in dev_fold_readings(embedder, encoder, labelled["dev"], tags)
    ]
    sets = {
        label: queries(cases, rows, question_signals(cases, questions, encoder), encoder)
        for label, cases, rows in test_readings(embedder, encoder, labelled, tags, test=args.test)
    }
    shared = set.intersection(*({t for ts in h.texts for t in ts} for h in halves))
    print(
        f"dev halves: {len(halves[0].y)} and {len(halves[1].y)} queries, {len(shared)}"
        " memory texts in both"
    )
    dev = join(halves)
    uv = fit(dev, everything(dev))  # read on the hand-written set and, with --test, on test
    read_folds(halves, sets["hand-written"], uv)
    read_unseen(halves)
    if args.test:
        print(f"\n## test, read once: fitted on all of dev, weight {CHOSEN:g}, recall@5")
        for label, data in sets.items():
            before = recall_at(data.base, data.y, everything(data), 5)
            after = recall_at(data.base + CHOSEN * learned(data, uv), data.y, everything(data), 5)
            diff = after - before
            print(
                f"{label} ({len(diff)}): {before.mean():.4f} -> {after.mean():.4f}"
                f" ({int((diff > 0).sum())} better, {int((diff < 0).sum())} worse)"
            )


if __name__ == "__main__":
    main()
