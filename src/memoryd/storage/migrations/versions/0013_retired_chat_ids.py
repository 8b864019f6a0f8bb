"""SQLite: chat ids that memories still name are never given to a new chat.

Deleting chats keeps their ids out of use from now on (``memoryd.storage.chat_erasure``),
but chats deleted before that, with their user or workspace, left no mark: SQLite numbers
a new row ``max(id) + 1``, so a new chat could take the id of a deleted one that a
memory's ``source_chats`` (or a suggestion's) still names, and the memory would seem to
come from words it never came from. This records the highest chat id any chat, memory
or suggestion names as the chats' high-water mark. PostgreSQL's sequence never gives an
id twice, so nothing is done there.

Revision ID: 0013
Revises: 0012
"""

from __future__ import annotations

from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    named = (
        "SELECT MAX(id) AS m FROM chats"
        " UNION ALL SELECT MAX(CAST(j.value AS INTEGER))"
        " FROM memories, json_each(memories.source_chats) AS j"
        " UNION ALL SELECT MAX(CAST(j.value AS INTEGER))"
        " FROM memory_suggestions, json_each(memory_suggestions.source_chats) AS j"
    )
    op.execute(
        "INSERT INTO id_high_water (name, value) SELECT 'chats', v FROM"
        f" (SELECT COALESCE(MAX(m), 0) AS v FROM ({named}) AS named) AS top"
        " WHERE NOT EXISTS (SELECT 1 FROM id_high_water WHERE name = 'chats')"
    )


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DELETE FROM id_high_water WHERE name = 'chats'")
