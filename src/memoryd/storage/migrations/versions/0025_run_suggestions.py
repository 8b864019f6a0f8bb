"""Extraction runs count the suggestions they filed for review (issue 38).

With ``memory_review`` on, a run's changes wait as suggestions; ``memories_suggested``
sits beside ``memories_created`` and ``memories_updated`` so the run's summary says so.
Runs stored before this migration count 0.

Revision ID: 0025
Revises: 0024
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("extraction_runs") as batch:
        batch.add_column(
            sa.Column("memories_suggested", sa.Integer, nullable=False, server_default="0")
        )


def downgrade() -> None:
    with op.batch_alter_table("extraction_runs") as batch:
        batch.drop_column("memories_suggested")
