"""Run test workers in threads so that none can fail or hang unnoticed: every worker's
result comes back, an exception in any of them is raised in the test, and a worker that
does not finish in time fails the test."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from typing import TypeVar

T = TypeVar("T")


def run_threads(workers: Sequence[Callable[[], T]], timeout: float = 120) -> list[T]:
    """Start one thread per worker at once; return their results in order."""
    with ThreadPoolExecutor(max_workers=len(workers)) as pool:
        futures = [pool.submit(worker) for worker in workers]
        _, not_done = wait(futures, timeout=timeout)
        assert not not_done, f"{len(not_done)} of {len(futures)} threads did not finish"
        return [future.result() for future in futures]
