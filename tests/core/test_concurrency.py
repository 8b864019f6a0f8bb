"""R1 under concurrent writers: racing for the last slots ends with exactly the limit.

Threads share one process; processes each open their own Memoryd on the same database,
as several API processes would. Both run on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import multiprocessing as mp
import threading
from functools import partial

import pytest

from memoryd import Memoryd, ScopeFull
from memoryd.models.embedding.minilm import MiniLMEmbedder
from support.threads import run_threads


def _attempt(md: Memoryd, user_id: int, text: str, workspace: str | None) -> str:
    try:
        md.add_memory(user_id, text, workspace=workspace)
        return "ok"
    except ScopeFull:
        return "full"


@pytest.mark.parametrize("workspace", [None, "phoenix"])
def test_threads_racing_for_last_slots(
    any_md: Memoryd, embedder: MiniLMEmbedder, workspace: str | None
) -> None:
    any_md.create_workspace("phoenix")
    uid = any_md.create_user("racer").id
    limit = 5 if workspace is None else 20
    for i in range(limit - 2):  # two slots left
        any_md.add_memory(uid, f"existing {i}", workspace=workspace)
    barrier = threading.Barrier(12, timeout=60)

    def worker(n: int) -> str:
        barrier.wait()
        return _attempt(any_md, uid, f"racing fact {n}", workspace)

    results = run_threads([partial(worker, n) for n in range(12)])
    assert sorted(results) == ["full"] * 10 + ["ok"] * 2
    assert (
        len(any_md.list_memories(uid, scope="global" if workspace is None else "workspace"))
        == limit
    )


def _process_worker(url: str, user_id: int, n: int, start: object, out: object) -> None:
    md = Memoryd(url)
    md.embedder.embed(["warm"])  # load the model before the race starts
    start.wait()  # type: ignore[attr-defined]
    result = _attempt(md, user_id, f"process fact {n}", None)
    out.put(result)  # type: ignore[attr-defined]
    md.close()


def test_processes_racing_for_the_last_slot(any_md: Memoryd) -> None:
    uid = any_md.create_user("racer").id
    for i in range(4):  # one global slot left
        any_md.add_memory(uid, f"existing {i}")
    ctx = mp.get_context("spawn")
    start = ctx.Barrier(4)
    out = ctx.Queue()
    procs = [
        ctx.Process(target=_process_worker, args=(any_md.url, uid, n, start, out)) for n in range(4)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0] * len(procs)  # every process finished cleanly
    results = sorted(out.get(timeout=5) for _ in procs)
    assert results == ["full", "full", "full", "ok"]
    assert len(any_md.list_memories(uid, scope="global")) == 5


def test_promote_races_for_the_last_global_slot(any_md: Memoryd) -> None:
    any_md.create_workspace("phoenix")
    uid = any_md.create_user("racer").id
    for i in range(4):
        any_md.add_memory(uid, f"g{i}")
    candidates = [any_md.add_memory(uid, f"w{i}", workspace="phoenix").id for i in range(8)]
    barrier = threading.Barrier(len(candidates), timeout=60)

    def worker(memory_id: str) -> str:
        barrier.wait()
        try:
            any_md.promote(uid, memory_id)
            return "ok"
        except ScopeFull:
            return "full"

    results = run_threads([partial(worker, m) for m in candidates])
    assert sorted(results) == ["full"] * (len(candidates) - 1) + ["ok"]
    assert len(any_md.list_memories(uid, scope="global")) == 5
