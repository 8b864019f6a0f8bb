"""One BLAS thread for memoryd's matrix products.

A turn's matrix products are small (20 memory vectors and their questions against a few
query parts), and a server already runs one turn per core.
Yet numpy's BLAS splits any product past a small size across all cores, and on a 2-core
machine where the other core is busy its helper thread waits to be scheduled: with one
other busy process, a turn's p50 went from 4.6 to 17.6 ms (its CPU time from 4.4 to 7.1
ms; BENCHMARKS.md, issue 11). So the first turn that reranks limits the BLAS libraries
numpy loaded to one thread, with ``threadpoolctl`` (OpenBLAS, MKL, BLIS, on any OS).
BLAS has only a process-wide setting, so this applies to the whole process: an
application that wants BLAS threads for its own numpy work sets ``OPENBLAS_NUM_THREADS``,
``MKL_NUM_THREADS`` or ``OMP_NUM_THREADS`` itself, and memoryd then leaves BLAS alone.
"""

from __future__ import annotations

import logging
import os
import threading

log = logging.getLogger("memoryd")

CHOSEN_BY_USER = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
                  "OMP_NUM_THREADS")  # fmt: skip
_lock = threading.Lock()
_done = False


def user_chose_threads() -> bool:
    return any(os.environ.get(name) for name in CHOSEN_BY_USER)


def one_blas_thread() -> None:
    """Limit numpy's BLAS to one thread, once per process (see the module docstring)."""
    global _done
    if _done:
        return
    with _lock:
        if _done:
            return
        _done = True
        if user_chose_threads():
            return
        try:
            import numpy  # noqa: F401  (loads its BLAS, so threadpoolctl finds it)
            from threadpoolctl import threadpool_limits

            threadpool_limits(limits=1, user_api="blas")
        except Exception as exc:  # only a speed-up
            log.debug("could not limit BLAS threads: %s", exc)
