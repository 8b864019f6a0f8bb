"""The measuring tools of ``bench/turn_latency.py`` beside its turns: one embedding call
per graph and onnxruntime session option (its second part), and the meter both parts use
to tell quiet stretches of the shared machine from busy ones (Linux /proc/stat).

Run through ``bench/turn_latency.py``; nothing here is a command of its own.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np

from memoryd.models.embedding.minilm import (
    MiniLMEmbedder,
    default_model_path,
    default_tokenizer_path,
)

CALLS_PER_ROUND = 3
QUIET_CPUS = 0.3  # other processes' average CPU use under which a stretch counts as quiet


def texts_of_length(
    data: dict[str, Any], lengths: Sequence[int]
) -> dict[int, tuple[str, list[int]]]:
    """Token ids of dataset texts exactly n tokens long, [CLS] and [SEP] included."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(default_tokenizer_path()))
    tok.no_padding()
    tok.no_truncation()
    corpus = " ".join(m for p in data["pools"] for m in p["memories"])
    ids = tok.encode(corpus).ids[1:-1]
    found: dict[int, tuple[str, list[int]]] = {}
    for n in lengths:
        for start in range(0, len(ids) - n):
            text = tok.decode(ids[start : start + n - 2])
            encoded = tok.encode(text).ids
            if len(encoded) == n:
                found[n] = (text, encoded)
                break
    return found


def session_variants() -> dict[str, Callable[[Any], None]]:
    import onnxruntime as ort

    def opts(threads: int, **extra: Any) -> Callable[[Any], None]:
        def apply(o: Any) -> None:
            o.intra_op_num_threads = threads
            o.inter_op_num_threads = 1
            if "level" in extra:
                o.graph_optimization_level = extra["level"]
            if "spin" in extra:
                o.add_session_config_entry("session.intra_op.allow_spinning", extra["spin"])
            if "parallel" in extra:
                o.execution_mode = ort.ExecutionMode.ORT_PARALLEL

        return apply

    level = ort.GraphOptimizationLevel
    return {
        "1 thread (shipped)": opts(1),
        "1 thread, opt level BASIC": opts(1, level=level.ORT_ENABLE_BASIC),
        "1 thread, opt level EXTENDED": opts(1, level=level.ORT_ENABLE_EXTENDED),
        "2 threads": opts(2),
        "2 threads, no spinning": opts(2, spin="0"),
        "2 threads, parallel execution": opts(2, parallel=True),
    }


def run_embedding(
    args: argparse.Namespace,
    data: dict[str, Any],
    embedder: MiniLMEmbedder,
    previous: MiniLMEmbedder,
) -> None:
    import onnxruntime as ort

    lengths = (10, 25, 60)
    texts = texts_of_length(data, lengths)
    embedders = {
        f"MiniLMEmbedder.embed, default ({embedder.variant})": embedder,
        "MiniLMEmbedder.embed, previous graph": previous,
        "MiniLMEmbedder.embed, shipped graph": MiniLMEmbedder(quantize="off"),
        **{f"MiniLMEmbedder.embed, {v}": MiniLMEmbedder(quantize=v) for v in ("u8s8", "u8u8")},
    }
    variants: dict[str, Callable[[int], object]] = {
        label: partial(lambda e, n: e.embed([texts[n][0]]), e) for label, e in embedders.items()
    }
    if not args.skip_options:
        for label, apply in session_variants().items():
            options = ort.SessionOptions()
            apply(options)
            session = ort.InferenceSession(
                str(default_model_path()), sess_options=options, providers=["CPUExecutionProvider"]
            )
            variants[f"run only: {label}"] = partial(run_session, session, texts)
    meter = CpuMeter()
    samples: dict[tuple[str, int], list[float]] = {}
    quiet: dict[tuple[str, int], list[float]] = {}
    quiet_rounds = dict.fromkeys(lengths, 0)
    order = list(variants)
    for n in lengths:
        for call in variants.values():
            for _ in range(3):
                call(n)
        for round_number in range(args.embed_rounds):
            random.Random(round_number).shuffle(order)
            before = meter.snapshot()
            timed: dict[str, list[float]] = {label: [] for label in order}
            for label in order:  # interleaved: background load hits every variant alike
                for _ in range(CALLS_PER_ROUND):
                    start = time.perf_counter()
                    variants[label](n)
                    timed[label].append((time.perf_counter() - start) * 1000)
            is_quiet = meter.others(before, meter.snapshot()) < QUIET_CPUS
            quiet_rounds[n] += is_quiet
            for label, run in timed.items():
                samples.setdefault((label, n), []).extend(run)
                if is_quiet:
                    quiet.setdefault((label, n), []).extend(run)
    print(
        f"\n## One embedding call of one text, ms ({args.embed_rounds} rounds of"
        f" {CALLS_PER_ROUND} calls per cell, variants interleaved in a shuffled order)"
    )
    print(
        "tokens include [CLS] and [SEP]; p10 is the least disturbed calls; 'quiet' keeps"
        f" rounds in which other processes used under {QUIET_CPUS} CPU; ratios are to the"
        " shipped graph (quantize='off')"
    )
    base_label = "MiniLMEmbedder.embed, shipped graph"
    for n in lengths:
        print(f"\n### {n} tokens ({quiet_rounds[n]}/{args.embed_rounds} quiet rounds)")
        print(
            f"{'variant':<46}{'p50':>8}{'p10':>8}{'quiet p50':>11}{'p50 ratio':>11}"
            f"{'p10 ratio':>11}"
        )
        base = samples.get((base_label, n))
        for label in variants:
            run = samples[(label, n)]
            p50, p10 = statistics.median(run), percentile(run, 10)
            calm = quiet.get((label, n))
            cells = f"{p50:>8.2f}{p10:>8.2f}"
            cells += f"{statistics.median(calm):>11.2f}" if calm else f"{'-':>11}"
            if base:
                cells += f"{p50 / statistics.median(base):>10.2f}x"
                cells += f"{p10 / percentile(base, 10):>10.2f}x"
            print(f"{label:<46}{cells}")


def percentile(samples: Sequence[float], pct: int) -> float:
    return statistics.quantiles(samples, n=100, method="inclusive")[pct - 1]


def run_session(session: Any, texts: dict[int, tuple[str, list[int]]], n: int) -> object:
    ids = np.array([texts[n][1]], dtype=np.int64)
    feed = {
        "input_ids": ids,
        "attention_mask": np.ones_like(ids),
        "token_type_ids": np.zeros_like(ids),
    }
    return session.run(None, feed)


class CpuMeter:
    """How many CPUs other processes kept busy between two snapshots (Linux /proc/stat)."""

    def __init__(self) -> None:
        self.tick = os.sysconf("SC_CLK_TCK")

    def snapshot(self) -> tuple[float, float, float]:
        try:
            with open("/proc/stat", encoding="ascii") as fh:
                fields = [int(x) for x in fh.readline().split()[1:9]]
        except OSError:
            return time.perf_counter(), math.nan, time.process_time()
        user, nice, system, _idle, _iowait, irq, softirq, steal = fields
        busy = (user + nice + system + irq + softirq + steal) / self.tick
        return time.perf_counter(), busy, time.process_time()

    @staticmethod
    def others(before: tuple[float, float, float], after: tuple[float, float, float]) -> float:
        wall = after[0] - before[0]
        other_seconds = (after[1] - before[1]) - (after[2] - before[2])
        return max(other_seconds, 0.0) / wall if wall > 0 else math.nan
