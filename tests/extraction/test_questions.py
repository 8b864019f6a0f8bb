"""What the questions pass of extraction runs (issue 10, round 10) does beyond the loop of
per-memory passes, against the scripted LLM server: the answer's questions are trimmed,
deduplicated and embedded with the service's embedder; questions
another embedder embedded are embedded again without the LLM. Then what the questions do
to a turn, export and import, and migration 0016 up and down. SQLite and PostgreSQL. The
loop's own rules are tested in ``test_memory_pass.py``.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
from alembic import command
from sqlalchemy import text

from memoryd import InvalidInput, Memoryd
from memoryd.domain.rules import content_key
from memoryd.extraction import questions
from memoryd.extraction.runs import list_runs
from memoryd.extraction.scheduler import ExtractionScheduler
from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.storage import Database, derived
from memoryd.storage.database import _alembic_config
from memoryd.testing import FakeOpenAIServer, Reply
from support.databases import revision_before, seed_memory_and_run
from support.extraction import Clock, make_md
from support.questions import store_questions

GUITAR = ("What instrument do you play?", "Are you in a band?", "Do you make music?")


def ask(*asked: object) -> Reply:
    return Reply.json({"questions": list(asked)}, usage=(420, 40))


def twice(reply: Reply) -> tuple[Reply, Reply]:
    """The same answer to both of a memory's calls (one per prompt)."""
    return reply, reply


def asked_about(srv: FakeOpenAIServer) -> list[str]:
    """The memory texts the LLM was asked questions for, in order."""
    return [
        str(r["messages"][-1]["content"]).removeprefix("Fact: ")
        for r in srv.requests
        if r["messages"][0]["content"] == questions.SYSTEM
    ]


def test_a_good_answers_questions_are_embedded_with_the_services_embedder(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, embedder: MiniLMEmbedder
) -> None:
    ana = team_md.get_user("ana")
    team_md.add_memory(ana.id, "I play the guitar in a band.")
    fake_llm.script(*twice(ask(*GUITAR)))

    assert team_md.extract(ask_questions=5).memories_questioned == 1

    [turn_memory] = team_md.context(ana.id, None, "hi", record=False).memories
    assert turn_memory.questions == GUITAR
    assert turn_memory.question_embedder == embedder.name
    assert turn_memory.question_vectors is not None
    # stored as float16: within its rounding (about 5e-4 of a value up to 1)
    np.testing.assert_allclose(
        turn_memory.question_vectors, np.asarray(embedder.embed(list(GUITAR))), atol=2e-4
    )


@pytest.mark.parametrize(
    ("reply", "kept"),
    [
        (Reply.json({"questions": [" ", 7, "x" * 201]}), ()),
        (
            Reply.json({"questions": [" Do you play? ", 7, "Do you play?", "A?", "B?", "C?"]}),
            ("Do you play?", "A?", "B?"),  # distinct, trimmed, the first three
        ),
    ],
    ids=["nothing-usable", "some-usable"],
)
def test_only_distinct_trimmed_short_questions_are_stored_and_not_retried(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, reply: Reply, kept: tuple[str, ...]
) -> None:
    ana = team_md.get_user("ana")
    memory = team_md.add_memory(ana.id, "I play the guitar in a band.")
    fake_llm.script(*twice(reply))

    run = team_md.extract(ask_questions=5)

    assert team_md.get_memory(ana.id, memory.id).questions == kept
    assert (run.memories_questioned, run.llm_calls, run.llm_calls_failed) == (1, 2, 0)
    assert run.errors == []
    team_md.extract(ask_questions=5)
    assert len(fake_llm.requests) == 2


class Renamed:
    """The test embedder under another name: its vectors are another embedder's."""

    def __init__(self, inner: MiniLMEmbedder, name: str) -> None:
        self.inner, self.name, self.dimensions = inner, name, inner.dimensions
        self.embedded: list[str] = []

    def embed(self, texts: list[str]) -> list[np.ndarray]:
        self.embedded += texts
        return self.inner.embed(texts)


def test_a_new_embedder_embeds_the_stored_questions_again_without_the_llm(
    database_url: str,
    fake_llm: FakeOpenAIServer,
    tmp_path: Path,
    embedder: MiniLMEmbedder,
    clock: Clock,
) -> None:
    with make_md(database_url, fake_llm, tmp_path, embedder, clock) as md:
        ana = md.create_user("ana")
        md.add_memory(ana.id, "I play the guitar.")
        fake_llm.script(*twice(ask(*GUITAR)))
        md.extract(ask_questions=5)
    other = Renamed(embedder, "other-embedder")
    with make_md(database_url, fake_llm, tmp_path, other, clock) as md:  # type: ignore[arg-type]
        ana = md.get_user("ana")
        [memory] = md.context(ana.id, None, "What do you play?", record=False).memories
        assert memory.question_embedder == embedder.name  # read, not used
        run = md.extract(ask_questions=5)
        assert (run.llm_calls, len(fake_llm.requests)) == (0, 2)
        assert other.embedded[-3:] == list(GUITAR)
        [memory] = md.context(ana.id, None, "What do you play?", record=False).memories
        assert memory.question_embedder == "other-embedder"
        assert memory.questions == GUITAR


def test_a_scheduler_tick_embeds_questions_again_when_nothing_else_waits(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, embedder: MiniLMEmbedder
) -> None:
    """The embedded scheduler runs the pass on every tick (the queue's sweep looks
    for waiting memories first, ``tests/scale``): a memory asked, whose
    questions another embedder embedded, is embedded again by the next tick, no LLM call."""
    ana = team_md.get_user("ana")
    memory = team_md.add_memory(ana.id, "I play the guitar.")
    vectors = embedder.embed(list(GUITAR))
    store_questions(team_md, memory.id, GUITAR, vectors, "an-older-embedder")

    run = ExtractionScheduler(team_md).tick()

    assert run is not None and (run.llm_calls, fake_llm.requests) == (0, [])
    [turn_memory] = team_md.context(ana.id, None, "What do you play?", record=False).memories
    assert (turn_memory.questions, turn_memory.question_embedder) == (GUITAR, embedder.name)


def test_a_memory_whose_questions_match_the_message_climbs(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    """The turn reads the questions with its rows: a memory whose questions match the
    message gains over the pool's mean, scaled by the square of the pool's share the pass
    has reached (round 11); one without questions gains nothing."""
    ana = team_md.get_user("ana")
    target = "I spend my days fixing teeth."
    facts = {
        "My sister lives in Berlin.": (
            "Where does your sister live?",
            "Do you have siblings?",
            "Where is your family?",
        ),
        target: ("What do you do for a living?", "What is your job?", "Where do you work?"),
        "I drive a blue hatchback.": (
            "What car do you drive?",
            "Do you have a car?",
            "What color is your car?",
        ),
        "I work night shifts at the hospital.": ("Which hospital?", "Are you a nurse?"),
        "My office is on the fourth floor.": ("Where is your office?", "Which floor?"),
        "I am allergic to cats.": ("Do you have allergies?", "Are you allergic to pets?"),
        "I collect vinyl records.": ("Do you collect anything?", "What do you collect?"),
    }
    for fact in facts:
        team_md.add_memory(ana.id, fact, workspace="lab")
        clock.advance(minutes=1)  # asked in this order
    message = "What keeps you busy during the week?"

    def ranked() -> list[str]:
        turn = team_md.context(ana.id, "lab", message, record=False)
        return [m.memory.content for m in turn.workspace_memories]  # by rank

    before = ranked()
    fake_llm.script(*(r for q in facts.values() for r in twice(ask(*q))))
    assert team_md.extract(ask_questions=3).memories_questioned == 3
    three_of_seven = ranked()
    assert team_md.extract(ask_questions=4).memories_questioned == 4
    after = ranked()
    assert after[0] == target and before.index(target) > 0
    # with 3 of 7 asked it gained (3/7)^2 of that: not enough to pass the unasked
    # memory above it, which might have been the better answer
    assert three_of_seven.index(target) > 0


def test_migration_0016_up_and_down(empty_db_url: str) -> None:
    """0016 on a database holding a memory and a run: the memory reads as not asked yet
    (the next runs ask it), the run as having asked none; downgrading drops the columns
    and the index again, and upgrading once more restores them."""
    db = Database.open(empty_db_url, migrate=False)
    db.upgrade(revision_before("_memory_questions.py"))
    at = datetime(2026, 1, 1, tzinfo=UTC)
    seed_memory_and_run(db.engine, at)
    db.upgrade()
    with db.read() as repo:
        memory = repo.get_memory("m1")
        assert memory is not None and memory.questions is None
        assert [m.id for m in derived.underived(repo.conn, "questions", 10, at)] == ["m1"]
    assert [r.memories_questioned for r in list_runs(db)] == [0]

    def columns() -> set[str]:
        with db.engine.connect() as conn:
            return set(conn.execute(text("SELECT * FROM memories")).keys())

    with db.engine.connect() as conn:
        command.downgrade(_alembic_config(conn), revision_before("_memory_questions.py"))
        conn.commit()
    assert not {"questions", "question_vectors", "question_embedder"} & columns()
    with db.engine.connect() as conn:
        keys = set(conn.execute(text("SELECT * FROM extraction_runs")).keys())
    assert "memories_questioned" not in keys
    db = Database.open(empty_db_url)  # and up again
    with db.read() as repo:
        assert [m.id for m in derived.underived(repo.conn, "questions", 10, at)] == ["m1"]
    db.dispose()


def test_the_turn_reads_damaged_question_vectors_as_none(
    team_md: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = team_md.get_user("ana")
    memory = team_md.add_memory(ana.id, "I play the guitar.")
    with team_md.db.write() as repo:
        key = content_key("I play the guitar.")
        assert derived.put(repo.conn, memory.id, key, "questions", 2, GUITAR, np.ones(5), "x")
    got = team_md.get_memory(ana.id, memory.id)
    assert got.questions == GUITAR
    [turn] = team_md.context(ana.id, None, "What do you play?", record=False).memories
    assert turn.question_vectors is None  # 5 floats do not make 3 rows


def test_questions_travel_in_export_files_with_their_vectors(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock, tmp_path: Path
) -> None:
    """An export line carries a memory's questions and an import into another database
    embeds them: the moved memories are not asked again and rank as they did."""
    ana = team_md.get_user("ana")
    for fact in ("I play the guitar.", "I have two cats.", "Prefers tea."):
        team_md.add_memory(ana.id, fact)
        clock.advance(minutes=1)
    cats = ("Do you have pets?", "What pets?", "Cats or dogs?")
    fake_llm.script(*twice(ask(*GUITAR)), *twice(ask(*cats)), *twice(Reply.text("not json")))
    assert team_md.extract(ask_questions=5).memories_questioned == 3
    exported = team_md.export_memories(ana.id)
    lines = {json.loads(x).get("content"): json.loads(x) for x in exported[1:]}
    assert lines["I play the guitar."]["questions"] == list(GUITAR)
    assert lines["Prefers tea."]["questions"] == []  # asked, nothing usable
    assert {line["question_prompt"] for line in lines.values()} == {questions.PROMPT_VERSION}

    url = f"sqlite:///{tmp_path / 'other.db'}"
    with make_md(url, fake_llm, tmp_path, team_md.embedder, clock) as other:
        bob = other.create_user("bob").id
        assert other.import_memories(bob, exported).created == 3
        got = {m.content: m.questions for m in other.list_memories(bob)}
        assert got == {"I play the guitar.": GUITAR, "I have two cats.": cats, "Prefers tea.": ()}
        turn = other.context(bob, None, "Cats or dogs?", record=False).memories
        rows = {m.content: m for m in turn}["I have two cats."].question_vectors
        assert rows is not None and rows.shape == (3, 384)
        # the same questions' vectors (not bit for bit: the int8 embedder's activations
        # are scaled per batch, and the import embeds them beside other texts)
        expected = team_md.embedder.embed(list(cats))
        assert (np.sum(rows * expected, axis=1) > 0.98).all()
        assert other.export_memories(bob)[1:] == exported[1:]  # the very same lines again
        requests = len(fake_llm.requests)
        assert other.extract(ask_questions=5).memories_questioned == 0  # nothing to ask
        assert len(fake_llm.requests) == requests


def test_an_import_keeps_the_questions_of_the_same_text_and_clears_new_text(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    """A line without questions (an older file, a hand-written line) keeps those of the
    user's memory with the very same text, and a new text is asked again."""
    ana = team_md.get_user("ana")
    for fact in ("I play the guitar.", "I have two cats."):
        team_md.add_memory(ana.id, fact)
        clock.advance(minutes=1)
    fake_llm.script(
        *twice(ask(*GUITAR)), *twice(ask("Do you have pets?", "What pets?", "Cats or dogs?"))
    )
    assert team_md.extract(ask_questions=5).memories_questioned == 2
    lines = [json.loads(x) for x in team_md.export_memories(ana.id)[1:]]
    for line in lines:
        del line["questions"], line["question_prompt"]
        if line["content"] == "I have two cats.":
            line["content"] = "I have three cats."
    result = team_md.import_memories(ana.id, [json.dumps(line) for line in lines])
    # the guitar line says what is stored (its questions kept): unchanged
    assert (result.created, result.updated, result.unchanged) == (0, 1, 1)
    got = {m.content: m.questions for m in team_md.list_memories(ana.id)}
    assert got == {"I play the guitar.": GUITAR, "I have three cats.": None}


@pytest.mark.parametrize(
    "value",
    [
        "What do you play?",
        ["One?", "Two?", "Three?", "Four?", "Five?", "Six?", "Seven?"],
        ["What do you play?", "What do you play?"],
        ["What do you play?", "  "],
        ["What do you play?", 7],
        ["Why " + "very " * 60 + "long?"],
    ],
)
def test_an_import_line_with_bad_questions_is_refused_naming_the_line(
    team_md: Memoryd, value: object
) -> None:
    ana = team_md.get_user("ana")
    lines = [
        json.dumps({"content": "Likes jazz"}),
        json.dumps({"content": "Plays", "questions": value}),
    ]
    with pytest.raises(InvalidInput, match=r"^line 2: questions must be a list of at most 6"):
        team_md.import_memories(ana.id, lines)
    assert team_md.list_memories(ana.id) == []
