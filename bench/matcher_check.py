"""Draw (memory, nearest fact, score) pairs per genre from a ``genres.py --json`` run, to be
judged by hand.

    .venv/bin/python bench/matcher_check.py genres-dev.json --per-genre 50 --out pairs.json

``memoryd.evaluation.extraction`` calls a memory correct when MiniLM similarity of the two without
their subject words is at least 0.6. That threshold was checked by hand on 60 pairs of
Synthetic-Persona-Chat only (bench/data/extraction-matcher-check.json); RealMem's long
project notes, MemoryCode's rules (where an update differs from the rule it replaces by
one prefix) and XPersona's six other languages (an English MiniLM) may need another.
This writes, per genre, ``--per-genre`` pairs drawn (seeded) half at or above the
threshold and half in the band just below it (0.45-0.6), filled from the rest when a
band runs short: the memory, the labelled line nearest it (a user fact, an
``other_facts`` line, or a replaced rule: ``kind``), the score, what the matcher
concluded, and a blank ``same_fact_by_hand`` (true / false) for the reader. The pairs
come from the memories the run made, so a genre needs a run with enough of them (about
10-20 conversations a genre with the bundled model).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

THRESHOLD = (
    0.6  # memoryd.evaluation.extraction.MATCH_SIMILARITY, not imported: runs without memoryd
)
BAND = 0.45


def nearest(memory: dict[str, Any]) -> tuple[str, str | None, float]:
    """(kind, line, score) of the labelled line nearest the memory."""
    kinds = [(k, memory.get(f"{k}_fact"), float(memory.get(f"{k}_score", -1.0)))
             for k in ("user", "other", "replaced")]  # fmt: skip
    return max(kinds, key=lambda item: item[2])


def draw(
    report: dict[str, Any], per_genre: int, seed: int, run: str = "current"
) -> dict[str, list[dict[str, Any]]]:
    by_genre: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for memory in report["memories"]:
        kind, line, score = nearest(memory)
        if memory["run"] == run and line is not None:
            by_genre[memory["genre"]].append({
                "conversation": memory["conversation"], "index": memory["index"],
                "memory": memory["memory"], "fact": line, "kind": kind,
                "similarity": round(score, 4), "matcher_says_same": score >= THRESHOLD,
                "same_fact_by_hand": None,
            })  # fmt: skip
    rng = random.Random(seed)
    out = {}
    for genre, pairs in sorted(by_genre.items()):
        above = [p for p in pairs if p["similarity"] >= THRESHOLD]
        band = [p for p in pairs if BAND <= p["similarity"] < THRESHOLD]
        rest = [p for p in pairs if p["similarity"] < BAND]
        picked = rng.sample(above, min(len(above), per_genre // 2))
        picked += rng.sample(band, min(len(band), per_genre - len(picked)))
        for pool in (above, band, rest):  # fill when a band ran short
            left = [p for p in pool if p not in picked]
            picked += rng.sample(left, min(len(left), per_genre - len(picked)))
        out[genre] = sorted(picked, key=lambda p: p["similarity"])
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("run", type=Path, help="a genres.py --json file")
    parser.add_argument("--per-genre", type=int, default=50)
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    report = json.loads(args.run.read_text("utf-8"))
    pairs = draw(report, args.per_genre, args.seed)
    args.out.write_text(json.dumps({
        "description": f"(memory, nearest labelled line) pairs per genre from {args.run.name} "
        f"({report.get('split')} split, revision {report['revisions'].get('current')}), "
        f"half with MiniLM similarity of their core forms >= {THRESHOLD}, half in "
        f"[{BAND}, {THRESHOLD}), seed {args.seed}. Judge by hand: does the memory state or "
        "clearly imply the line? Fill same_fact_by_hand with true or false.",
        "pairs": pairs,
    }, indent=1, ensure_ascii=False))  # fmt: skip
    for genre, picked in pairs.items():
        short = (
            " (fewer than asked: run more conversations)" if len(picked) < args.per_genre else ""
        )
        print(f"{genre:14} {len(picked):4} pairs{short}")
    print(f"-> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
