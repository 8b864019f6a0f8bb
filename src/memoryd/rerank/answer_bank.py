"""What answers to questions like this one have looked like: a query expansion learned offline.

A question and its answer are far apart for a sentence embedder: "What do you do for a
living?" sits near other questions, not near "I am in the army.", while "I am in the
army." sits near "I work fulltime in a shipyard." The bank holds example questions, each
with the memories that answered it (``data/answer-bank.npz``, built from the dev split of
the labelled persona set by ``bench/build_answer_bank.py``). When the message is like an
example question (cosine >= ``floor``), each memory gains two things:

- its score along the example's **answer direction**, times ``weight``: a linear
  direction in the embedding space fitted offline, by ridge regression, to tell the
  memories that were labelled as answers to the example and its neighbouring questions
  from the other memories of their pools ("I am on the soccer team." is an answer to
  "What do you do for fun?", "I donate to charity." is not), so memories of the kind
  that answers this question rise, even when they share no word with it;
- the message's cosine with the questions that the ``asked_top`` known answers most like
  the memory were given to, times ``asked_weight``: "I am in the army." is most like
  "I am a soldier." and "I work at a bank.", which were asked "What do you do for a
  living?", so it rises for that question even if no example like the message had it.

- with topics (``memoryd.domain.topics``, written by the extraction LLM in the
  background), its score along the example's **topic direction**, times
  ``topic_weight``: fitted like the answer direction, from a memory's topics instead of
  its vector, so "I grow roses in my garden." (hobbies) rises for "What do you do for
  fun?" and "I fantasize about taking over the world." (beliefs) does not, which the
  embedding alone cannot tell. A memory not tagged yet gains the pool's mean, neither
  rising nor falling against tagged ones; a pool with none tagged gains nothing.

A message like no example changes nothing, so an unfamiliar domain keeps the plain
ranking. The cost is a few small matrix products per turn (about 0.1-0.3 ms); nothing is
embedded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from importlib import resources
from io import BytesIO
from pathlib import Path

import numpy as np

from memoryd.domain import topics as topic_list
from memoryd.domain.models import Vector

FILE = "answer-bank.npz"
FLOOR = 0.75  # cosine from which an example question is like the message
WEIGHT = 2.0  # of a memory's score along the nearest example's answer direction
ASKED_TOP = 3  # known answers most like a memory that say which questions it answers
ASKED_WEIGHT = 1.0  # of the message's cosine with those questions
TOPIC_WEIGHT = 0.5  # of a memory's score along the nearest example's topic direction


@dataclass(frozen=True)
class AnswerBank:
    """Example questions (unit rows) with their answer directions, and the distinct
    answers (unit rows) with, per question, the rows of its answers."""

    questions: np.ndarray  # (n, dimensions)
    directions: np.ndarray  # (n, dimensions): question i's answer direction
    answers: np.ndarray  # (m, dimensions), each distinct answer once
    offsets: np.ndarray  # (n + 1,): question i's answers are answer_ids[offsets[i]:offsets[i+1]]
    answer_ids: np.ndarray
    embedder: str  # the embedder the vectors come from; no other embedder can use them
    floor: float = FLOOR
    weight: float = WEIGHT
    asked_top: int = ASKED_TOP
    asked_weight: float = ASKED_WEIGHT
    # (n, len(topics.KEYS)): question i's topic direction; None in a bank without them
    topic_directions: np.ndarray | None = None
    topic_weight: float = TOPIC_WEIGHT

    @cached_property
    def asked(self) -> np.ndarray:
        """Per answer, the unit mean of the example questions it answered."""
        sums = np.zeros_like(self.answers)
        counts = np.diff(self.offsets)
        np.add.at(sums, self.answer_ids, np.repeat(self.questions, counts, axis=0))
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        return sums / np.where(norms > 0, norms, 1.0)

    def nearest(self, question: Vector) -> int | None:
        """The example question most like the message, or None if none is like it."""
        sims = self.questions @ question
        best = int(np.argmax(sims))
        return best if sims[best] >= self.floor else None

    def boost(
        self,
        question: Vector,
        memories: np.ndarray,
        topics: Sequence[tuple[str, ...] | None] | None = None,
    ) -> np.ndarray | None:
        """What each memory row gains for a message vector (see the module docstring);
        None when no example question is like the message. ``topics``: each memory's
        topic keys (None where not tagged yet), in the rows' order."""
        best = self.nearest(question)
        if best is None:
            return None
        gained = self.gain(memories, self.directions[best], question)
        if topics is not None and self.topic_directions is not None:
            gained += self.topic_gain(self.topic_directions[best], topics)
        return gained

    def topic_gain(
        self, direction: np.ndarray, topics: Sequence[tuple[str, ...] | None]
    ) -> np.ndarray:
        """``topic_weight`` x each memory's score along a topic direction: the sum over
        its topics; an untagged memory gets the tagged ones' mean (0 if none is tagged).
        Plain Python over cached positions: for a pool of 20 this is several times
        faster than building arrays."""
        entries = direction.tolist()
        scores = [
            None if keys is None else sum(entries[i] for i in topic_list.positions(keys))
            for keys in topics
        ]
        known = [score for score in scores if score is not None]
        mean = sum(known) / len(known) if known else 0.0
        gained: np.ndarray = self.topic_weight * np.array(
            [mean if score is None else score for score in scores], dtype=np.float64
        )
        return gained

    def gain(
        self,
        memories: np.ndarray,
        direction: np.ndarray,
        question: Vector,
        usable: np.ndarray | None = None,
    ) -> np.ndarray:
        """Both parts of the gain for memory rows, an answer direction and the message;
        ``usable`` limits the answers the second part may read."""
        gained: np.ndarray = self.weight * (memories @ direction)
        if self.asked_weight:
            answers = self.answers if usable is None else self.answers[usable]
            asked = self.asked if usable is None else self.asked[usable]
            gained += self.asked_weight * self.asked_like(memories @ answers.T, question, asked)
        return gained

    def asked_like(
        self, cosines: np.ndarray, question: Vector, asked: np.ndarray | None = None
    ) -> np.ndarray:
        """The message's cosine with the questions the answers most like each memory got
        (``cosines``: memories x answers; ``asked``: per answer, the unit mean of its
        questions, by default the whole bank's)."""
        asked = self.asked if asked is None else asked
        top = min(self.asked_top, cosines.shape[1])
        nearest = np.argpartition(cosines, -top, axis=1)[:, -top:]
        weights = np.take_along_axis(cosines, nearest, axis=1) + 1e-3
        profiles = np.einsum("mk,mkd->md", weights, asked[nearest])
        profiles /= np.linalg.norm(profiles, axis=1, keepdims=True)
        like: np.ndarray = profiles @ question
        return like

    def save(self, path: Path) -> None:
        arrays: dict[str, np.ndarray] = {
            "questions": self.questions.astype(np.float16),
            "directions": self.directions.astype(np.float16),
            "answers": self.answers.astype(np.float16),
            "offsets": self.offsets.astype(np.int32),
            "answer_ids": self.answer_ids.astype(np.int32),
            "embedder": np.array(self.embedder),
        }
        if self.topic_directions is not None:
            arrays["topic_directions"] = self.topic_directions.astype(np.float16)
            arrays["topic_keys"] = np.array(topic_list.KEYS)
        np.savez_compressed(path, **arrays)  # type: ignore[arg-type]


def read_bank(raw: bytes) -> AnswerBank:
    """A saved bank; its topic directions only if fitted on today's topic list."""
    with np.load(BytesIO(raw)) as data:
        topic_directions = None
        if "topic_directions" in data.files and tuple(data["topic_keys"]) == topic_list.KEYS:
            topic_directions = data["topic_directions"].astype(np.float32)
        return AnswerBank(
            data["questions"].astype(np.float32),
            data["directions"].astype(np.float32),
            data["answers"].astype(np.float32),
            data["offsets"],
            data["answer_ids"],
            str(data["embedder"]),
            topic_directions=topic_directions,
        )


def load_bank(embedder_name: str, dimensions: int) -> AnswerBank | None:
    """The shipped bank, or None when its vectors come from another embedder than this one."""
    bank = read_bank(resources.files("memoryd.data").joinpath(FILE).read_bytes())
    if bank.embedder != embedder_name or bank.questions.shape[1] != dimensions:
        return None
    return bank
