"""Extraction runs keep each pair's outcome and count failures and dropped facts apart.

A run used to keep only its itemised ``errors``; the admin panel and
``GET /api/v1/extraction/runs/{id}`` now show what happened to every pair (created and
updated memory ids, chats processed, facts dropped or not stored, the error), and the
run list shows how many pairs failed and how many facts were dropped, so a run that
only refused invented facts no longer reads like a failure. Earlier runs get their
counters from their stored ``errors`` and an empty ``pairs`` list.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

COUNTERS = (
    ("pairs_failed", "pair"),
    ("facts_dropped", "item"),
    ("facts_not_stored", "not_stored"),
)


def upgrade() -> None:
    with op.batch_alter_table("extraction_runs") as batch:
        batch.add_column(sa.Column("pairs", sa.JSON, nullable=False, server_default="[]"))
        for name, _ in COUNTERS:
            batch.add_column(sa.Column(name, sa.Integer, nullable=False, server_default="0"))
    runs = sa.table(
        "extraction_runs",
        sa.column("id", sa.String),
        sa.column("errors", sa.JSON),
        *(sa.column(name, sa.Integer) for name, _ in COUNTERS),
    )
    bind = op.get_bind()
    for row in bind.execute(sa.select(runs.c.id, runs.c.errors)).all():
        errors = row.errors or []
        counts = {
            name: sum(1 for e in errors if isinstance(e, dict) and e.get("kind") == kind)
            for name, kind in COUNTERS
        }
        if any(counts.values()):
            bind.execute(sa.update(runs).where(runs.c.id == row.id).values(**counts))


def downgrade() -> None:
    with op.batch_alter_table("extraction_runs") as batch:
        for name, _ in reversed(COUNTERS):
            batch.drop_column(name)
        batch.drop_column("pairs")
