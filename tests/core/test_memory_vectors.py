"""What a memory's stored vector is made from: its text in the user's own words
(``memoryd.domain.perspective``), on every path that writes one, and the refresh of
vectors stored before migration 0019 or made by an older form (0020)."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

import numpy as np
import pytest
from alembic import command
from sqlalchemy import inspect, select, text, update

from memoryd import Memoryd
from memoryd.domain.perspective import VECTOR_FORM, first_person
from memoryd.extraction.english_form import memory_form
from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.storage import Database
from memoryd.storage import vectors as stored
from memoryd.storage.database import _alembic_config
from memoryd.storage.tables import memories
from support.databases import revision_before, seed_user

LEARNED = "The user runs a dog obedience school."
SAID = "I run a dog obedience school."


def row(md: Memoryd, memory_id: str) -> tuple[np.ndarray, int | None]:
    with md.db.read() as repo:
        blob, form = repo.conn.execute(
            select(memories.c.embedding, memories.c.vector_form).where(memories.c.id == memory_id)
        ).one()
    return np.frombuffer(blob, np.float32), form


def same(a: np.ndarray, b: np.ndarray) -> bool:
    return float(a @ b) > 0.9999


@pytest.mark.parametrize(
    ("said", "stored_as"),
    [
        ("I run a dog obedience school.", "The user runs a dog obedience school."),
        ("My sister is a pole dancer.", "The user's sister is a pole dancer."),
        ("I also study French.", "The user also studies French."),
        ("I'm a nurse and I love my job.", "The user is a nurse and they love their job."),
        ("I have two cats.", "The user has two cats."),
        ("I was born in Ohio.", "The user was born in Ohio."),
        ("I watch hockey.", "The user watches hockey."),
    ],
)
def test_first_person_reads_back_what_extraction_stored(said: str, stored_as: str) -> None:
    assert memory_form(said) == stored_as
    assert first_person(stored_as).lower() == said.replace("I'm", "I am").lower()


@pytest.mark.parametrize(
    "content",
    ["Prefers concise answers", "Phoenix ships in Q3.", "Priya is on vacation in August"],
)
def test_other_texts_are_embedded_as_written(content: str) -> None:
    assert first_person(content) == content


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("User prefers dark mode.", "I prefer dark mode."),
        ("user likes tea", "I like tea"),
        (
            "the user is a vegan and their dog is named Rex.",
            "I am a vegan and my dog is named Rex.",
        ),
        ("User's sister lives in Oslo.", "My sister lives in Oslo."),
        ("The User also studies French.", "I also study French."),
        ("User is based in Berlin.", "I am based in Berlin."),
        ("The user's name is Bob.", "My name is Bob."),
    ],
)
def test_the_user_as_apps_and_people_write_it_is_read_in_the_first_person(
    written: str, said: str
) -> None:
    assert first_person(written) == said


@pytest.mark.parametrize(
    "content",
    [
        "User interviews are on Fridays.",
        "The user settings page is slow.",
        "The user interface redesign ships in March.",
        "user stories live in Jira",
        "User's guide is in Confluence.",
        "User Bob asked for an invoice.",
        "Users like dark mode.",
        "User: likes tea",
    ],
)
def test_a_user_that_names_a_thing_is_not_the_person(content: str) -> None:
    assert first_person(content) == content


def test_a_quoted_sentence_is_embedded_without_its_quote() -> None:
    quoted = memory_form("We moved the launch to March 28.")
    assert quoted.startswith("The user said: ")
    assert first_person(quoted) == "We moved the launch to March 28."


def test_every_write_stores_the_first_person_vector(md: Memoryd) -> None:
    said = md.embedder.embed([SAID])[0]
    as_written = md.embedder.embed([LEARNED])[0]
    assert not same(said, as_written)  # the test means something
    ana = md.create_user("ana")
    added = md.add_memory(ana.id, LEARNED)
    vector, form = row(md, added.id)
    assert same(vector, said) and form == VECTOR_FORM

    edited = md.add_memory(ana.id, "Prefers tea")
    md.edit_memory(ana.id, edited.id, content="The user's dog is named Rex.")
    vector, form = row(md, edited.id)
    assert same(vector, md.embedder.embed(["My dog is named Rex."])[0]) and form == VECTOR_FORM

    bo = md.create_user("bo")
    line = json.dumps({"content": LEARNED, "scope": "global"})
    md.import_memories(bo.id, [line])
    [imported] = md.list_memories(bo.id)
    vector, form = row(md, imported.id)
    assert same(vector, said) and form == VECTOR_FORM


def make_old(md: Memoryd, memory_id: str, content: str) -> None:
    """The row as a process older than 0019 wrote it: the vector of the text as written."""
    with md.db.write() as repo:
        repo.conn.execute(
            update(memories)
            .where(memories.c.id == memory_id)
            .values(embedding=md.embedder.embed([content])[0].tobytes(), vector_form=None)
        )


def test_refresh_makes_old_vectors_again_and_marks_the_rest(md: Memoryd) -> None:
    ana = md.create_user("ana")
    learned = md.add_memory(ana.id, LEARNED)
    typed = md.add_memory(ana.id, "Prefers tea")
    for memory in (learned, typed):
        make_old(md, memory.id, memory.content)
    typed_before, _ = row(md, typed.id)

    assert md.refresh_vectors() == 1
    vector, form = row(md, learned.id)
    assert same(vector, md.embedder.embed([SAID])[0]) and form == VECTOR_FORM
    vector, form = row(md, typed.id)
    assert np.array_equal(vector, typed_before) and form == VECTOR_FORM  # marked only
    assert md.refresh_vectors() == 0
    with md.db.read() as repo:
        assert stored.old_vector_memories(repo.conn, 10) == []


def test_refresh_makes_again_every_vector_of_an_older_form(md: Memoryd) -> None:
    """A vector of form 1 came from an older rewriting that this one cannot replay (it
    read "The user settings page is slow." as "I setting page is slow."), so it is made
    again whatever the text."""
    ana = md.create_user("ana")
    thing = md.add_memory(ana.id, "The user settings page is slow.")
    agent = md.add_memory(ana.id, "User prefers dark mode.")
    for memory, made_from in ((thing, "I setting page is slow."), (agent, agent.content)):
        with md.db.write() as repo:
            repo.conn.execute(
                update(memories)
                .where(memories.c.id == memory.id)
                .values(embedding=md.embedder.embed([made_from])[0].tobytes(), vector_form=1)
            )
    assert md.refresh_vectors() == 2
    vector, form = row(md, thing.id)
    assert same(vector, md.embedder.embed([thing.content])[0]) and form == VECTOR_FORM
    vector, form = row(md, agent.id)
    assert same(vector, md.embedder.embed(["I prefer dark mode."])[0]) and form == VECTOR_FORM


def test_refresh_looks_at_limit_memories_oldest_first(md: Memoryd) -> None:
    ana = md.create_user("ana")
    made = [md.add_memory(ana.id, f"The user has {n} cats.") for n in range(3)]
    for memory in made:
        make_old(md, memory.id, memory.content)
    assert md.refresh_vectors(limit=2) == 2
    assert [row(md, m.id)[1] for m in made] == [VECTOR_FORM, VECTOR_FORM, None]
    assert md.refresh_vectors(limit=None) == 1


def test_a_memory_edited_meanwhile_keeps_the_vector_of_its_new_text(md: Memoryd) -> None:
    ana = md.create_user("ana")
    memory = md.add_memory(ana.id, LEARNED)
    make_old(md, memory.id, memory.content)
    with md.db.read() as repo:
        [old] = stored.old_vector_memories(repo.conn, 10)
    md.edit_memory(ana.id, memory.id, content="The user has a cat.")
    with md.db.write() as repo:
        assert not stored.set_vector(repo.conn, old, md.embedder.embed([SAID])[0], "x")
    vector, _ = row(md, memory.id)
    assert same(vector, md.embedder.embed(["I have a cat."])[0])


def test_migration_0019_leaves_old_vectors_to_the_refresh(
    empty_db_url: str, embedder: MiniLMEmbedder
) -> None:
    """0019 on a database holding a learned memory: its vector stays until a refresh
    makes it again; downgrading drops the column and the index."""
    db = Database.open(empty_db_url, migrate=False)
    db.upgrade(revision_before("_memory_vector_form.py"))
    at = datetime(2026, 1, 1, tzinfo=UTC)
    old = embedder.embed([LEARNED])[0]
    with db.engine.begin() as conn:
        seed_user(conn, at)
        conn.execute(
            text(
                "INSERT INTO memories (id, user_id, scope, content, content_key, source, "
                "created_at, updated_at, source_chats, embedding, embedder) VALUES ('m1', 1, "
                "'global', :content, :key, 'extraction', :at, :at, '[]', :vector, :embedder)"
            ),
            {"content": LEARNED, "key": LEARNED.lower(), "at": at, "vector": old.tobytes(),
             "embedder": embedder.name},
        )  # fmt: skip
    db.upgrade()
    with Memoryd(database=db, embedder=embedder) as md:
        vector, form = row(md, "m1")
        assert np.array_equal(vector, old) and form is None
        assert md.refresh_vectors() == 1
        vector, form = row(md, "m1")
        assert same(vector, embedder.embed([SAID])[0]) and form == VECTOR_FORM
    with db.engine.connect() as conn:
        command.downgrade(_alembic_config(conn), revision_before("_memory_vector_form.py"))
        conn.commit()
    with db.engine.connect() as conn:
        columns = set(conn.execute(text("SELECT * FROM memories")).keys())
        indexes = {i["name"] for i in inspect(conn).get_indexes("memories")}
    assert "vector_form" not in columns and "ix_memories_old_vectors" not in indexes
    db.dispose()


def test_migration_0020_moves_the_old_vectors_bound_to_form_2(
    empty_db_url: str, embedder: MiniLMEmbedder
) -> None:
    """A vector of form 1 is old after 0020 (the refresh finds it through the index);
    downgrading marks form-2 vectors as form 1, the newest form a 0019 process knows."""
    db = Database.open(empty_db_url, migrate=False)
    db.upgrade(revision_before("_vector_form_user_subjects.py"))
    at = datetime(2026, 1, 1, tzinfo=UTC)
    with db.engine.begin() as conn:
        seed_user(conn, at)
        for memory_id, content in (("m1", "User prefers dark mode."), ("m2", LEARNED)):
            conn.execute(
                text(
                    "INSERT INTO memories (id, user_id, scope, content, content_key, source, "
                    "created_at, updated_at, source_chats, embedding, embedder, vector_form) "
                    "VALUES (:id, 1, 'global', :content, :key, 'user', :at, :at, '[]', "
                    ":vector, :embedder, 1)"
                ),
                {"id": memory_id, "content": content, "key": content.lower(), "at": at,
                 "vector": embedder.embed([content])[0].tobytes(), "embedder": embedder.name},
            )  # fmt: skip
    db.upgrade()
    with Memoryd(database=db, embedder=embedder) as md:
        with md.db.read() as repo:
            assert [m.id for m in stored.old_vector_memories(repo.conn, 10)] == ["m1", "m2"]
        assert md.refresh_vectors() == 2
        assert same(row(md, "m1")[0], embedder.embed(["I prefer dark mode."])[0])
    with db.engine.connect() as conn:
        command.downgrade(_alembic_config(conn), revision_before("_vector_form_user_subjects.py"))
        conn.commit()
    with db.engine.connect() as conn:
        forms = conn.execute(text("SELECT vector_form FROM memories ORDER BY id")).scalars()
        assert list(forms) == [1, 1]
        assert "ix_memories_old_vectors" in {
            i["name"] for i in inspect(conn).get_indexes("memories")
        }
    db.dispose()


def test_upkeep_makes_old_vectors_again_even_when_the_purge_fails(
    md: Memoryd, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The scheduler's ticks and the PostgreSQL sweep run ``upkeep``: one failing part
    is logged and does not stop the other."""
    ana = md.create_user("ana")
    memory = md.add_memory(ana.id, LEARNED)
    make_old(md, memory.id, memory.content)

    def busy() -> int:
        raise RuntimeError("database is locked")

    monkeypatch.setattr(md.lifecycle, "purge_expired", busy)
    caplog.set_level(logging.INFO, logger="memoryd")
    md.upkeep()
    assert row(md, memory.id)[1] == VECTOR_FORM
    assert "purging expired memories failed" in caplog.text
    assert "making memory vectors again: 1" in caplog.text
