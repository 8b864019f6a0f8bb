"""Each (user, workspace) pair's newest extraction run, so run history can be pruned.

The run history grows by a row per run (a scheduler tick, a worker job, a manual run)
forever. The run-time setting ``run_retention_days`` now deletes finished runs older
than that, but never a pair's newest run: ``extraction_last_runs`` names it, one row per
pair, written when a run that processed the pair finishes. Runs name their pairs only
inside their ``pairs`` JSON, so this table is filled here from the existing history
(the newest run per pair whose user and workspace still exist).

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from alembic import op

from memoryd.storage.tables import UTCDateTime

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    last_runs = op.create_table(
        "extraction_last_runs",
        sa.Column(
            "user_id",
            sa.Integer,
            sa.ForeignKey(
                "users.id", ondelete="CASCADE", name="fk_extraction_last_runs_user_id_users"
            ),
            nullable=False,
        ),
        sa.Column(
            "workspace_id",
            sa.Integer,
            sa.ForeignKey(
                "workspaces.id",
                ondelete="CASCADE",
                name="fk_extraction_last_runs_workspace_id_workspaces",
            ),
            nullable=False,
        ),
        sa.Column("run_id", sa.String(32), nullable=False),
        sa.Column("started_at", UTCDateTime, nullable=False),
        sa.PrimaryKeyConstraint("user_id", "workspace_id", name="pk_extraction_last_runs"),
    )
    op.create_index("ix_extraction_last_runs_run_id", "extraction_last_runs", ["run_id"])
    op.create_index(
        "ix_extraction_last_runs_workspace_id", "extraction_last_runs", ["workspace_id"]
    )
    rows = _newest_per_pair(op.get_bind())
    if rows:
        op.bulk_insert(last_runs, rows)


def _newest_per_pair(bind: Any) -> list[dict[str, Any]]:
    runs = sa.table(
        "extraction_runs",
        sa.column("id", sa.String),
        sa.column("started_at", UTCDateTime),
        sa.column("finished_at", UTCDateTime),
        sa.column("pairs", sa.JSON),
    )
    newest: dict[tuple[int, str], tuple[str, datetime]] = {}
    query = (
        sa.select(runs.c.id, runs.c.started_at, runs.c.pairs)
        .where(runs.c.finished_at.is_not(None))
        .order_by(runs.c.started_at, runs.c.id)
        .execution_options(yield_per=500)
    )
    for row in bind.execute(query):
        for pair in row.pairs or []:
            user_id, slug = pair.get("user_id"), pair.get("workspace")
            if isinstance(user_id, int) and isinstance(slug, str):
                newest[(user_id, slug)] = (row.id, row.started_at)
    if not newest:
        return []
    user_ids = {int(i) for i in bind.execute(sa.text("SELECT id FROM users")).scalars()}
    slugs = {r.slug: int(r.id) for r in bind.execute(sa.text("SELECT id, slug FROM workspaces"))}
    return [
        {"user_id": uid, "workspace_id": slugs[slug], "run_id": run_id, "started_at": at}
        for (uid, slug), (run_id, at) in newest.items()
        if uid in user_ids and slug in slugs
    ]


def downgrade() -> None:
    op.drop_index("ix_extraction_last_runs_workspace_id", table_name="extraction_last_runs")
    op.drop_index("ix_extraction_last_runs_run_id", table_name="extraction_last_runs")
    op.drop_table("extraction_last_runs")
