"""How long extraction run history is kept, and pruning it (``run_retention_days``).

``prune_runs`` deletes finished and interrupted runs started more than the retention ago,
keeping runs in progress and each (user, workspace) pair's newest run; ``memoryd runs
prune`` calls it by hand, ``PruneTimer`` the in-process scheduler at most once per
``PRUNE_EVERY``, and the queue workers an hourly task (``memoryd.scale.tasks``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from memoryd.domain import runtime_settings
from memoryd.domain.errors import InvalidInput
from memoryd.extraction.runs import STALE_FLOOR
from memoryd.storage import run_retention
from memoryd.storage.database import Database

log = logging.getLogger("memoryd.extraction")

PRUNE_EVERY = timedelta(hours=1)


@dataclass(frozen=True)
class RunPrune:
    """What one prune did (or, with ``dry_run``, would do)."""

    days: int  # the retention applied; 0 keeps every run (nothing was looked at)
    cutoff: datetime | None  # runs started before this were candidates
    dry_run: bool
    rows: dict[str, int]  # rows removed (or that would be) per table

    @property
    def total(self) -> int:
        return sum(self.rows.values())

    def to_dict(self) -> dict[str, object]:
        return {
            "older_than_days": self.days,
            "cutoff": self.cutoff.isoformat() if self.cutoff else None,
            "dry_run": self.dry_run,
            "rows": dict(self.rows),
        }


def check_days(value: object) -> int:
    """An explicit age limit: 1 day to ten years (0 would mean "keep all" as a setting)."""
    top = runtime_settings.MAX_RETENTION_DAYS
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= top:
        raise InvalidInput(
            f"the age of runs to delete must be a number of days from 1 to {top}, got "
            f"{value!r} (to keep every run, set run_retention_days to 0)"
        )
    return value


def prune_runs(
    db: Database, now: datetime, older_than_days: int | None = None, *, dry_run: bool = False
) -> RunPrune:
    """Delete (or count, with ``dry_run``) finished or interrupted runs started more
    than ``older_than_days`` before ``now`` (default: the ``run_retention_days`` setting,
    whose 0 prunes nothing), except each pair's newest run."""
    given = None if older_than_days is None else check_days(older_than_days)
    empty = dict.fromkeys(run_retention.PRUNED_TABLES, 0)
    with db.read() if dry_run else db.write() as repo:
        if given is None:
            spec = runtime_settings.RUN_RETENTION_DAYS
            days = int(repo.get_settings().get(spec.key, spec.default))
        else:
            days = given
        if days == 0:
            return RunPrune(0, None, dry_run, empty)
        cutoff = now - timedelta(days=days)
        rows = run_retention.prune(
            repo.conn, cutoff, now=now, legacy_stale=STALE_FLOOR, dry_run=dry_run
        )
    return RunPrune(days, cutoff, dry_run, {**empty, **rows})


class PruneTimer:
    """Prunes with the setting's retention, at most once per ``every`` (one process)."""

    def __init__(self, every: timedelta = PRUNE_EVERY) -> None:
        self.every = every
        self.last: datetime | None = None

    def due(self, now: datetime) -> bool:
        return self.last is None or now - self.last >= self.every

    def maybe_prune(self, db: Database, now: datetime) -> RunPrune | None:
        """Prune if due; a failure is logged and retried at the next call."""
        if not self.due(now):
            return None
        try:
            done = prune_runs(db, now)
        except Exception:  # retention must never stop extraction
            log.exception("pruning the extraction run history failed")
            return None
        self.last = now
        if done.total:
            log.info("deleted %d extraction runs older than %d days", done.total, done.days)
        return done
