"""PostgreSQL: a memory's row stays whole, questions included (issue 10, after round 10).

With its questions (0016) a memory's row is about 6.4 kB: two vectors of float32 (the
memory's, 1.5 kB, and its 3 questions', 4.6 kB) and the text. PostgreSQL moves any row
over about 2 kB into the table's TOAST table, the question vectors first: a chat turn,
which reads 25 such rows, then fetched each one's vectors from there, an index probe and
3 more pages per row (133 buffers for the read instead of 33), and its p50 rose 1.6 ms at
20,000 users (BENCHMARKS.md, "With questions"). ``toast_tuple_target = 8160`` (a page's
room for one row) keeps every row that fits in a page whole, neither compressed (the
vectors do not compress) nor out of line: the read touches the 33 pages it did before the
questions. One row per page costs nothing to that read, whose 25 rows were on 25 pages
anyway. Longer rows are still moved out as before. Rows stored before keep their
vectors where they are until their questions are written again (or ``VACUUM FULL
memories`` rewrites them). SQLite keeps a row whole in any case: nothing to do there.

Revision ID: 0017
Revises: 0016
"""

from __future__ import annotations

from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE memories SET (toast_tuple_target = 8160)")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE memories RESET (toast_tuple_target)")
