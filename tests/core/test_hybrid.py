"""The default reranker's fusion of embedding scores with BM25 (issue 34)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import cast

from memoryd.domain.injection import Query, build_query
from memoryd.domain.models import Memory, Scope, Source
from memoryd.models.rerank import EmbeddingReranker, HybridReranker

NOW = datetime(2026, 1, 1, tzinfo=UTC)
POOL = [
    Memory(f"m{i}", 1, Scope.WORKSPACE, "w", text, Source.USER, NOW, NOW)
    for i, text in enumerate(
        (
            "The Phoenix launch date is September 30",
            "Daily standup is at 9:30 CET",
            "Marco owns the mobile app",
            "The design review happens every second Thursday",
        )
    )
]


class FixedDense:
    """Stands in for the embedding reranker: the same scores whatever the turn."""

    def __init__(self, scores: Sequence[float]) -> None:
        self.scores = list(scores)

    def warm(self, texts: Sequence[str]) -> None:
        pass

    def score(self, query: Query, memories: Sequence[Memory]) -> list[float]:
        return self.scores[: len(memories)]


def hybrid(scores: Sequence[float]) -> HybridReranker:
    return HybridReranker(cast(EmbeddingReranker, FixedDense(scores)))


def ranking(scores: Sequence[float], query: Query) -> list[str]:
    scores = hybrid(scores).score(query, POOL)
    return [m.id for _, m in sorted(zip(scores, POOL, strict=True), key=lambda p: -p[0])]


def test_bm25_moves_memories_by_the_same_share_whatever_the_embedders_scale() -> None:
    query = build_query("Who owns the mobile app?")
    cosines = [0.50, 0.46, 0.40, 0.20]  # MiniLM-like spread
    compressed = [0.8 + c / 6 for c in cosines]  # e5-like: same order, a sixth of the spread
    assert ranking(cosines, query) == ranking(compressed, query)
    assert ranking(cosines, query)[:2] == ["m2", "m0"]  # the named one moves up


def test_the_words_decide_when_the_dense_scores_tell_nothing_apart() -> None:
    query = build_query("When is the standup?")
    assert ranking([0.3] * 4, query)[0] == "m1"


def test_without_shared_words_the_dense_order_stands() -> None:
    query = build_query("xylophone")
    assert hybrid([0.1, 0.4, 0.2, 0.3]).score(query, POOL) == [0.1, 0.4, 0.2, 0.3]


CHINESE = [
    Memory(f"z{i}", 1, Scope.WORKSPACE, "w", text, Source.USER, NOW, NOW)
    for i, text in enumerate(
        (
            "Lisa和朋友们一起去了美术馆,非常开心。",  # the art museum with friends
            "Lisa与表妹Emily一起参加了夏日艺术野餐。",  # a summer art picnic with her cousin Emily
            "Lisa在学校食堂找到了最喜欢的草莓蛋糕。",  # her favourite strawberry cake
        )
    )
]


def test_across_scripts_only_shared_names_match_and_they_still_count() -> None:
    """An English turn over Chinese memories shares no word with them but the names in
    Latin letters, so BM25 adds nothing but those: the memory naming the cousin moves up
    (issue 34, round 3: giving it no weight across scripts cost dev 0.007)."""
    query = build_query("Emily and I painted together again today!")
    fused = HybridReranker(cast(EmbeddingReranker, FixedDense([0.815, 0.81, 0.80])))
    scores = fused.score(query, CHINESE)
    assert scores.index(max(scores)) == 1
    assert scores[0] == 0.815 and scores[2] == 0.80  # no word of these matched
