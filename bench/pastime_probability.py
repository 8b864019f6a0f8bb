"""Issue 10, round 21: the bundled model's probability that a memory is a pastime, on turns
that ask what someone does for fun.

Round 16 (``free_time.py``) asked the bundled Qwen2.5-Coder-1.5B, per memory, "does this
fact say what the person does or enjoys in their free time?" and used its greedy yes/no; a
boolean cannot order the memories it says yes to. This script asks the same prompt and
reads llama.cpp's token log-probabilities at the answer's token: P(true) / (P(true) +
P(false)) (``generate``, one request at a time, greedy, no grammar; answers in
``data/memory-free-time-probability.jsonl``). ``measure`` prints how well that orders the
dev memories against the readers' majority (AUC, beside the yes/no's), then reads the
shipped default on round 9's dev folds where the focused message is like one of
``FUN_QUESTIONS`` (MiniLM cosine >= gate): each memory gains ``weight`` x its probability
less the pool's mean, scaled to the pool's spread of the shipped score. Rule fixed before
the reading: the best dev cell that gains at least 0.003 and loses nothing on the
hand-written set; ``--test`` reads ``CHOSEN`` once on the labelled test split.

    PYTHONPATH=src .venv/bin/python bench/pastime_probability.py generate  # ~12 min, resumable
    PYTHONPATH=src .venv/bin/python bench/pastime_probability.py measure   # dev (~2 min)
    PYTHONPATH=src .venv/bin/python bench/pastime_probability.py measure --test

Round 22 reads the same way a yes/no written per memory by a stronger judge than the
bundled model (``--answers data/memory-free-time-judge.jsonl``: an LLM agent working for
this project, shown only the round-16 prompt and the memory texts), to tell whether the
question or the bundled model's answers limit round 21.
"""

from __future__ import annotations

import collections
import json
import math
import re
import time
from pathlib import Path
from typing import Any

import numpy as np
from doc2query import question_signals
from free_time import ANSWERS_FILE, memories, messages
from prf import PASSES, Turn, shipped_inputs, turns
from retrieval_quality import DATA
from topic_tags import dev_fold_readings, generate_or_measure, recall, test_readings

from memoryd.llm.local import QWEN_CODER_1_5B, model_path
from memoryd.rerank import QueryEncoder
from memoryd.rerank.embedding import question_focus

PROBABILITY_FILE = DATA / "memory-free-time-probability.jsonl"
FUN_QUESTIONS = (
    "What do you do for fun?",
    "What are your hobbies?",
    "What do you like to do in your free time?",
    "What do you like to do?",
)
FUN = re.compile(r"\bfun\b|free time|spare time|hobb|for a good time", re.IGNORECASE)
GATES = (0.6, 0.7, 0.8)
WEIGHTS = (0.1, 0.2, 0.3, 0.5, 1.0)
MIN_GAIN = 0.003
CHOSEN = (0.7, 0.5)  # (gate, weight): round 21's dev reading; test read once, not kept


def answer_probability(answer: dict[str, Any]) -> float | None:
    """P(true) among true and false at the first answer token that offers either."""
    for token in answer["choices"][0]["logprobs"]["content"]:
        mass: dict[str, float] = collections.defaultdict(float)
        for alternative in token["top_logprobs"]:
            mass[alternative["token"].strip()] += math.exp(alternative["logprob"])
        if "true" in mass or "false" in mass:
            yes, no = mass.get("true", 1e-12), mass.get("false", 1e-12)
            return yes / (yes + no)
    return None


def generate(models_dir: Path) -> None:
    import xllamacpp

    done = set()
    if PROBABILITY_FILE.exists():
        done = {json.loads(line)["fact"] for line in PROBABILITY_FILE.open()}
    todo = [m for m in memories() if m not in done]
    print(f"{len(todo)} memories to ask about", flush=True)
    params = xllamacpp.CommonParams()
    params.model.path = str(model_path(QWEN_CODER_1_5B, models_dir))
    params.n_ctx = 4096
    params.n_parallel = 1
    params.cpuparams.n_threads = 2
    params.cpuparams_batch.n_threads = 2
    params.sampling.temp = 0.0
    params.sampling.top_k = 1
    params.warmup = False
    params.verbosity = -1
    server = xllamacpp.Server(params)
    started = time.perf_counter()
    with PROBABILITY_FILE.open("a") as out:
        for count, fact in enumerate(todo, 1):
            answer = server.handle_chat_completions(
                {
                    "messages": messages(fact),
                    "max_tokens": 8,
                    "temperature": 0.0,
                    "logprobs": True,
                    "top_logprobs": 8,
                    "stream": False,
                }
            )
            text = answer["choices"][0]["message"]["content"]
            row = {"fact": fact, "p_free_time": answer_probability(answer), "text": text}
            out.write(json.dumps(row) + "\n")
            out.flush()
            if count % 50 == 0:
                print(f"{count}: {(time.perf_counter() - started) / count:.2f} s each", flush=True)


def read_probabilities(path: Path = PROBABILITY_FILE) -> dict[str, float]:
    """Per memory, ``p_free_time`` (a probability) or ``free_time`` (a yes/no, as 1 or 0)."""
    out = {}
    for line in path.open():
        row = json.loads(line)
        value = row["p_free_time"] if "p_free_time" in row else row.get("free_time")
        if value is not None:
            out[row["fact"]] = float(value)
    return out


def auc(scores: list[float], truth: list[bool]) -> float:
    pos = [s for s, t in zip(scores, truth, strict=True) if t]
    neg = [s for s, t in zip(scores, truth, strict=True) if not t]
    return float(np.mean([(p > n) + 0.5 * (p == n) for p in pos for n in neg]))


def ordering(dev: list[Turn], probability: dict[str, float]) -> None:
    """AUC of the probability and of round 16's yes/no against the readers' majority, on
    the dev memories met in at least 5 fun-like queries."""
    seen: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    for turn in dev:
        if FUN.search(turn.case.message):
            for i, memory in enumerate(turn.case.pool):
                seen[memory.content][0] += i in turn.case.relevant
                seen[memory.content][1] += 1
    said = {json.loads(line)["fact"]: json.loads(line)["free_time"] for line in ANSWERS_FILE.open()}
    facts = [m for m, (_, met) in seen.items() if met >= 5 and m in probability and m in said]
    truth = [seen[m][0] / seen[m][1] > 0.5 for m in facts]
    print(
        f"AUC against the readers' majority ({len(facts)} dev memories met in >= 5 fun-like"
        f" queries): these answers {auc([probability[m] for m in facts], truth):.3f},"
        f" round 16's yes/no {auc([float(said[m]) for m in facts], truth):.3f}"
    )


class Reading:
    """Turns with their likeness to the fun questions and their pools' probabilities."""

    def __init__(
        self, data: list[Turn], encoder: QueryEncoder, probability: dict[str, float]
    ) -> None:
        prototypes = np.stack(encoder.vectors(list(FUN_QUESTIONS)))
        self.data = data
        self.likeness = [
            float((prototypes @ encoder.vectors([question_focus(t.case.message)])[0]).max())
            for t in data
        ]
        self.probabilities = [
            None
            if any(m.content not in probability for m in t.case.pool)
            else np.array([probability[m.content] for m in t.case.pool])
            for t in data
        ]

    def recalls(self, cell: tuple[float, float] | None) -> np.ndarray:
        out = []
        for turn, like, prob in zip(self.data, self.likeness, self.probabilities, strict=True):
            score = turn.score
            if cell is not None and prob is not None and like >= cell[0] and prob.std() > 0:
                score = score + cell[1] * score.std() * (prob - prob.mean()) / prob.std()
            out.append(recall(score, turn.case))
        return np.array(out)


def compare(label: str, reading: Reading, cell: tuple[float, float]) -> None:
    before, after = reading.recalls(None), reading.recalls(cell)
    diff = after - before
    fired = sum(like >= cell[0] for like in reading.likeness)
    print(
        f"{label} ({len(diff)}): {before.mean():.4f} -> {after.mean():.4f}"
        f" ({int((diff > 0).sum())} better, {int((diff < 0).sum())} worse; gate fired {fired})",
        flush=True,
    )


def measure(test: bool, answers: Path, passes: str) -> None:
    tags, embedder, encoder, questions, labelled = shipped_inputs(passes)
    probability = read_probabilities(answers)
    if test:
        print(f"## test, read once: gate {CHOSEN[0]}, weight {CHOSEN[1]}")
        for label, cases, rows in test_readings(embedder, encoder, labelled, tags):
            data = turns(rows, question_signals(cases, questions, encoder), tags, questions)
            compare(label, Reading(data, encoder, probability), CHOSEN)
        return
    dev_turns: list[Turn] = []
    for cases, fold in dev_fold_readings(embedder, encoder, labelled["dev"], tags):
        dev_turns += turns(fold, question_signals(cases, questions, encoder), tags, questions)
    ordering(dev_turns, probability)
    ((_, cases, rows),) = test_readings(embedder, encoder, labelled, tags, test=False)
    hand_turns = turns(rows, question_signals(cases, questions, encoder), tags, questions)
    dev, hand = Reading(dev_turns, encoder, probability), Reading(hand_turns, encoder, probability)
    base_dev, base_hand = dev.recalls(None).mean(), hand.recalls(None).mean()
    print(f"shipped default: dev {base_dev:.4f}, hand-written {base_hand:.4f}")
    table = {}
    for gate in GATES:
        cells = []
        for weight in WEIGHTS:
            table[(gate, weight)] = (
                dev.recalls((gate, weight)).mean(),
                hand.recalls((gate, weight)).mean(),
            )
            cells.append(f"{weight:g}: {table[(gate, weight)][0]:.4f}")
        print(f"gate {gate:g}: " + "  ".join(cells), flush=True)
    passing = [c for c, (d, h) in table.items() if d >= base_dev + MIN_GAIN and h >= base_hand]
    if not passing:
        print(f"no cell gains {MIN_GAIN} on dev without a hand-written loss: test is not read")
        return
    kept = max(passing, key=lambda c: table[c][0])
    print(
        f"the rule keeps gate {kept[0]}, weight {kept[1]}"
        + ("" if kept == CHOSEN else f" (CHOSEN is {CHOSEN}: set it before reading test)")
    )
    compare("dev", dev, kept)
    compare("hand-written", hand, kept)


def main() -> None:
    parser = generate_or_measure(__doc__)
    parser.add_argument("--test", action="store_true", help="measure: read test (once)")
    parser.add_argument(
        "--answers",
        type=Path,
        default=PROBABILITY_FILE,
        help="measure: per-memory answers to read (round 22: data/memory-free-time-judge.jsonl)",
    )
    parser.add_argument(
        "--passes",
        choices=tuple(PASSES),
        default="bundled",
        help="measure: whose topics and questions the shipped score reads (round 23: judge)",
    )
    args = parser.parse_args()
    if args.step == "generate":
        generate(args.models_dir)
    else:
        measure(args.test, args.answers, args.passes)


if __name__ == "__main__":
    main()
