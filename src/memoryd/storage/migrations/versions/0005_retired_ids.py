"""Never give a new user the id of a deleted one.

SQLite's ``INTEGER PRIMARY KEY`` hands out ``max(id) + 1``, so deleting the newest user
made their id the next one's, and anything still keyed by it (the audit log had no
foreign key) became the newcomer's. ``id_high_water`` remembers the highest user id ever
given; ``Repository.insert_user`` goes above it. (PostgreSQL's sequences never reuse ids;
the table is kept there too so both databases run the same code.) Audit entries of a
deleted user are deleted with them from now on; this migration removes those left behind
by users deleted before it.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "id_high_water",
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("value", sa.Integer, nullable=False),
    )
    op.execute(
        "INSERT INTO id_high_water (name, value) SELECT 'users', "
        "COALESCE((SELECT MAX(m) FROM (SELECT MAX(id) AS m FROM users "
        "UNION ALL SELECT MAX(user_id) FROM audit_log) AS t), 0)"
    )
    op.execute("DELETE FROM audit_log WHERE user_id NOT IN (SELECT id FROM users)")


def downgrade() -> None:
    op.drop_table("id_high_water")
