"""Draw memories from a ``genres.py --json`` run for a hand audit, across genres.

    .venv/bin/python bench/audit_sample.py genres-dev.json --n 60 --out audit-dev.json

The matcher says whether a memory means a labelled fact; it cannot say whether a memory is
garbled, trivial, about the wrong person, pasted material or a secret, which is what a
user would notice. This draws ``--n`` memories (seeded), as evenly over the run's genres
as they allow, and writes, for each, the memory, its genre and conversation, the user's
turns of that conversation (what the user said: the memory should come from it), the
whole dialogue (``User:`` and ``Other:`` lines, read again from the set by
``genre_sets``: an answer means something only beside its question), and blank
``verdict`` and ``note`` fields for the reader. The rubric is in bench/README.md
("Hand audit"); the matcher's verdict is left out so as not to lead the reader (join on
genre, conversation and index to compare).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

VERDICTS = ["right", "garbled", "trivial", "wrong-subject", "pasted-material", "secret"]


def draw(
    report: dict[str, Any], n: int, seed: int, run: str = "current", genres: list[str] | None = None
) -> list[dict[str, Any]]:
    """``n`` memories of ``run`` (of ``genres`` only, if given), round-robin over genres,
    each genre's in a seeded order."""
    user_text = {
        (c["genre"], c["conversation"]): "\n".join(c["user_turns"]) for c in report["conversations"]
    }
    by_genre: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for memory in report["memories"]:
        if memory["run"] == run and (not genres or memory["genre"] in genres):
            by_genre[memory["genre"]].append(memory)
    rng = random.Random(seed)
    queues = {genre: rng.sample(items, len(items)) for genre, items in sorted(by_genre.items())}
    picked: list[dict[str, Any]] = []
    while len(picked) < n and any(queues.values()):
        for genre in queues:
            if queues[genre] and len(picked) < n:
                picked.append(queues[genre].pop())
    dialogues = _dialogues(report, {m["genre"] for m in picked})
    return [
        {
            "genre": m["genre"],
            "conversation": m["conversation"],
            "index": m["index"],
            "memory": m["memory"],
            "user_text": user_text[(m["genre"], m["conversation"])],
            "dialogue": dialogues.get((m["genre"], m["conversation"]), ""),
            "verdict": "",
            "note": "",
        }
        for m in picked
    ]


def _dialogues(report: dict[str, Any], genres: set[str]) -> dict[tuple[str, str], str]:
    """Each conversation of the run's ``genres`` as ``User:`` / ``Other:`` lines."""
    sys.path.insert(0, str(Path(__file__).parent))
    import genre_sets

    out: dict[tuple[str, str], str] = {}
    for genre in sorted(genres):
        for conv in genre_sets.load(genre, report["split"], report["limit"]):
            lines = []
            for exchange in conv["exchanges"]:
                lines.append(f"User: {exchange['prompt']}")
                if exchange.get("response"):
                    lines.append(f"Other: {exchange['response']}")
            out[(genre, conv["id"])] = "\n".join(lines)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("run", type=Path, help="a genres.py --json file")
    parser.add_argument("--n", type=int, default=60, help="memories to draw (default 60)")
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--which", default="current", help="current or baseline")
    parser.add_argument("--genres", nargs="*", help="draw from these genres only")
    args = parser.parse_args()
    report = json.loads(args.run.read_text("utf-8"))
    items = draw(report, args.n, args.seed, args.which, args.genres)
    args.out.write_text(json.dumps({
        "description": f"{len(items)} memories drawn with seed {args.seed} from {args.run.name}"
        f" ({report.get('split')} split, revision {report['revisions'].get(args.which)}); "
        "fill verdict (one of: " + ", ".join(VERDICTS) + ") and note; rubric in "
        "bench/README.md, 'Hand audit'",
        "items": items,
    }, indent=1, ensure_ascii=False))  # fmt: skip
    genres = sorted({i["genre"] for i in items})
    print(f"{len(items)} memories from {len(genres)} genres -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
