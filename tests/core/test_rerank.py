"""The default reranker's scoring of a turn's query parts (R4, issue 10)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from memoryd import Memoryd
from memoryd.domain.injection import Query, build_query
from memoryd.domain.models import Memory
from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.models.rerank import EmbeddingReranker
from memoryd.models.rerank.embedding import part_weights, question_focus, question_gain

PROJECT = [
    "The Phoenix launch date is September 30",
    "Sarah Chen is the legal contact for Phoenix",
    "Phoenix uses PostgreSQL 16 in production",
    "The Phoenix budget is 120k EUR",
    "Daily standup is at 9:30 CET",
    "The design review happens every second Thursday",
    "Marco owns the mobile app",
    "Staging deploys need approval from Priya",
]


def test_parts_weigh_the_message_most_and_older_history_less() -> None:
    query = build_query("now?", [{"role": "user", "content": f"m{i}"} for i in range(3)])
    assert query.parts == ("now?", "m2", "m1", "m0")
    assert part_weights(query, 5.0, 0.5) == [5.0, 1.0, 0.5, 0.25]
    assert part_weights(Query("", ("a", "b")), 5.0, 0.5) == [1.0, 0.5]


def test_a_question_the_message_replies_to_weighs_as_the_message() -> None:
    asked = Query("Can you tell me how?", ("My bibliography is a mess.", "Which tool do you use?"))
    assert part_weights(asked, 5.0, 0.5, question_weight=5.0) == [5.0, 5.0, 0.5]
    assert part_weights(asked, 5.0, 0.5) == [5.0, 1.0, 0.5]  # without: as any history
    told = Query("Can you tell me how?", ("Which tool do you use?", "Zotero, I think."))
    assert part_weights(told, 5.0, 0.5, question_weight=5.0) == [5.0, 1.0, 0.5]
    assert part_weights(Query("ok", ("Which tool?", "")), 5.0, 0.5, 5.0) == [5.0, 5.0]


def test_a_question_in_chinese_or_japanese_is_a_question_too() -> None:
    asked = Query("我用Zotero。", ("我的参考文献一团糟。", "你用哪个文献管理软件？ "))
    assert part_weights(asked, 5.0, 0.5, question_weight=5.0) == [5.0, 5.0, 0.5]
    assert question_focus("Nice! どこに住んでいますか？") == "どこに住んでいますか？"


def test_the_question_the_user_answers_says_which_memory_is_needed(
    md: Memoryd, embedder: MiniLMEmbedder
) -> None:
    md.create_workspace("thesis")
    uid = md.create_user("alice").id
    for text in (
        "Uses Zotero with Better BibTeX for citations",
        "Writes the thesis in LaTeX on Overleaf using the university template",
        "Thesis limit is 80,000 words excluding bibliography",
        "Thesis defense is tentatively set for May 20, 2025",
    ):
        md.add_memory(uid, text, workspace="thesis")
    history = [
        {"role": "user", "content": "My bibliography is a mess."},
        {"role": "assistant", "content": "Which reference manager do you use?"},
    ]
    message = "Can you tell me how to get it into my thesis document?"
    pool = md.list_memories(uid, workspace="thesis")
    query = build_query(message, history)

    def ranked(reranker: EmbeddingReranker) -> list[str]:
        scores = reranker.score(query, pool)
        return [pool[i].content for i in sorted(range(len(pool)), key=lambda i: -scores[i])]

    before = ranked(EmbeddingReranker(embedder, question_weight=None))
    after = ranked(EmbeddingReranker(embedder))
    zotero = "Uses Zotero with Better BibTeX for citations"
    assert after.index(zotero) < before.index(zotero)


def test_a_vague_follow_up_leans_on_the_latest_history_message(md: Memoryd) -> None:
    md.create_workspace("phoenix")
    uid = md.create_user("alice").id
    for text in PROJECT:
        md.add_memory(uid, text, workspace="phoenix")
    history = [
        {"role": "user", "content": "Which database do we run in production?"},
        {"role": "assistant", "content": "PostgreSQL 16, as far as I know."},
        {"role": "user", "content": "How much money is set aside for Phoenix?"},
    ]
    turn = md.context(uid, "phoenix", "Do you think that's enough?", history)
    assert turn.workspace_memories[0].memory.content == "The Phoenix budget is 120k EUR"


def test_an_empty_query_scores_every_memory_alike(md: Memoryd, embedder: MiniLMEmbedder) -> None:
    md.create_workspace("phoenix")
    uid = md.create_user("alice").id
    for text in PROJECT:
        md.add_memory(uid, text, workspace="phoenix")
    pool = md.list_memories(uid, workspace="phoenix")
    assert EmbeddingReranker(embedder).score(Query(""), pool) == [0.0] * len(PROJECT)
    assert EmbeddingReranker(embedder).score(build_query("hi"), []) == []


def test_a_question_behind_a_short_remark_is_embedded_alone() -> None:
    assert question_focus("Nice! So, where do you live?") == "So, where do you live?"
    assert question_focus("Oh, that's cool. Why? And since when?") == "Why? And since when?"
    long_remark = "We moved the Phoenix launch to the autumn. When is it now?"
    assert question_focus(long_remark) == long_remark  # the remark names the topic
    assert question_focus("Thanks, that's all.") == "Thanks, that's all."
    assert question_focus("Nice! Where do you live?", remark_words=0) == "Nice! Where do you live?"


def test_the_reranker_scores_the_question_not_the_remark(
    md: Memoryd, embedder: MiniLMEmbedder
) -> None:
    md.create_workspace("phoenix")
    uid = md.create_user("alice").id
    for text in PROJECT:
        md.add_memory(uid, text, workspace="phoenix")
    pool = md.list_memories(uid, workspace="phoenix")
    focused = EmbeddingReranker(embedder)
    whole = EmbeddingReranker(embedder, remark_words=0)
    asked = focused.score(Query("Ha, love it. Who approves staging deploys?"), pool)
    assert asked == focused.score(Query("Who approves staging deploys?"), pool)
    assert asked != whole.score(Query("Ha, love it. Who approves staging deploys?"), pool)


def test_questions_move_a_mostly_unasked_pool_little(md: Memoryd, embedder: MiniLMEmbedder) -> None:
    """Round 11: with 2 of 8 memories asked, their gains are (2/8)^2 of what they are once
    the pass has reached the whole pool (the others asked and given no usable question),
    so the few asked memories do not jump over better ones still waiting."""
    md.create_workspace("phoenix")
    uid = md.create_user("alice").id
    for text in PROJECT:
        md.add_memory(uid, text, workspace="phoenix")
    pool = md.list_memories(uid, workspace="phoenix")
    asked = {
        "The Phoenix launch date is September 30": ("When does Phoenix launch?",),
        "The Phoenix budget is 120k EUR": ("How much money does Phoenix have?",),
    }

    def with_questions(unasked: tuple[str, ...] | None) -> list[Memory]:
        return [
            replace(
                m,
                questions=asked[m.content],
                question_vectors=np.asarray(embedder.embed(list(asked[m.content]))),
                question_embedder=embedder.name,
            )
            if m.content in asked
            else replace(m, questions=unasked)
            for m in pool
        ]

    (message,) = embedder.embed(["When is the Phoenix launch?"])
    waiting = question_gain(embedder, message, with_questions(None))
    reached = question_gain(embedder, message, with_questions(()))
    assert waiting is not None and reached is not None
    launch = [m.content for m in pool].index("The Phoenix launch date is September 30")
    assert reached[launch] > 0
    np.testing.assert_allclose(waiting, reached * (2 / 8) ** 2)
    assert np.count_nonzero(reached) == 1  # the unasked gain nothing either way
