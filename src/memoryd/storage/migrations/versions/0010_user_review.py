"""Each user's own choice of which extraction changes wait for their review.

``users.memory_review`` is NULL while the user follows the instance's run-time setting
``memory_review``; otherwise it holds the user's own mode (off | updates | everything),
which extraction uses for that user's memories instead.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # a plain ADD COLUMN (no table rebuild on SQLite: the users triggers of 0006 stay)
    op.add_column("users", sa.Column("memory_review", sa.String(16), nullable=True))


def downgrade() -> None:
    op.drop_column("users", "memory_review")
