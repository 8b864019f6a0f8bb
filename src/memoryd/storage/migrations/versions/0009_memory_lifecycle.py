"""Memory lifecycle: expiry dates, the extraction run that made a memory, suggestions.

- ``memories.expires_at``: "remember until" (issue 12, item 11). An expired memory is
  never injected and is deleted after a grace period (``expired_grace_days``).
- ``memories.run_id``: the extraction run that created the memory, for its detail view.
- ``memory_suggestions``: extraction's changes waiting for the user's accept / edit /
  reject when ``memory_review`` is on (item 12). Decided suggestions are kept (status
  ``accepted`` or ``rejected``) so a rejected fact is not suggested again.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from memoryd.storage.tables import UTCDateTime

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("memories", sa.Column("expires_at", UTCDateTime, nullable=True))
    op.add_column("memories", sa.Column("run_id", sa.String(32), nullable=True))
    op.create_index("ix_memories_expires_at", "memories", ["expires_at"])
    op.create_table(
        "memory_suggestions",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column(
            "user_id",
            sa.Integer,
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("scope", sa.String(16), nullable=False),
        sa.Column(
            "workspace_id",
            sa.Integer,
            sa.ForeignKey("workspaces.id", ondelete="CASCADE"),
            nullable=True,
        ),
        sa.Column("target_id", sa.String(32), nullable=True),
        sa.Column("target_content", sa.Text, nullable=True),
        sa.Column("content", sa.Text, nullable=False),
        sa.Column("content_key", sa.Text, nullable=False),
        sa.Column("expires_at", UTCDateTime, nullable=True),
        sa.Column("source_chats", sa.JSON, nullable=False),
        sa.Column("run_id", sa.String(32), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("decided_at", UTCDateTime, nullable=True),
        sa.Column("memory_id", sa.String(32), nullable=True),
        sa.Index("ix_memory_suggestions_user_status", "user_id", "status"),
        sa.Index("ix_memory_suggestions_workspace_id", "workspace_id"),
    )


def downgrade() -> None:
    op.drop_table("memory_suggestions")
    op.drop_index("ix_memories_expires_at", table_name="memories")
    with op.batch_alter_table("memories") as batch:
        batch.drop_column("run_id")
        batch.drop_column("expires_at")
