"""Milliseconds per chat turn by embedder and language: what ``routed`` costs an English
and a non-English user (``bench/turn_latency.py --language ... --embedders ...``).

For each language, one user with 5 global and 20 workspace memories in that language
chats as in ``bench/turn_latency.py``: each turn a new message plus the last 3 messages as
history, the exchange embedded for the next turns (``warm_history``, untimed) once it is
out. The memories and messages come from XPersona (``../shared/datasets/xpersona``,
human-translated persona chat, MIT): the persona lines of its first dialogues are the
memories, its first speaker's lines the messages, the second's the replies; every
message is numbered so none is served from a cache a real chat would miss. Each embedder
gets its own SQLite database, filled through ``add_memory`` (so the vectors are those it
stores), and the set-ups answer the same turns interleaved, turn by turn, so background
load hits them alike. Reports p50, p95 and mean wall time of ``Memoryd.context`` and the
turn thread's CPU time, and which stretches ran while other processes were quiet.

Run through ``bench/turn_latency.py``; nothing here is a command of its own.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from embedding_calls import QUIET_CPUS, CpuMeter

from memoryd import Memoryd
from memoryd.config import MemorydSettings
from memoryd.domain.errors import InvalidContent
from memoryd.domain.rules import normalize_content
from memoryd.models.embedding.base import Embedder
from memoryd.plugins import embedder_factories

XPERSONA = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "xpersona"
FILES = {
    "en": "En_persona_valid.json",
    "fr": "Fr_persona_split_valid_human_annotated.json",
    "it": "It_persona_split_valid_human_annotated.json",
    "id": "Id_persona_split_valid_human_annotated.json",
    "ja": "Jp_persona_split_valid_human_annotated.json",
    "ko": "Ko_persona_split_valid_human_annotated.json",
    "zh": "Zh_persona_split_valid_human_annotated.json",
}
HISTORY_WINDOW = 3
BLOCK = 10  # turns per stretch judged quiet or busy


def _storable(text: str) -> str | None:
    try:
        return normalize_content(text)
    except InvalidContent:
        return None


Turn = tuple[str, list[dict[str, str]], str]


def chat_of(language: str, count: int) -> tuple[list[str], list[Turn]]:
    """25 memories (5 global, 20 workspace) and ``count`` (message, history, reply)."""
    rows = json.loads((XPERSONA / FILES[language]).read_text())
    memories: list[str] = []
    for row in rows:
        for line in row["persona"]:
            text = _storable(line)
            if text and text not in memories:
                memories.append(text)
    pairs = [pair for row in rows for pair in row["dialogue"] if len(pair) == 2]
    turns: list[Turn] = []
    conversation: list[dict[str, str]] = []
    for n in range(count):
        message, reply = pairs[n % len(pairs)]
        message, reply = f"{message} ({n})", f"{reply} ({n})"  # never a cached text
        if n % 6 == 0:
            conversation = []
        turns.append((message, conversation[-HISTORY_WINDOW:], reply))
        conversation = [
            *conversation,
            {"role": "user", "content": message},
            {"role": "assistant", "content": reply},
        ]
    return memories[:25], turns


def percentiles(samples: Sequence[float]) -> tuple[float, float, float]:
    cuts = statistics.quantiles(samples, n=100, method="inclusive")
    return statistics.median(samples), cuts[94], statistics.fmean(samples)


def run_languages(args: argparse.Namespace) -> None:
    built = embedder_factories()
    unknown = [n for n in args.embedders if n not in built]
    if unknown:
        raise SystemExit(f"unknown embedder(s): {', '.join(unknown)}; known: {', '.join(built)}")
    settings = MemorydSettings()
    embedders = {name: built[name](settings) for name in args.embedders}
    for embedder in embedders.values():
        embedder.embed(["warm up"])
    print(f"\n## Turn latency by language: {args.turns} turns after {args.warmup} warm-up")
    print(f"{'language':<10}{'embedder':<10}{'p50 ms':>9}{'p95 ms':>9}{'mean ms':>9}"
          f"{'cpu p50':>9}{'quiet p50 (n)':>16}")  # fmt: skip
    for language in args.language:
        memories, turns = chat_of(language, args.warmup + args.turns)
        run_one(args, language, memories, turns, embedders)


def run_one(
    args: argparse.Namespace,
    language: str,
    memories: list[str],
    turns: list[Turn],
    embedders: dict[str, Embedder],
) -> None:
    wall: dict[str, list[float]] = {name: [] for name in embedders}
    cpu: dict[str, list[float]] = {name: [] for name in embedders}
    quiet: dict[str, list[float]] = {name: [] for name in embedders}
    with tempfile.TemporaryDirectory() as tmp:
        setups: dict[str, tuple[Memoryd, int]] = {}
        for name, embedder in embedders.items():
            md = Memoryd(f"sqlite:///{tmp}/{name}.db", embedder=embedder)
            user = md.create_user("bench")
            md.create_workspace("chat", member=user.id)
            for i, text in enumerate(memories):
                md.add_memory(user.id, text, *(("global",) if i < 5 else ("workspace", "chat")))
            setups[name] = (md, user.id)
        names = list(setups)
        meter = CpuMeter()
        block: list[tuple[str, float]] = []
        start_block = meter.snapshot()
        for i, (message, history, reply) in enumerate(turns):
            if block and i % BLOCK == 0:
                if meter.others(start_block, meter.snapshot()) < QUIET_CPUS:
                    for name, ms in block:
                        quiet[name].append(ms)
                block.clear()
                start_block = meter.snapshot()
            first = i % len(names)
            for name in names[first:] + names[:first]:
                md, user_id = setups[name]
                start, cpu_start = time.perf_counter(), time.thread_time()
                turn = md.context(user_id, "chat", message, history)
                elapsed = (time.perf_counter() - start) * 1000
                if turn.fallback_reason:
                    raise SystemExit(f"{name}: turn {i} fell back: {turn.fallback_reason}")
                if i >= args.warmup:
                    wall[name].append(elapsed)
                    cpu[name].append((time.thread_time() - cpu_start) * 1000)
                    block.append((name, elapsed))
            for md, _ in setups.values():  # the exchange, embedded once it is out (untimed)
                md.warm_history(message, reply)
        for md, _ in setups.values():
            md.close()
    for name in names:
        p50, p95, mean = percentiles(wall[name])
        q = f"{statistics.median(quiet[name]):.2f} ({len(quiet[name])})" if quiet[name] else "-"
        print(f"{language:<10}{name:<10}{p50:>9.2f}{p95:>9.2f}{mean:>9.2f}"
              f"{statistics.median(cpu[name]):>9.2f}{q:>16}")  # fmt: skip
