"""The answer bank: memories of the kind that answers questions like the message rise (issue 10)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest

from memoryd.domain import topics
from memoryd.domain.injection import Query
from memoryd.domain.models import Memory, Scope, Source
from memoryd.embedding.minilm import MiniLMEmbedder
from memoryd.rerank import EmbeddingReranker
from memoryd.rerank.answer_bank import AnswerBank, load_bank, read_bank

EXAMPLES = {
    "What do you do for a living?": ["I work as a nurse.", "I am a software engineer."],
    "Do you have any pets?": ["I have two cats.", "My dog is named Rex."],
}


def small_bank(embedder: MiniLMEmbedder, floor: float = 0.75) -> AnswerBank:
    """Each example's answer direction is the unit mean of its answers (the shipped bank
    fits them by ridge regression, ``bench/build_answer_bank.py``)."""
    answers = [a for texts in EXAMPLES.values() for a in texts]
    ids = [answers.index(a) for texts in EXAMPLES.values() for a in texts]
    offsets = np.cumsum([0] + [len(t) for t in EXAMPLES.values()])
    vectors = np.stack(embedder.embed(answers))
    directions = np.stack([vectors[ids[a:b]].mean(axis=0) for a, b in pairwise(offsets)])
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    return AnswerBank(
        np.stack(embedder.embed(list(EXAMPLES))),
        directions,
        vectors,
        offsets,
        np.asarray(ids),
        embedder.name,
        floor=floor,
    )


def pool(embedder: MiniLMEmbedder, texts: list[str]) -> list[Memory]:
    when = datetime(2026, 1, 1, tzinfo=UTC)
    return [
        Memory(
            str(i),
            1,
            Scope.WORKSPACE,
            "w",
            text,
            Source.USER,
            when,
            when,
            embedding=vec,
            embedder=embedder.name,
        )
        for i, (text, vec) in enumerate(zip(texts, embedder.embed(texts), strict=True))
    ]


def matrix(memories: list[Memory]) -> np.ndarray:
    return np.stack([m.embedding for m in memories if m.embedding is not None])


def test_memories_along_the_answer_direction_of_a_like_question_gain(
    embedder: MiniLMEmbedder,
) -> None:
    bank = replace(small_bank(embedder), asked_weight=0)  # the answer direction alone
    memories = pool(embedder, ["I am a firefighter.", "I like to swim.", "I have a hamster."])
    (question,) = embedder.embed(["And you, what do you do for a living?"])
    gained = bank.boost(question, matrix(memories))
    assert gained is not None
    assert gained[0] > gained[1] and gained[0] > gained[2]  # a job, like the answers


def test_the_direction_is_the_nearest_example_questions(embedder: MiniLMEmbedder) -> None:
    bank = replace(small_bank(embedder), asked_weight=0)
    memories = pool(embedder, ["I am a firefighter.", "I have a hamster."])
    (pets,) = embedder.embed(["So, do you have any pets at home?"])
    assert bank.nearest(pets) == 1
    gained = bank.boost(pets, matrix(memories))
    assert gained is not None and gained[1] > gained[0]


def test_memories_like_known_answers_gain_for_the_questions_those_answered(
    embedder: MiniLMEmbedder,
) -> None:
    bank = small_bank(embedder)
    memories = pool(embedder, ["I am a firefighter.", "I like to swim.", "I have a hamster."])
    (question,) = embedder.embed(["What do you do for a living?"])
    like = bank.asked_like(matrix(memories) @ bank.answers.T, question)
    assert like[0] > like[1]  # the firefighter is like the nurse, who was asked this
    (pets,) = embedder.embed(["Do you have any pets?"])
    like = bank.asked_like(matrix(memories) @ bank.answers.T, pets)
    assert like[2] > like[0]  # the hamster is like the cats, which answered the pet question


def test_each_answer_remembers_the_mean_of_its_questions(embedder: MiniLMEmbedder) -> None:
    questions = np.stack(embedder.embed(["Do you have pets?", "Any animals at home?"]))
    answers = np.stack(embedder.embed(["I have two cats."]))
    bank = AnswerBank(questions, questions, answers, np.asarray([0, 1, 2]), np.asarray([0, 0]), "e")
    centre = questions.mean(axis=0)
    assert np.allclose(bank.asked[0], centre / np.linalg.norm(centre), atol=1e-6)


def test_a_message_like_no_example_changes_nothing(embedder: MiniLMEmbedder) -> None:
    bank = small_bank(embedder)
    memories = pool(embedder, ["The Phoenix launch is on September 30", "I like to swim."])
    (message,) = embedder.embed(["When does the Phoenix launch happen?"])
    assert bank.boost(message, matrix(memories)) is None
    query = Query("When does the Phoenix launch happen?")
    with_bank = EmbeddingReranker(embedder, bank=bank).score(query, memories)
    assert with_bank == EmbeddingReranker(embedder).score(query, memories)


def test_the_bank_moves_an_answer_the_plain_cosine_ranks_low(embedder: MiniLMEmbedder) -> None:
    texts = [
        "I am in the army.",
        "I love to read mystery novels.",
        "My favorite color is blue.",
        "I live in a big city.",
        "I enjoy long walks on the beach.",
    ]
    memories = pool(embedder, texts)
    query = Query("What do you do for a living?")
    plain = EmbeddingReranker(embedder).score(query, memories)
    banked = EmbeddingReranker(embedder, bank=small_bank(embedder)).score(query, memories)
    rank = lambda scores: sorted(range(len(scores)), key=lambda i: -scores[i]).index(0)  # noqa: E731
    assert rank(banked) < rank(plain) or rank(plain) == 0
    assert banked[0] - plain[0] > max(b - p for b, p in zip(banked[1:], plain[1:], strict=True))


def test_the_shipped_bank_is_for_the_bundled_embedder_only(embedder: MiniLMEmbedder) -> None:
    bank = load_bank(embedder.name, embedder.dimensions)
    assert bank is not None and bank.questions.shape[1] == embedder.dimensions
    assert bank.directions.shape == bank.questions.shape
    assert bank.offsets[-1] == len(bank.answer_ids) and bank.answer_ids.max() < len(bank.answers)
    assert load_bank("another-embedder", embedder.dimensions) is None
    assert load_bank(embedder.name, 768) is None


def test_a_saved_bank_reads_back(embedder: MiniLMEmbedder, tmp_path: Path) -> None:
    bank = small_bank(embedder)
    bank.save(tmp_path / "bank.npz")
    again = read_bank((tmp_path / "bank.npz").read_bytes())
    assert again.embedder == bank.embedder
    assert np.allclose(again.questions, bank.questions, atol=1e-3)
    assert np.allclose(again.directions, bank.directions, atol=1e-3)
    assert list(again.offsets) == list(bank.offsets)


def topic_bank(embedder: MiniLMEmbedder) -> AnswerBank:
    """The small bank, with topic directions: "hobbies" answers the living question
    poorly and "work" well; pets answer the pet question."""
    directions = np.zeros((len(EXAMPLES), len(topics.KEYS)), np.float32)
    work, hobbies, pets = (topics.KEYS.index(k) for k in ("work", "hobbies", "pets"))
    directions[0, work], directions[0, hobbies] = 1.0, -0.5
    directions[1, pets] = 1.0
    return replace(small_bank(embedder), topic_directions=directions, asked_weight=0)


def topic_gains(
    embedder: MiniLMEmbedder, texts: list[str], tagged: list[tuple[str, ...] | None]
) -> np.ndarray:
    """What the topics add to the living question's boost of these memories."""
    bank = topic_bank(embedder)
    vectors = matrix(pool(embedder, texts))
    (question,) = embedder.embed(["What do you do for a living?"])
    plain, with_topics = bank.boost(question, vectors), bank.boost(question, vectors, tagged)
    assert plain is not None and with_topics is not None
    gained: np.ndarray = with_topics - plain
    return gained


def test_tagged_memories_gain_along_the_topic_direction(embedder: MiniLMEmbedder) -> None:
    texts = ["I grow roses.", "I fix cars.", "I have a hamster."]
    gain = topic_gains(embedder, texts, [("hobbies",), ("work", "technology"), ("pets",)])
    assert np.allclose(gain, [0.5 * -0.5, 0.5 * 1.0, 0.0], atol=1e-6)


def test_an_untagged_memory_gains_the_pools_mean(embedder: MiniLMEmbedder) -> None:
    texts = ["I grow roses.", "I fix cars.", "I like tea."]
    gain = topic_gains(embedder, texts, [("hobbies",), ("work",), None])
    assert gain[2] == pytest.approx((gain[0] + gain[1]) / 2)  # neither rises nor falls
    none_tagged = topic_gains(embedder, texts, [None, None, None])
    assert np.allclose(none_tagged, 0.0)  # no memory tagged: topics change nothing
    tried_none = topic_gains(embedder, texts, [(), ("work",), None])
    assert tried_none[0] == 0.0  # tagged, but no topic


def test_the_reranker_reads_the_memories_topics(embedder: MiniLMEmbedder) -> None:
    bank = topic_bank(embedder)
    texts = ["I grow roses.", "I fix cars."]
    query = Query("What do you do for a living?")
    untagged = EmbeddingReranker(embedder, bank=bank).score(query, pool(embedder, texts))
    memories = [
        replace(m, topics=t)
        for m, t in zip(pool(embedder, texts), [("hobbies",), ("work",)], strict=True)
    ]
    tagged = EmbeddingReranker(embedder, bank=bank).score(query, memories)
    assert tagged[1] - untagged[1] > tagged[0] - untagged[0]


def test_the_shipped_bank_has_topic_directions(embedder: MiniLMEmbedder) -> None:
    bank = load_bank(embedder.name, embedder.dimensions)
    assert bank is not None and bank.topic_directions is not None
    assert bank.topic_directions.shape == (len(bank.questions), len(topics.KEYS))
    question = embedder.embed(["What do you like to do for fun?"])[0]
    best = bank.nearest(question)
    assert best is not None
    direction = bank.topic_directions[best]
    hobbies, health = topics.KEYS.index("hobbies"), topics.KEYS.index("health")
    assert direction[hobbies] > direction[health]  # a fitted direction, not noise


def test_a_bank_of_another_topic_list_is_read_without_topics(
    embedder: MiniLMEmbedder, tmp_path: Path
) -> None:
    bank = topic_bank(embedder)
    bank.save(tmp_path / "bank.npz")
    again = read_bank((tmp_path / "bank.npz").read_bytes())
    assert again.topic_directions is not None
    assert np.allclose(again.topic_directions, bank.topic_directions, atol=1e-3)
    with np.load(tmp_path / "bank.npz") as data:
        arrays = dict(data) | {"topic_keys": np.array(["hobbies", "work"])}
    np.savez(tmp_path / "old.npz", **arrays)
    assert read_bank((tmp_path / "old.npz").read_bytes()).topic_directions is None
