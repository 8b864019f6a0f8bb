"""A chat turn's memories from their raw rows, without rebuilding unchanged ones.

Every turn reads the same 25 or so rows again, mostly unchanged, and turning a row into a
``Memory`` (timestamps, JSON, enums, the vector) cost about half of the turn's read. So
the turn's statement returns the columns as the driver gives them, and ``TurnRows``
keeps per memory id the raw row it last saw and the ``Memory`` built from it: an
identical row gives back the same immutable ``Memory``. The memo is bounded.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
from sqlalchemy import String, type_coerce
from sqlalchemy.engine import Dialect

from memoryd.domain.models import Memory, Scope, Source
from memoryd.storage.derived import QUESTIONS, current, texts, vector_matrix
from memoryd.storage.tables import UTCDateTime, memories, memory_derived, workspaces

# memories: about 15 kB each with up to 6 questions (the raw row with its float16 question
# vectors, and the float32 matrix built from them, kept so a turn does not convert them
# again), so 150 MB at most per process
MAX_MEMOS = 10_000

# (id, user_id, scope, slug, content, source, created_at, updated_at, last_used_at,
#  source_chats, expires_at, run_id, questions, embedding, embedder,
#  question_vectors, question_embedder); the timestamps and source_chats untyped (raw);
#  the vectors last, so reads that need no vector leave out the last VECTOR_COLUMNS. The
#  questions come from the memory's current row of that kind in memory_derived
#  (``with_questions`` joins it)
_QUESTIONS = memory_derived.alias("questions_row")
RAW_COLUMNS: tuple[Any, ...] = (
    memories.c.id,
    memories.c.user_id,
    memories.c.scope,
    workspaces.c.slug,
    memories.c.content,
    memories.c.source,
    type_coerce(memories.c.created_at, String).label("created_at"),
    type_coerce(memories.c.updated_at, String).label("updated_at"),
    type_coerce(memories.c.last_used_at, String).label("last_used_at"),
    type_coerce(memories.c.source_chats, String).label("source_chats"),
    type_coerce(memories.c.expires_at, String).label("expires_at"),
    memories.c.run_id,
    _QUESTIONS.c.value.label("questions"),
    memories.c.embedding,
    memories.c.embedder,
    _QUESTIONS.c.vectors.label("question_vectors"),
    _QUESTIONS.c.embedder.label("question_embedder"),
)
VECTOR_COLUMNS = 4
_UTC = UTCDateTime()


def with_questions(memory_rows: Any) -> Any:
    """``memory_rows`` (memories, perhaps joined) with each memory's current questions."""
    return memory_rows.outerjoin(_QUESTIONS, current(QUESTIONS, _QUESTIONS))


class TurnRows:
    """Memories by raw row, reused while the row is unchanged (thread-safe, bounded)."""

    def __init__(self, size: int = MAX_MEMOS) -> None:
        self._memo: dict[str, tuple[tuple[Any, ...], Memory]] = {}
        self._size = size
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._memo)

    def memory(self, raw: Sequence[Any], dialect: Dialect) -> Memory:
        """The ``Memory`` of one row laid out as ``RAW_COLUMNS``."""
        key = tuple(raw)
        found = self._memo.get(key[0])
        if found is not None and found[0] == key:
            return found[1]
        built = build_memory(key, dialect)
        with self._lock:
            self._memo.pop(key[0], None)
            while len(self._memo) >= self._size:
                self._memo.pop(next(iter(self._memo)))
            self._memo[key[0]] = (key, built)
        return built


TURN_ROWS = TurnRows()  # one per process: a row determines its Memory, whatever the database


def build_memory(raw: tuple[Any, ...], dialect: Dialect) -> Memory:
    (memory_id, user_id, scope, slug, content, source, created, updated, used, chats,
     expires, run_id, questions, blob, embedder, question_blob,
     question_embedder) = raw  # fmt: skip
    if isinstance(chats, str):  # SQLite hands JSON back as text, PostgreSQL decoded
        chats = json.loads(chats)
    vector = None
    # a damaged vector is treated as missing: the reranker recomputes it
    if blob is not None and len(blob) % 4 == 0:
        vector = np.frombuffer(blob, dtype=np.float32)
    asked = texts(questions)
    asked_vectors = vector_matrix(question_blob, len(asked or ()))
    return Memory(
        id=memory_id,
        user_id=user_id,
        scope=Scope(scope),
        workspace=slug,
        content=content,
        source=Source(source),
        created_at=_timestamp(created, dialect),
        updated_at=_timestamp(updated, dialect),
        last_used_at=_UTC.process_result_value(used, dialect),
        source_chat_ids=tuple(chats or ()),
        embedding=vector,
        embedder=embedder if vector is not None else None,
        expires_at=_UTC.process_result_value(expires, dialect),
        run_id=run_id,
        questions=asked,
        question_vectors=asked_vectors,
        question_embedder=question_embedder if asked_vectors is not None else None,
    )


def _timestamp(value: Any, dialect: Dialect) -> Any:
    stamp = _UTC.process_result_value(value, dialect)
    if stamp is None:
        raise ValueError("a memory without a creation or update time")
    return stamp
