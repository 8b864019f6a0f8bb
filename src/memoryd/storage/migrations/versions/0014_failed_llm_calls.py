"""Extraction runs count the LLM calls that failed, apart from those that were answered.

A call that got no answer (an HTTP error, a timeout, a server that cannot be reached)
was not counted at all, so a run whose every call failed read "0 LLM calls", like a run
that needed none. ``llm_calls`` now counts every call made, and this column the failed
ones among them. Runs stored before this migration get 0: which of their calls failed
was never recorded (and the calls that failed were not in their ``llm_calls`` either).

Revision ID: 0014
Revises: 0013
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("extraction_runs") as batch:
        batch.add_column(
            sa.Column("llm_calls_failed", sa.Integer, nullable=False, server_default="0")
        )


def downgrade() -> None:
    with op.batch_alter_table("extraction_runs") as batch:
        batch.drop_column("llm_calls_failed")
