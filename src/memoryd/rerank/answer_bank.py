"""What answers to questions like this one have looked like: a query expansion learned offline.

A question and its answer are far apart for a sentence embedder: "What do you do for a
living?" sits near other questions, not near "I am in the army.", while "I am in the
army." sits near "I work fulltime in a shipyard." The bank holds example questions, each
with the memories that answered it (``data/answer-bank.npz``, built from the dev split of
the labelled persona set by ``bench/build_answer_bank.py``). At a turn, the example
questions like the message (cosine >= ``floor``) lend their answers, and each memory
gains its likeness to them (the mean of its ``top`` best cosines with those answers):
memories that look like answers to this kind of question rise, even when they share no
word with it. A message near no example changes nothing, so an unfamiliar domain keeps
the plain ranking.

The cost is two small matrix products per turn (about 0.1 ms); nothing is embedded.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from io import BytesIO
from pathlib import Path

import numpy as np

from memoryd.domain.models import Vector

FILE = "answer-bank.npz"
FLOOR = 0.75  # cosine from which an example question is like the message
NEIGHBOURS = 100  # at most this many example questions lend their answers
TOP = 5  # a memory's likeness: the mean of its best cosines with this many answers


@dataclass(frozen=True)
class AnswerBank:
    """Example questions and their answers: unit rows, and per question its answers' rows."""

    questions: np.ndarray  # (n, dimensions)
    answers: np.ndarray  # (m, dimensions), each distinct answer once
    offsets: np.ndarray  # (n + 1,): question i's answers are answer_ids[offsets[i]:offsets[i+1]]
    answer_ids: np.ndarray
    embedder: str  # the embedder the vectors come from; no other embedder can use them
    floor: float = FLOOR
    neighbours: int = NEIGHBOURS
    top: int = TOP

    def likeness(self, question: Vector, memories: np.ndarray) -> np.ndarray | None:
        """Per memory row, its likeness to answers of example questions like ``question``;
        None when no example question is like it."""
        sims = self.questions @ question
        near = np.flatnonzero(sims >= self.floor)
        if not len(near):
            return None
        if len(near) > self.neighbours:
            near = near[np.argsort(-sims[near])[: self.neighbours]]
        ids = np.unique(np.concatenate(
            [self.answer_ids[self.offsets[i]: self.offsets[i + 1]] for i in near]))
        cosines = memories @ self.answers[ids].T
        top = min(self.top, cosines.shape[1])
        best: np.ndarray = np.partition(cosines, -top, axis=1)[:, -top:].mean(axis=1)
        return best

    def save(self, path: Path) -> None:
        np.savez_compressed(path, questions=self.questions.astype(np.float16),
                            answers=self.answers.astype(np.float16),
                            offsets=self.offsets.astype(np.int32),
                            answer_ids=self.answer_ids.astype(np.int32),
                            embedder=np.array(self.embedder))


def read_bank(raw: bytes) -> AnswerBank:
    with np.load(BytesIO(raw)) as data:
        return AnswerBank(data["questions"].astype(np.float32),
                          data["answers"].astype(np.float32), data["offsets"],
                          data["answer_ids"], str(data["embedder"]))


def load_bank(embedder_name: str, dimensions: int) -> AnswerBank | None:
    """The shipped bank, or None when its vectors come from another embedder than this one."""
    bank = read_bank(resources.files("memoryd.data").joinpath(FILE).read_bytes())
    if bank.embedder != embedder_name or bank.questions.shape[1] != dimensions:
        return None
    return bank
