"""Extraction runs count the memories their pastime pass answered (issue 10).

``memories_judged`` sits beside ``memories_tagged`` and ``memories_questioned``; runs
stored before this migration count 0.

Revision ID: 0022
Revises: 0021
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("extraction_runs") as batch:
        batch.add_column(
            sa.Column("memories_judged", sa.Integer, nullable=False, server_default="0")
        )


def downgrade() -> None:
    with op.batch_alter_table("extraction_runs") as batch:
        batch.drop_column("memories_judged")
