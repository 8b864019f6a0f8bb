"""Values derived from a memory's text, one row per memory and kind (``memory_derived``, 0026).

The background passes (``memoryd.extraction.memory_pass``) derive a JSON ``value`` of
their ``kind`` from a memory's text, stored with that text's ``content_key`` and the
pass's ``version``. A value is current while its memory still has that key (every read
joins on it); writing the text also deletes the values (``forget``). A pass's newer
``version`` gets older values derived again. A list of texts a turn compares (questions)
carries their vectors and the embedder that made them. Every write is guarded by the
text's key, the memory's row locked first (a concurrent edit waits, or wins).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any, NamedTuple

import numpy as np
from sqlalchemy import Connection, and_, delete, insert, or_, select, update

from memoryd.domain.models import Scope, Vector
from memoryd.storage.tables import memories, memory_derived

QUESTIONS = "questions"  # the kind a turn reads (retrieval compares its vectors)


class Pending(NamedTuple):
    """A memory waiting for a value (or for its value's texts to be embedded again): what
    the pass reads, and what guards the write."""

    id: str
    content: str
    content_key: str
    value: Any = None  # the stored value (decoded JSON): an older version's, or to embed again


def encode(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def decode(raw: str | None) -> Any:
    """The stored JSON value; None when there is none or it does not decode."""
    if raw is None:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return None


def texts(raw: str | None) -> tuple[str, ...] | None:
    """A stored list of texts (questions); anything else reads as none derived."""
    value = decode(raw)
    if not isinstance(value, list) or not all(isinstance(q, str) for q in value):
        return None
    return tuple(value)


# Vectors are stored as float16 after this marker (round 14): 6 questions' vectors take
# 4.6 kB, what 3 took as float32, so a PostgreSQL row stays whole. The marker is a
# float32 NaN, which no stored float32 vector starts with: rows written before round 14
# are float32 rows back to back and read as such.
FLOAT16 = b"\x01\x00\xc0\x7f"


def matrix_bytes(vectors: Any) -> bytes | None:
    if vectors is None or len(vectors) == 0:
        return None
    return FLOAT16 + np.asarray(vectors, dtype=np.float16).tobytes()


def _vector_columns(vectors: Any, embedder: str | None) -> dict[str, Any]:
    """The columns of a value's texts' vectors, both NULL without any."""
    blob = matrix_bytes(vectors)
    return {"vectors": blob, "embedder": embedder if blob is not None else None}


def vector_matrix(blob: bytes | None, count: int) -> Vector | None:
    """The stored vectors as a ``count`` x dimensions float32 matrix, from float16 after
    the marker or float32 without it; None when there are none or the bytes do not split
    into ``count`` rows (read as no vectors)."""
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


def fresh(table: Any = memory_derived) -> Any:
    """Join condition: ``table``'s rows for the memory's current text."""
    return and_(table.c.memory_id == memories.c.id, table.c.content_key == memories.c.content_key)


def current(kind: str, table: Any = memory_derived) -> Any:
    """Join condition: ``table``'s row of ``kind`` for the memory's current text."""
    return and_(fresh(table), table.c.kind == kind)


def _pending(query: Any, now: datetime, user_id: int | None, workspace_id: int | None) -> Any:
    query = query.where(or_(memories.c.expires_at.is_(None), memories.c.expires_at > now))
    if user_id is not None:
        mine = memories.c.scope == Scope.GLOBAL.value
        if workspace_id is not None:
            mine = or_(mine, memories.c.workspace_id == workspace_id)
        query = query.where(memories.c.user_id == user_id, mine)
    return query.order_by(memories.c.created_at, memories.c.id)


def underived(
    conn: Connection,
    kind: str,
    limit: int,
    now: datetime,
    *,
    user_id: int | None = None,
    workspace_id: int | None = None,
) -> list[Pending]:
    """Unexpired memories with no value of ``kind`` for their current text, oldest first:
    anyone's, or with ``user_id`` that user's globals and (given ``workspace_id``) that
    workspace's."""
    query = select(memories.c.id, memories.c.content, memories.c.content_key).where(
        ~select(memory_derived.c.memory_id).where(current(kind)).exists()
    )
    query = _pending(query, now, user_id, workspace_id)
    return [Pending(*row) for row in conn.execute(query.limit(limit))]


def _with_values(
    conn: Connection,
    where: Any,
    limit: int,
    now: datetime,
    user_id: int | None,
    workspace_id: int | None,
) -> list[Pending]:
    """Unexpired memories whose current value matches ``where``, oldest first, with it."""
    query = select(
        memories.c.id, memories.c.content, memories.c.content_key, memory_derived.c.value
    ).select_from(memories.join(memory_derived, fresh()))
    query = _pending(query.where(where), now, user_id, workspace_id).limit(limit)
    return [Pending(i, content, key, decode(raw)) for i, content, key, raw in conn.execute(query)]


def outdated(
    conn: Connection,
    kind: str,
    version: int,
    limit: int,
    now: datetime,
    *,
    user_id: int | None = None,
    workspace_id: int | None = None,
) -> list[Pending]:
    """Unexpired memories whose value of ``kind`` an older version wrote, oldest first,
    with that value."""
    where = and_(memory_derived.c.kind == kind, memory_derived.c.version < version)
    return _with_values(conn, where, limit, now, user_id, workspace_id)


def other_embedder(
    conn: Connection,
    kind: str,
    embedder: str,
    limit: int,
    now: datetime,
    *,
    user_id: int | None = None,
    workspace_id: int | None = None,
) -> list[Pending]:
    """Unexpired memories whose value of ``kind`` another embedder embedded, oldest first."""
    where = and_(
        memory_derived.c.kind == kind,
        memory_derived.c.vectors.is_not(None),
        or_(memory_derived.c.embedder.is_(None), memory_derived.c.embedder != embedder),
    )
    return _with_values(conn, where, limit, now, user_id, workspace_id)


def versions(conn: Connection, user_id: int, kind: str) -> dict[str, int]:
    """The version of each of the user's current values of ``kind`` (export)."""
    query = (
        select(memories.c.id, memory_derived.c.version)
        .select_from(memories.join(memory_derived, current(kind)))
        .where(memories.c.user_id == user_id)
    )
    return {memory_id: version for memory_id, version in conn.execute(query)}


def values(conn: Connection, memory_id: str) -> dict[str, Any]:
    """The memory's current values by kind (decoded JSON)."""
    query = select(memory_derived.c.kind, memory_derived.c.value).where(
        memory_derived.c.memory_id == memory_id,
        memory_derived.c.content_key
        == select(memories.c.content_key).where(memories.c.id == memory_id).scalar_subquery(),
    )
    return {kind: decode(raw) for kind, raw in conn.execute(query)}


def _row(conn: Connection, memory_id: str, kind: str, content_key: str) -> Any:
    """The memory's row of ``kind`` if the memory still has the text of ``content_key``
    (its row locked, so an edit waits for this write), else False; None when it has no
    current value of ``kind``."""
    locked = select(memories.c.content_key).where(memories.c.id == memory_id).with_for_update()
    if conn.execute(locked).scalar_one_or_none() != content_key:
        return False
    query = select(memory_derived).where(
        memory_derived.c.memory_id == memory_id,
        memory_derived.c.kind == kind,
        memory_derived.c.content_key == content_key,
    )
    return conn.execute(query).first()


def put(
    conn: Connection,
    memory_id: str,
    content_key: str,
    kind: str,
    version: int,
    value: Any,
    vectors: Any = None,
    embedder: str | None = None,
) -> bool:
    """Store the memory's value of ``kind`` (and its texts' vectors) if it still has the
    text of ``content_key`` and no value of this ``version`` or newer; False when the text
    changed, a newer pass wrote its value, or the memory went meanwhile."""
    found = _row(conn, memory_id, kind, content_key)
    if found is False or (found is not None and found.version >= version):
        return False
    mine = (memory_derived.c.memory_id == memory_id, memory_derived.c.kind == kind)
    conn.execute(delete(memory_derived).where(*mine))
    row = {"content_key": content_key, "version": version, "value": encode(value)}
    columns = {**row, **_vector_columns(vectors, embedder)}
    conn.execute(insert(memory_derived).values(memory_id=memory_id, kind=kind, **columns))
    return True


def revise(
    conn: Connection,
    memory_id: str,
    content_key: str,
    kind: str,
    value: Any,
    *,
    version: int | None = None,
    vectors: Any = None,
    embedder: str | None = None,
) -> bool:
    """Keep the memory's current ``value`` of ``kind`` and give it new ``vectors`` (made by
    ``embedder``), or mark it written by ``version`` (newer than the stored one: a new
    pass found nothing better); False when the value, or the text, changed meanwhile."""
    found = _row(conn, memory_id, kind, content_key)
    if not found or decode(found.value) != json.loads(encode(value)):
        return False
    if version is not None:
        if found.version >= version:
            return False
        changes: dict[str, Any] = {"version": version}
    else:
        changes = _vector_columns(vectors, embedder)
    mine = (memory_derived.c.memory_id == memory_id, memory_derived.c.kind == kind)
    conn.execute(update(memory_derived).where(*mine).values(**changes))
    return True


def forget(conn: Connection, memory_ids: Sequence[str], kind: str | None = None) -> None:
    """Delete the memories' values (of ``kind``, or all): their text is written anew."""
    query = delete(memory_derived).where(memory_derived.c.memory_id.in_(list(memory_ids)))
    if kind is not None:
        query = query.where(memory_derived.c.kind == kind)
    conn.execute(query)
