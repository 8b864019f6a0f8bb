"""memoryd runs numpy's BLAS on one thread once it reranks (memoryd.models.blas), unless the user
chose a thread count."""

from __future__ import annotations

import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from memoryd import Memoryd
from memoryd.models import blas


def blas_threads() -> list[int]:
    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]


def seeded(md: Memoryd) -> int:
    uid = md.create_user("alice").id
    md.create_workspace("alpha")
    for i in range(7):  # more than 5: the reranker runs
        md.add_memory(uid, f"The alpha project uses tool {i}", workspace="alpha")
    return uid


def test_a_turn_that_reranks_sets_blas_to_one_thread(
    md: Memoryd, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not blas_threads():
        pytest.skip("numpy loaded no BLAS that threadpoolctl can configure")
    for name in blas.CHOSEN_BY_USER:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(blas, "_done", False)
    with threadpool_limits(limits=2, user_api="blas"):  # as a fresh process on two cores
        uid = seeded(md)
        assert set(blas_threads()) == {2}
        md.context(uid, "alpha", "Which tool does alpha use?")
        assert set(blas_threads()) == {1}


def test_a_thread_count_the_user_chose_is_left_alone(
    md: Memoryd, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not blas_threads():
        pytest.skip("numpy loaded no BLAS that threadpoolctl can configure")
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "2")
    monkeypatch.setattr(blas, "_done", False)
    with threadpool_limits(limits=2, user_api="blas"):
        uid = seeded(md)
        md.context(uid, "alpha", "Which tool does alpha use?")
        assert set(blas_threads()) == {2}
