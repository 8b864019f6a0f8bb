"""Each user's own language: the injected heading's and the web UI's (issue 35).

``users.language`` is NULL while the user follows the server's ``MEMORYD_LANGUAGE``;
otherwise it holds a language code (``en``, ``fr``, ...) or ``auto`` (the language of
each turn's text). See ``memoryd.app.i18n``.

Revision ID: 0026
Revises: 0025
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0026"
down_revision = "0025"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # a plain ADD COLUMN (no table rebuild on SQLite: the users triggers of 0006 stay)
    op.add_column("users", sa.Column("language", sa.String(8), nullable=True))


def downgrade() -> None:
    op.drop_column("users", "language")
