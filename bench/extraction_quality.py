"""Extraction quality of the configured LLM provider, beside an earlier pipeline, in one run.

    .venv/bin/python bench/extraction_quality.py                       # test split, 300
    .venv/bin/python bench/extraction_quality.py --split dev --limit 40
    .venv/bin/python bench/extraction_quality.py --dataset bench/data/extraction.json
    .venv/bin/python bench/extraction_quality.py --baseline-rev 2cfbb82 --baseline-limit 40

Conversations come from Synthetic-Persona-Chat (``bench/persona_chat.py``: User 1 is the
user, their persona lines the truth, User 2's persona lines the wrong subject), or from a
labelled file. Each runs through the real pipeline on a fresh SQLite database and is
scored by ``memoryd.evaluation`` (meaning match with MiniLM; see its module doc).

``--baseline-rev REV`` also runs the pipeline as it was at git revision REV (its ``src``
exported to a temporary folder and run in a subprocess) on the first
``--baseline-limit`` of the same conversations, and prints both summaries.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
NEW_EVALUATION = ROOT / "src" / "memoryd" / "evaluation.py"


def _evaluation() -> ModuleType:
    """memoryd.evaluation from this checkout, even when ``memoryd`` is an older one."""
    if "memoryd_evaluation" in sys.modules:
        return sys.modules["memoryd_evaluation"]
    spec = importlib.util.spec_from_file_location("memoryd_evaluation", NEW_EVALUATION)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["memoryd_evaluation"] = module
    spec.loader.exec_module(module)
    return module


def conversations(args: argparse.Namespace) -> list[dict[str, Any]]:
    if args.dataset:
        data = json.loads(Path(args.dataset).read_text())
        items = data["conversations"] if isinstance(data, dict) else data
        return list(items)[: args.limit]
    sys.path.insert(0, str(HERE))
    from persona_chat import load_split

    return load_split(args.split, args.limit)


def run(convs: list[dict[str, Any]], label: str, verbose: bool) -> dict[str, Any]:
    from memoryd.config import MemorydSettings
    from memoryd.embedding.minilm import MiniLMEmbedder
    from memoryd.extraction.scheduler import provider_for
    from memoryd.service import Memoryd

    evaluation = _evaluation()
    settings = MemorydSettings()
    embedder = MiniLMEmbedder()
    with tempfile.TemporaryDirectory() as tmp:
        provider = provider_for(Memoryd(f"sqlite:///{tmp}/p.db", settings=settings))

        def show(row: Any) -> None:
            print(
                f"[{label}] {row.id:12} facts {row.facts} memories {len(row.memories)} "
                f"correct {row.correct} wrong-subject {row.wrong_subject} found "
                f"{row.facts_found} {row.seconds:.1f}s {row.calls} calls {row.error or ''}",
                flush=True,
            )
            if verbose:
                for memory in row.memories:
                    print(f"      + {memory}")
                for reason in row.rejected:
                    print(f"      - {reason}")

        rows = evaluation.evaluate(convs, settings, provider, embedder, show)
    return {"summary": evaluation.summarize(rows), "rows": evaluation.result_rows(rows)}


def baseline(rev: str, convs: list[dict[str, Any]], verbose: bool) -> dict[str, Any]:
    """This script's ``run`` with the ``memoryd`` package of git revision ``rev``."""
    with tempfile.TemporaryDirectory(prefix="memoryd-baseline-") as tmp:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", rev, "src"], check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        (Path(tmp) / "convs.json").write_text(json.dumps(convs))
        out = Path(tmp) / "out.json"
        env = {**os.environ, "PYTHONPATH": str(Path(tmp) / "src")}
        subprocess.run(
            [sys.executable, __file__, "--worker", str(Path(tmp) / "convs.json"), str(out)]
            + (["--verbose"] if verbose else []),
            check=True,
            env=env,
        )
        result: dict[str, Any] = json.loads(out.read_text())
        return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", choices=["dev", "test"], default="test")
    parser.add_argument("--limit", type=int, default=300, help="conversations (default 300)")
    parser.add_argument("--dataset", default=None, help="a labelled JSON file instead")
    parser.add_argument("--baseline-rev", default=None, help="also run this git revision")
    parser.add_argument("--baseline-limit", type=int, default=40)
    parser.add_argument("--json", type=Path, default=None, help="write summaries and rows")
    parser.add_argument("--verbose", action="store_true", help="print memories and rejections")
    parser.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        convs = json.loads(Path(args.worker[0]).read_text())
        Path(args.worker[1]).write_text(json.dumps(run(convs, "baseline", args.verbose)))
        return 0
    convs = conversations(args)
    report: dict[str, Any] = {"current": run(convs, "current", args.verbose)}
    if args.baseline_rev:
        report["baseline"] = baseline(args.baseline_rev, convs[: args.baseline_limit],
                                      args.verbose)  # fmt: skip
        subset = _evaluation().summarize(
            [_row(r) for r in report["current"]["rows"][: args.baseline_limit]]
        )
        report["current_on_baseline_subset"] = {"summary": subset}
    for name, part in report.items():
        print(f"== {name} ({args.dataset or args.split})")
        print(json.dumps(part["summary"], indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    return 0


def _row(data: dict[str, Any]) -> Any:
    return _evaluation().ConversationResult(**data)


if __name__ == "__main__":
    sys.exit(main())
