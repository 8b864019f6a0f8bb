"""PostgreSQL: a memory's row stays whole, questions included (issue 10, after round 10).

With its questions (0016) a memory's row is about 6.4 kB: two float32 vectors (the
memory's, 1.5 kB, and its 3 questions', 4.6 kB) and the text. Of a row over about 2 kB,
PostgreSQL moves the largest values out to the table's TOAST storage, here the question
vectors. A chat turn, which reads 25 such rows, then fetched each one's vectors from
there (an index probe and a page or two per row: 133 buffers for the read instead of
33), and its p50 rose 0.7 to 1.6 ms at 20,000 users and 3.7 ms at 100,000; with whole
rows, 0.3 to 0.6 ms (BENCHMARKS.md, "With questions"). ``toast_tuple_target = 8160`` (a
page's room for one row) keeps every row that fits in a page whole, neither compressed
(the vectors do not compress) nor moved out: the read touches the 33 pages it did before
the questions, and one row per page costs it nothing, its 25 rows being on 25 pages
anyway. The price: an update of the row (marking it used) copies all of it, 6.4 kB
instead of 1.8 kB, and the background write makes about a third more WAL. Longer rows
are still moved out as before. Rows stored before keep their vectors where they are
until rewritten (``VACUUM FULL memories``, docs/deploy.md). SQLite keeps a row whole in
any case: nothing to do there.

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
