"""The code-side rules of ``memoryd.extraction.decide`` that need no LLM."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from memoryd.domain.models import Memory, Scope, Source
from memoryd.extraction.decide import adds_details, handles_for

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def memory(n: int, scope: Scope) -> Memory:
    return Memory(
        id=f"id{n}",
        user_id=1,
        scope=scope,
        workspace=None if scope is Scope.GLOBAL else "lab",
        content=f"fact {n}",
        source=Source.USER,
        created_at=T0 + timedelta(minutes=n),
        updated_at=T0,
    )


def test_handles_are_short_per_scope_and_by_age() -> None:
    stored = [memory(3, Scope.WORKSPACE), memory(1, Scope.GLOBAL), memory(2, Scope.WORKSPACE)]
    handles = handles_for(stored)
    assert {h: m.id for h, m in handles.items()} == {"G1": "id1", "W1": "id2", "W2": "id3"}


def test_new_details_are_told_apart_from_rewording() -> None:
    old = "Atlas must be live for its first customers by March 14."
    assert adds_details("Atlas must be live for its first customers by March 28.", old)
    assert adds_details("Atlas must be live for its first customers in Berlin.", old)
    assert not adds_details("Atlas must be live for first customers by March 14", old)
    assert not adds_details("The user prefers Polars instead of pandas.",
                            "The user prefers Polars over pandas.")  # fmt: skip
