"""On turns that ask what someone does for fun, lift the memories an LLM called pastimes.

"What do you do for fun?" has more plausible answers in a pool than the 5 slots, and an
embedding ranks them poorly; the background pastime pass (``memoryd.extraction.pastime``)
stores an LLM's yes/no per memory. On a turn whose message (its question, as the
reranker embeds it) is like one of ``FUN_QUESTIONS`` (best cosine >= ``GATE``), each
memory with an answer gains ``WEIGHT`` x the pool's spread of the score x how far its
answer lies from the pool's mean answer, in the answers' own spread: a pool where every
memory got the same answer, or none did, is left as it was, and a memory not asked yet
gains nothing. BENCHMARKS.md, "Retrieval quality", rounds 21 to 23 (gate and weight
chosen on dev folds; +0.010 recall@5 on the labelled test split with a strong judge's
answers).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from memoryd.domain.models import Memory, Vector
from memoryd.rerank.embedding import QueryEncoder

FUN_QUESTIONS = (
    "What do you do for fun?",
    "What are your hobbies?",
    "What do you like to do in your free time?",
    "What do you like to do?",
)
GATE = 0.7
WEIGHT = 0.5


class PastimeLift:
    """The lift, with the fun questions' vectors made once per reranker."""

    def __init__(self, encoder: QueryEncoder, weight: float = WEIGHT, gate: float = GATE) -> None:
        self.encoder = encoder
        self.weight = weight
        self.gate = gate
        self._prototypes: Vector | None = None
        self._lock = threading.Lock()

    def likeness(self, focus: str) -> float:
        """The focused message's best cosine with a fun question."""
        with self._lock:
            if self._prototypes is None:
                self._prototypes = np.stack(self.encoder.vectors(list(FUN_QUESTIONS)))
            prototypes = self._prototypes
        (vector,) = self.encoder.vectors([focus])
        return float((prototypes @ vector).max())

    def lift(self, focus: str, scores: Sequence[float], memories: Sequence[Memory]) -> list[float]:
        """``scores`` with the lift added when the turn is fun-like (else unchanged)."""
        known = [i for i, m in enumerate(memories) if m.pastime is not None]
        if not self.weight or len(known) < 2 or not focus:
            return list(scores)
        answers = np.array([float(memories[i].pastime is True) for i in known])
        spread = float(answers.std())
        if spread == 0 or self.likeness(focus) < self.gate:
            return list(scores)
        lifted = np.asarray(scores, np.float64)
        lifted[known] += self.weight * float(lifted.std()) * (answers - answers.mean()) / spread
        return [float(x) for x in lifted]
