"""Which memories answered a chat, and whether memoryd may learn from a user's chats.

``chat_memories`` links each recorded chat to the memories that were injected into its
prompt, in prompt order, so a reply can show what it was told and a memory can list the
chats it was used in. The link has no foreign key to ``memories``: when a memory is
deleted its id stays on the chats as a tombstone ("a memory since deleted"), while
deleting the chat removes its links.

``users.learn_from_chats`` is the per-user "don't learn from my chats" switch: chats of a
user who turned it off are still recorded (and shown), but stored as already processed,
so extraction never reads them.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "chat_memories",
        sa.Column(
            "chat_id",
            sa.Integer,
            sa.ForeignKey("chats.id", ondelete="CASCADE", name="fk_chat_memories_chat_id_chats"),
            nullable=False,
        ),
        sa.Column("memory_id", sa.String(32), nullable=False),
        sa.Column("position", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("chat_id", "memory_id", name="pk_chat_memories"),
    )
    op.create_index("ix_chat_memories_memory_id", "chat_memories", ["memory_id", "chat_id"])
    # a plain ADD COLUMN (no table rebuild on SQLite: the users triggers of 0006 stay)
    op.add_column(
        "users",
        sa.Column("learn_from_chats", sa.Boolean, nullable=False, server_default=sa.true()),
    )


def downgrade() -> None:
    op.drop_column("users", "learn_from_chats")
    op.drop_index("ix_chat_memories_memory_id", table_name="chat_memories")
    op.drop_table("chat_memories")
