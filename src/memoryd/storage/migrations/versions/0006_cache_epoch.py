"""A change counter for the per-process caches of users, workspaces, keys and settings.

``cache_epoch`` holds one row whose ``version`` goes up, by trigger, whenever a user, a
workspace, a membership, a runtime setting or an API key's revocation changes. Every
process (each ``--workers`` process, every host on PostgreSQL) caches those lookups and
drops its cache when the version it reads differs from the one it cached under (see
``memoryd.storage.catalog``). Triggers rather than code: any writer, including a future
one or plain SQL, invalidates the caches.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

# (table, events): what a cached lookup depends on
WATCHED = (
    ("users", ("INSERT", "UPDATE", "DELETE")),
    ("workspaces", ("INSERT", "UPDATE", "DELETE")),
    ("user_workspaces", ("INSERT", "UPDATE", "DELETE")),
    ("settings", ("INSERT", "UPDATE", "DELETE")),
    ("api_keys", ("UPDATE OF revoked_at, user_id, key_hash", "DELETE")),
)
BUMP = "UPDATE cache_epoch SET version = version + 1"


def _trigger_name(table: str, event: str) -> str:
    return f"trg_epoch_{table}_{event.split()[0].lower()}"


def upgrade() -> None:
    op.create_table(
        "cache_epoch",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("version", sa.BigInteger, nullable=False),
    )
    op.execute("INSERT INTO cache_epoch (id, version) VALUES (1, 1)")
    postgres = op.get_bind().dialect.name == "postgresql"
    if postgres:
        op.execute(
            "CREATE FUNCTION memoryd_bump_epoch() RETURNS trigger LANGUAGE plpgsql AS "
            f"$$ BEGIN {BUMP}; RETURN NULL; END $$"
        )
    for table, events in WATCHED:
        for event in events:
            name = _trigger_name(table, event)
            if postgres:
                op.execute(
                    f"CREATE TRIGGER {name} AFTER {event} ON {table} "
                    "FOR EACH STATEMENT EXECUTE FUNCTION memoryd_bump_epoch()"
                )
            else:
                op.execute(
                    f"CREATE TRIGGER {name} AFTER {event} ON {table} FOR EACH ROW BEGIN {BUMP}; END"
                )


def downgrade() -> None:
    postgres = op.get_bind().dialect.name == "postgresql"
    for table, events in WATCHED:
        for event in events:
            name = _trigger_name(table, event)
            op.execute(f"DROP TRIGGER {name} ON {table}" if postgres else f"DROP TRIGGER {name}")
    if postgres:
        op.execute("DROP FUNCTION memoryd_bump_epoch()")
    op.drop_table("cache_epoch")
