"""One BLAS thread for memoryd's matrix products.

A turn's matrix products are small (20 memory vectors against a few query parts, and the
answer bank's 1,805 example questions), and a server already runs one turn per core.
Yet numpy's OpenBLAS splits any product past a size threshold across all cores, and on
a 2-core machine where the other core is busy its helper thread waits to be scheduled:
with one other busy process, a turn's p50 went from 4.6 to 17.6 ms (its CPU time from
4.4 to 7.1 ms; BENCHMARKS.md, issue 11). So the first turn that reranks sets numpy's
OpenBLAS to one thread. OpenBLAS has only a process-wide setting, so this applies to the
whole process: an application that wants BLAS threads for its own numpy work sets
``OPENBLAS_NUM_THREADS`` itself, and memoryd then leaves BLAS alone.

Linux with numpy's OpenBLAS only; anywhere else this does nothing.
"""

from __future__ import annotations

import ctypes
import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger("memoryd")

SETTERS = ("scipy_openblas_set_num_threads64_", "openblas_set_num_threads64_",
           "openblas_set_num_threads")  # fmt: skip
_lock = threading.Lock()
_done = False


def find_setter() -> Callable[[int], None] | None:
    """numpy's OpenBLAS ``set_num_threads``, unless the user chose a thread count."""
    if os.environ.get("OPENBLAS_NUM_THREADS"):
        return None
    import numpy  # noqa: F401  (loads its OpenBLAS)

    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        return None
    paths = {line.split()[-1] for line in maps.splitlines() if "openblas" in line.lower()}
    for path in sorted(paths):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for name in SETTERS:
            setter = getattr(lib, name, None)
            if setter is not None:
                setter.argtypes = [ctypes.c_int]
                setter.restype = None
                return setter  # type: ignore[no-any-return]
    return None


def one_blas_thread() -> None:
    """Set numpy's OpenBLAS to one thread, once per process (see the module docstring)."""
    global _done
    if _done:
        return
    with _lock:
        if _done:
            return
        _done = True
        try:
            setter = find_setter()
            if setter is not None:
                setter(1)
        except Exception as exc:  # only a speed-up
            log.debug("could not limit BLAS threads: %s", exc)
