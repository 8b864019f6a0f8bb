"""Memories record which questions prompt wrote their questions (issue 10, round 14).

The questions pass now asks each memory with two prompts, the one of 0016 and one for
work facts, and stores the union of their questions (up to 6). ``question_prompt`` says
which version of the prompt wrote a memory's questions (NULL: not asked yet): memories
asked before this migration hold 1, and the pass asks them again with the current
version (2) once no memory waits to be asked at all, oldest first; until then they keep
their 3 questions, which the reranker goes on using. A partial index over the memories
asked with an older prompt lets the pass, and the PostgreSQL sweep that queues it, find
them without reading every memory; a later prompt version moves its bound. Processes
older than this migration, still running while a fleet upgrades, write questions without
a version: those count as version 1 too.

Revision ID: 0018
Revises: 0017
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


# questions an older prompt wrote (NULL: a process older than this migration, version 1)
OUTDATED = "questions IS NOT NULL AND (question_prompt IS NULL OR question_prompt < 2)"


def upgrade() -> None:
    with op.batch_alter_table("memories") as batch:
        batch.add_column(sa.Column("question_prompt", sa.SmallInteger, nullable=True))
    op.execute("UPDATE memories SET question_prompt = 1 WHERE questions IS NOT NULL")
    op.create_index(
        "ix_memories_outdated_questions",
        "memories",
        ["created_at"],
        sqlite_where=sa.text(OUTDATED),
        postgresql_where=sa.text(OUTDATED),
    )


def downgrade() -> None:
    op.drop_index("ix_memories_outdated_questions", table_name="memories")
    with op.batch_alter_table("memories") as batch:
        batch.drop_column("question_prompt")
