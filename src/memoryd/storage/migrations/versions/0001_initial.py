"""Initial schema: users, workspaces, memories, chats, settings, audit log.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from memoryd.storage.tables import UTCDateTime

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_users"),
        sa.UniqueConstraint("name", name="uq_users_name"),
    )
    op.create_table(
        "workspaces",
        sa.Column("id", sa.Integer, autoincrement=True),
        sa.Column("slug", sa.String(64), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_workspaces"),
        sa.UniqueConstraint("slug", name="uq_workspaces_slug"),
    )
    op.create_table(
        "memories",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("user_id", sa.Integer, nullable=False),
        sa.Column("scope", sa.String(16), nullable=False),
        sa.Column("workspace_id", sa.Integer, nullable=True),
        sa.Column("content", sa.Text, nullable=False),
        sa.Column("content_key", sa.Text, nullable=False),
        sa.Column("source", sa.String(16), nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
        sa.Column("last_used_at", UTCDateTime, nullable=True),
        sa.Column("source_chats", sa.JSON, nullable=False),
        sa.Column("embedding", sa.LargeBinary, nullable=True),
        sa.Column("embedder", sa.String(64), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_memories"),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name="fk_memories_user_id_users", ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name="fk_memories_workspace_id_workspaces",
            ondelete="CASCADE",
        ),
    )
    op.create_index(
        "ix_memories_user_scope_workspace", "memories", ["user_id", "scope", "workspace_id"]
    )
    op.create_table(
        "chats",
        sa.Column("id", sa.Integer, autoincrement=True),
        sa.Column("user_id", sa.Integer, nullable=False),
        sa.Column("workspace_id", sa.Integer, nullable=False),
        sa.Column("prompt", sa.Text, nullable=False),
        sa.Column("response", sa.Text, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("memory_processed", sa.Boolean, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_chats"),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name="fk_chats_user_id_users", ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name="fk_chats_workspace_id_workspaces",
            ondelete="CASCADE",
        ),
    )
    op.create_index(
        "ix_chats_pair_processed", "chats", ["user_id", "workspace_id", "memory_processed"]
    )
    op.create_table(
        "settings",
        sa.Column("key", sa.String(64), nullable=False),
        sa.Column("value", sa.JSON, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
        sa.PrimaryKeyConstraint("key", name="pk_settings"),
    )
    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer, autoincrement=True),
        sa.Column("memory_id", sa.String(32), nullable=False),
        sa.Column("user_id", sa.Integer, nullable=False),
        sa.Column("action", sa.String(16), nullable=False),
        sa.Column("actor", sa.String(100), nullable=False),
        sa.Column("before", sa.JSON, nullable=True),
        sa.Column("after", sa.JSON, nullable=True),
        sa.Column("at", UTCDateTime, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_audit_log"),
    )
    op.create_index("ix_audit_log_user_id", "audit_log", ["user_id", "id"])
    op.create_index("ix_audit_log_memory_id", "audit_log", ["memory_id"])


def downgrade() -> None:
    for table in ("audit_log", "settings", "chats", "memories", "workspaces", "users"):
        op.drop_table(table)
