"""Storage of the questions each memory answers (issue 10, round 10; migration 0016).

The questions are derived data like the memory's vector: the background pass
of extraction runs (``memoryd.extraction.questions``) writes them, guarded by the text's
key so a memory edited meanwhile keeps its new text unasked; editing the text clears them
(``memoryd.store``); writing them moves no ``updated_at`` and leaves no audit entry.
``questions`` is a JSON list of their text (``[]``: asked, nothing usable; NULL: not
asked yet), ``question_vectors`` their vectors as float16 rows back to back after a
marker (float32 without it: rows written before round 14; ``question_bytes``), and
``question_embedder`` the embedder that made them: when the service's embedder changes,
the pass embeds the stored text again (no LLM call) and turns read other embedders'
vectors as "no questions". ``question_prompt`` (0018) is the version of the prompt that
wrote them (``QUESTION_PROMPT``: the current one): memories asked with an older one are
asked again, after those never asked, and keep their questions until then. Kept out of
``repository.py``, which holds the rest.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any, NamedTuple

import numpy as np
from sqlalchemy import Connection, or_, select, update

from memoryd.domain.models import Scope, Vector
from memoryd.storage.tables import (
    MEMORY_OUTDATED_QUESTIONS,
    MEMORY_UNQUESTIONED,
    QUESTION_PROMPT,
    memories,
)


class Unasked(NamedTuple):
    """A memory waiting for its questions (or for them to be embedded again): what the
    LLM or the embedder reads, and what guards the write."""

    id: str
    content: str
    content_key: str
    # the stored text: the questions an older prompt wrote, or those to embed again
    questions: tuple[str, ...] | None = None


def encode_questions(questions: Sequence[str] | None) -> str | None:
    return None if questions is None else json.dumps(list(questions), ensure_ascii=False)


def decode_questions(raw: str | None) -> tuple[str, ...] | None:
    """The stored list; a value that is not a list of strings reads as not asked."""
    if raw is None:
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(value, list) or not all(isinstance(q, str) for q in value):
        return None
    return tuple(value)


# Vectors are stored as float16 after this marker (round 14): 6 questions' vectors take
# 4.6 kB, what 3 took as float32, so a PostgreSQL row stays whole (0017). The marker is a
# float32 NaN, which no stored float32 vector starts with: rows written before, or by a
# process older than this one during an upgrade, are float32 rows back to back and read
# as such, without a migration.
FLOAT16 = b"\x01\x00\xc0\x7f"


def question_bytes(vectors: Any) -> bytes | None:
    if vectors is None or len(vectors) == 0:
        return None
    return FLOAT16 + np.asarray(vectors, dtype=np.float16).tobytes()


def question_columns(
    questions: Sequence[str] | None,
    vectors: Any = None,
    embedder: str | None = None,
    prompt: int = QUESTION_PROMPT,
) -> dict[str, Any]:
    """The four columns for a memory's questions: their text (None: not asked, ``[]``:
    asked, none usable), their vectors and the embedder that made them (both None when
    there are none), and the version of the prompt that wrote them (None when not
    asked)."""
    blob = question_bytes(vectors) if questions else None
    return {
        "questions": encode_questions(questions),
        "question_vectors": blob,
        "question_embedder": embedder if blob is not None else None,
        "question_prompt": prompt if questions is not None else None,
    }


def question_matrix(blob: bytes | None, count: int) -> Vector | None:
    """The stored vectors as a ``count`` x dimensions float32 matrix, from float16 after
    the marker or float32 without it; None when there are none or the bytes do not split
    into ``count`` rows (read as no questions)."""
    if blob is None or count <= 0:
        return None
    if blob[: len(FLOAT16)] == FLOAT16:
        body = blob[len(FLOAT16) :]
        if not body or len(body) % (2 * count):
            return None
        return np.frombuffer(body, dtype=np.float16).reshape(count, -1).astype(np.float32)
    if len(blob) % (4 * count):
        return None
    return np.frombuffer(blob, dtype=np.float32).reshape(count, -1)


def _pending(query: Any, now: datetime, user_id: int | None, workspace_id: int | None) -> Any:
    query = query.where(or_(memories.c.expires_at.is_(None), memories.c.expires_at > now))
    if user_id is not None:
        mine = memories.c.scope == Scope.GLOBAL.value
        if workspace_id is not None:
            mine = or_(mine, memories.c.workspace_id == workspace_id)
        query = query.where(memories.c.user_id == user_id, mine)
    return query.order_by(memories.c.created_at, memories.c.id)


def unasked_memories(
    conn: Connection,
    limit: int,
    now: datetime,
    *,
    user_id: int | None = None,
    workspace_id: int | None = None,
) -> list[Unasked]:
    """Unexpired memories not asked about yet, oldest first: anyone's, or with ``user_id``
    that user's globals and (given ``workspace_id``) that workspace's."""
    query = select(memories.c.id, memories.c.content, memories.c.content_key)
    query = _pending(query.where(MEMORY_UNQUESTIONED), now, user_id, workspace_id)
    return [Unasked(*row) for row in conn.execute(query.limit(limit))]


def outdated_question_memories(
    conn: Connection,
    limit: int,
    now: datetime,
    *,
    user_id: int | None = None,
    workspace_id: int | None = None,
) -> list[Unasked]:
    """Unexpired memories whose questions an older prompt wrote, oldest first, with those
    questions (a stored value that does not decode reads as none)."""
    query = select(
        memories.c.id, memories.c.content, memories.c.content_key, memories.c.questions
    ).where(MEMORY_OUTDATED_QUESTIONS)
    query = _pending(query, now, user_id, workspace_id).limit(limit)
    return [
        Unasked(memory_id, content, key, decode_questions(raw) or ())
        for memory_id, content, key, raw in conn.execute(query)
    ]


def question_prompts(conn: Connection, user_id: int) -> dict[str, int]:
    """The prompt version of each of the user's memories that has questions (export)."""
    query = select(memories.c.id, memories.c.question_prompt).where(
        memories.c.user_id == user_id, memories.c.questions.is_not(None)
    )
    return {memory_id: prompt or 1 for memory_id, prompt in conn.execute(query)}


def stale_question_memories(
    conn: Connection,
    embedder: str,
    limit: int,
    now: datetime,
    *,
    user_id: int | None = None,
    workspace_id: int | None = None,
) -> list[Unasked]:
    """Unexpired memories whose questions another embedder embedded, oldest first."""
    query = select(
        memories.c.id, memories.c.content, memories.c.content_key, memories.c.questions
    ).where(
        memories.c.question_vectors.is_not(None),
        or_(memories.c.question_embedder.is_(None), memories.c.question_embedder != embedder),
    )
    query = _pending(query, now, user_id, workspace_id).limit(limit)
    found = []
    for memory_id, content, key, raw in conn.execute(query):
        asked = decode_questions(raw)
        if asked:
            found.append(Unasked(memory_id, content, key, asked))
    return found


def _older_than(prompt: int) -> Any:
    """Asked with a prompt older than ``prompt`` (no version: a process older than 0018
    asked, with version 1)."""
    return or_(memories.c.question_prompt.is_(None), memories.c.question_prompt < prompt)


def _asked_before(prompt: int) -> Any:
    """Not asked yet, or asked with a prompt older than ``prompt``: what a write of
    ``prompt``'s questions may replace (never a newer or an equal ask)."""
    return or_(MEMORY_UNQUESTIONED, _older_than(prompt))


def set_questions(
    conn: Connection,
    memory_id: str,
    content_key: str,
    questions: Sequence[str],
    vectors: Any,
    embedder: str,
    *,
    again: bool = False,
    prompt: int = QUESTION_PROMPT,
) -> bool:
    """Store a memory's questions, their vectors and the version of the prompt that wrote
    them if it still has the text they were asked for (its ``content_key``) and none yet,
    or only questions an older prompt wrote (``again``: only new vectors for the
    questions it has, its prompt version kept); False when the text changed, a newer
    ask wrote its questions, or it went meanwhile. Moves no ``updated_at``: questions
    are derived from the text, like the vector."""
    query = update(memories).where(
        memories.c.id == memory_id, memories.c.content_key == content_key
    )
    values = question_columns(questions, vectors, embedder, prompt)
    if again:
        query = query.where(memories.c.questions == encode_questions(questions))
        del values["question_prompt"]
    else:
        query = query.where(_asked_before(prompt))
    result = conn.execute(query.values(**values))
    return bool(result.rowcount)


def keep_questions(
    conn: Connection,
    memory_id: str,
    content_key: str,
    questions: Sequence[str],
    prompt: int = QUESTION_PROMPT,
) -> bool:
    """Mark a memory asked again with ``prompt`` while it keeps the ``questions`` an
    older prompt wrote (the new ask found none); guarded as ``set_questions``."""
    query = update(memories).where(
        memories.c.id == memory_id,
        memories.c.content_key == content_key,
        memories.c.questions == encode_questions(questions),
        _older_than(prompt),
    )
    return bool(conn.execute(query.values(question_prompt=prompt)).rowcount)
