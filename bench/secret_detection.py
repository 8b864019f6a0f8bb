"""How well extraction's secret filter drops secrets and keeps harmless look-alikes.

bench/data/secrets.json holds chat lines labelled by hand: lines holding a secret or a
personal identifier (passwords with and without labels, pass phrases, PINs, door and alarm
codes, one-time codes, national ids, IBANs and card numbers, keys and tokens) and
harmless lines that look like them (flight and room numbers, "the password policy ...",
promo codes, phone numbers). A further 20 + 20 lines (``held_out``) were written after
the filter and first scored untouched (17/20 secrets, 20/20 harmless, see BENCHMARKS.md).
Each line goes through ``secret_reason`` as extraction
applies it to a candidate; a baseline is the filter shipped before this set existed
(labelled passwords and key formats only), given as ``--baseline`` git revision.

    .venv/bin/python bench/secret_detection.py [--baseline REV] [--show]

Targets: 100 % of secret lines dropped, at most 5 % of harmless lines lost.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from memoryd.extraction.secrets import secret_reason

DATA = Path(__file__).parent / "data" / "secrets.json"
Detector = Callable[[str], str | None]


def load_baseline(rev: str) -> Detector | None:
    """``secret_reason`` as it was at git revision ``rev`` (None if git cannot show it)."""
    try:
        source = subprocess.run(
            ["git", "show", f"{rev}:src/memoryd/extraction/secrets.py"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as handle:
        handle.write(source)
    spec = importlib.util.spec_from_file_location("baseline_secrets", handle.name)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    detector: Detector = module.secret_reason
    return detector


def score(detect: Detector, data: dict[str, dict[str, list[str]]], show: bool) -> dict[str, float]:
    rows: dict[str, float] = {}
    for label, want in (("secret", True), ("harmless", False)):
        total = wrong = 0
        for kind, lines in data[label].items():
            missed = [line for line in lines if (detect(line) is not None) != want]
            total += len(lines)
            wrong += len(missed)
            rows[f"{label}/{kind}"] = 100.0 * (len(lines) - len(missed)) / len(lines)
            if show:
                for line in missed:
                    print(f"  {'MISSED' if want else 'LOST'} [{kind}] {line}")
        rows[label] = 100.0 * (total - wrong) / total
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="2cfbb82", help="git revision of the old filter")
    parser.add_argument("--show", action="store_true", help="print each misclassified line")
    args = parser.parse_args()
    data = json.loads(DATA.read_text(encoding="utf-8"))
    counts = {label: sum(map(len, data[label].values())) for label in ("secret", "harmless")}
    print(f"{counts['secret']} secret lines, {counts['harmless']} harmless look-alikes")
    now = score(secret_reason, data, args.show)
    baseline = load_baseline(args.baseline)
    before = score(baseline, data, False) if baseline else {}
    print(f"\n| class | baseline ({args.baseline}) | now |\n|---|---|---|")
    for key, value in now.items():
        if "/" not in key:
            continue
        label, _, kind = key.partition("/")
        verb = "dropped" if label == "secret" else "kept"
        old = f"{before[key]:.0f} %" if before else "-"
        print(f"| {label}: {kind} ({verb}) | {old} | {value:.0f} % |")
    for label, verb in (("secret", "secrets dropped"), ("harmless", "harmless lost")):
        value = now[label] if label == "secret" else 100 - now[label]
        old = (before[label] if label == "secret" else 100 - before[label]) if before else None
        shown = f"{old:.1f} %" if old is not None else "-"
        print(f"| **{verb}** | {shown} | **{value:.1f} %** |")
    held = data["held_out"]
    for label, want in (("secret", True), ("harmless", False)):
        lines = held[label]
        right = sum((secret_reason(line) is not None) == want for line in lines)
        old = sum((baseline(line) is not None) == want for line in lines) if baseline else None
        print(
            f"held out, {label}: {right}/{len(lines)} right"
            + (f" (baseline {old}/{len(lines)})" if old is not None else "")
        )
    ok = now["secret"] == 100.0 and 100 - now["harmless"] <= 5.0
    print("\ntargets (100 % dropped, <= 5 % lost):", "met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
