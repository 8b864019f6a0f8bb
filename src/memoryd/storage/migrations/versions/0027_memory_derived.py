"""What passes derive from a memory's text moves to one table, ``memory_derived`` (issue 36).

A memory's questions had four columns of ``memories`` (0016, 0018) and two partial
indexes, and each earlier pass (topics, pastime: 0021, 0023) had added and dropped its
own. Now every background pass (``memoryd.extraction.memory_pass``, built in or from a
plugin) keeps its value in one row per memory and kind: the JSON value, the
``content_key`` of the text it was derived from (a row whose memory's text changed since
is stale: read as absent and derived again), the pass's ``version`` (what
``question_prompt`` was) and, for values that are texts a turn compares (questions),
their ``vectors`` and ``embedder``. A new kind needs no column and no migration. The
questions move over as they are (a missing prompt version counts as 1, as before), and
runs count derived memories by kind (``memories_derived``, JSON) instead of
``memories_questioned``. On PostgreSQL the new table's rows are kept whole as 0017 kept
memories' rows. Downgrade moves questions back; other kinds' values are dropped.

Revision ID: 0027
Revises: 0026
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0027"
down_revision = "0026"
branch_labels = None
depends_on = None

_OUTDATED = "questions IS NOT NULL AND (question_prompt IS NULL OR question_prompt < 2)"


def _runs(old: str, new: str, convert: Callable[[Any], Any]) -> None:
    """Move each run's counter from column ``old`` to ``new`` with ``convert``."""
    types: dict[str, Any] = {"memories_questioned": sa.Integer(), "memories_derived": sa.JSON()}
    runs = sa.table("extraction_runs", *(sa.column(n, types.get(n)) for n in ("id", old, new)))
    bind = op.get_bind()
    for run_id, value in bind.execute(sa.select(runs.c.id, runs.c[old])).all():
        bind.execute(runs.update().where(runs.c.id == run_id).values({new: convert(value)}))


def upgrade() -> None:
    op.create_table(
        "memory_derived",
        sa.Column(
            "memory_id",
            sa.String(32),
            sa.ForeignKey("memories.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("kind", sa.String(64), primary_key=True),
        sa.Column("content_key", sa.Text, nullable=False),
        sa.Column("version", sa.SmallInteger, nullable=False),
        sa.Column("value", sa.Text, nullable=False),
        sa.Column("vectors", sa.LargeBinary, nullable=True),
        sa.Column("embedder", sa.String(64), nullable=True),
    )
    op.create_index("ix_memory_derived_kind_version", "memory_derived", ["kind", "version"])
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE memory_derived SET (toast_tuple_target = 8160)")
    op.execute(
        "INSERT INTO memory_derived "
        "(memory_id, kind, content_key, version, value, vectors, embedder) "
        "SELECT id, 'questions', content_key, COALESCE(question_prompt, 1), questions, "
        "question_vectors, question_embedder FROM memories WHERE questions IS NOT NULL"
    )
    op.drop_index("ix_memories_unquestioned", table_name="memories")
    op.drop_index("ix_memories_outdated_questions", table_name="memories")
    with op.batch_alter_table("memories") as batch:
        for column in ("questions", "question_vectors", "question_embedder", "question_prompt"):
            batch.drop_column(column)
    op.create_index("ix_memories_created_at", "memories", ["created_at"])
    with op.batch_alter_table("extraction_runs") as batch:
        batch.add_column(
            sa.Column("memories_derived", sa.JSON, nullable=False, server_default="{}")
        )
    _runs("memories_questioned", "memories_derived", lambda n: {"questions": n} if n else {})
    with op.batch_alter_table("extraction_runs") as batch:
        batch.drop_column("memories_questioned")


def downgrade() -> None:
    with op.batch_alter_table("extraction_runs") as batch:
        batch.add_column(
            sa.Column("memories_questioned", sa.Integer, nullable=False, server_default="0")
        )
    _runs("memories_derived", "memories_questioned", lambda d: int((d or {}).get("questions", 0)))
    with op.batch_alter_table("extraction_runs") as batch:
        batch.drop_column("memories_derived")
    op.drop_index("ix_memories_created_at", table_name="memories")
    with op.batch_alter_table("memories") as batch:
        batch.add_column(sa.Column("questions", sa.Text, nullable=True))
        batch.add_column(sa.Column("question_vectors", sa.LargeBinary, nullable=True))
        batch.add_column(sa.Column("question_embedder", sa.String(64), nullable=True))
        batch.add_column(sa.Column("question_prompt", sa.SmallInteger, nullable=True))
    # only questions of the memory's current text go back (a stale row was never shown)
    op.execute(
        "UPDATE memories SET "
        "questions = (SELECT d.value FROM memory_derived d WHERE d.memory_id = memories.id "
        "AND d.kind = 'questions' AND d.content_key = memories.content_key), "
        "question_vectors = (SELECT d.vectors FROM memory_derived d WHERE d.memory_id = "
        "memories.id AND d.kind = 'questions' AND d.content_key = memories.content_key), "
        "question_embedder = (SELECT d.embedder FROM memory_derived d WHERE d.memory_id = "
        "memories.id AND d.kind = 'questions' AND d.content_key = memories.content_key), "
        "question_prompt = (SELECT d.version FROM memory_derived d WHERE d.memory_id = "
        "memories.id AND d.kind = 'questions' AND d.content_key = memories.content_key)"
    )
    op.create_index(
        "ix_memories_unquestioned",
        "memories",
        ["created_at"],
        sqlite_where=sa.text("questions IS NULL"),
        postgresql_where=sa.text("questions IS NULL"),
    )
    op.create_index(
        "ix_memories_outdated_questions",
        "memories",
        ["created_at"],
        sqlite_where=sa.text(_OUTDATED),
        postgresql_where=sa.text(_OUTDATED),
    )
    op.drop_table("memory_derived")
