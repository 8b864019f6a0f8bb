"""Extraction runs get a heartbeat, so a run whose process died stops reading "running".

A run row was written "running" when the run started and updated when it finished; a
process killed in between (restart, OOM, a stopped worker) left it "running" for ever,
and retention never pruned it. A run in progress now moves ``heartbeat_at`` (its last
sign of life) and ``alive_until`` (when, without another, it counts as interrupted)
forward as it works; runs are read back as ``interrupted`` past ``alive_until``. Both are
NULL for runs stored before this migration (or by an older memoryd still running during
an upgrade): readers then count from ``started_at``, so nothing is filled in here.

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from memoryd.storage.tables import UTCDateTime

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("extraction_runs") as batch:
        batch.add_column(sa.Column("heartbeat_at", UTCDateTime, nullable=True))
        batch.add_column(sa.Column("alive_until", UTCDateTime, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("extraction_runs") as batch:
        batch.drop_column("alive_until")
        batch.drop_column("heartbeat_at")
