"""Memories get an LLM's yes/no to "does this say what the person does for fun?" (issue 10).

``pastime`` is NULL until the background pastime pass (``memoryd.extraction.pastime``)
has asked; memories stored before this migration are NULL. A partial index over the
memories not asked yet lets that pass find them without reading every memory.

Revision ID: 0021
Revises: 0020
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("memories") as batch:
        batch.add_column(sa.Column("pastime", sa.Boolean, nullable=True))
    op.create_index(
        "ix_memories_unjudged",
        "memories",
        ["created_at"],
        sqlite_where=sa.text("pastime IS NULL"),
        postgresql_where=sa.text("pastime IS NULL"),
    )


def downgrade() -> None:
    op.drop_index("ix_memories_unjudged", table_name="memories")
    with op.batch_alter_table("memories") as batch:
        batch.drop_column("pastime")
