"""Storage of a memory's vector, and replacing vectors made from an older form of its
text (migration 0019) or by another embedder than this process's.

The vector is derived data, made from ``memoryd.domain.perspective.first_person`` of the
text (``vector_form`` records which version). Replacing it is guarded by the text's key,
moves no ``updated_at`` and leaves no audit entry.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from sqlalchemy import Connection, and_, or_, select, update

from memoryd.domain.perspective import VECTOR_FORM
from memoryd.storage.tables import MEMORY_OLD_VECTORS, memories


class OldVector(NamedTuple):
    """A memory whose vector was made from an older form of its text, or by another
    embedder."""

    id: str
    content: str
    content_key: str
    vector_form: int | None  # None: made from the text as written (before 0019)
    embedder: str | None = None


def vector_columns(vector: Any, embedder: str) -> dict[str, Any]:
    """The columns written with a memory's (new) vector; all NULL without one."""
    if vector is None:
        return dict.fromkeys(("embedding", "embedder", "vector_form"))
    embedding = np.asarray(vector, dtype=np.float32).tobytes()
    return {"embedding": embedding, "embedder": embedder, "vector_form": VECTOR_FORM}


def old_vector_memories(
    conn: Connection, limit: int, embedder: str | None = None
) -> list[OldVector]:
    """Memories whose vector an older form of their text made or, with ``embedder``,
    another embedder than that one, oldest first."""
    c = memories.c
    where = MEMORY_OLD_VECTORS
    if embedder is not None:
        other = or_(c.embedder.is_(None), c.embedder != embedder)
        where = or_(where, and_(c.embedding.is_not(None), other))
    query = select(c.id, c.content, c.content_key, c.vector_form, c.embedder).where(where)
    query = query.order_by(c.created_at, c.id).limit(limit)
    return [OldVector._make(row) for row in conn.execute(query)]


def set_vector(conn: Connection, memory: OldVector, vector: Any, embedder: str) -> bool:
    """Store a memory's vector of the current form, with ``vector`` None only marking
    the one it has as current (its text reads the same in either form); False when the
    text changed or the memory went meanwhile."""
    values = (
        vector_columns(vector, embedder) if vector is not None else {"vector_form": VECTOR_FORM}
    )
    query = update(memories).where(
        memories.c.id == memory.id, memories.c.content_key == memory.content_key
    )
    return bool(conn.execute(query.values(**values)).rowcount)
