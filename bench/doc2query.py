"""Issue 10, rounds 8 and 9: do questions written by the bundled LLM at write time help
the reranker, and in what form?

Round 6 started this idea (doc2query: an LLM writes the questions each memory answers, and
a turn's message is compared with them as well as with the memory) and stopped it
unmeasured. Round 8 measured it: each memory gets 3 short questions from the bundled
model, held by the JSON schema to one question per string; they are embedded with the same
MiniLM, and a memory gains ``weight`` x the best cosine between the message and its
questions (``r8 max``) or between the message and their mean vector (``r8 mean``), on top
of the shipped default with topics (round 7), on every turn or where the answer bank
fires. That gained on the persona set and lost on the hand-written one. Round 9 measures
forms meant to keep the one without the other, with the same questions (``FORMS``): the
gain scaled by how far the message alone finds the pool against its history, the
questions read against the history too, only the part of a question cosine above the
pool's mean, and the question cosine only where it exceeds the memory's own. Round 13
measures another prompt (``--prompt work``: work facts among the examples, requests as
well as questions) written to its own file and read with ``--questions``; since round 14
the product asks both (``memoryd.extraction.questions.PROMPTS``, where both prompts live)
and keeps the union of their questions.

    .venv/bin/python bench/doc2query.py generate   # hand-written first, then dev pools, test
    .venv/bin/python bench/doc2query.py generate --prompt work --questions /tmp/q-work.jsonl
    .venv/bin/python bench/doc2query.py measure --sets dev    # the sweep (tuning)
    .venv/bin/python bench/doc2query.py measure --sets test   # the chosen cell, once
    .venv/bin/python bench/doc2query.py measure --sets cost   # its cost per turn

The prompts measured are the ones shipped (``memoryd.extraction.questions``, which this
script imports: ``shipped`` is round 10's chat prompt, ``work`` round 13's; the product
asks both and keeps the union). ``generate`` writes ``data/memory-questions.jsonl``,
resumable; ``measure`` reads it. Dev is read with ``build_answer_bank.py --folds 2``'s protocol, as
in ``topic_tags.py``, beside the hand-written set (no held-out split: it is the
constraint, no loss against the default); test is read with ``CHOSEN`` only. (Round 8's
test readings came from this script's round-8 version, which read its two chosen cells
there.)
"""

from __future__ import annotations

import json
import timeit
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from retrieval_quality import DATA, KINDS, PERSONA_SETS, Case, read_questions
from topic_tags import CHOSEN as TOPICS
from topic_tags import (
    Row,
    ask_each,
    dev_fold_readings,
    generate_or_measure,
    read_tags,
    recall,
    test_readings,
    with_topics,
)

from memoryd.embedding.minilm import MiniLMEmbedder
from memoryd.extraction.questions import MAX_TOKENS, SCHEMA, messages, work_messages
from memoryd.llm.base import Message
from memoryd.rerank import QueryEncoder
from memoryd.rerank.embedding import question_focus

QUESTIONS_FILE = DATA / "memory-questions.jsonl"

# One prompt per file; the product asks both (``questions.PROMPTS``) and keeps the union.
PROMPTS: dict[str, Callable[[str], list[Message]]] = {"shipped": messages, "work": work_messages}


def memories_in_order() -> list[str]:
    """The hand-written set's memories first (the set a prompt for work facts is for), then
    the dev pools' (tuning can start while test's are written), then test's."""
    labelled = json.loads((DATA / PERSONA_SETS["labelled"]).read_text())["splits"]
    hand = json.loads((DATA / "retrieval.json").read_text())["pools"]
    texts = [t for pool in hand for t in pool["memories"]]
    texts += [t for split in ("dev", "test") for pool in labelled[split] for t in pool["memories"]]
    return list(dict.fromkeys(texts))


# --- measure -----------------------------------------------------------------------------
def question_vectors(embedder: MiniLMEmbedder, sources: list[Path]) -> dict[str, np.ndarray]:
    """Each memory's questions as a matrix (one row per question), keyed by the memory's
    stored text; with several files, joined as the pass stores them (round 14)."""
    asked = read_questions(sources)
    flat = [q for questions in asked.values() for q in questions]
    vectors = np.asarray(embedder.embed(flat), np.float32)
    out, at = {}, 0
    for text, questions in asked.items():
        out[text] = vectors[at : at + len(questions)]
        at += len(questions)
    return out


@dataclass(frozen=True)
class Signals:
    """One query's question scores per memory of its pool, and the turn's share."""

    asked: np.ndarray  # best question cosine with the whole message (round 8)
    asked_mean: np.ndarray  # cosine of the whole message with the questions' mean (round 8)
    focused: np.ndarray  # best question cosine with the message as the reranker embeds it
    with_history: np.ndarray  # ... or with any history part, whichever is higher
    own: np.ndarray  # the memory's own cosine with the message as the reranker embeds it
    # How far the message alone finds the pool: its best cosine with a memory over the best
    # of any history part's, 1 when the message's is the higher or there is no history.
    share: float


def question_signals(
    cases: list[Case], questions: dict[str, np.ndarray], encoder: QueryEncoder
) -> list[Signals | None]:
    """Per query, its Signals; None where a memory of its pool has no questions."""
    out: list[Signals | None] = []
    for case in cases:
        if any(m.content not in questions for m in case.pool):
            out.append(None)
            continue
        focus = question_focus(case.query.message)
        texts = [case.query.message, focus, *case.query.parts[1:]]
        whole, message, *history = np.asarray(encoder.vectors(texts), np.float32)
        asked = [questions[m.content] for m in case.pool]
        means = [q.mean(axis=0) for q in asked]
        memories = np.stack([m.embedding for m in case.pool if m.embedding is not None])
        focused = np.array([(q @ message).max() for q in asked])
        with_history = focused
        own = memories @ message
        share = 1.0
        if history:
            parts = np.stack(history)
            with_history = np.maximum(focused, [(q @ parts.T).max() for q in asked])
            best = float((memories @ parts.T).max())
            share = 1.0 if best <= own.max() else max(float(own.max()), 0.0) / best
        out.append(
            Signals(
                asked=np.array([(q @ whole).max() for q in asked]),
                asked_mean=np.array([(m / np.linalg.norm(m)) @ whole for m in means]),
                focused=focused,
                with_history=with_history,
                own=own,
                share=share,
            )
        )
    return out


def above(scores: np.ndarray, sds: float) -> np.ndarray:
    """Each score's excess over the pool's mean plus ``sds`` standard deviations, else 0:
    the questions only reorder where they single memories out."""
    excess: np.ndarray = np.maximum(scores - scores.mean() - sds * scores.std(), 0.0)
    return excess


def zscores(scores: np.ndarray) -> np.ndarray:
    """The scores as z-scores within the pool, times the dev pools' typical standard
    deviation of question cosines (0.15), so a weight means about what it means for the
    cosines themselves."""
    spread = float(scores.std())
    z: np.ndarray = (scores - scores.mean()) / spread if spread > 0 else scores * 0.0
    return 0.15 * z


# A memory gains weight x form(signals, the bank fires); None: no gain on this turn.
Form = Callable[[Signals, bool], np.ndarray | None]
FORMS: dict[str, Form] = {
    # round 8: the whole message, on every turn or where the bank fires
    "r8 max": lambda s, fired: s.asked,
    "r8 mean": lambda s, fired: s.asked_mean,
    "r8 max, bank fires": lambda s, fired: s.asked if fired else None,
    "r8 mean, bank fires": lambda s, fired: s.asked_mean if fired else None,
    # round 9: the message as the reranker embeds it (its question focus), every turn
    "max": lambda s, fired: s.focused,
    "(b) max, history too": lambda s, fired: s.with_history,
    "(a) max x share": lambda s, fired: s.share * s.focused,
    "(c) z-score": lambda s, fired: zscores(s.focused),
    "(c) z-score above 0": lambda s, fired: np.maximum(zscores(s.focused), 0.0),
    "(c) above mean": lambda s, fired: above(s.focused, 0.0),
    "(c) above mean+.5sd": lambda s, fired: above(s.focused, 0.5),
    "(c) above mean+1sd": lambda s, fired: above(s.focused, 1.0),
    "(a+c) above mean x share": lambda s, fired: s.share * above(s.focused, 0.0),
    "(d) over own cosine": lambda s, fired: np.maximum(s.focused - s.own, 0.0),
}
WEIGHTS = (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0)
ROUND8 = ("r8 max", 1.0)  # round 8's best dev cell, read on test there
# Round 9's cell: the best dev reading among the cells that leave the hand-written set at
# least where the default has it (BENCHMARKS.md, round 9); test is read with it only.
CHOSEN = ("(c) above mean", 1.0)

Reading = tuple[list[Row], list[Signals | None]]


def recalls(reading: Reading, cell: tuple[str, float] | None) -> np.ndarray:
    """recall@5 per query of the default with topics, plus the cell's question gain."""
    rows, signals = reading
    out = []
    for row, signal in zip(rows, signals, strict=True):
        score = with_topics(row, *TOPICS)
        if cell is not None and signal is not None:
            gain = FORMS[cell[0]](signal, bool(row[2]))
            if gain is not None:
                score = score + cell[1] * gain
        out.append(recall(score, row[0]))
    return np.array(out)


def compare(label: str, reading: Reading, cell: tuple[str, float]) -> None:
    """The cell against the default with topics: recall@5 by kind and per query."""
    before, after = recalls(reading, None), recalls(reading, cell)
    kinds = np.array([row[0].kind for row in reading[0]])
    by_kind = ", ".join(
        f"{k} ({int((kinds == k).sum())}) {before[kinds == k].mean():.4f} ->"
        f" {after[kinds == k].mean():.4f}"
        for k in KINDS
        if (kinds == k).any()
    )
    diff = after - before
    rng = np.random.default_rng(0)
    boots = [diff[rng.integers(0, len(diff), len(diff))].mean() for _ in range(2000)]
    print(
        f"{label}: {cell[0]} / {cell[1]:g}: recall@5 {before.mean():.4f} -> {after.mean():.4f},"
        f" per query {diff.mean():+.4f} ({int((diff > 0).sum())} better,"
        f" {int((diff < 0).sum())} worse; 95% CI {np.percentile(boots, 2.5):+.4f}"
        f"..{np.percentile(boots, 97.5):+.4f}); by kind {by_kind}",
        flush=True,
    )


def sweep(dev: Reading, hand: Reading) -> None:
    """Every form and weight on the dev folds and the hand-written set; the chosen cell."""
    dev_base, hand_base = recalls(dev, None).mean(), recalls(hand, None).mean()
    print(
        f"\n## labelled dev, 2 folds (tuning): {len(dev[0])} queries,"
        f" {sum(s is not None for s in dev[1])} with every memory's questions, the bank"
        f" fires on {sum(bool(r[2]) for r in dev[0])}; hand-written: {len(hand[0])} queries"
    )
    print(f"default with topics: dev {dev_base:.4f}, hand-written {hand_base:.4f}")
    print("recall@5, dev / hand-written")
    print(f"{'form':<26}" + "".join(f"{f'weight {w:g}':>17}" for w in WEIGHTS))
    table = {}
    for form in FORMS:
        for weight in WEIGHTS:
            table[form, weight] = recalls(dev, (form, weight)).mean(), recalls(hand, (form, weight))
        print(
            f"{form:<26}"
            + "".join(
                f"{table[form, w][0]:>10.4f} / {table[form, w][1].mean():.3f}" for w in WEIGHTS
            ),
            flush=True,
        )
    kept = [c for c in table if table[c][1].mean() >= hand_base]
    best = max(kept, key=lambda c: table[c][0])
    print(f"best dev cell with the hand-written set not below the default: {best}")
    if best != CHOSEN:
        print(f"(CHOSEN is {CHOSEN}: update it before reading test)")
    print()
    for cell in (ROUND8, CHOSEN):
        compare("dev", dev, cell)
        compare("hand-written", hand, cell)


def measure(sets: tuple[str, ...], source: list[Path]) -> None:
    tags = read_tags()
    embedder = MiniLMEmbedder()
    encoder = QueryEncoder(embedder, cache_size=1_000_000)
    questions = question_vectors(embedder, source)
    labelled = json.loads((DATA / PERSONA_SETS["labelled"]).read_text())["splits"]
    if "dev" in sets:
        rows: list[Row] = []
        signals: list[Signals | None] = []
        for cases, fold in dev_fold_readings(embedder, encoder, labelled["dev"], tags):
            rows += fold
            signals += question_signals(cases, questions, encoder)
        ((_, cases, hand),) = test_readings(embedder, encoder, labelled, tags, test=False)
        sweep((rows, signals), (hand, question_signals(cases, questions, encoder)))
    if "test" in sets:
        print(f"\n## test, read once with the chosen cell {CHOSEN}")
        for label, cases, set_rows in test_readings(embedder, encoder, labelled, tags):
            compare(label, (set_rows, question_signals(cases, questions, encoder)), CHOSEN)
    if "cost" in sets:
        cost(embedder)


def cost(embedder: MiniLMEmbedder, calls: int = 20_000) -> None:
    """What the chosen form adds to a turn's scoring: a pool of 20 memories' 60 question
    vectors against the message vector the reranker has already embedded."""
    questions = np.asarray(embedder.embed([f"What is item {i}?" for i in range(60)]), np.float32)
    (message,) = np.asarray(embedder.embed(["What do you do for fun?"]), np.float32)
    scores = np.zeros(20, np.float32)
    weight = CHOSEN[1]

    def turn() -> None:
        scores + weight * above((questions @ message).reshape(20, 3).max(axis=1), 0.0)

    spent = timeit.repeat(turn, number=calls, repeat=5)
    print(f"\n## cost: {CHOSEN[0]} per turn, pool of 20: {min(spent) / calls * 1e6:.1f} us")


def main() -> None:
    parser = generate_or_measure(__doc__)
    parser.add_argument(
        "--sets", default="dev", help="measure: dev, test and/or cost, comma-separated"
    )
    parser.add_argument(
        "--prompt", choices=sorted(PROMPTS), default="shipped", help="generate: the prompt"
    )
    parser.add_argument(
        "--questions",
        default=str(QUESTIONS_FILE),
        help="the questions file generate writes; measure reads it, or several,"
        " comma-separated, joined per memory (round 14)",
    )
    args = parser.parse_args()
    if args.step == "generate":
        ask_each(
            memories_in_order(),
            Path(args.questions),
            PROMPTS[args.prompt],
            SCHEMA,
            MAX_TOKENS,
            "questions",
            args.parallel,
            args.models_dir,
        )
    else:
        measure(tuple(args.sets.split(",")), [Path(p) for p in args.questions.split(",")])


if __name__ == "__main__":
    main()
