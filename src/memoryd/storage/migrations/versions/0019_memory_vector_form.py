"""Memory vectors are made from the memory's text in the user's own words (issue 10,
round 18).

A memory learned from chats reads "The user runs a dog obedience school."; its vector is
now that of "I run a dog obedience school." (``memoryd.domain.perspective``).
``vector_form`` records the version of that rewriting a vector was made with; rows written
before this migration (or by a process older than it, while a fleet upgrades) hold NULL:
a vector of the text as written. Those are made again by ``Memoryd.refresh_vectors``
(each extraction scheduler tick or PostgreSQL sweep does a batch, oldest first); until
then turns use them as they are. A partial index over them lets that find them without
reading every memory.

Revision ID: 0019
Revises: 0018
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None

# vectors of an older form of their text (the literal matches the tables' index)
OLD_VECTORS = "embedding IS NOT NULL AND (vector_form IS NULL OR vector_form < 1)"


def upgrade() -> None:
    with op.batch_alter_table("memories") as batch:
        batch.add_column(sa.Column("vector_form", sa.SmallInteger, nullable=True))
    op.create_index(
        "ix_memories_old_vectors",
        "memories",
        ["created_at"],
        sqlite_where=sa.text(OLD_VECTORS),
        postgresql_where=sa.text(OLD_VECTORS),
    )


def downgrade() -> None:
    op.drop_index("ix_memories_old_vectors", table_name="memories")
    with op.batch_alter_table("memories") as batch:
        batch.drop_column("vector_form")
