"""Memories lose their topics and pastime answer, runs the counts of those passes (issue 34).

Both served only the answer bank and the pastime lift, fitted on one labelled set and
gaining nothing on conversations of other genres (BENCHMARKS.md, "Retrieval per genre"),
so the passes, the columns and their partial indexes go. Export files that still carry
``topics`` or ``pastime`` import as before: the fields are ignored.

Revision ID: 0023
Revises: 0022
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_memories_untagged", table_name="memories")
    op.drop_index("ix_memories_unjudged", table_name="memories")
    with op.batch_alter_table("memories") as batch:
        batch.drop_column("topics")
        batch.drop_column("pastime")
    with op.batch_alter_table("extraction_runs") as batch:
        batch.drop_column("memories_tagged")
        batch.drop_column("memories_judged")


def downgrade() -> None:
    with op.batch_alter_table("extraction_runs") as batch:
        batch.add_column(
            sa.Column("memories_tagged", sa.Integer, nullable=False, server_default="0")
        )
        batch.add_column(
            sa.Column("memories_judged", sa.Integer, nullable=False, server_default="0")
        )
    with op.batch_alter_table("memories") as batch:
        batch.add_column(sa.Column("topics", sa.String(255), nullable=True))
        batch.add_column(sa.Column("pastime", sa.Boolean, nullable=True))
    for name, column in (("ix_memories_untagged", "topics"), ("ix_memories_unjudged", "pastime")):
        op.create_index(
            name,
            "memories",
            ["created_at"],
            sqlite_where=sa.text(f"{column} IS NULL"),
            postgresql_where=sa.text(f"{column} IS NULL"),
        )
