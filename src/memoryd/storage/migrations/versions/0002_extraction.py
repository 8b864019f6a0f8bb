"""Extraction: run history, per-pair retry state, and an index for due-pair selection.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from memoryd.storage.tables import UTCDateTime

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "extraction_runs",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("trigger", sa.String(16), nullable=False),
        sa.Column("provider", sa.String(64), nullable=True),
        sa.Column("model", sa.String(200), nullable=True),
        sa.Column("dry_run", sa.Boolean, nullable=False),
        sa.Column("started_at", UTCDateTime, nullable=False),
        sa.Column("finished_at", UTCDateTime, nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("pairs_seen", sa.Integer, nullable=False),
        sa.Column("pairs_processed", sa.Integer, nullable=False),
        sa.Column("pairs_skipped", sa.Integer, nullable=False),
        sa.Column("skipped_reasons", sa.JSON, nullable=False),
        sa.Column("memories_created", sa.Integer, nullable=False),
        sa.Column("memories_updated", sa.Integer, nullable=False),
        sa.Column("chats_processed", sa.Integer, nullable=False),
        sa.Column("llm_calls", sa.Integer, nullable=False),
        sa.Column("prompt_tokens", sa.Integer, nullable=False),
        sa.Column("completion_tokens", sa.Integer, nullable=False),
        sa.Column("errors", sa.JSON, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_extraction_runs"),
    )
    op.create_index("ix_extraction_runs_started_at", "extraction_runs", ["started_at"])
    op.create_table(
        "extraction_pairs",
        sa.Column("user_id", sa.Integer, nullable=False),
        sa.Column("workspace_id", sa.Integer, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("next_attempt_at", UTCDateTime, nullable=True),
        sa.Column("parked", sa.Boolean, nullable=False),
        sa.Column("last_error", sa.Text, nullable=True),
        sa.Column("last_run_id", sa.String(32), nullable=True),
        sa.Column("failed_chat_ids", sa.JSON, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
        sa.PrimaryKeyConstraint("user_id", "workspace_id", name="pk_extraction_pairs"),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name="fk_extraction_pairs_user_id_users", ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name="fk_extraction_pairs_workspace_id_workspaces",
            ondelete="CASCADE",
        ),
    )
    op.create_index(
        "ix_chats_unprocessed",
        "chats",
        ["user_id", "workspace_id", "created_at"],
        sqlite_where=sa.text("memory_processed = 0"),
        postgresql_where=sa.text("memory_processed = false"),
    )


def downgrade() -> None:
    op.drop_index("ix_chats_unprocessed", table_name="chats")
    op.drop_table("extraction_pairs")
    op.drop_index("ix_extraction_runs_started_at", table_name="extraction_runs")
    op.drop_table("extraction_runs")
