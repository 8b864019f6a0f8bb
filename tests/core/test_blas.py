"""memoryd runs numpy's OpenBLAS on one thread once it reranks (memoryd.blas), unless the
user chose a thread count."""

from __future__ import annotations

import ctypes
from pathlib import Path

import pytest

from memoryd import Memoryd, blas


def _blas_threads() -> int | None:
    """OpenBLAS's thread count, or None without numpy's OpenBLAS."""
    maps = Path("/proc/self/maps").read_text() if Path("/proc/self/maps").exists() else ""
    for path in sorted({ln.split()[-1] for ln in maps.splitlines() if "openblas" in ln}):
        lib = ctypes.CDLL(path)
        for name in ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads"):
            getter = getattr(lib, name, None)
            if getter is not None:
                return int(getter())
    return None


def test_a_turn_that_reranks_sets_blas_to_one_thread(
    md: Memoryd, monkeypatch: pytest.MonkeyPatch
) -> None:
    setter = blas.find_setter()
    if setter is None or _blas_threads() is None:
        pytest.skip("no numpy OpenBLAS to configure here")
    setter(2)  # as a fresh process on two cores has it
    monkeypatch.setattr(blas, "_done", False)
    uid = md.create_user("alice").id
    md.create_workspace("alpha")
    for i in range(7):  # more than 5: the reranker runs
        md.add_memory(uid, f"The alpha project uses tool {i}", workspace="alpha")
    assert _blas_threads() == 2
    md.context(uid, "alpha", "Which tool does alpha use?")
    assert _blas_threads() == 1


def test_a_thread_count_the_user_chose_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "4")
    assert blas.find_setter() is None
