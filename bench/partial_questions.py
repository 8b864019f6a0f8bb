"""Issue 10, round 11: what the questions' gain does to pools where only some memories
have questions yet.

The questions are written by a background pass, oldest memories first, up to a budget
per run, so a real pool is often mixed: its old memories carry questions, its new ones do
not yet. Round 10 shipped a rule for them without measuring it (a memory without
questions gains 0 and is left out of the pool's mean). The worry: with few memories
asked, those few can only gain, and jump over better memories that were not asked. This
script gives each pool's memories questions for a fraction ``f`` of them only (chosen at
random per pool, several seeds, or the oldest first: the sets' list order, which is the
order ``retrieval_quality.py`` writes them in) and reads recall@5 with each rule in
``RULES`` for the memories without questions, on round 9's protocol (``doc2query.py``:
the 2-fold dev split and the hand-written set).

    .venv/bin/python bench/partial_questions.py measure            # dev + hand-written
    .venv/bin/python bench/partial_questions.py measure --test RULE  # test, once, f=0.5, 1

The rule to ship is fixed before reading (``pick``): the best mean dev recall@5 over
f in 0.25, 0.5, 0.75 (random choices, mean over the seeds) among the rules that are never
below f=0 (no questions at all) on dev or the hand-written set, at any f, random or oldest
first. The test split is read only with that rule, and only if it is not round 10's.
"""

from __future__ import annotations

import argparse
import json
import zlib
from collections.abc import Callable

import numpy as np
from doc2query import Signals, question_signals, question_vectors
from retrieval_quality import DATA, PERSONA_SETS, Case
from topic_tags import CHOSEN as TOPICS
from topic_tags import Row, dev_fold_readings, read_tags, recall, test_readings, with_topics

from memoryd.embedding.minilm import MiniLMEmbedder
from memoryd.rerank import QueryEncoder

FRACTIONS = (0.0, 0.25, 0.5, 0.75, 1.0)
SEEDS = (0, 1, 2, 3, 4)
OLDEST = "oldest"


def above_mean(q: np.ndarray, has: np.ndarray) -> np.ndarray:
    """The shipped arithmetic: each asked memory's q above the asked memories' mean."""
    gain = np.zeros(len(q))
    if has.any():
        gain[has] = np.maximum(q[has] - q[has].mean(), 0.0)
    return gain


def stand_in(q: np.ndarray, own: np.ndarray, has: np.ndarray, offset: bool) -> np.ndarray:
    """q for the asked memories, their own cosine with the message for the others;
    with ``offset``, that cosine moved by the asked memories' mean q - own (the two
    cosines do not lie on the same scale)."""
    shift = float((q[has] - own[has]).mean()) if offset and has.any() else 0.0
    return np.where(has, q, own + shift)


# A rule: the gain per memory from q (best question cosine, valid where ``has``), the
# memories' own cosine with the focused message, and which memories have questions.
Rule = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]
RULES: dict[str, Rule] = {
    "(i) round 10: left out, gain 0": lambda q, own, has: above_mean(q, has),
    # the unasked given the pool's mean as their q: the same mean, and a gain of 0
    "(ii) unasked q = asked mean": lambda q, own, has: np.maximum(
        np.where(has, q, q[has].mean() if has.any() else 0.0)
        - np.where(has, q, q[has].mean() if has.any() else 0.0).mean(),
        0.0,
    ),
    "(iii) own cosine stands in": lambda q, own, has: (
        above_mean(stand_in(q, own, has, False), np.ones(len(q), bool))
        if has.any()
        else np.zeros(len(q))
    ),
    "(iii-b) stand-in in the mean only": lambda q, own, has: np.where(
        has,
        np.maximum(stand_in(q, own, has, False) - stand_in(q, own, has, False).mean(), 0.0),
        0.0,
    ),
    "(iii-c) own cosine + offset stands in": lambda q, own, has: (
        above_mean(stand_in(q, own, has, True), np.ones(len(q), bool))
        if has.any()
        else np.zeros(len(q))
    ),
    "(iv) x fraction asked": lambda q, own, has: has.mean() * above_mean(q, has),
    "(iv-b) x fraction asked squared": lambda q, own, has: has.mean() ** 2 * above_mean(q, has),
    "(v) none below half asked": lambda q, own, has: (
        above_mean(q, has) if has.mean() >= 0.5 else np.zeros(len(q))
    ),
    "(v-b) none below 3/4 asked": lambda q, own, has: (
        above_mean(q, has) if has.mean() >= 0.75 else np.zeros(len(q))
    ),
    "(v-c) none unless all asked": lambda q, own, has: (
        above_mean(q, has) if has.all() else np.zeros(len(q))
    ),
}
ROUND10 = "(i) round 10: left out, gain 0"

Reading = tuple[list[Row], list[Signals | None]]


def asked(pool: list[str], f: float, choice: int | str) -> np.ndarray:
    """Which of the pool's memories have questions: round(f x size) of them, the first in
    list order (``OLDEST``) or at random, the same for every query of the pool."""
    n = round(f * len(pool))
    has = np.zeros(len(pool), bool)
    if choice == OLDEST:
        has[:n] = True
    else:
        rng = np.random.default_rng([int(choice), zlib.crc32("\n".join(pool).encode())])
        has[rng.choice(len(pool), n, replace=False)] = True
    return has


def mean_recall(reading: Reading, rule: str, f: float, choice: int | str) -> float:
    out = []
    for row, signal in zip(*reading, strict=True):
        case: Case = row[0]
        score = with_topics(row, *TOPICS)
        if signal is not None:
            has = asked([m.content for m in case.pool], f, choice)
            score = score + RULES[rule](signal.focused, signal.own, has)
        out.append(recall(score, case))
    return float(np.mean(out))


def table(dev: Reading, hand: Reading) -> dict[tuple[str, str, str, float], float]:
    """recall@5 per (set, rule, choice, f), choice "random" the mean over ``SEEDS``."""
    cells: dict[tuple[str, str, str, float], float] = {}
    for rule in RULES:
        for label, reading in (("dev", dev), ("hand", hand)):
            for f in FRACTIONS:
                seeds = [mean_recall(reading, rule, f, s) for s in SEEDS]
                cells[label, rule, "random", f] = float(np.mean(seeds))
                cells[label, rule, "random min", f] = float(np.min(seeds))
                cells[label, rule, OLDEST, f] = mean_recall(reading, rule, f, OLDEST)
        row = " | ".join(
            f"{cells['dev', rule, c, f]:.4f} / {cells['hand', rule, c, f]:.4f}"
            for c in ("random", OLDEST)
            for f in FRACTIONS[1:]
        )
        print(f"| {rule} | {row} |", flush=True)
    return cells


def pick(cells: dict[tuple[str, str, str, float], float]) -> str:
    """The rule fixed before reading: never below f=0 on dev or hand-written (random,
    mean over the seeds, and oldest first, every f), then the best mean dev recall@5 over
    f = 0.25, 0.5, 0.75 (random)."""
    kept = []
    for rule in RULES:
        floors = {s: cells[s, rule, "random", 0.0] for s in ("dev", "hand")}
        if all(
            cells[s, rule, c, f] >= floors[s] - 1e-12
            for s in floors
            for c in ("random", OLDEST)
            for f in FRACTIONS[1:]
        ):
            kept.append(rule)
    print(f"never below f=0: {kept}")
    best = max(kept, key=lambda r: np.mean([cells["dev", r, "random", f] for f in FRACTIONS[1:4]]))
    print(f"picked: {best}" + (" (round 10's rule)" if best == ROUND10 else ""))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=("measure",))
    parser.add_argument("--test", choices=tuple(RULES), help="read the test split with RULE")
    args = parser.parse_args()
    tags = read_tags()
    embedder = MiniLMEmbedder()
    encoder = QueryEncoder(embedder, cache_size=1_000_000)
    questions = question_vectors(embedder)
    labelled = json.loads((DATA / PERSONA_SETS["labelled"]).read_text())["splits"]
    if args.test:
        print(f"## test, read once with {args.test} and round 10's rule; recall@5")
        for label, cases, rows in test_readings(embedder, encoder, labelled, tags):
            reading = (rows, question_signals(cases, questions, encoder))
            for f in (0.5, 1.0):
                for rule in (ROUND10, args.test):
                    seeds = [mean_recall(reading, rule, f, s) for s in SEEDS]
                    old = mean_recall(reading, rule, f, OLDEST)
                    print(
                        f"{label}, f={f:g}, {rule}: random {np.mean(seeds):.4f}"
                        f" (min {min(seeds):.4f}), oldest {old:.4f}",
                        flush=True,
                    )
            print(f"{label}, f=0: {mean_recall(reading, ROUND10, 0.0, OLDEST):.4f}")
        return
    rows: list[Row] = []
    signals: list[Signals | None] = []
    for cases, fold in dev_fold_readings(embedder, encoder, labelled["dev"], tags):
        rows += fold
        signals += question_signals(cases, questions, encoder)
    ((_, cases, hand),) = test_readings(embedder, encoder, labelled, tags, test=False)
    hand_reading = (hand, question_signals(cases, questions, encoder))
    print(
        f"## dev, 2 folds: {len(rows)} queries; hand-written {len(hand)};"
        f" seeds {SEEDS} (random) and the oldest first; recall@5 dev / hand-written"
    )
    print(
        f"f=0 (no questions): dev {mean_recall((rows, signals), ROUND10, 0.0, OLDEST):.4f},"
        f" hand-written {mean_recall(hand_reading, ROUND10, 0.0, OLDEST):.4f}"
    )
    heads = [f"{c} f={f:g}" for c in ("random", OLDEST) for f in FRACTIONS[1:]]
    print("| rule | " + " | ".join(heads) + " |")
    cells = table((rows, signals), hand_reading)
    print("\nlowest seed, random choice (dev / hand-written):")
    for rule in RULES:
        print(
            f"| {rule} | "
            + " | ".join(
                f"{cells['dev', rule, 'random min', f]:.4f}"
                f" / {cells['hand', rule, 'random min', f]:.4f}"
                for f in FRACTIONS[1:]
            )
            + " |"
        )
    pick(cells)


if __name__ == "__main__":
    main()
