"""``memoryd extract`` and ``memoryd runs``: learn memories from chats now, and the history.

``extract`` processes every due pair (or one named pair) through the same pipeline as the
background scheduler, printing one progress line per pair on stderr; ``runs`` shows the
run history, one run's errors, and the parked pairs waiting for a retry by hand.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from memoryd.cli.common import (
    EXIT_FAILURE,
    DbOption,
    JsonOption,
    cell,
    console,
    echo,
    emit_json,
    fail,
    find_user,
    make_table,
    note,
    open_memoryd,
)
from memoryd.domain.errors import InvalidInput
from memoryd.extraction.pipeline import PairResult
from memoryd.extraction.runs import Run


def _pair_json(result: PairResult) -> dict[str, Any]:
    return {
        "user_id": result.user_id,
        "workspace": result.workspace,
        "status": result.status,
        "reason": result.reason,
        "error": result.error,
        "created": [m.to_dict() for m in result.created],
        "updated": [m.to_dict() for m in result.updated],
        "chats_processed": result.chats_processed,
        "rejected": result.rejected,
        "planned": result.planned,
        "llm_calls": result.usage.calls,
        "prompt_tokens": result.usage.prompt_tokens,
        "completion_tokens": result.usage.completion_tokens,
    }


def _pair_line(result: PairResult, names: dict[int, str]) -> str:
    who = f"{names.get(result.user_id, result.user_id)}/{result.workspace}"
    if result.status == "skipped":
        return f"{who}: skipped ({result.reason})"
    if result.error:
        parked = " -- parked until retried by hand" if result.status == "parked" else ""
        return f"{who}: failed, chats left unprocessed: {result.error}{parked}"
    if result.planned:
        return f"{who}: would make {len(result.planned)} change(s)"
    return (
        f"{who}: {len(result.created)} created, {len(result.updated)} updated, "
        f"{len(result.chats_processed)} chats processed"
    )


def extract(
    user: Annotated[
        str | None, typer.Option("--user", "-u", metavar="NAME", help="Only this user's pair.")
    ] = None,
    workspace: Annotated[
        str | None,
        typer.Option("--workspace", "-w", metavar="SLUG", help="Only this workspace's pair."),
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Ignore the idle threshold and message minimum.")
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Call the LLM but write nothing; print the plan.")
    ] = False,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Extract memories from unprocessed chats now: every due pair, or one pair.

    Naming a pair (--user and --workspace) also retries it when it is parked.
    """
    if (user is None) != (workspace is None):
        raise InvalidInput("give both --user and --workspace, or neither")
    with open_memoryd(db) as md:
        names = {u.id: u.name for u in md.list_users()}
        results: list[PairResult] = []

        def progress(result: PairResult, index: int, total: int) -> None:
            results.append(result)
            if not as_json:
                note(f"[{index}/{total}] {_pair_line(result, names)}")

        def starting(user_id: int, slug: str, index: int, total: int) -> None:
            if not as_json:
                note(f"[{index}/{total}] {names.get(user_id, user_id)}/{slug}: extracting...")

        if user is not None and workspace is not None:
            owner = find_user(md, user)
            md.extract(
                owner.id, workspace, force=force, dry_run=dry_run, on_pair=progress,
                on_pair_start=starting,
            )  # fmt: skip
            run = md.extraction_runs(1)[0] if not dry_run else None
        else:
            if not as_json:
                note("looking for due pairs...")
            run = md.extract(force=force, dry_run=dry_run, on_pair=progress, on_pair_start=starting)
    if as_json:
        emit_json(
            {"run": run.to_dict() if run else None, "pairs": [_pair_json(r) for r in results]}
        )
    else:
        for result in results:
            for change in result.planned:
                echo(f"{names.get(result.user_id)}/{result.workspace}: {change}")
        if run is not None:
            echo(_run_summary(run))
        elif not results:
            echo("no pair is due")
    if any(r.error for r in results):
        raise typer.Exit(EXIT_FAILURE)


def _run_summary(run: Run) -> str:
    skipped = ", ".join(f"{n} {reason}" for reason, n in sorted(run.skipped_reasons.items()))
    return (
        f"run {run.id[:8]}: {run.pairs_seen} pair(s) seen, {run.pairs_processed} processed, "
        f"{run.pairs_skipped} skipped{f' ({skipped})' if skipped else ''}; "
        f"{run.memories_created} created, {run.memories_updated} updated, "
        f"{run.chats_processed} chats; {run.llm_calls} LLM calls, "
        f"{run.prompt_tokens}+{run.completion_tokens} tokens"
    )


def runs(
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="How many runs.")] = 20,
    run_id: Annotated[
        str | None, typer.Option("--run", metavar="ID", help="Show one run's errors (id prefix).")
    ] = None,
    parked: Annotated[
        bool, typer.Option("--parked", help="List pairs whose batch failed, parked or waiting.")
    ] = False,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Extraction run history (newest first), one run's errors, or failing pairs."""
    with open_memoryd(db) as md:
        if parked:
            failures = md.extraction_failures()
            if as_json:
                emit_json(failures)
                return
            table = make_table(
                "Pairs with failed batches",
                ["user", "workspace", "attempts", "next try", "parked", "last error"],
            )
            for row in failures:
                table.add_row(
                    cell(row["user_name"]),
                    cell(row["workspace"]),
                    cell(row["attempts"]),
                    cell(row["next_attempt_at"]),
                    cell("yes" if row["parked"] else "no"),
                    cell(row["last_error"]),
                )
            console().print(table)
            return
        history = md.extraction_runs(limit if run_id is None else 10_000)
    if run_id is not None:
        matching = [r for r in history if r.id.startswith(run_id)]
        if len(matching) != 1:
            fail(f"no single run matches {run_id!r}")
        history = matching
    if as_json:
        emit_json([r.to_dict() for r in history])
        return
    if run_id is not None:
        run = history[0]
        echo(_run_summary(run))
        for error in run.errors:
            echo(
                f"- [{error['kind']}] user {error['user_id']}/{error['workspace']}: "
                f"{error.get('error') or error.get('change')}"
            )
        return
    table = make_table(
        "Extraction runs",
        [
            "run",
            "started",
            "trigger",
            "status",
            "pairs",
            "memories",
            "chats",
            "LLM calls",
            "tokens",
            "errors",
        ],
    )
    for run in history:
        table.add_row(
            cell(run.id[:8]),
            cell(run.started_at),
            cell(run.trigger),
            cell(run.status),
            cell(f"{run.pairs_processed}/{run.pairs_seen} ({run.pairs_skipped} skipped)"),
            cell(f"+{run.memories_created} ~{run.memories_updated}"),
            cell(run.chats_processed),
            cell(run.llm_calls),
            cell(f"{run.prompt_tokens}+{run.completion_tokens}"),
            cell(sum(e["kind"] == "pair" for e in run.errors)),
        )
    console().print(table)
