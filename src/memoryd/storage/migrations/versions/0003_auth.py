"""Authentication, API keys, sessions and workspace membership (issue 4).

Mirrors the ``user_credentials``, ``api_keys``, ``sessions`` and ``user_workspaces``
tables of ``memoryd.storage.tables``.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from memoryd.storage.tables import UTCDateTime

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def _user_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["user_id"], ["users.id"], name=f"fk_{table}_user_id_users", ondelete="CASCADE"
    )


def upgrade() -> None:
    op.create_table(
        "user_credentials",
        sa.Column("user_id", sa.Integer, nullable=False),
        sa.Column("password_hash", sa.String(255), nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
        sa.PrimaryKeyConstraint("user_id", name="pk_user_credentials"),
        _user_fk("user_credentials"),
    )
    op.create_table(
        "api_keys",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("user_id", sa.Integer, nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("prefix", sa.String(16), nullable=False),
        sa.Column("key_hash", sa.String(64), nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("last_used_at", UTCDateTime, nullable=True),
        sa.Column("revoked_at", UTCDateTime, nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_api_keys"),
        sa.UniqueConstraint("key_hash", name="uq_api_keys_key_hash"),
        _user_fk("api_keys"),
    )
    op.create_index("ix_api_keys_user_id", "api_keys", ["user_id"])
    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("user_id", sa.Integer, nullable=False),
        sa.Column("csrf_token", sa.String(64), nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("expires_at", UTCDateTime, nullable=False),
        sa.PrimaryKeyConstraint("token_hash", name="pk_sessions"),
        _user_fk("sessions"),
    )
    op.create_index("ix_sessions_user_id", "sessions", ["user_id"])
    op.create_table(
        "user_workspaces",
        sa.Column("user_id", sa.Integer, nullable=False),
        sa.Column("workspace_id", sa.Integer, nullable=False),
        sa.Column("added_at", UTCDateTime, nullable=False),
        sa.PrimaryKeyConstraint("user_id", "workspace_id", name="pk_user_workspaces"),
        _user_fk("user_workspaces"),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name="fk_user_workspaces_workspace_id_workspaces",
            ondelete="CASCADE",
        ),
    )
    op.create_index("ix_user_workspaces_workspace_id", "user_workspaces", ["workspace_id"])


def downgrade() -> None:
    for table in ("user_workspaces", "sessions", "api_keys", "user_credentials"):
        op.drop_table(table)
