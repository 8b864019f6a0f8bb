"""One BLAS thread for memoryd's matrix products.

A turn's matrix products are small, and a server already runs one turn per core, yet
numpy's BLAS splits any product past a small size across all cores, whose helper threads
then wait to be scheduled on a busy machine (a turn went from 4.6 to 17.6 ms:
docs/reranking.md, "One BLAS thread"). So the first turn that reranks limits the BLAS
libraries numpy loaded to one thread, with ``threadpoolctl``, for the whole process,
unless the application set ``OPENBLAS_NUM_THREADS``, ``MKL_NUM_THREADS`` or
``OMP_NUM_THREADS`` itself.
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


def one_blas_thread() -> None:
    """Limit numpy's BLAS to one thread, once per process (see the module docstring)."""
    global _done
    if _done:
        return
    with _lock:
        if _done:
            return
        _done = True
        if any(os.environ.get(name) for name in CHOSEN_BY_USER):
            return
        try:
            import numpy  # noqa: F401  (loads its BLAS, so threadpoolctl finds it)
            from threadpoolctl import threadpool_limits

            threadpool_limits(limits=1, user_api="blas")
        except Exception as exc:  # only a speed-up
            log.debug("could not limit BLAS threads: %s", exc)
