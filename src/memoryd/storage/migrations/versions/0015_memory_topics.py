"""Memories get the conversation topics an LLM tagged them with (issue 10).

``topics`` holds comma-separated keys of ``memoryd.domain.topics``; NULL means not
tagged yet. Memories stored before this migration are NULL, so the background pass of
the next extraction runs tags them (users with no LLM keep them untagged, and the
reranker reads an untagged memory as neutral). A partial index over the untagged ones
lets that pass find them without reading every memory, and extraction runs count the
memories they tagged (``memories_tagged``; 0 for runs stored before).

Revision ID: 0015
Revises: 0014
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("memories") as batch:
        batch.add_column(sa.Column("topics", sa.String(255), nullable=True))
    op.create_index(
        "ix_memories_untagged",
        "memories",
        ["created_at"],
        sqlite_where=sa.text("topics IS NULL"),
        postgresql_where=sa.text("topics IS NULL"),
    )
    with op.batch_alter_table("extraction_runs") as batch:
        batch.add_column(
            sa.Column("memories_tagged", sa.Integer, nullable=False, server_default="0")
        )


def downgrade() -> None:
    with op.batch_alter_table("extraction_runs") as batch:
        batch.drop_column("memories_tagged")
    op.drop_index("ix_memories_untagged", table_name="memories")
    with op.batch_alter_table("memories") as batch:
        batch.drop_column("topics")
