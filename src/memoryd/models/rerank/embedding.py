"""The native reranker: cosine similarity of embedding vectors, computed locally (R4).

Memory vectors are stored when memories are written, so a turn embeds only its query:
its parts (the message and each history message) are embedded separately and cached, so
a history message that was the previous turn's message is never embedded twice. How a
memory's score blends the parts' cosines, the question focus, and the gain of a memory's
questions are docs/reranking.md's ("How a turn's memories are chosen"; the weights were
measured there). With a ``Routed`` embedder each turn is scored wholly in the model its
texts call for, with one query cache per model. Memory vectors another embedder stored
are computed again and kept in a bounded cache until ``Memoryd.refresh_vectors`` stores
the new ones.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Generic, TypeVar

import numpy as np
import numpy.typing as npt

from memoryd.domain.injection import Query
from memoryd.domain.models import Memory, Vector
from memoryd.models.embedding.base import (
    Embedder,
    Routed,
    embed_memories,
    embed_queries,
    stored_vector,
)

MESSAGE_WEIGHT = 5.0  # the current message against 1 for the latest history message
HISTORY_DECAY = 0.5  # each older history message weighs this much of the next newer one
QUESTION_WEIGHT = 5.0  # the latest history message when it is a question the message answers
MAX_SHARE = 0.3  # share of the best single-part cosine in a memory's score
REMARK_WORDS = 5  # a non-question sentence this short is a remark the question can drop
QUESTIONS_WEIGHT = 1.0  # a memory's question cosine above the pool's mean (round 9)

K = TypeVar("K", bound=Hashable)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
QUESTION_MARKS = ("?", "\uff1f", "\u061f")  # and the full-width "？" of Chinese and Japanese, "؟"


def is_question(text: str) -> bool:
    """Whether the text ends with a question mark (of any script memoryd reads)."""
    return text.rstrip().endswith(QUESTION_MARKS)


def question_focus(message: str, remark_words: int = REMARK_WORDS) -> str:
    """The message's questions alone when every other sentence is a remark of at most
    ``remark_words`` words ("Nice! So, where do you live?" -> "So, where do you live?");
    else the message. ``remark_words=0`` keeps every message whole."""
    sentences = [s for s in _SENTENCE.split(message) if s]
    questions = [s for s in sentences if is_question(s)]
    remarks = [s for s in sentences if not is_question(s)]
    if questions and remarks and all(len(s.split()) <= remark_words for s in remarks):
        return " ".join(questions)
    return message


class _Cache(Generic[K]):
    """Vectors by key, computed in batches for the keys not cached yet (bounded LRU,
    thread-safe)."""

    def __init__(self, size: int = 4096) -> None:
        self._cache: OrderedDict[K, Vector] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def _get(
        self, keys: Sequence[K], compute: Callable[[list[K]], npt.NDArray[np.float32]]
    ) -> list[Vector]:
        found: dict[K, Vector] = {}
        with self._lock:
            for key in keys:
                if key in self._cache:
                    self._cache.move_to_end(key)
                    found[key] = self._cache[key]
        missing = list(dict.fromkeys(k for k in keys if k not in found))
        if missing:
            fresh = compute(missing)
            with self._lock:
                for key, vec in zip(missing, fresh, strict=True):
                    found[key] = self._cache[key] = vec
                while len(self._cache) > self._size:
                    self._cache.popitem(last=False)
        return [found[k] for k in keys]


class QueryEncoder(_Cache[str]):
    """Embeds query parts with a bounded LRU cache shared by all turns of a process."""

    def __init__(self, embedder: Embedder, cache_size: int = 4096) -> None:
        super().__init__(cache_size)
        self.embedder = embedder

    def __contains__(self, text: object) -> bool:
        with self._lock:
            return text in self._cache

    def vectors(self, texts: Sequence[str]) -> list[Vector]:
        return self._get(texts, lambda missing: embed_queries(self.embedder, missing))


def part_weights(
    query: Query, message_weight: float, history_decay: float, question_weight: float | None = None
) -> list[float]:
    """Weights of ``query.parts``: the message, then history from the newest back. With
    ``question_weight``, the newest history message weighs that much when it is a
    question: the message replies to it ("Which reference manager do you use?" - "Can
    you tell me how to get it into my thesis?"), so it says what is needed as much as
    the message does."""
    newest = next((text for text in reversed(query.history) if text), "")
    history = [history_decay**age for age, text in enumerate(reversed(query.history)) if text]
    if question_weight is not None and is_question(newest):
        history[0] = question_weight
    return ([message_weight] if query.message else []) + history


class StaleVectors(_Cache[tuple[str, str]]):
    """Vectors computed for memories whose stored one another embedder made, by embedder
    and text: a turn after a change of embedder pays for them once, not on every turn
    until the refresh has stored them."""

    def __len__(self) -> int:
        return len(self._cache)

    def get(self, embedder: Embedder, texts: Sequence[str]) -> list[Vector]:
        keys = [(embedder.name, text) for text in texts]
        return self._get(keys, lambda missing: embed_memories(embedder, [t for _, t in missing]))


def memory_vectors(
    embedder: Embedder, memories: Sequence[Memory], stale_cache: StaleVectors | None = None
) -> np.ndarray:
    """Stored vectors where ``embedder`` can read them (``stored_vector``); the rest are
    computed now (or taken from ``stale_cache``)."""
    rows: list[Vector | None] = [
        stored_vector(embedder, m.embedding, m.embedder) if m.embedding is not None else None
        for m in memories
    ]
    stale = [i for i, row in enumerate(rows) if row is None]
    if stale:
        texts = [memories[i].content for i in stale]
        fresh = (
            stale_cache.get(embedder, texts)
            if stale_cache is not None
            else list(embed_memories(embedder, texts))
        )
        for i, vec in zip(stale, fresh, strict=True):
            rows[i] = vec
    return np.stack([r for r in rows if r is not None]) if rows else np.zeros((0, 1))


def question_gain(
    embedder: Embedder, message: Vector, memories: Sequence[Memory]
) -> np.ndarray | None:
    """Per memory, how far its best question's cosine with ``message`` lies above the mean over the
    pool's memories that have questions from this embedder, else 0; the others are left out
    of the mean and gain nothing. The gains are scaled by the square of the share of the
    pool the questions' pass has reached (those with questions, and those asked that got
    none): a pool whose backlog is mostly unasked moves little, so its few asked memories do
    not jump over better unasked ones (round 11). None when no memory of the pool has such
    questions."""
    asked: list[int] = []
    matrices: list[Vector] = []
    reached = 0
    for i, m in enumerate(memories):
        q = m.question_vectors
        if q is not None and len(q):
            q = stored_vector(embedder, q, m.question_embedder)
        if q is not None and len(q) and q.shape[1:] == message.shape:
            asked.append(i)
            matrices.append(q)
        elif m.questions is not None and not m.questions:
            reached += 1  # asked, nothing usable: the pass will not come back to it
    if not asked:
        return None
    starts = np.cumsum([0] + [len(q) for q in matrices[:-1]])
    best = np.maximum.reduceat(np.concatenate(matrices) @ message, starts)  # one product
    gain = np.zeros(len(memories))
    share = (len(asked) + reached) / len(memories)
    gain[asked] = share**2 * np.maximum(best - best.mean(), 0.0)
    return gain


class EmbeddingReranker:
    name = "embedding"

    def __init__(
        self,
        embedder: Embedder,
        encoder: QueryEncoder | None = None,
        *,
        message_weight: float = MESSAGE_WEIGHT,
        history_decay: float = HISTORY_DECAY,
        question_weight: float | None = QUESTION_WEIGHT,
        max_share: float = MAX_SHARE,
        remark_words: int = REMARK_WORDS,
        questions_weight: float = QUESTIONS_WEIGHT,
        join_newest: bool = True,
    ) -> None:
        self.embedder = embedder
        self.encoder = encoder or QueryEncoder(embedder)
        self.stale = StaleVectors()
        # a routed embedder's models each get their query cache (see the module doc)
        self._encoders: dict[str, QueryEncoder] = {}
        self._encoders_lock = threading.Lock()
        self.message_weight = message_weight
        self.history_decay = history_decay
        self.question_weight = question_weight
        self.max_share = max_share
        self.remark_words = remark_words
        self.questions_weight = questions_weight
        self.join_newest = join_newest

    def encoder_for(self, embedder: Embedder) -> QueryEncoder:
        """The query cache of one of a routed embedder's models (else ``encoder``)."""
        if embedder is self.embedder:
            return self.encoder
        with self._encoders_lock:
            found = self._encoders.get(embedder.name)
            if found is None:
                found = self._encoders[embedder.name] = QueryEncoder(embedder)
            return found

    def warm(self, texts: Sequence[str]) -> None:
        """Embed texts that later turns will carry as history, off those turns' path (with
        a routed embedder, in the model each text's own language calls for)."""
        texts = [t for t in texts if t]
        if not isinstance(self.embedder, Routed):
            self.encoder.vectors(texts)
            return
        for text in texts:
            self.encoder_for(self.embedder.route([text])).vectors([text])

    def _joins_newest(self, embedder: Embedder, query: Query) -> bool:
        """Whether the message is embedded together with the newest history message, as
        one text: in companion chat no single message carries the turn, the model has to
        read the message in the light of what came before (docs/reranking.md, "Companion
        chat"). A longer text costs a few ms more, which the 15 ms budget of a turn scored
        in e5 (not English) allows and an English turn's 5 ms does not."""
        return (
            self.join_newest
            and bool(query.message)
            and len(query.parts) > 1
            and isinstance(self.embedder, Routed)
            and embedder is self.embedder.other
        )

    def score(self, query: Query, memories: Sequence[Memory]) -> list[float]:
        if not memories:
            return []
        if not query.parts:
            return [0.0] * len(memories)
        if self.remark_words:
            query = Query(question_focus(query.message, self.remark_words), query.history)
        embedder = self.embedder
        if isinstance(embedder, Routed):
            embedder = embedder.route([*query.parts, *(m.content for m in memories)])
        matrix = memory_vectors(embedder, memories, self.stale)
        texts = list(query.parts)
        if self._joins_newest(embedder, query):
            texts[0] = f"{texts[0]}\n{texts[1]}"
        parts = np.stack(self.encoder_for(embedder).vectors(texts))
        weights = np.asarray(
            part_weights(query, self.message_weight, self.history_decay, self.question_weight)
        )
        norm = float(np.linalg.norm(weights @ parts))
        cosines = matrix @ parts.T  # one row per memory, one column per part
        mean = cosines @ weights / norm if norm > 0 else np.zeros(len(memories))
        blended = (1 - self.max_share) * mean + self.max_share * cosines.max(axis=1)
        if self.questions_weight and query.message:
            asked = question_gain(embedder, parts[0], memories)
            if asked is not None:
                blended = blended + self.questions_weight * asked
        return [float(x) for x in blended]
