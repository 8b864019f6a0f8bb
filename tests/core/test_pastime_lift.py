"""The shipped hybrid reranker lifts the memories an LLM called pastimes on turns that ask
what someone does for fun (``memoryd.rerank.pastime``), and leaves every other turn, and
pools with nothing to tell apart, as they were."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from memoryd import Memoryd
from memoryd.domain.injection import Query
from memoryd.domain.models import Memory
from memoryd.embedding.minilm import MiniLMEmbedder
from memoryd.rerank import EmbeddingReranker, HybridReranker
from memoryd.rerank.pastime import WEIGHT

PERSON = {  # text: the pastime pass's answer
    "I have two sisters.": False,
    "I collect vintage stamps.": True,
    "I work as a nurse in a big hospital.": False,
    "I like to have fun with my dog.": False,
    "I sing in a choir on Thursdays.": True,
    "My best friend lives next door.": False,
    "I live in a small town by the sea.": False,
    "I enjoy baking bread on weekends.": True,
}


@pytest.fixture
def pool(md: Memoryd) -> list[Memory]:
    md.create_workspace("chat")
    uid = md.create_user("alice").id
    for content in PERSON:
        md.add_memory(uid, content, workspace="chat")
    return md.list_memories(uid, workspace="chat")


def judged(pool: list[Memory], answers: dict[str, bool | None]) -> list[Memory]:
    return [replace(m, pastime=answers.get(m.content)) for m in pool]


def top(scores: list[float], pool: list[Memory], k: int = 3) -> set[str]:
    return {pool[i].content for i in np.argsort(scores)[::-1][:k]}


def test_on_a_fun_question_the_pastimes_rise_by_the_rule(
    pool: list[Memory], embedder: MiniLMEmbedder
) -> None:
    hybrid = HybridReranker(EmbeddingReranker(embedder))
    query = Query("Cool! So what do you do for fun?", ())
    before = np.array(hybrid.score(query, pool))
    after = np.array(hybrid.score(query, judged(pool, PERSON)))
    yes = np.array([PERSON[m.content] for m in pool], float)
    expected = before + WEIGHT * before.std() * (yes - yes.mean()) / yes.std()
    np.testing.assert_allclose(after, expected, rtol=1e-9)
    pastimes = {c for c, y in PERSON.items() if y}
    # the words "have fun" win the plain score; the lift brings the pastimes up
    assert len(top(list(after), pool) & pastimes) > len(top(list(before), pool) & pastimes)
    assert pastimes <= top(list(after), pool, k=4)


@pytest.mark.parametrize(
    "message",
    ["Where do you work?", "Do you have any siblings?", "What is the weather like today?"],
)
def test_other_turns_are_left_alone(
    pool: list[Memory], embedder: MiniLMEmbedder, message: str
) -> None:
    hybrid = HybridReranker(EmbeddingReranker(embedder))
    query = Query(message, ())
    assert hybrid.score(query, judged(pool, PERSON)) == hybrid.score(query, pool)


def test_a_pool_with_nothing_to_tell_apart_is_left_alone_and_unasked_memories_gain_nothing(
    pool: list[Memory], embedder: MiniLMEmbedder
) -> None:
    hybrid = HybridReranker(EmbeddingReranker(embedder))
    query = Query("What are your hobbies?", ())
    plain = hybrid.score(query, pool)
    assert hybrid.score(query, judged(pool, dict.fromkeys(PERSON, True))) == plain
    only_one = {"I collect vintage stamps.": True}
    assert hybrid.score(query, judged(pool, only_one)) == plain  # one answer: no spread
    partly = {"I collect vintage stamps.": True, "I have two sisters.": False}
    lifted = hybrid.score(query, judged(pool, partly))
    for i, memory in enumerate(pool):
        if memory.content not in partly:
            assert lifted[i] == plain[i]
    stamps = [m.content for m in pool].index("I collect vintage stamps.")
    assert lifted[stamps] > plain[stamps]
    off = HybridReranker(EmbeddingReranker(embedder), pastime_weight=0.0)
    assert off.score(query, judged(pool, PERSON)) == off.score(query, pool)
