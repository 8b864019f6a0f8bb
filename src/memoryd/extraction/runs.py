"""Run history and per-pair retry state, stored in the database (R9).

A run is one pass of extraction with its counters and errors; finishing it records it as
the newest run of each pair it processed, which retention never deletes. A pair's state
says how often its current batch failed, when it may be tried again, and whether it is
parked (until someone retries it by hand).

A run in progress proves it is alive (``Heartbeat``), so one whose process died is read
back as ``interrupted`` once its ``alive_until`` has passed: computed when runs are read,
so no sweeper is needed (docs/extraction.md, "Interrupted runs").
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from datetime import UTC, datetime, timedelta
from typing import Any

from memoryd.domain.errors import InvalidInput, NotFound
from memoryd.models.llm.json_output import Usage
from memoryd.storage import extraction_rows as rows
from memoryd.storage.database import Database
from memoryd.storage.extraction_rows import PairState, get_pair_state
from memoryd.storage.repository import Repository
from memoryd.storage.run_retention import record_last_runs

log = logging.getLogger("memoryd.extraction")

MAX_BACKOFF = timedelta(days=1)
MAX_STORED_ERRORS = 200
MAX_STORED_PAIRS = 200

RUNNING = "running"
INTERRUPTED = "interrupted"
# How long a run may go without a heartbeat before it counts as interrupted: at least
# STALE_FLOOR, and STALE_TIMEOUTS LLM timeouts (a batch is at most four bounded calls: the
# Observer and the Reflector, each asked once more after unusable output).
STALE_FLOOR = timedelta(minutes=15)
STALE_TIMEOUTS = 5


def calls_text(calls: int, failed: int, *, unit: bool = True) -> str:
    """LLM calls as the run history shows them: "3 LLM calls", "1 LLM call (1 failed)";
    without ``unit`` only the figures ("2 (2 failed)"), for a column named "LLM calls"."""
    text = f"{calls} LLM call{'' if calls == 1 else 's'}" if unit else str(calls)
    return f"{text} ({failed} failed)" if failed else text


def stale_after(llm_timeout: float) -> timedelta:
    """The staleness bound of a run whose LLM calls time out after ``llm_timeout`` s."""
    return max(STALE_FLOOR, timedelta(seconds=STALE_TIMEOUTS * llm_timeout))


@dataclass
class Run:
    """One extraction run and what it did; saved when it finishes.

    ``status`` is ``errors`` only when a pair's batch failed (``pairs_failed``); facts the
    pipeline refused (``facts_dropped``) or could not file (``facts_not_stored``) are it
    doing its job, counted apart. ``interrupted`` is a run stopped before it got through
    its pairs by an exception or Ctrl-C (``errors`` says why), or whose process died.
    ``pairs`` holds one outcome per pair processed, ``errors`` the itemised reasons.
    """

    id: str
    trigger: str
    started_at: datetime
    provider: str | None = None
    model: str | None = None
    dry_run: bool = False
    finished_at: datetime | None = None
    status: str = "running"
    pairs_seen: int = 0
    pairs_processed: int = 0
    pairs_skipped: int = 0
    skipped_reasons: dict[str, int] = field(default_factory=dict)
    memories_created: int = 0
    memories_updated: int = 0
    memories_suggested: int = 0  # changes waiting for the user's review (memory_review)
    chats_processed: int = 0
    llm_calls: int = 0  # every call made, answered or failed
    llm_calls_failed: int = 0  # of them, calls that got no answer (error, timeout...)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    errors: list[dict[str, Any]] = field(default_factory=list)
    pairs: list[dict[str, Any]] = field(default_factory=list)
    pairs_failed: int = 0
    facts_dropped: int = 0
    facts_not_stored: int = 0
    # memories each background pass derived a value for, by kind (extraction.memory_pass)
    memories_derived: dict[str, int] = field(default_factory=dict)
    heartbeat_at: datetime | None = None  # the run's last sign of life
    alive_until: datetime | None = None  # past this with no heartbeat: interrupted

    def settle(self) -> None:
        """Set the final status unless interrupted ("errors": a failed pair, refused
        LLM settings)."""
        if self.status != INTERRUPTED:
            refused = any(e.get("kind") == "config" for e in self.errors)
            self.status = "errors" if self.pairs_failed or refused else "ok"

    def interrupt(self, exc: BaseException, where: tuple[int, str] | None) -> None:
        """The run is stopping on ``exc`` while at pair ``where`` (None: between pairs)."""
        self.status = INTERRUPTED
        reason = "Ctrl-C" if isinstance(exc, KeyboardInterrupt) else f"{type(exc).__name__}"
        if str(exc):
            reason = f"{reason}: {exc}"
        user_id, workspace = where if where is not None else (None, None)
        self.errors.append(
            {"kind": "interrupted", "user_id": user_id, "workspace": workspace, "error": reason}
        )

    def read_at(self, now: datetime) -> Run:
        """This run as of ``now``: still "running" past its ``alive_until`` (or
        ``STALE_FLOOR`` after it started) means its process died: interrupted."""
        if self.status == RUNNING and self.finished_at is None:
            until = self.alive_until or self.started_at + STALE_FLOOR
            if until < now:
                self.status = INTERRUPTED
        return self

    @property
    def memories_questioned(self) -> int:
        """Memories the questions pass asked (``memories_derived``' questions)."""
        return self.memories_derived.get("questions", 0)

    @property
    def status_note(self) -> str | None:
        """Why an interrupted run is (None for the other statuses)."""
        if self.status != INTERRUPTED:
            return None
        retried = "the chats of the batch it was on stay unprocessed and a later run extracts them"
        if self.finished_at is None:
            last = self.heartbeat_at or self.started_at
            return (
                "the process running it stopped before it finished (its last sign of life: "
                f"{last:%Y-%m-%d %H:%M:%S} UTC); {retried}"
            )
        reasons = [e.get("error") for e in self.errors if e.get("kind") == INTERRUPTED]
        why = f" ({reasons[0]})" if reasons else ""
        return f"it stopped before it finished{why}; {retried}"

    def add_usage(self, usage: Usage) -> None:
        """Count the LLM calls and tokens of a pair or a pass."""
        self.llm_calls += usage.calls
        self.llm_calls_failed += usage.failed
        self.prompt_tokens += usage.prompt_tokens
        self.completion_tokens += usage.completion_tokens

    def skip(self, reason: str, count: int = 1) -> None:
        self.pairs_skipped += count
        self.skipped_reasons[reason] = self.skipped_reasons.get(reason, 0) + count

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for key in ("started_at", "finished_at", "heartbeat_at", "alive_until"):
            data[key] = data[key].isoformat() if data[key] else None
        data["status_note"] = self.status_note
        data["memories_questioned"] = self.memories_questioned
        return data


def new_run_id() -> str:
    return uuid.uuid4().hex


def start_run(db: Database, run: Run, stale: timedelta = STALE_FLOOR) -> Run:
    """Store ``run`` as running, alive until ``stale`` after it started."""
    run.heartbeat_at = run.started_at
    run.alive_until = run.started_at + stale
    values = asdict(run)
    with db.write() as repo:
        rows.insert_run(repo.conn, values)
    return run


def finish_run(db: Database, run: Run, now: datetime) -> Run:
    """Store the run's final counters and status (re-inserting it if retention pruned
    it while it looked interrupted) and record it as its pairs' newest run."""
    run.finished_at = run.heartbeat_at = now
    run.alive_until = None
    run.errors = run.errors[:MAX_STORED_ERRORS]
    run.pairs = run.pairs[:MAX_STORED_PAIRS]
    run.settle()
    values = asdict(run)
    values.pop("id")
    with db.write() as repo:
        if not rows.update_run(repo.conn, run.id, values):
            rows.insert_run(repo.conn, {"id": run.id, **values})
        record_last_runs(repo.conn, run.id, run.started_at, run.pairs)
    return run


# What a heartbeat with progress writes: the counters, not what is set at the start, nor
# what only finishing sets (with the lists a run can grow long: written once, at the end).
_SET_ONCE = frozenset(
    {"id", "trigger", "started_at", "provider", "model", "dry_run"}
    | {"status", "finished_at", "errors", "pairs"}
)
_PROGRESS = tuple(f.name for f in fields(Run) if f.name not in _SET_ONCE)


class Heartbeat:
    """Keeps a stored run alive while it works (see the module doc).

    ``beat()`` after each batch writes ``heartbeat_at`` and ``alive_until`` (now plus
    ``stale``); ``beat(progress=True)`` after each pair also writes the run's counters,
    so a run whose process dies shows what it had done. A failed write is logged and
    extraction goes on."""

    def __init__(
        self, db: Database, run: Run, clock: Callable[[], datetime], stale: timedelta
    ) -> None:
        self.db = db
        self.run = run
        self.clock = clock
        self.stale = stale

    def beat(self, *, progress: bool = False) -> None:
        run = self.run
        run.heartbeat_at = self.clock()
        run.alive_until = run.heartbeat_at + self.stale
        names = _PROGRESS if progress else ("heartbeat_at", "alive_until")
        values = {name: getattr(run, name) for name in names}
        try:
            with self.db.write() as repo:
                rows.update_run(repo.conn, run.id, values, unfinished=True)
        except Exception:  # a missed heartbeat must not stop the run
            log.warning("could not record the heartbeat of run %s", run.id, exc_info=True)


def _run(row: dict[str, Any], now: datetime | None) -> Run:
    return Run(**row).read_at(now or datetime.now(UTC))


def list_runs(db: Database, limit: int = 20, *, now: datetime | None = None) -> list[Run]:
    """The latest runs, newest first, with their status as of ``now`` (default: the
    current time): a run whose process died reads as interrupted."""
    with db.read() as repo:
        return [_run(r, now) for r in rows.run_rows(repo.conn, limit)]


def get_run(db: Database, run_id: str, *, now: datetime | None = None) -> Run | None:
    """One run by its id, with its status as of ``now`` (see ``list_runs``)."""
    with db.read() as repo:
        row = rows.run_row(repo.conn, run_id)
    return _run(row, now) if row else None


def find_run(db: Database, given: str, min_prefix: int = 6, *, now: datetime | None = None) -> Run:
    """A run by its full id or a unique prefix of at least ``min_prefix`` characters."""
    found = get_run(db, given, now=now)
    if found is not None:
        return found
    if len(given) < min_prefix:
        raise InvalidInput(
            f"run id {given!r} is too short: give the full id or a unique prefix of at "
            f"least {min_prefix} characters"
        )
    with db.read() as repo:
        matches = rows.run_rows(repo.conn, 2, prefix=given)
    if len(matches) == 1:
        return _run(matches[0], now)
    if len(matches) > 1:
        raise InvalidInput(f"run id prefix {given!r} is ambiguous; give more characters")
    raise NotFound(f"no extraction run {given!r}")


def backoff_delay(attempts: int, base_seconds: float) -> timedelta:
    """Exponential: base, 2*base, 4*base ... capped at one day."""
    delay = timedelta(seconds=base_seconds * 2 ** max(0, attempts - 1))
    return min(delay, MAX_BACKOFF)


def record_failure(
    repo: Repository,
    user_id: int,
    workspace_id: int,
    *,
    error: str,
    chat_ids: list[int],
    run_id: str,
    now: datetime,
    max_attempts: int,
    backoff_seconds: float,
) -> PairState:
    """Count one more failed attempt; park the pair after ``max_attempts``."""
    before = get_pair_state(repo.conn, user_id, workspace_id)
    attempts = (before.attempts if before else 0) + 1
    values = {
        "attempts": attempts,
        "next_attempt_at": now + backoff_delay(attempts, backoff_seconds),
        "parked": attempts >= max_attempts,
        "last_error": error[:2000],
        "last_run_id": run_id,
        "failed_chat_ids": chat_ids,
        "updated_at": now,
    }
    rows.put_pair_state(repo.conn, user_id, workspace_id, values, new=before is None)
    state = get_pair_state(repo.conn, user_id, workspace_id)
    assert state is not None
    return state


def list_pair_states(db: Database, *, parked_only: bool = False) -> list[dict[str, Any]]:
    """Pairs with failed attempts (for admins): who, where, how often, and the last error."""
    with db.read() as repo:
        return rows.pair_state_rows(repo.conn, parked_only=parked_only)
