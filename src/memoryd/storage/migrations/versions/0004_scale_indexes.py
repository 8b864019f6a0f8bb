"""Indexes for running at scale on PostgreSQL: deleting a workspace without a full scan.

The hot paths were already covered (checked with EXPLAIN at 100,000 users, see
BENCHMARKS.md): the turn's memory read uses ``ix_memories_user_scope_workspace`` and the
due-pair sweep the partial index ``ix_chats_unprocessed`` (0002). What was left is every
lookup by workspace alone: ``DELETE FROM memories/chats WHERE workspace_id = ...`` when a
workspace is deleted, and the foreign-key cascades that do the same. Without these two
indexes each of them reads the whole table (millions of chats) while holding its locks.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_memories_workspace_id", "memories", ["workspace_id"])
    op.create_index("ix_chats_workspace_id", "chats", ["workspace_id"])


def downgrade() -> None:
    op.drop_index("ix_chats_workspace_id", table_name="chats")
    op.drop_index("ix_memories_workspace_id", table_name="memories")
