"""Issue 10, round 8: do questions written by the bundled LLM at write time help the reranker?

Round 6 started this idea (doc2query: an LLM writes the questions each memory answers, and
a turn's message is compared with them as well as with the memory) and stopped it
unmeasured, because on a loaded machine it would have taken hours. This measures it on a
quiet one. Each memory gets 3 short questions from the bundled model, held by the JSON
schema to one question per string; they are embedded with the same MiniLM, and a memory
gains ``weight`` x the best cosine between the message and its questions (``max``) or
between the message and their mean vector (``mean``), on top of the shipped default
with topics (round 7).

    .venv/bin/python bench/doc2query.py generate   # dev pools first, then test, hand-written
    .venv/bin/python bench/doc2query.py measure    # dev folds (tuning), then test

``generate`` writes ``data/memory-questions.jsonl``, resumable; ``measure`` reads it and
reads test only with the form and weight chosen on dev. Dev is read with
``build_answer_bank.py --folds 2``'s protocol, as in ``topic_tags.py``.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from retrieval_quality import (
    DATA,
    PERSONA_SETS,
    Case,
)
from topic_tags import (
    CHOSEN,
    ask_each,
    dev_fold_readings,
    generate_or_measure,
    read_tags,
    recall,
    test_readings,
    with_topics,
)

from memoryd.domain.rules import normalize_content
from memoryd.embedding.minilm import MiniLMEmbedder
from memoryd.llm.base import Message
from memoryd.rerank import QueryEncoder

QUESTIONS_FILE = DATA / "memory-questions.jsonl"
SYSTEM = (
    "A person told a chat partner a fact about themself. Write 3 different short "
    "questions the chat partner could ask that this fact answers, as people ask them in "
    "a chat. Use other words than the fact where you can. Answer in JSON."
)
SHOTS: list[tuple[str, list[str]]] = [
    (
        "I like to dance at the club.",
        [
            "What do you do for fun?",
            "Where do you go on weekends?",
            "Do you like going out at night?",
        ],
    ),
    (
        "I work in the healthcare industry.",
        ["What do you do for a living?", "Where do you work?", "What field is your job in?"],
    ),
    (
        "My wife left me and took my children.",
        ["Are you married?", "Do you have kids?", "How is your family life?"],
    ),
]
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "questions": {
            "type": "array",
            "items": {"type": "string", "pattern": r"^[A-Z][^?\"\\\n]{4,80}\?$"},
            "minItems": 3,
            "maxItems": 3,
        }
    },
    "required": ["questions"],
}
MAX_TOKENS = 90
FORMS = ("max", "mean")
WEIGHTS = (0.25, 0.5, 1.0, 1.5, 2.0, 3.0)
# Chosen on dev folds (BENCHMARKS.md, round 8); test is read with this cell only.
# "always": every turn; "bank fires": only on turns where the answer bank fires (as topics).
GATES = ("always", "bank fires")
# The best dev cell, and the best dev cell of the gate that leaves the hand-written set's
# turns alone (the bank fires on none of them; "always" costs that set 0.014).
CHOSEN_QUESTIONS: list[tuple[str, str, float]] = [
    ("always", "max", 1.0),
    ("bank fires", "max", 1.0),
]


def messages(fact: str) -> list[Message]:
    shots: list[Message] = []
    for example, questions in SHOTS:
        shots += [
            {"role": "user", "content": f"Fact: {example}"},
            {"role": "assistant", "content": json.dumps({"questions": questions})},
        ]
    return [
        {"role": "system", "content": SYSTEM},
        *shots,
        {"role": "user", "content": f"Fact: {fact}"},
    ]


def memories_in_order() -> list[str]:
    """Dev pools' memories first (tuning can start while test's are written), then test's,
    then the hand-written set's."""
    labelled = json.loads((DATA / PERSONA_SETS["labelled"]).read_text())["splits"]
    texts = [t for split in ("dev", "test") for pool in labelled[split] for t in pool["memories"]]
    hand = json.loads((DATA / "retrieval.json").read_text())["pools"]
    return list(dict.fromkeys(texts + [t for pool in hand for t in pool["memories"]]))


# --- measure -----------------------------------------------------------------------------
def question_vectors(embedder: MiniLMEmbedder) -> dict[str, np.ndarray]:
    """Each memory's questions as a 3 x 384 matrix, keyed by the memory's stored text."""
    rows = [json.loads(line) for line in QUESTIONS_FILE.open()]
    flat = [q for row in rows for q in row["questions"]]
    vectors = np.asarray(embedder.embed(flat), np.float32)
    out, at = {}, 0
    for row in rows:
        n = len(row["questions"])
        out[normalize_content(row["fact"])] = vectors[at : at + n]
        at += n
    return out


def question_scores(
    cases: list[Case], questions: dict[str, np.ndarray], encoder: QueryEncoder
) -> list[dict[str, np.ndarray] | None]:
    """Per query, each form's score per memory; None where a memory has no questions."""
    out: list[dict[str, np.ndarray] | None] = []
    for case in cases:
        if any(m.content not in questions for m in case.pool):
            out.append(None)
            continue
        (vector,) = encoder.vectors([case.query.message])
        v = np.asarray(vector, np.float32)
        sims = [questions[m.content] @ v for m in case.pool]
        means = [q.mean(axis=0) for q in (questions[m.content] for m in case.pool)]
        out.append(
            {
                "max": np.array([s.max() for s in sims]),
                "mean": np.array([(m / np.linalg.norm(m)) @ v for m in means]),
            }
        )
    return out


def report(
    label: str,
    rows: list[Any],
    extra: list[dict[str, np.ndarray] | None],
    grid: bool = True,
) -> None:
    """recall@5 per gate, form and weight (grid) or of the chosen cell only, with the chosen
    cell's per-query difference from the default with topics."""
    base = [with_topics(r, *CHOSEN) for r in rows]
    fired = [bool(r[2]) for r in rows]
    covered = sum(e is not None for e in extra)
    print(
        f"\n## {label}: {len(rows)} queries, {covered} with every memory's questions,"
        f" the bank fires on {sum(fired)}"
    )
    before = np.array([recall(b, r[0]) for b, r in zip(base, rows, strict=True)])
    print(f"default with topics: recall@5 {before.mean():.4f}")

    def recalls(gate: str, form: str, w: float) -> np.ndarray:
        return np.array(
            [
                recall(b + w * e[form] if e is not None and (f or gate == "always") else b, r[0])
                for b, e, f, r in zip(base, extra, fired, rows, strict=True)
            ]
        )

    cells = [(g, f, w) for g in GATES for f in FORMS for w in WEIGHTS] if grid else CHOSEN_QUESTIONS
    print(f"{'gate':<12}{'form':<6}" + "".join(f"{f'weight {w}':>13}" for w in WEIGHTS))
    for gate in GATES:
        for form in FORMS:
            row = [
                f"{recalls(gate, form, w).mean():>13.4f}" if (gate, form, w) in cells else " " * 13
                for w in WEIGHTS
            ]
            if any(c.strip() for c in row):
                print(f"{gate:<12}{form:<6}" + "".join(row), flush=True)
    rng = np.random.default_rng(0)
    for cell in CHOSEN_QUESTIONS:
        diff = recalls(*cell) - before
        boots = [diff[rng.integers(0, len(diff), len(diff))].mean() for _ in range(2000)]
        print(
            f"{' / '.join(map(str, cell))} minus the default with topics, per query:"
            f" {diff.mean():+.4f} ({int((diff > 0).sum())} better,"
            f" {int((diff < 0).sum())} worse; 95% CI {np.percentile(boots, 2.5):+.4f}"
            f"..{np.percentile(boots, 97.5):+.4f})",
            flush=True,
        )


def measure(sets: tuple[str, ...]) -> None:
    tags = read_tags()
    embedder = MiniLMEmbedder()
    encoder = QueryEncoder(embedder, cache_size=1_000_000)
    questions = question_vectors(embedder)
    labelled = json.loads((DATA / PERSONA_SETS["labelled"]).read_text())["splits"]
    if "dev" in sets:
        rows: list[Any] = []
        extra: list[dict[str, np.ndarray] | None] = []
        for cases, fold in dev_fold_readings(embedder, encoder, labelled["dev"], tags):
            rows += fold
            extra += question_scores(cases, questions, encoder)
        report("labelled dev, 2 folds (tuning)", rows, extra)
    if "test" in sets:
        for label, cases, set_rows in test_readings(embedder, encoder, labelled, tags):
            report(label, set_rows, question_scores(cases, questions, encoder), grid=False)


def main() -> None:
    parser = generate_or_measure(__doc__)
    parser.add_argument("--sets", default="dev,test", help="measure: dev, test or both")
    args = parser.parse_args()
    if args.step == "generate":
        ask_each(
            memories_in_order(),
            QUESTIONS_FILE,
            messages,
            SCHEMA,
            MAX_TOKENS,
            "questions",
            args.parallel,
            args.models_dir,
        )
    else:
        measure(tuple(args.sets.split(",")))


if __name__ == "__main__":
    main()
