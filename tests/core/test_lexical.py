"""BM25 over a turn's memories, with each text's words counted once per process."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memoryd.domain.injection import build_query
from memoryd.domain.models import Memory, Scope, Source
from memoryd.models.rerank.lexical import LexicalReranker, TermCounts, tokenize

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def memory(memory_id: str, content: str) -> Memory:
    return Memory(memory_id, 1, Scope.WORKSPACE, "w", content, Source.USER, NOW, NOW)


POOL = [
    memory("a", "The Phoenix launch date is September 30"),
    memory("b", "Daily standup is at 9:30 CET"),
    memory("c", "Marco owns the mobile app"),
]


def test_exact_words_score_and_unrelated_memories_do_not() -> None:
    scores = LexicalReranker().score(build_query("When does Phoenix launch?"), POOL)
    assert scores[0] > 0
    assert scores[1:] == [0.0, 0.0]


def test_history_words_count_as_well_as_the_message() -> None:
    query = build_query("and who owns it?", [{"role": "user", "content": "the mobile app"}])
    scores = LexicalReranker().score(query, POOL)
    assert scores[2] > 0 and scores[0] == 0.0


def test_an_edited_memory_is_scored_on_its_new_words() -> None:
    reranker = LexicalReranker()
    query = build_query("Which billing service?")
    assert reranker.score(query, POOL)[2] == 0.0
    edited = [*POOL[:2], memory("c", "Marco owns the billing service")]
    assert reranker.score(query, edited)[2] > 0


def test_repeated_scoring_gives_the_same_scores() -> None:
    reranker = LexicalReranker()
    query = build_query("Phoenix standup at 9:30?", [{"role": "user", "content": "Marco"}])
    first = reranker.score(query, POOL)
    assert reranker.score(query, POOL) == first
    assert LexicalReranker().score(query, POOL) == first


def test_unspaced_scripts_are_read_as_pairs_of_characters() -> None:
    assert tokenize("Bart在圣诞派对上跳舞") == [
        "bart",
        "在圣",
        "圣诞",
        "诞派",
        "派对",
        "对上",
        "上跳",
        "跳舞",
    ]
    assert tokenize("猫 and dogs") == ["猫", "dog"]
    pool = [
        memory("a", "Bart在圣诞派对上跳舞，感到非常开心。"),
        memory("b", "Bart在学校运动会上赢得了第一名。"),
    ]
    scores = LexicalReranker().score(build_query("你还记得圣诞派对吗？"), pool)
    assert scores[0] > 0 and scores[1] == 0.0


@pytest.mark.parametrize("size", [1, 3])
def test_the_word_cache_is_bounded(size: int) -> None:
    counts = TermCounts(size=size)
    for n in range(10):
        counts(f"text number {n}")
    assert len(counts) == size
    assert counts("text number 9") == ({"text": 1, "number": 1, "9": 1}, 3)
