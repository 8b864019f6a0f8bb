"""Memories get the questions an LLM wrote that each one answers (issue 10, round 10).

``questions`` holds a JSON list of the questions' text (``[]``: asked, none usable; NULL:
not asked yet); ``question_vectors`` their vectors, one float32 row per question stored
back to back like the memory's own ``embedding``, and ``question_embedder`` the embedder
that made them. Memories stored before this migration are NULL, so the background pass of
the next extraction runs asks about them (users with no LLM keep none, and the reranker
reads a memory without questions as neutral). A partial index over the memories not asked
yet lets that pass find them without reading every memory, and extraction runs count the
memories they wrote questions for (``memories_questioned``; 0 for runs stored before).

Revision ID: 0016
Revises: 0015
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("memories") as batch:
        batch.add_column(sa.Column("questions", sa.Text, nullable=True))
        batch.add_column(sa.Column("question_vectors", sa.LargeBinary, nullable=True))
        batch.add_column(sa.Column("question_embedder", sa.String(64), nullable=True))
    op.create_index(
        "ix_memories_unquestioned",
        "memories",
        ["created_at"],
        sqlite_where=sa.text("questions IS NULL"),
        postgresql_where=sa.text("questions IS NULL"),
    )
    with op.batch_alter_table("extraction_runs") as batch:
        batch.add_column(
            sa.Column("memories_questioned", sa.Integer, nullable=False, server_default="0")
        )


def downgrade() -> None:
    with op.batch_alter_table("extraction_runs") as batch:
        batch.drop_column("memories_questioned")
    op.drop_index("ix_memories_unquestioned", table_name="memories")
    with op.batch_alter_table("memories") as batch:
        batch.drop_column("question_embedder")
        batch.drop_column("question_vectors")
        batch.drop_column("questions")
