"""A memory's questions row stays whole on PostgreSQL, its vectors included (0017, 0027).

With its questions a memory's row was about 6.4 kB, and PostgreSQL would keep its
question vectors out of line in the TOAST table, costing every turn a fetch per memory
(BENCHMARKS.md, "With questions"). Migration 0017 set the memories table's
``toast_tuple_target`` so such a row is stored whole; since 0027 the questions are a row
of ``memory_derived``, whose table 0027 sets the same way: these tests write questions
the way the questions pass does and look at where PostgreSQL put them. Since round 14 a
memory has up to 6 questions, whose vectors are stored as float16 so the row keeps that
size; rows written before hold float32 and are still read.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime

import numpy as np
from alembic import command
from sqlalchemy import (
    Column,
    Connection,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    insert,
    select,
    text,
    update,
)

from memoryd import Memoryd
from memoryd.domain.rules import content_key
from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.storage import Database, derived
from memoryd.storage.database import _alembic_config
from memoryd.storage.tables import memories, memory_derived
from support.databases import revision_before
from support.questions import store_questions

# memories before 0018, when its questions were columns of its own
OLD_MEMORIES = Table(
    "memories",
    MetaData(),
    *(Column(c.name, c.type) for c in memories.c),
    Column("questions", Text),
    Column("question_vectors", LargeBinary),
    Column("question_embedder", String(64)),
)

ASKED = ("What instrument do you play?", "Are you in a band?", "Do you make music?")


def out_of_line(conn: Connection, table: str = "memory_derived") -> int:
    """Chunks in the table's TOAST table."""
    toast = conn.execute(
        text("SELECT reltoastrelid::regclass::text FROM pg_class WHERE relname = :t"),
        {"t": table},
    ).scalar_one()
    return int(conn.execute(text(f"SELECT count(*) FROM {toast}")).scalar_one())


def ask(md: Memoryd, user_id: int, fact: str, *, before_0018: bool = False) -> str:
    """Store a memory and its 3 questions with their real vectors, as the pass does (or,
    ``before_0018``, as a process of that time did on a schema without the prompt
    version: a row with only the columns that schema has)."""
    vectors = md.embedder.embed(list(ASKED))
    if not before_0018:
        memory = md.add_memory(user_id, fact)
        store_questions(md, memory.id, ASKED, vectors, md.embedder.name)
        return memory.id
    memory_id, now = uuid.uuid4().hex, datetime.now(UTC)
    columns = {
        "questions": json.dumps(list(ASKED)),
        "question_vectors": derived.matrix_bytes(vectors),
        "question_embedder": md.embedder.name,
    }
    with md.db.write() as repo:
        repo.conn.execute(
            insert(OLD_MEMORIES).values(
                id=memory_id,
                user_id=user_id,
                scope="global",
                content=fact,
                content_key=content_key(fact),
                source="user",
                created_at=now,
                updated_at=now,
                source_chats=[],
                embedding=md.embedder.embed([fact])[0].tobytes(),
                embedder=md.embedder.name,
                **columns,
            )
        )
    return memory_id


def test_a_memory_with_questions_is_read_whole_on_both_backends(any_md: Memoryd) -> None:
    ana = any_md.create_user("ana")
    ask(any_md, ana.id, "I play the guitar.")
    if any_md.db.dialect == "postgresql":
        with any_md.db.read() as repo:
            assert out_of_line(repo.conn) == 0
    [turn] = any_md.context(ana.id, None, "What do you play?", record=False).memories
    assert turn.questions == ASKED
    assert turn.question_vectors is not None and turn.question_vectors.shape == (3, 384)


SIX = (*ASKED, "What do you do for fun?", "Do you play live?", "Which songs do you play?")


def test_six_questions_keep_the_row_whole_and_float32_rows_still_read(any_md: Memoryd) -> None:
    """The union's 6 vectors are stored as float16 (4.6 kB, what 3 float32 took), so
    PostgreSQL keeps the row whole; a row a process before round 14 wrote (float32, no
    marker) reads as it did, bit for bit."""
    ana = any_md.create_user("ana")
    six = any_md.add_memory(ana.id, "I play the guitar.")
    vectors = any_md.embedder.embed(list(SIX))
    old = any_md.add_memory(ana.id, "I sing in a choir.")
    legacy = any_md.embedder.embed(list(ASKED))
    store_questions(any_md, six.id, SIX, vectors, any_md.embedder.name)
    store_questions(any_md, old.id, ASKED, None, any_md.embedder.name)
    with any_md.db.write() as repo:
        float32 = np.asarray(legacy, np.float32).tobytes()
        mine = (memory_derived.c.memory_id == old.id, memory_derived.c.kind == "questions")
        repo.conn.execute(
            update(memory_derived)
            .where(*mine)
            .values(vectors=float32, embedder=any_md.embedder.name)
        )
        blob = repo.conn.execute(
            select(memory_derived.c.vectors).where(memory_derived.c.memory_id == six.id)
        ).scalar_one()
    assert len(blob) == len(derived.FLOAT16) + 6 * 384 * 2
    if any_md.db.dialect == "postgresql":
        with any_md.db.read() as repo:
            assert out_of_line(repo.conn) == 0
    turn = {m.content: m for m in any_md.context(ana.id, None, "hi", record=False).memories}
    read = turn["I play the guitar."].question_vectors
    assert read is not None and read.shape == (6, 384) and read.dtype == np.float32
    np.testing.assert_allclose(read, vectors, atol=2e-4)
    assert (np.sum(read * vectors, axis=1) > 0.9999).all()
    old_read = turn["I sing in a choir."].question_vectors
    assert old_read is not None
    np.testing.assert_array_equal(old_read, legacy)


def test_migration_0017_up_and_down(migrated_pg_url: str, embedder: MiniLMEmbedder) -> None:
    """Without 0017 PostgreSQL moves the question vectors out of the row; with it they
    stay; a memory stored before keeps them where they were and reads the same."""
    db = Database.open(migrated_pg_url)
    with db.engine.connect() as conn:
        command.downgrade(_alembic_config(conn), revision_before("_memory_rows_whole.py"))
        conn.commit()
    with Memoryd(database=db, embedder=embedder) as md:
        with md.db.write() as repo:  # as a process of that time did (no users.language yet)
            repo.conn.execute(
                text("INSERT INTO users (name, role, created_at) VALUES ('ana', 'default', now())")
            )
            ana_id = repo.conn.execute(text("SELECT id FROM users WHERE name = 'ana'")).scalar_one()
        before = ask(md, ana_id, "I play the guitar.", before_0018=True)
        with md.db.read() as repo:
            moved = out_of_line(repo.conn, "memories")
        assert moved > 0
    with Memoryd(migrated_pg_url, embedder=embedder) as md:  # migrates to head
        ask(md, ana_id, "I have two cats.")
        with md.db.read() as repo:  # 0027 moved its questions into a whole row
            assert out_of_line(repo.conn, "memories") == moved
            assert out_of_line(repo.conn) == 0
        turn = md.context(ana_id, None, "What do you play?", record=False).memories
        old = next(m for m in turn if m.id == before)
        assert old.questions == ASKED and old.question_vectors is not None
