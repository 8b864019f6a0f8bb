"""R1 across processes on PostgreSQL: many API-like processes, one user's limits.

tests/core/test_concurrency.py races threads, and four processes for one last global
slot. Here four processes each open their own Memoryd (as ``memoryd serve --workers N``
does) and hammer one user: filling both scopes from empty, then churning (delete one,
add one, promote, demote) while the test process samples the counts in their own
snapshots. The limits must hold at every sample and end exact.
"""

from __future__ import annotations

import multiprocessing as mp
import random
import time
from typing import Any

import pytest

from memoryd import DuplicateMemory, InvalidScope, Memoryd, NotFound, Scope, ScopeFull
from support.scale import HashEmbedder, assert_storage_consistent

pytestmark = pytest.mark.postgres

PROCESSES = 4
_keep_alive: list[Any] = []


def _fill(url: str, user_id: int, n: int, start: Any, out: Any) -> None:
    md = Memoryd(url, embedder=HashEmbedder())
    md.db  # noqa: B018 - connect before the race starts
    start.wait()
    results = []
    for i in range(8):
        scope, workspace = ("global", None) if i % 4 == 0 else ("workspace", "phoenix")
        try:
            md.add_memory(user_id, f"process {n} fact {i}", scope, workspace)
            results.append(f"{scope} ok")
        except ScopeFull:
            results.append(f"{scope} full")
    out.put(results)
    md.close()


def _spawn(target: Any, url: str, user_id: int, extra: Any = None) -> tuple[list[Any], Any]:
    """Start the processes; each waits at a shared barrier before its first write."""
    ctx = mp.get_context("spawn")
    start = ctx.Barrier(PROCESSES)
    out = ctx.Queue()
    args = (url, user_id) if extra is None else (url, user_id, extra)
    procs = [ctx.Process(target=target, args=(*args, n, start, out)) for n in range(PROCESSES)]
    for p in procs:
        p.start()
    _keep_alive.append(start)  # the barrier must outlive the children's start-up
    return procs, out


def _join(procs: list[Any], out: Any) -> list[Any]:
    results = [out.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(30)
        assert p.exitcode == 0
    return results


def test_processes_fill_both_scopes_to_exactly_the_limit(pg_md: Memoryd) -> None:
    pg_md.create_workspace("phoenix")
    uid = pg_md.create_user("racer").id
    procs, out = _spawn(_fill, pg_md.url, uid)
    results = [r for batch in _join(procs, out) for r in batch]
    # 4 processes x (2 global + 6 workspace) attempts for 5 + 20 slots
    assert results.count("global ok") == 5
    assert results.count("workspace ok") == 20
    assert len(pg_md.list_memories(uid, "global")) == 5
    assert len(pg_md.list_memories(uid, "workspace", "phoenix")) == 20
    assert_storage_consistent(pg_md)


def _churn(url: str, user_id: int, seconds: float, n: int, start: Any, out: Any) -> None:
    md = Memoryd(url, embedder=HashEmbedder())
    md.db  # noqa: B018
    rng = random.Random(n)
    start.wait()
    done: dict[str, int] = {}
    deadline = time.monotonic() + seconds
    step = 0
    while time.monotonic() < deadline:
        step += 1
        action = rng.choice(["add", "add", "delete", "promote", "demote"])
        try:
            if action == "add":
                scope = rng.choice(["global", "workspace"])
                ws = "phoenix" if scope == "workspace" else None
                md.add_memory(user_id, f"p{n} s{step}", scope, ws)
            else:
                target = rng.choice(md.list_memories(user_id))
                if action == "delete":
                    md.delete_memory(user_id, target.id)
                elif action == "promote":
                    md.promote(user_id, target.id)
                else:
                    md.demote(user_id, target.id, "phoenix")
            outcome = f"{action} ok"
        except (ScopeFull, NotFound, InvalidScope, DuplicateMemory, IndexError) as exc:
            outcome = f"{action} {type(exc).__name__}"
        done[outcome] = done.get(outcome, 0) + 1
    out.put(done)
    md.close()


def test_churn_never_exceeds_the_limits(pg_md: Memoryd) -> None:
    pg_md.create_workspace("phoenix")
    uid = pg_md.create_user("churner").id
    for i in range(4):
        pg_md.add_memory(uid, f"seed global {i}")
    for i in range(18):
        pg_md.add_memory(uid, f"seed workspace {i}", workspace="phoenix")
    with pg_md.db.read() as repo:
        phoenix = repo.workspace_id("phoenix")
    procs, out = _spawn(_churn, pg_md.url, uid, 4.0)
    samples = 0
    while any(p.is_alive() for p in procs) and samples < 10_000:
        with pg_md.db.read() as repo:  # each count is one consistent snapshot
            in_global = repo.count_memories(uid, Scope.GLOBAL, None)
            in_phoenix = repo.count_memories(uid, Scope.WORKSPACE, phoenix)
        assert in_global <= 5 and in_phoenix <= 20, (in_global, in_phoenix)
        samples += 1
    totals: dict[str, int] = {}
    for done in _join(procs, out):
        for key, count in done.items():
            totals[key] = totals.get(key, 0) + count
    assert samples > 20
    # the race was real: every kind of change happened, and some were refused as full
    for action in ("add", "delete", "promote", "demote"):
        assert totals.get(f"{action} ok", 0) > 0, totals
    assert totals.get("add ScopeFull", 0) + totals.get("promote ScopeFull", 0) > 0, totals
    assert_storage_consistent(pg_md)
