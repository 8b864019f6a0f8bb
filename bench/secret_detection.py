"""How well extraction's secret filter drops secrets and keeps harmless look-alikes.

bench/data/secrets.json holds chat lines labelled by hand, in the languages memoryd
serves (en, fr, es, de, pt, it, zh, ja, ko): lines holding a secret (passwords however
spaced or worded, pass phrases, PINs and codes, security answers, card numbers with any
separators, IBANs and bank accounts, government ids, keys and tokens, one-time codes)
and harmless lines that look like them ("I changed my password yesterday", "my card was
declined", phone, order and flight numbers). ``dev`` is what the filter was tuned on;
``test`` was written before the tuning and scored once. ``heldout-a``/``-b`` are halves of
a set written by someone who never saw the filter (scored whole once before tuning on it:
recall 0.796, false drops 4.6 %); ``-a`` was then read for tuning; ``-b`` was scored
unread once (recall 0.895, false drops 6.3 %) and then read for tuning too (branch
secrets4), so neither half is held out any more: only a set written apart and scored
once after the tuning says how the filter does on lines it has not seen. Each line goes
through ``secret_reason`` as extraction applies it to a sentence and to a candidate
memory. ``heldout-c`` was such a set: 397 secret lines and 387 look-alikes, written by
another helper that never saw the filter or these data, scored once after that tuning
(recall 0.874, false drops 5.2 %), then read for tuning (branch secrets5), so it is no
longer held out either. ``heldout-d`` (417 secret lines, 398 look-alikes, written the
same way) was scored once unread after that (recall 0.885, false drops 5.8 %), then read
for tuning (branch secrets6), the filter changed by class of line, not by line.
``heldout-e`` (454 secret lines, 435 look-alikes, written apart the same way on
2026-12-07) was scored once unread after that (recall 0.932, false drops 3.2 %; the
filter before secrets6 0.914 / 4.1 % on it), then read for tuning (branch secrets7), so
it is no longer held out either. ``heldout-f`` (437 secret lines, 437 look-alikes, also
in Indonesian, written apart the same way on 2026-12-07) was scored once unread after
secrets7 (recall 0.927, false drops 3.0 %; 0.897 / 3.4 % before secrets7), then read
for tuning (branch secrets8), so it is no longer held out either. ``heldout-g`` (429
secret lines, 441 look-alikes, written apart the same way on 2026-12-07, with a brief
that asked for how real people differ from tidy examples) was scored once unread after
secrets8 (recall 0.921, false drops 1.8 %; 0.881 / 2.3 % at ae9ad09, before secrets7),
then read for tuning (branch secrets9), so it is no longer held out either.
``heldout-h`` (429 secret lines, 447 look-alikes, written apart the same way on
2026-12-07) is kept unread with ``test``.

    .venv/bin/python bench/secret_detection.py [--show] [--part dev|test|heldout-a|...]

``--show`` prints the lines it gets wrong in the parts read for tuning (dev, heldout-a
to heldout-g), never those of ``test`` or ``heldout-h``: reading them would make them
dev sets.
Targets: recall >= 0.99 and false drops <= 2 % on each part.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from memoryd.extraction.secrets import secret_reason

DATA = Path(__file__).parent / "data" / "secrets.json"
Part = dict[str, dict[str, list[str]]]
PARTS = ("dev", "test", *(f"heldout-{x}" for x in "abcdefgh"))
UNREAD = ("test", "heldout-h")  # scored, never shown


def score(part: Part, show: bool) -> tuple[float, float, dict[str, tuple[int, int]]]:
    """Recall on secret lines, false-drop rate on harmless ones, and (right, total) per
    kind."""
    kinds: dict[str, tuple[int, int]] = {}
    totals = {"secret": [0, 0], "harmless": [0, 0]}
    for label, want in (("secret", True), ("harmless", False)):
        for kind, lines in part[label].items():
            wrong = [line for line in lines if (secret_reason(line) is not None) != want]
            kinds[f"{label}/{kind}"] = (len(lines) - len(wrong), len(lines))
            totals[label][0] += len(lines) - len(wrong)
            totals[label][1] += len(lines)
            for line in wrong if show else []:
                print(f"  {'MISSED' if want else 'DROPPED'} [{kind}] {line}")
    recall = totals["secret"][0] / totals["secret"][1]
    false_drops = 1 - totals["harmless"][0] / totals["harmless"][1]
    return recall, false_drops, kinds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--show",
        action="store_true",
        help="print the lines it gets wrong, except in test",
    )
    parser.add_argument(
        "--part",
        choices=PARTS,
        action="append",
        help="score only this part",
    )
    args = parser.parse_args()
    data = json.loads(DATA.read_text(encoding="utf-8"))
    ok = True
    print("| part | secret lines | recall | look-alikes | false drops |\n|---|---|---|---|---|")
    details = {}
    for name in args.part or PARTS:
        part = data[name]
        recall, false_drops, kinds = score(part, args.show and name not in UNREAD)
        details[name] = kinds
        n_secret = sum(map(len, part["secret"].values()))
        n_harmless = sum(map(len, part["harmless"].values()))
        print(f"| {name} | {n_secret} | {recall:.3f} | {n_harmless} | {100 * false_drops:.1f} % |")
        ok = ok and recall >= 0.99 and false_drops <= 0.02
    if "dev" in details:
        wrong = ", ".join(f"{k} {r}/{t}" for k, (r, t) in details["dev"].items() if r < t)
        print(f"dev, right per kind where not all: {wrong or 'none'}")
    print("targets (recall >= 0.99, false drops <= 2 %):", "met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
