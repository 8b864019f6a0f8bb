"""Extraction quality across genres of chat, beside an earlier pipeline, in one run (issue 34).

    PYTHONPATH=src .venv/bin/python bench/genres.py --split dev --limit 3
    PYTHONPATH=src .venv/bin/python bench/genres.py --genres persona realmem --limit 40 \\
        --baseline-rev 4ba7ee1 --json genres-dev.json
    PYTHONPATH=src .venv/bin/python bench/genres.py --genres persona --split test --limit 300

Every conversation of each genre's split (``genre_sets.py``: Synthetic-Persona-Chat,
RealMem, MemoryCode, XPersona in seven languages; or ``--dataset FILE``, a labelled file of
your own) runs through the real pipeline with the configured LLM provider (the bundled
model by default) on a fresh SQLite database, scored by ``memoryd.evaluation.extraction`` (meaning
match with MiniLM; see its module doc). The table gives, per genre, precision, recall,
the recall of facts the user's turns state, the shares of memories about the wrong
subject, unsupported and stale (a rule that was later replaced: MemoryCode), the share
filed globally (the rest went to the chat's workspace), and LLM calls and seconds per
conversation and per batch; XPersona's languages are averaged into one genre, and the
macro mean weighs the four genres alike, so that no one set's size decides it.

``--baseline-rev REV`` runs the same conversations on the pipeline as it was at git
revision REV (its ``src`` exported to a temporary folder and run in a subprocess, scored by
this checkout's ``evaluation/extraction.py``) and prints "current / baseline" in each cell.
``--json OUT`` writes the summaries, each conversation's user turns and every memory with
its conversation, genre and verdict: the input of ``audit_sample.py`` (a hand audit) and
``matcher_check.py`` (a hand check of the matcher per genre).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
NEW_EVALUATION = ROOT / "src" / "memoryd" / "evaluation" / "extraction.py"
# where the scorer's imports lived before the package layout of issue 36 (for baselines)
OLD_LAYOUT = {
    "memoryd.models.embedding.base": "memoryd.embedding.base",
    "memoryd.models.llm.base": "memoryd.llm.base",
    "memoryd.evaluation.labelled_data": "memoryd.labelled_data",
    "memoryd.app.service": "memoryd.service",
    "memoryd.models.embedding.minilm": "memoryd.embedding.minilm",
}
sys.path.insert(0, str(HERE))
import genre_sets  # noqa: E402

COLUMNS = {  # summary key -> heading
    "conversations": "conv",
    "memories": "mem",
    "precision": "P",
    "recall": "R",
    "recall_of_stated_facts": "R stated",
    "wrong_subject_share": "wrong subj",
    "unsupported_share": "unsupp",
    "stale_share": "stale",
    "global_share": "global",
    "llm_calls_per_conversation": "calls/conv",
    "seconds_per_conversation": "s/conv",
    "llm_calls_per_batch": "calls/batch",
    "seconds_per_batch": "s/batch",
}
WARM_UP = {"id": "warm-up", "exchanges": [{"prompt": "I run a dog obedience school.",
                                           "response": "Nice!"}], "facts": []}  # fmt: skip
COUNTS = {"conversations", "memories"}  # summed, not averaged, in the group rows
# A share has no value without its denominator (precision of no memories is not 0): shown
# as "-" and left out of the means. The stale share applies to genres with sessions only.
DENOMINATOR = {"precision": "memories", "wrong_subject_share": "memories",
               "unsupported_share": "memories", "stale_share": "memories", "recall": "facts",
               "global_share": "memories",
               "recall_of_stated_facts": "facts_stated_in_user_turns"}  # fmt: skip


def applies(summary: dict[str, Any], key: str) -> bool:
    if key == "stale_share" and not summary["sessions"]:
        return False
    return key not in DENOMINATOR or bool(summary.get(DENOMINATOR[key]))


def _evaluation() -> ModuleType:
    """memoryd.evaluation.extraction from this checkout, even when ``memoryd`` is an older one."""
    if "memoryd_evaluation" in sys.modules:
        return sys.modules["memoryd_evaluation"]
    spec = importlib.util.spec_from_file_location("memoryd_evaluation", NEW_EVALUATION)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["memoryd_evaluation"] = module
    spec.loader.exec_module(module)
    return module


def genre_names(asked: Sequence[str]) -> list[str]:
    """Genre names with "xpersona" standing for its seven languages."""
    names: list[str] = []
    for name in asked:
        for genre in genre_sets.GROUPS.get(name, [name]):
            if genre not in genre_sets.GENRES:
                raise SystemExit(f"no genre {genre!r}; one of {', '.join(genre_sets.GROUPS)}")
            names.append(genre)
    return list(dict.fromkeys(names))


def conversations(args: argparse.Namespace) -> dict[str, list[dict[str, Any]]]:
    sets = {
        genre: genre_sets.load(genre, args.split, args.limit, args.max_sessions)
        for genre in genre_names(args.genres)
    }
    for path in args.dataset:
        sets[f"file:{Path(path).stem}"] = _evaluation().load_dataset(Path(path))[: args.limit]
    return sets


def run(sets: dict[str, list[dict[str, Any]]], label: str, verbose: bool) -> dict[str, Any]:
    """Rows (``ConversationResult`` as dicts) per genre, with the configured provider."""
    from memoryd.app.service import Memoryd
    from memoryd.config import MemorydSettings
    from memoryd.extraction.scheduler import provider_for
    from memoryd.models.embedding.minilm import MiniLMEmbedder

    evaluation = _evaluation()
    settings = MemorydSettings()
    embedder = MiniLMEmbedder()
    rows: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        with Memoryd(f"sqlite:///{tmp}/p.db", settings=settings) as md:
            provider = provider_for(md)
        # untimed: the bundled model loads on its first call, which no genre should pay for
        evaluation.evaluate([WARM_UP], settings, provider, embedder)
        for genre, convs in sets.items():

            def show(row: Any, genre: str = genre) -> None:
                print(
                    f"[{label}] {genre:13} {row.id:26} facts {row.facts} memories "
                    f"{len(row.memories)} correct {row.correct} wrong-subject "
                    f"{row.wrong_subject} stale {row.stale} found {row.facts_found} "
                    f"{row.seconds:.1f}s {row.calls} calls {row.error or ''}",
                    flush=True,
                )
                if verbose:
                    for judged in row.judged:
                        print(f"      + [{judged['verdict']}] {judged['memory']}")
                    for reason in row.rejected:
                        print(f"      - {reason}")

            results = evaluation.evaluate(convs, settings, provider, embedder, show)
            rows[genre] = evaluation.result_rows(results)
    return rows


def start_baseline(
    rev: str, sets: dict[str, Any], verbose: bool, tmp: Path
) -> subprocess.Popen[bytes]:
    """``run`` with the ``memoryd`` package of git revision ``rev``, in a subprocess that
    works beside the current run (its rows are read by ``finish_baseline``)."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "src"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive, check=True)
    (tmp / "sets.json").write_text(json.dumps(sets))
    env = {**os.environ, "PYTHONPATH": str(tmp / "src")}
    command = [sys.executable, __file__, "--worker", str(tmp / "sets.json"), str(tmp / "out.json")]
    return subprocess.Popen(command + (["--verbose"] if verbose else []), env=env)


def finish_baseline(worker: subprocess.Popen[bytes], tmp: Path) -> dict[str, Any] | None:
    """The baseline's rows, or None (said on stderr) when its subprocess failed."""
    if worker.wait() != 0:
        print(f"the baseline run failed (exit {worker.returncode})", file=sys.stderr)
        return None
    result: dict[str, Any] = json.loads((tmp / "out.json").read_text())
    return result


def summaries(rows: dict[str, list[dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    """Each genre's summary, then each genre group's mean (XPersona's languages) and the
    macro mean over the groups run."""
    evaluation = _evaluation()
    out = {}
    for genre, genre_rows in rows.items():
        out[genre] = evaluation.summarize([evaluation.ConversationResult(**r) for r in genre_rows])
        out[genre]["sessions"] = "precision_over_sessions" in out[genre]
    groups = {}
    for group, members in genre_sets.GROUPS.items():
        present = [out[g] for g in members if g in out]
        if len(members) > 1 and present:
            out[f"{group} (mean)"] = groups[group] = _mean(present)
        elif present:
            groups[group] = present[0]
    groups.update({g: s for g, s in out.items() if g.startswith("file:")})
    if len(groups) > 1:
        out["macro mean"] = _mean(list(groups.values()))
    return out


def _mean(parts: list[dict[str, Any]]) -> dict[str, Any]:
    mean: dict[str, Any] = {}
    for key in COLUMNS:
        if key in COUNTS:
            mean[key] = sum(p[key] for p in parts)
            continue
        here = [p for p in parts if key in p and applies(p, key)]
        if here:
            mean[key] = round(sum(p[key] for p in here) / len(here), 3)
    mean["sessions"] = any(p["sessions"] for p in parts)
    mean.update({d: sum(p.get(d, 0) for p in parts) for d in set(DENOMINATOR.values())})
    return mean


def table(current: dict[str, Any], base: dict[str, Any] | None) -> str:
    """One row per genre (and group mean, and macro mean): "current / baseline" cells."""

    def cell(summary: dict[str, Any] | None, key: str) -> str:
        if summary is None or key not in summary:
            return "-"
        if not applies(summary, key):
            return "-"
        value = summary[key]
        if isinstance(value, int):
            return str(value)
        return f"{value:.1f}" if key.endswith(("conversation", "batch")) else f"{value:.3f}"

    lines = [["genre", *COLUMNS.values()]]
    for genre, summary in current.items():
        other = base.get(genre) if base is not None else None
        cells = [cell(summary, k) + (f" / {cell(other, k)}" if base else "") for k in COLUMNS]
        lines.append([genre, *cells])
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    return "\n".join(
        "  ".join(
            text.ljust(w) if i == 0 else text.rjust(w)
            for i, (text, w) in enumerate(zip(line, widths, strict=True))
        )
        for line in lines
    )


def records(
    sets: dict[str, list[dict[str, Any]]], rows: dict[str, dict[str, list[dict[str, Any]]]]
) -> dict[str, Any]:
    """The ``--json`` file's conversations (their user turns and facts) and memories."""
    convs = [
        {
            "genre": genre,
            "conversation": str(conv.get("id")),
            "user_turns": [str(e.get("prompt", "")) for e in conv["exchanges"]],
            "facts": [f["text"] if isinstance(f, dict) else f for f in conv["facts"]],
        }
        for genre, items in sets.items()
        for conv in items
    ]
    memories = [
        {"run": run_label, "genre": genre, "conversation": row["id"], "index": index, **judged}
        for run_label, by_genre in rows.items()
        for genre, genre_rows in by_genre.items()
        for row in genre_rows
        for index, judged in enumerate(row["judged"])
    ]
    return {"conversations": convs, "memories": memories}


def revision() -> str:
    head = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "-C", str(ROOT), "status", "--porcelain", "src"], capture_output=True, text=True
    ).stdout.strip()
    return f"{head}{' + uncommitted changes' if dirty else ''}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--split", choices=["dev", "test"], default="dev")
    parser.add_argument("--limit", type=int, default=20, help="conversations per genre")
    parser.add_argument(
        "--genres",
        nargs="+",
        default=list(genre_sets.GROUPS),
        help="persona realmem memorycode xpersona (or xpersona-fr ...)",
    )
    parser.add_argument(
        "--max-sessions",
        type=int,
        default=0,
        help="MemoryCode: only each dialogue's first N sessions (0: all)",
    )
    parser.add_argument(
        "--dataset",
        action="append",
        default=[],
        help="also a labelled file of your own, as a genre (repeatable)",
    )
    parser.add_argument("--baseline-rev", default=None, help="also run this git revision")
    parser.add_argument("--json", type=Path, default=None, help="write summaries and memories")
    parser.add_argument("--verbose", action="store_true", help="print memories and rejections")
    parser.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:  # the baseline's subprocess: its memoryd is on PYTHONPATH
        if importlib.util.find_spec("memoryd.app") is None:  # a revision before the layout
            for new, old in OLD_LAYOUT.items():
                sys.modules[new] = importlib.import_module(old)
        sets = json.loads(Path(args.worker[0]).read_text())
        Path(args.worker[1]).write_text(json.dumps(run(sets, "baseline", args.verbose)))
        return 0
    sys.path.insert(0, str(ROOT / "src"))  # the current pipeline is this checkout's
    sets = conversations(args)
    with tempfile.TemporaryDirectory(prefix="memoryd-baseline-") as tmp:
        worker = None
        if args.baseline_rev:
            worker = start_baseline(args.baseline_rev, sets, args.verbose, Path(tmp))
        rows = {"current": run(sets, "current", args.verbose)}
        if worker and (baseline_rows := finish_baseline(worker, Path(tmp))) is not None:
            rows["baseline"] = baseline_rows
    summary = {label: summaries(by_genre) for label, by_genre in rows.items()}
    heading = f"current ({revision()})"
    if "baseline" in rows:
        heading += f" / baseline ({args.baseline_rev})"
    print(f"\n== {args.split} split, up to {args.limit} conversations per genre: {heading}")
    print(table(summary["current"], summary.get("baseline")))
    for label, by_genre in summary.items():
        for genre, genre_summary in by_genre.items():
            if "precision_over_sessions" in genre_summary:
                print(
                    f"{label} {genre}: over every session's memories P "
                    f"{genre_summary['precision_over_sessions']} R "
                    f"{genre_summary['recall_over_sessions']}; correct memories in the "
                    f"wrong scope {genre_summary['wrong_scope_share_of_correct']}"
                )
    if args.json:
        report = {
            "split": args.split,
            "limit": args.limit,
            "revisions": {"current": revision(), "baseline": args.baseline_rev},
            "summaries": summary,
            **records(sets, rows),
            "rows": rows,
        }
        args.json.write_text(json.dumps(report, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
