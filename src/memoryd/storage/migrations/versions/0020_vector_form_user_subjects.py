"""Memory vectors read "User ..." openings in the user's own words too (issue 10, round 19).

``memoryd.domain.perspective.first_person`` now also turns "User prefers dark mode." and
"the user likes tea" into "I prefer dark mode." and "I like tea", and leaves a "user" that
names a thing ("The user settings page is slow.") as written: ``VECTOR_FORM`` 2. Vectors
made with form 1 are made again by ``Memoryd.refresh_vectors`` like those of 0019, so the
partial index over the older vectors moves its bound from 1 to 2.

Revision ID: 0020
Revises: 0019
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None

INDEX = "ix_memories_old_vectors"
# vectors of an older form of their text (the literal matches the tables' index)
OLD_VECTORS = "embedding IS NOT NULL AND (vector_form IS NULL OR vector_form < {form})"


def _index_below(form: int) -> None:
    op.drop_index(INDEX, table_name="memories")
    where = sa.text(OLD_VECTORS.format(form=form))
    op.create_index(INDEX, "memories", ["created_at"], sqlite_where=where, postgresql_where=where)


def upgrade() -> None:
    _index_below(2)


def downgrade() -> None:
    # a form-2 vector is as good as a form-1 one to a process of 0019: it keeps it
    op.execute("UPDATE memories SET vector_form = 1 WHERE vector_form > 1")
    _index_below(1)
