"""``memoryd extract`` and ``memoryd runs``: learn memories from chats now, and the history.

``extract`` runs the background scheduler's pipeline in the foreground, with progress on
stderr; ``runs`` reads the run history it and the scheduler leave.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperGroup, TyperOption

from memoryd.cli.common import (
    EXIT_FAILURE,
    Column,
    DbOption,
    JsonOption,
    column_table,
    console,
    echo,
    emit_json,
    find_user,
    note,
    open_memoryd,
    print_table,
    typed,
    workspace_option,
)
from memoryd.domain.errors import InvalidInput

if TYPE_CHECKING:
    from rich.table import Table

    from memoryd.extraction.pipeline import PairResult
    from memoryd.extraction.runs import Run


def calls_text(calls: int, failed: int, *, unit: bool = True) -> str:
    from memoryd.extraction.runs import calls_text as in_words

    return in_words(calls, failed, unit=unit)


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
        f"{_waiting(len(result.suggested))}{len(result.chats_processed)} chats processed"
    )


def _waiting(suggested: int) -> str:
    """ "N suggested for review, " when extraction filed suggestions (memory_review)."""
    return f"{suggested} suggested for review, " if suggested else ""


def extract(
    user: Annotated[
        str | None, typer.Option("--user", "-u", metavar="NAME", help="Only this user's pair.")
    ] = None,
    workspace: Annotated[str | None, workspace_option("Only this workspace's pair.")] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Ignore the idle threshold and message minimum.")
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Call the LLM but write nothing; print the plan.")
    ] = False,
    ask_questions: Annotated[
        int | None,
        typer.Option(
            "--ask-questions",
            metavar="N",
            min=0,
            help="After the pairs, ask up to N memories the questions they answer, two LLM "
            "calls each "
            "(default: MEMORYD_QUESTION_MEMORIES_PER_RUN, 50; 0: none).",
        ),
    ] = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Extract memories from unprocessed chats now: every due pair, or one pair.

    Naming a pair (--user and --workspace) also retries it when it is parked. Then the
    run asks memories not asked yet (the pair's user's, or anyone's) for the questions
    they answer; a dry run does not.
    """
    if (user is None) != (workspace is None):
        raise InvalidInput("give both --user and --workspace, or neither")
    with open_memoryd(db) as md:
        asking = md.settings.question_memories_per_run if ask_questions is None else ask_questions
        names = {u.id: u.name for u in md.list_users()}
        results: list[PairResult] = []

        def progress(result: PairResult, index: int, total: int) -> None:
            results.append(result)
            if not as_json:
                note(f"[{index}/{total}] {_pair_line(result, names)}")

        def starting(user_id: int, slug: str, index: int, total: int) -> None:
            if not as_json:
                note(f"[{index}/{total}] {names.get(user_id, user_id)}/{slug}: extracting...")

        how: dict[str, Any] = {"force": force, "dry_run": dry_run, "ask_questions": asking}
        how |= {"on_pair": progress, "on_pair_start": starting}
        if user is not None and workspace is not None:
            md.extract(find_user(md, user).id, workspace, **how)
            run = md.extraction_runs(1)[0] if not dry_run else None
        else:
            if not as_json:
                note("looking for due pairs...")
            run = md.extract(**how)
    if dry_run:
        run = None  # never stored: no id that `memoryd runs` would not know
    if as_json:
        pairs = [r.to_dict() for r in results]
        emit_json({"dry_run": dry_run, "run": run.to_dict() if run else None, "pairs": pairs})
    else:
        if dry_run:
            for result in results:
                for line in _dry_run_lines(result, names):
                    echo(line)
            echo(_dry_run_summary(results))
        elif run is not None:
            echo(_run_summary(run))
        if not results:
            echo("no pair is due")
        questions = [e for e in run.errors if e.get("kind") == "questions"] if run else []
        for error in questions:  # the questions pass's errors fail nothing
            note(f"warning: {error['error']}")
        refused = [r.error for r in results if r.stopped_by]
        if refused:  # the one line that says what to change
            note(f"error: {refused[0]}; no attempt was counted on the pair, its chats wait")
    if any(r.error for r in results):
        raise typer.Exit(EXIT_FAILURE)


def _dry_run_lines(result: PairResult, names: dict[int, str]) -> list[str]:
    """What extraction would do for one pair: each change, then what it would leave out."""
    who = f"{names.get(result.user_id, result.user_id)}/{result.workspace}"
    if result.status == "skipped" or result.error:
        return []
    lines = [f"{who}: would {change}" for change in result.planned]
    lines += [f"{who}: would drop {item}" for item in result.rejected]
    lines += [f"{who}: would not store {item}" for item in result.not_stored]
    return lines or [f"{who}: nothing to change"]


def _dry_run_summary(results: list[PairResult]) -> str:
    planned = sum(len(r.planned) for r in results)
    dropped = sum(len(r.rejected) for r in results)
    calls = calls_text(sum(r.usage.calls for r in results), sum(r.usage.failed for r in results))
    tokens = (
        f"{sum(r.usage.prompt_tokens for r in results)}"
        f"+{sum(r.usage.completion_tokens for r in results)}"
    )
    return (
        f"dry run: nothing was written and no run was recorded; {len(results)} pair(s), "
        f"{planned} change(s) planned, {dropped} fact(s) dropped; {calls}, {tokens} tokens"
    )


def _run_summary(run: Run) -> str:
    skipped = ", ".join(f"{n} {reason}" for reason, n in sorted(run.skipped_reasons.items()))
    return (
        f"run {run.id[:8]}: {run.pairs_seen} pair(s) seen, {run.pairs_processed} processed, "
        f"{run.pairs_skipped} skipped{f' ({skipped})' if skipped else ''}; "
        f"{run.memories_created} created, {run.memories_updated} updated, "
        f"{_waiting(run.memories_suggested)}{run.chats_processed} chats, "
        f"{run.memories_questioned} asked for questions; "
        f"{calls_text(run.llm_calls, run.llm_calls_failed)}, "
        f"{run.prompt_tokens}+{run.completion_tokens} tokens; status {run.status} "
        f"({run.pairs_failed} pair(s) failed, {run.facts_dropped} fact(s) dropped, "
        f"{run.facts_not_stored} not stored)"
        + (f"\ninterrupted: {run.status_note}" if run.status_note else "")
    )


def _run_origin(run: Run) -> str:
    """When a run ran, what started it and with which LLM (for ``runs --run``)."""
    finished = f"{run.finished_at:%Y-%m-%d %H:%M:%S} UTC" if run.finished_at else "never"
    if run.finished_at is None and run.status == "running":
        finished = "not yet"
    llm = " ".join(part for part in (run.provider, run.model) if part) or "unknown"
    return (
        f"started {run.started_at:%Y-%m-%d %H:%M:%S} UTC ({run.trigger}), finished {finished}; "
        f"LLM: {llm}" + ("; dry run" if run.dry_run else "")
    )


class RunsGroup(TyperGroup):
    """``memoryd runs ID`` is ``memoryd runs --run ID``: the first word that is neither an
    option, an option's value nor a subcommand names the run to show."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        valued = {o for p in self.params if isinstance(p, TyperOption) and not p.is_flag
                  for o in p.opts}  # fmt: skip
        at = 0
        while at < len(args) and args[at] != "--":
            if not args[at].startswith("-"):
                if args[at] not in self.commands:
                    args = [*args[:at], "--run", *args[at:]]
                break
            at += 2 if args[at] in valued else 1
        return super().parse_args(ctx, args)


runs_app = typer.Typer(
    cls=RunsGroup,
    invoke_without_command=True,
    no_args_is_help=False,
    subcommand_metavar="[ID | COMMAND]",
)


@runs_app.callback()
def runs(
    ctx: typer.Context,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="How many runs.")] = 20,
    run_id: Annotated[
        str | None,
        typer.Option(
            "--run",
            metavar="ID",
            help="Show one run: every pair and error (id prefix); `memoryd runs ID` too.",
        ),
    ] = None,
    parked: Annotated[
        bool, typer.Option("--parked", help="List pairs whose batch failed, parked or waiting.")
    ] = False,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Extraction run history (newest first), one run in detail, or failing pairs.

    A run's status is running, ok, errors (a pair's batch failed) or interrupted (the
    process running it stopped before it finished; a later run extracts what it left).
    LLM calls counts every call made; "(N failed)" are those that got no answer (an
    HTTP error, a timeout, a server that cannot be reached). Memories reads +created
    ~updated, and ?suggested when changes wait for the user's review (memory_review).
    Times are UTC.
    Runs older than the run_retention_days setting are deleted by themselves, hourly.
    """
    if ctx.invoked_subcommand is not None:
        if typed(ctx, ("limit", "run_id", "parked")):
            raise InvalidInput(
                f"--limit, --run and --parked list runs; give them without "
                f"`{ctx.invoked_subcommand}`"
            )
        ctx.obj = {"db": db, "as_json": as_json}
        return
    if parked and run_id is not None:
        raise InvalidInput("give --run ID or --parked, not both")
    with open_memoryd(db) as md:
        if parked:
            failures = md.extraction_failures()
            if as_json:
                emit_json(failures)
                return
            if not failures:
                echo("No pair has a failed batch: none is waiting for a retry or parked.")
                return
            columns = ["user", "workspace", "attempts", "next try", "parked", "last error"]
            rows = [
                (
                    r["user_name"],
                    r["workspace"],
                    r["attempts"],
                    r["next_attempt_at"],
                    "yes" if r["parked"] else "no",
                    r["last_error"],
                )
                for r in failures
            ]
            print_table("Pairs with failed batches (times in UTC)", columns, rows)
            return
        if run_id is not None:
            history = [md.extraction_run(run_id)]
            names = {u.id: u.name for u in md.list_users()}
        else:
            history = md.extraction_runs(limit)
    if as_json:
        emit_json([r.to_dict() for r in history])
        return
    if run_id is not None:
        run = history[0]
        echo(_run_summary(run))
        echo(_run_origin(run))
        for pair in run.pairs:
            echo(_outcome_line(pair, names))
        for error in run.errors:
            uid, slug = error.get("user_id"), error.get("workspace")
            who = names.get(uid, f"user {uid}") if isinstance(uid, int) else f"user {uid}"
            where = "run" if uid is None and slug is None else f"{who}/{slug}"
            what = error.get("error") or error.get("change")
            held = " -- parked until retried by hand" if error.get("parked") else ""
            echo(f"- [{error['kind']}] {where}: {what}{held}")
        return
    if not history:
        echo("No extraction run is recorded yet; `memoryd extract` runs one now.")
        return
    out = console()
    out.print(_runs_table(history, out.width))


@runs_app.command("prune")
def prune(
    ctx: typer.Context,
    older_than: Annotated[
        int | None,
        typer.Option(
            "--older-than",
            metavar="DAYS",
            help="Delete runs started more than DAYS ago (default: the run_retention_days "
            "setting).",
        ),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Count what would be deleted; delete nothing.")
    ] = False,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Delete old extraction run history now (it is also deleted by itself, hourly).

    Finished and interrupted runs go; runs in progress and each user and workspace's
    newest run are kept, however old.
    """
    parent = ctx.obj if isinstance(ctx.obj, dict) else {}
    with open_memoryd(db or parent.get("db")) as md:
        done = md.prune_runs(older_than, dry_run=dry_run)
    if as_json or parent.get("as_json"):
        emit_json(done.to_dict())
    elif done.cutoff is None:
        echo(
            "run_retention_days is 0, so every run is kept: nothing removed "
            "(give --older-than DAYS to prune anyway)"
        )
    else:
        verb = "would remove" if dry_run else "removed"
        tables = ", ".join(f"{n} from {table}" for table, n in done.rows.items())
        echo(
            f"{verb} {done.total} row(s) ({tables}): finished or interrupted runs started "
            f"before {done.cutoff:%Y-%m-%d %H:%M} UTC (older than {done.days} days); runs in "
            "progress and each user and workspace's newest run are kept"
            + ("; dry run, nothing was deleted" if dry_run else "")
        )


# Narrower terminals get fewer columns (``--run ID`` and ``--json`` have everything), so
# what is shown fits without splitting a word: a header never breaks mid-word at 80.
WIDE_RUNS_TABLE = 130  # from here: LLM calls and tokens too
NARROW_RUNS_TABLE = 100  # below this: no trigger column


def _runs_table(history: list[Run], width: int) -> Table:
    columns: list[Column[Run]] = [
        ("run", True, lambda r: r.id[:8]),
        ("started", False, lambda r: f"{r.started_at:%Y-%m-%d %H:%M}"),
    ]
    if width >= NARROW_RUNS_TABLE:
        columns.append(("trigger", True, lambda r: r.trigger))
    columns += [
        ("status", True, lambda r: r.status),
        ("pairs", False, _pairs_cell),
        ("memories", True, _memories_cell),
        ("chats", True, lambda r: str(r.chats_processed)),
        ("failed", True, lambda r: str(r.pairs_failed)),
        ("dropped", True, lambda r: str(r.facts_dropped)),
    ]
    if width >= WIDE_RUNS_TABLE:
        columns += [
            ("LLM calls", True, lambda r: calls_text(r.llm_calls, r.llm_calls_failed, unit=False)),
            ("tokens", True, lambda r: f"{r.prompt_tokens}+{r.completion_tokens}"),
            ("asked", True, lambda r: str(r.memories_questioned)),
        ]
    title = "Extraction runs (times in UTC)"
    # one space between columns below NARROW_RUNS_TABLE: 80 fits
    return column_table(title, columns, history, collapse_padding=width < NARROW_RUNS_TABLE)


def _outcome_line(pair: dict[str, Any], names: dict[int, str]) -> str:
    who = f"{names.get(pair['user_id'], pair['user_id'])}/{pair['workspace']}"
    line = (
        f"* {who}: {pair['status']}: {len(pair['created'])} created, "
        f"{len(pair['updated'])} updated, {_waiting(len(pair.get('suggested', [])))}"
        f"{len(pair['chats_processed'])} chats, "
        f"{len(pair['dropped'])} dropped, {len(pair['not_stored'])} not stored, "
        + calls_text(pair.get("llm_calls", 0), pair.get("llm_calls_failed", 0))
    )
    return f"{line}; {pair['error']}" if pair.get("error") else line


def _memories_cell(run: Run) -> str:
    """+created ~updated, and ?suggested when changes wait for review."""
    cell = f"+{run.memories_created} ~{run.memories_updated}"
    return f"{cell} ?{run.memories_suggested}" if run.memories_suggested else cell


def _pairs_cell(run: Run) -> str:
    done = f"{run.pairs_processed}/{run.pairs_seen}"
    return f"{done} ({run.pairs_skipped} skipped)" if run.pairs_skipped else done
