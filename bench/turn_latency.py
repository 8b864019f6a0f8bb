"""How long ``Memoryd.context()`` takes per chat turn, against a floor and a naive design.

One user with 5 global and 20 workspace memories on a temporary SQLite file holds a
chat whose history slides like a real one: each turn sends a new user message plus the
last 3 messages, so the previous message and reply come back as history. Every user
message and assistant reply is a text the process has not seen before, so nothing is
served from a cache that a real chat would not hit either. After each turn the exchange
is recorded with ``record_chat`` (untimed), as a chat app or memoryd's proxy does once the
answer is out; that is when memoryd embeds the reply for the turns that will quote it.
Four set-ups answer the same turns, interleaved turn by turn so background load hits
them alike:

- main:  the default reranker (stored memory vectors, cached query parts) with the
  default, rebuilt and re-quantised embedding graph (``memoryd.models.embedding.quantize``);
- previous: the same with the graph the default was before the fused rebuild (the
  shipped graph's weights folded and quantised as they are, u8s8, in a session with
  onnxruntime's default fusions), derived into a temporary directory;
- shipped: the same with the shipped model graph (``quantize="off"``), the baseline;
- floor: reranking skipped (``reranker="recency"``): storage and bookkeeping only;
- naive: a reranker that embeds the 20 memories and the query text on every call (on 1
  turn in 4 by default: each costs a quarter of a second or more).

A second part times one embedding call for texts of 10, 25 and 60 tokens with each graph
(default, previous, shipped, u8s8, u8u8) and, unless ``--skip-options``, several
onnxruntime session options of the shipped graph. The machine is shared,
so both parts also report which stretches ran while other processes were quiet
(from /proc/stat).

    .venv/bin/python bench/turn_latency.py [--turns 500]
    .venv/bin/python bench/turn_latency.py --language en zh fr --embedders minilm routed e5

With ``--language`` it measures instead the turns of a chat in each language, one set-up
per embedder of ``--embedders`` (``bench/turn_languages.py``).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import random
import statistics
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from embedding_calls import CALLS_PER_ROUND, QUIET_CPUS, CpuMeter, run_embedding
from turn_languages import FILES, run_languages

from memoryd import Memoryd
from memoryd.config import MemorydSettings
from memoryd.domain.injection import Query
from memoryd.domain.models import Memory
from memoryd.domain.rules import normalize_content
from memoryd.extraction.questions import union
from memoryd.models.embedding import quantize
from memoryd.models.embedding.minilm import MiniLMEmbedder, default_model_path

DATA = Path(__file__).parent / "data" / "retrieval.json"
QUESTION_FILES = (
    Path(__file__).parent / "data" / "memory-questions.jsonl",
    Path(__file__).parent / "data" / "memory-questions-work.jsonl",
)
HISTORY_WINDOW = 3
TURN_BLOCK = 10

USER_OPENERS = (
    "",
    "Quick question: ",
    "Hey, ",
    "One more thing. ",
    "Sorry, another one: ",
    "Can you help? ",
    "Before I forget: ",
    "Okay, next: ",
)
USER_CLOSERS = (
    "",
    " Thanks!",
    " Keep it short please.",
    " I need this for a meeting.",
    " Just double-checking.",
    " No rush.",
    " Bullet points are fine.",
)
REPLY_OPENERS = ("", "Sure. ", "Good question. ", "Here is what I have: ", "Right. ")
REPLY_CLOSERS = (
    "",
    " Anything else?",
    " Let me know if you want more detail.",
    " Hope that helps.",
)


# --- the chat ----------------------------------------------------------------------------
def unique_texts(
    bases: Sequence[str], openers: Sequence[str], closers: Sequence[str], rng: random.Random
) -> Iterator[str]:
    """Endless distinct variants of the base texts, in a shuffled order."""
    combos = list(itertools.product(bases, openers, closers))
    rng.shuffle(combos)
    for base, opener, closer in combos:
        yield f"{opener}{base}{closer}"
    for n in itertools.count(1):  # only reached for very long runs
        yield f"{rng.choice(bases)} (follow-up {n})"


def numbered(message: str, n: int) -> str:
    """``message`` with its last question numbered ("... (turn 12)?"): the default reranker
    embeds a question behind short remarks on its own, and without the number two turns
    asking the same base question with other openers would share one cached vector."""
    at = message.rfind("?")
    return f"{message[:at]} (turn {n}){message[at:]}" if at >= 0 else f"{message} (turn {n})"


def chat_turns(
    pool: dict[str, Any], replies: Sequence[str], count: int, seed: int
) -> list[tuple[str, list[dict[str, str]], str]]:
    """(message, history, reply) for ``count`` turns of conversations of 1 to 8 turns."""
    rng = random.Random(seed)
    messages = unique_texts(
        [q["message"] for q in pool["queries"]], USER_OPENERS, USER_CLOSERS, rng
    )
    answers = unique_texts(replies, REPLY_OPENERS, REPLY_CLOSERS, rng)
    turns: list[tuple[str, list[dict[str, str]], str]] = []
    while len(turns) < count:
        conversation: list[dict[str, str]] = []
        for _ in range(rng.randint(1, 8)):
            message, reply = numbered(next(messages), len(turns)), next(answers)
            turns.append((message, conversation[-HISTORY_WINDOW:], reply))
            conversation += [
                {"role": "user", "content": message},
                {"role": "assistant", "content": reply},
            ]
    return turns[:count]


# --- set-ups -------------------------------------------------------------------------------
class CountingEmbedder:
    """Passes calls through to the shared embedder and counts the texts it embeds."""

    def __init__(self, inner: MiniLMEmbedder) -> None:
        self.inner = inner
        self.name = inner.name
        self.dimensions = inner.dimensions
        self.texts = 0

    def embed(self, texts: Sequence[str]) -> Any:
        self.texts += len(texts)
        return self.inner.embed(texts)


class ReembedEverythingReranker:
    """The naive design: embed every memory and the query text on every turn, no caches.

    The query goes in its own call so the memories' batch is not padded to its length.
    """

    name = "naive-reembed"

    def __init__(self, embedder: CountingEmbedder) -> None:
        self.embedder = embedder

    def score(self, query: Query, memories: Sequence[Memory]) -> list[float]:
        matrix = self.embedder.embed([m.content for m in memories])
        return [float(x) for x in matrix @ self.embedder.embed([query.text])[0]]


def previous_embedder(directory: Path) -> MiniLMEmbedder:
    """The default graph before the fused rebuild: folded weights quantised as they are
    (u8s8, per channel), run with onnxruntime's default fusions."""
    import logging

    import onnx
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    path = directory / "previous-u8s8.onnx"
    model = quantize.fold_weight_expansions(onnx.load(str(default_model_path())))
    logging.getLogger().setLevel(logging.ERROR)
    quantize_dynamic(model, path, per_channel=True, weight_type=QuantType.QInt8)
    embedder = MiniLMEmbedder(model_path=path, verify=False)
    embedder.embed(["warm up"])
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    embedder._session = ort.InferenceSession(  # a bench-only swap
        str(path), sess_options=options, providers=["CPUExecutionProvider"]
    )
    embedder.variant = "previous u8s8"
    return embedder


def populate(
    url: str, embedder: MiniLMEmbedder, pool: dict[str, Any], other: dict[str, Any]
) -> tuple[int, str]:
    with Memoryd(url, embedder=embedder) as md:
        user = md.create_user("bench")
        md.create_workspace(pool["workspace"])
        for content in other["memories"][:5]:
            md.add_memory(user.id, content, "global")
        for content in pool["memories"]:
            md.add_memory(user.id, content, "workspace", pool["workspace"])
        return user.id, pool["workspace"]


def read_questions(files: Sequence[Path] = QUESTION_FILES) -> dict[str, tuple[str, ...]]:
    """The questions the bundled model wrote per memory text (``data/memory-questions*.jsonl``,
    the chat prompt's then the work prompt's), joined as the questions pass stores them
    (``memoryd.extraction.questions.union``). For benchmarks whose memories need the
    questions a user's memories carry once the background pass has run."""
    written: dict[str, list[tuple[str, ...]]] = {}
    for path in files:
        for line in path.open():
            row = json.loads(line)
            written.setdefault(normalize_content(row["fact"]), []).append(tuple(row["questions"]))
    return {text: union(tuple(answers)) for text, answers in written.items()}


def percentiles(samples: Sequence[float]) -> dict[str, float]:
    cuts = statistics.quantiles(samples, n=100, method="inclusive")
    return {
        "p50": statistics.median(samples),
        "p95": cuts[94],
        "p99": cuts[98],
        "mean": statistics.fmean(samples),
    }


def run_turns(
    args: argparse.Namespace,
    data: dict[str, Any],
    embedder: MiniLMEmbedder,
    previous: MiniLMEmbedder,
) -> None:
    pool = next(p for p in data["pools"] if p["id"] == args.pool)
    other = next(p for p in data["pools"] if p["id"] != args.pool)
    replies = [
        h["content"]
        for p in data["pools"]
        for q in p["queries"]
        for h in q["history"]
        if h["role"] == "assistant"
    ]
    turns = chat_turns(pool, replies, args.warmup + args.turns, args.seed)
    default = MemorydSettings.model_fields["reranker"].default
    times: dict[str, list[float]] = {
        "main": [],
        "previous": [],
        "shipped": [],
        "floor": [],
        "naive": [],
    }
    main_by_new_texts: dict[int, list[float]] = {}
    main_on_naive_turns: list[float] = []
    cpu_times: dict[str, list[float]] = {}
    quiet_times: dict[str, list[float]] = {name: [] for name in times}
    busy_times: dict[str, list[float]] = {name: [] for name in times}
    counters = {name: CountingEmbedder(embedder) for name in times}
    counters["shipped"] = CountingEmbedder(MiniLMEmbedder(quantize="off"))
    with tempfile.TemporaryDirectory() as tmp:
        counters["previous"] = CountingEmbedder(previous)
        url = f"sqlite:///{tmp}/bench.db"
        user_id, slug = populate(url, embedder, pool, other)
        setups = {
            "main": Memoryd(url, embedder=counters["main"], reranker=default),
            "previous": Memoryd(url, embedder=counters["previous"], reranker=default),
            # the baseline: the same, with the shipped (fp32-expanded) model graph
            "shipped": Memoryd(url, embedder=counters["shipped"], reranker=default),
            "floor": Memoryd(url, embedder=counters["floor"], reranker="recency"),
            "naive": Memoryd(
                url,
                embedder=counters["naive"],
                reranker=ReembedEverythingReranker(counters["naive"]),
            ),
        }
        names = list(setups)
        meter = CpuMeter()
        block: list[tuple[str, float]] = []  # (set-up, ms) of the current block of turns
        block_start = meter.snapshot()

        def close_block() -> None:
            quiet = meter.others(block_start, meter.snapshot()) < QUIET_CPUS
            for name, elapsed in block:
                (quiet_times if quiet else busy_times)[name].append(elapsed)
            block.clear()

        for i, (message, history, reply) in enumerate(turns):
            measured = i >= args.warmup
            if block and i % TURN_BLOCK == 0:
                close_block()
                block_start = meter.snapshot()
            first = i % len(names)
            for name in names[first:] + names[:first]:  # rotate who goes first
                if name == "naive" and i % args.naive_every:
                    continue
                before = counters[name].texts
                start, cpu_start = time.perf_counter(), time.thread_time()
                turn = setups[name].context(user_id, slug, message, history)
                elapsed = (time.perf_counter() - start) * 1000
                cpu_ms = (time.thread_time() - cpu_start) * 1000
                if turn.fallback_reason or len(turn.workspace_memories) != 5:
                    raise SystemExit(f"{name}: turn {i} fell back: {turn.fallback_reason}")
                if measured:
                    times[name].append(elapsed)
                    cpu_times.setdefault(name, []).append(cpu_ms)
                    block.append((name, elapsed))
                    if name == "main":
                        new_texts = counters[name].texts - before
                        main_by_new_texts.setdefault(new_texts, []).append(elapsed)
                        if i % args.naive_every == 0:
                            main_on_naive_turns.append(elapsed)
            # as a chat app (or the proxy) does once the answer is out; not timed
            setups["main"].record_chat(user_id, slug, message, reply)
            for name in ("previous", "shipped"):  # their own reranker caches
                setups[name].warm_history(message, reply)
        close_block()
        main_name = setups["main"].reranker.name
        for md in setups.values():
            md.close()
    report_turns(args, pool, turns, times, main_by_new_texts, main_name, embedder)
    print(
        "CPU time of the turn's own thread (what it costs when it has a core to itself;"
        " the background writer's thread is not counted), ms:"
    )
    for name, samples in cpu_times.items():
        row = percentiles(samples)
        print(f"  {name:<8} p50 {row['p50']:6.2f}  p95 {row['p95']:6.2f}  mean {row['mean']:6.2f}")
    same = percentiles(main_on_naive_turns)
    naive = percentiles(times["naive"])
    print(
        f"ratio (b) naive/main on the same {len(main_on_naive_turns)} turns:"
        f" p50 {naive['p50'] / same['p50']:.2f}x, p95 {naive['p95'] / same['p95']:.2f}x"
        "   (target >= 5x)"
    )
    print(
        f"quiet stretches (blocks of {TURN_BLOCK} turns in which other processes used under"
        f" {QUIET_CPUS} CPU) vs the rest:"
    )
    for name in times:
        cells = []
        for label, part in (("quiet", quiet_times[name]), ("busy", busy_times[name])):
            p50 = f"{statistics.median(part):.2f} ms" if part else "-"
            cells.append(f"{label} {len(part)} turns p50 {p50}")
        print(f"  {name:<6} " + "; ".join(cells))


def report_turns(
    args: argparse.Namespace,
    pool: dict[str, Any],
    turns: Sequence[tuple[str, list[dict[str, str]]]],
    times: dict[str, list[float]],
    main_by_new_texts: dict[int, list[float]],
    main_name: str,
    embedder: MiniLMEmbedder,
) -> None:
    history_sizes = [len(h) for _, h, _ in turns[args.warmup :]]
    print(
        f"\n## Turn latency: md.context(), {args.turns} turns after {args.warmup} warm-up"
        f" (pool {pool['id']}: 5 global + 20 workspace memories, SQLite)"
    )
    print(
        "history messages per turn: "
        + ", ".join(f"{k}: {history_sizes.count(k)}" for k in range(HISTORY_WINDOW + 1))
    )
    print(f"{'set-up':<44}{'turns':>6}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'mean ms':>9}")
    rows = {
        f"main: default ({main_name}, {embedder.variant} graph)": times["main"],
        **{
            f"  main, turns embedding {k} new text(s)": v
            for k, v in sorted(main_by_new_texts.items())
            if len(v) >= 20
        },
        f"previous: {main_name}, graph before the rebuild": times["previous"],
        f"(c) baseline: {main_name}, shipped graph": times["shipped"],
        "(a) floor: recency, no reranking": times["floor"],
        f"(b) naive: re-embed 20 + query (1 turn in {args.naive_every})": times["naive"],
    }
    for label, samples in rows.items():
        row = percentiles(samples)
        print(
            f"{label:<44}{len(samples):>6}{row['p50']:>9.2f}{row['p95']:>9.2f}"
            f"{row['p99']:>9.2f}{row['mean']:>9.2f}"
        )
    new_texts = sum(k * len(v) for k, v in main_by_new_texts.items()) / len(times["main"])
    print(
        f"main embeds {new_texts:.2f} new texts per turn (the message and, once a chat has"
        " history, the previous assistant reply); naive embeds 21"
    )
    main, floor = percentiles(times["main"]), percentiles(times["floor"])
    print(
        f"ratio main/(a) floor : p50 {main['p50'] / floor['p50']:.2f}x,"
        f" p95 {main['p95'] / floor['p95']:.2f}x"
    )
    previous = percentiles(times["previous"])
    print(
        f"ratio main/previous graph: p50 {main['p50'] / previous['p50']:.2f}x,"
        f" p95 {main['p95'] / previous['p95']:.2f}x"
    )
    shipped = percentiles(times["shipped"])
    print(
        f"ratio main/(c) shipped graph: p50 {main['p50'] / shipped['p50']:.2f}x,"
        f" p95 {main['p95'] / shipped['p95']:.2f}x"
    )
    print(
        f"main p50 {main['p50']:.2f} ms (target <= 5 ms): "
        + ("met" if main["p50"] <= 5 else "NOT met")
        + f"; p95 {main['p95']:.2f} ms (target <= 8 ms): "
        + ("met" if main["p95"] <= 8 else "NOT met")
    )


# --- embedding cost and session options ----------------------------------------------------
def load_average() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} CPUs"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=500, help="measured turns (default 500)")
    parser.add_argument("--warmup", type=int, default=50, help="unmeasured turns first")
    parser.add_argument("--pool", default="p01", help="which pool of retrieval.json (p01-p12)")
    parser.add_argument(
        "--naive-every",
        type=int,
        default=4,
        help="run the slow naive set-up on 1 turn in N (default 4)",
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--embed-rounds",
        type=int,
        default=30,
        help=f"rounds of {CALLS_PER_ROUND} timed embedding calls per variant",
    )
    parser.add_argument(
        "--skip-options", action="store_true", help="skip the onnxruntime session-option comparison"
    )
    parser.add_argument("--language", nargs="+", choices=sorted(FILES), help="see the doc")
    parser.add_argument("--embedders", nargs="+", default=["minilm", "routed", "e5"])
    args = parser.parse_args()
    if args.language:
        print(f"python {platform.python_version()}, {load_average()} at start")
        run_languages(args)
        print(f"\n{load_average()} at end")
        return
    data = json.loads(DATA.read_text())
    print(f"python {platform.python_version()}, {load_average()} at start")
    embedder = MiniLMEmbedder()
    embedder.embed(["warm up"])
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        previous = previous_embedder(Path(tmp))
    run_turns(args, data, embedder, previous)
    run_embedding(args, data, embedder, previous)
    print(f"\n{load_average()} at end; took {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
