"""Chats of an unfinished import wait in ``import_chats`` (issue 37, item 6).

An import used to write every chat in one transaction, which on SQLite held the one
write lock for as long as a large file took (another user's write waited 30 s, then got
``database is locked``). Its chats are now staged here in short transactions and copied
into ``chats`` by the import's last one, so the import stays all or nothing.

Revision ID: 0024
Revises: 0023
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from memoryd.storage.tables import UTCDateTime

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "import_chats",
        sa.Column("import_id", sa.String(32), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("chat_id", sa.Integer, nullable=False),
        sa.Column(
            "user_id",
            sa.Integer,
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("workspace", sa.String(64), nullable=False),
        sa.Column("prompt", sa.Text, nullable=False),
        sa.Column("response", sa.Text, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("memory_processed", sa.Boolean, nullable=False),
        sa.Column("staged_at", UTCDateTime, nullable=False),
    )
    op.create_index("ix_import_chats_user_id", "import_chats", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_import_chats_user_id", table_name="import_chats")
    op.drop_table("import_chats")
