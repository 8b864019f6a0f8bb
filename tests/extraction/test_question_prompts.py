"""The questions pass's two prompts and their version (issue 10, round 14; migration
0018), against the scripted LLM server: each memory is asked once per prompt and keeps
the union of the answers' questions, in order, without repeats; an error on either call
stores nothing for it; the version of the prompts is stored, and memories an older
version asked are asked again after every memory never asked, within the same budget,
keeping their questions until then; export lines carry the version. SQLite and
PostgreSQL. The rules of every per-memory pass are in ``test_memory_pass.py``.
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
from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.storage import Database, derived
from memoryd.storage.database import _alembic_config
from memoryd.testing import FakeOpenAIServer, Reply
from support.databases import revision_before
from support.extraction import Clock, make_md
from support.questions import give_questions

GUITAR = ("What instrument do you play?", "Are you in a band?", "Do you make music?")
WORK = ("Who plays at the gig?", "Are you in a band?", "Can you list my band's songs?")
CATS = ("Do you have pets?", "What pets?", "Cats or dogs?")


def ask(*asked: object) -> Reply:
    return Reply.json({"questions": list(asked)}, usage=(420, 40))


def prompt_of(md: Memoryd, memory_id: str) -> int | None:
    """The stored version of the prompt that wrote the memory's questions."""
    with md.db.read() as repo:
        return derived.versions(repo.conn, ana_of(md), derived.QUESTIONS).get(memory_id)


def ana_of(md: Memoryd) -> int:
    return md.get_user("ana").id


def asked_about(srv: FakeOpenAIServer) -> list[str]:
    """The memory texts asked about with the first prompt (once per memory), in order."""
    return [
        str(r["messages"][-1]["content"]).removeprefix("Fact: ")
        for r in srv.requests
        if r["messages"][0]["content"] == questions.SYSTEM
    ]


def test_each_memory_is_asked_with_both_prompts_and_keeps_their_union_in_order(
    team_md: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = team_md.get_user("ana")
    memory = team_md.add_memory(ana.id, "I play the guitar in a band.")
    fake_llm.script(ask(*GUITAR), ask(*WORK))

    run = team_md.extract(ask_questions=5)

    fact = "I play the guitar in a band."
    sent = [r["messages"] for r in fake_llm.requests]
    assert sent == [questions.messages(fact), questions.work_messages(fact)]
    assert sent[1][0]["content"] == questions.WORK_SYSTEM
    union = (*GUITAR, WORK[0], WORK[2])  # "Are you in a band?" once, where it came first
    assert team_md.get_memory(ana.id, memory.id).questions == union
    assert (run.memories_questioned, run.llm_calls, run.llm_calls_failed) == (1, 2, 0)
    assert (run.prompt_tokens, run.completion_tokens) == (840, 80)  # both calls counted
    [turn] = team_md.context(ana.id, None, "hi", record=False).memories
    assert turn.question_vectors is not None and turn.question_vectors.shape == (5, 384)
    assert prompt_of(team_md, memory.id) == questions.PROMPT_VERSION == 2


def test_two_answers_of_three_distinct_questions_give_six(
    team_md: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = team_md.get_user("ana")
    memory = team_md.add_memory(ana.id, "I have two cats.")
    fake_llm.script(ask(*GUITAR), ask(*CATS))
    team_md.extract(ask_questions=5)
    assert team_md.get_memory(ana.id, memory.id).questions == GUITAR + CATS
    assert len(GUITAR + CATS) == questions.MAX_QUESTIONS


@pytest.mark.parametrize("bad", [0, 1], ids=["first-malformed", "second-malformed"])
def test_one_prompts_malformed_answer_leaves_the_others_questions(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, bad: int
) -> None:
    ana = team_md.get_user("ana")
    memory = team_md.add_memory(ana.id, "I play the guitar.")
    replies = [ask(*GUITAR), ask(*WORK)]
    replies[bad] = Reply.text("Sure! Here are some questions.")
    fake_llm.script(*replies)

    run = team_md.extract(ask_questions=5)

    expected = WORK if bad == 0 else GUITAR
    assert team_md.get_memory(ana.id, memory.id).questions == expected
    assert (run.memories_questioned, run.llm_calls, run.errors) == (1, 2, [])


def test_an_error_on_the_second_call_stores_nothing_for_that_memory_and_stops_the_pass(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    ana = team_md.get_user("ana")
    for fact in ("I play the guitar.", "I have two cats."):
        team_md.add_memory(ana.id, fact)
        clock.advance(minutes=1)
    fake_llm.script(ask(*GUITAR), Reply.error(500, "model crashed"))

    run = team_md.extract(ask_questions=5)

    assert [m.questions for m in team_md.list_memories(ana.id)] == [None, None]
    assert len(fake_llm.requests) == 2  # nothing asked about the second memory
    assert (run.memories_questioned, run.llm_calls, run.llm_calls_failed) == (0, 2, 1)
    [listed] = run.errors
    assert listed["kind"] == "questions" and "model crashed" in listed["error"]

    fake_llm.script(ask(*GUITAR), ask(*WORK), ask(*CATS), ask(*CATS))  # both calls again
    assert team_md.extract(ask_questions=5).memories_questioned == 2
    got = {m.content: m.questions for m in team_md.list_memories(ana.id)}
    assert got == {"I play the guitar.": (*GUITAR, WORK[0], WORK[2]), "I have two cats.": CATS}


def test_memories_an_older_prompt_asked_are_asked_again_after_the_unasked_within_budget(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    """Memories asked before the second prompt keep their 3 questions (the reranker uses
    them) until asked again: after every memory never asked, oldest first, in the same
    budget."""
    ana = team_md.get_user("ana")
    ids = {}
    for fact in ("I play the guitar.", "I have two cats.", "I drink tea.", "I play chess."):
        ids[fact] = team_md.add_memory(ana.id, fact).id
        clock.advance(minutes=1)
    give_questions(team_md, ids["I play the guitar."], GUITAR, prompt=1)
    give_questions(team_md, ids["I have two cats."], CATS, prompt=1)
    fake_llm.default = ask("What do you drink?", "A?", "B?")

    run = team_md.extract(ask_questions=3)

    assert asked_about(fake_llm) == ["I drink tea.", "I play chess.", "I play the guitar."]
    assert (run.memories_questioned, run.llm_calls) == (3, 6)
    assert [prompt_of(team_md, i) for i in ids.values()] == [2, 1, 2, 2]
    got = {m.content: m.questions for m in team_md.list_memories(ana.id)}
    assert got["I have two cats."] == CATS  # not asked again yet: its old questions
    assert got["I play the guitar."] == ("What do you drink?", "A?", "B?")
    [cats] = [
        m
        for m in team_md.context(ana.id, None, "Do you have pets?", record=False).memories
        if m.content == "I have two cats."
    ]
    assert cats.question_vectors is not None and cats.question_vectors.shape == (3, 384)

    assert team_md.extract(ask_questions=3).memories_questioned == 1
    assert asked_about(fake_llm)[-1] == "I have two cats."
    assert prompt_of(team_md, ids["I have two cats."]) == 2
    requests = len(fake_llm.requests)
    assert team_md.extract(ask_questions=3).memories_questioned == 0  # all current
    assert len(fake_llm.requests) == requests


def test_asked_again_with_nothing_usable_a_memory_keeps_its_old_questions(
    team_md: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = team_md.get_user("ana")
    memory = team_md.add_memory(ana.id, "I play the guitar.")
    give_questions(team_md, memory.id, GUITAR, prompt=1)
    fake_llm.script(Reply.text("no"), ask(" ", "x" * 300))

    assert team_md.extract(ask_questions=5).memories_questioned == 1

    assert team_md.get_memory(ana.id, memory.id).questions == GUITAR
    assert prompt_of(team_md, memory.id) == 2  # asked with the current prompts: not again
    [turn] = team_md.context(ana.id, None, "What do you play?", record=False).memories
    assert turn.question_vectors is not None and turn.question_vectors.shape == (3, 384)
    assert team_md.extract(ask_questions=5).llm_calls == 0


def test_questions_a_process_older_than_0018_wrote_count_as_version_1(
    team_md: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    """While a fleet upgrades, processes without the column write questions with no
    version: they are asked again like version 1's, and export as version 1."""
    ana = team_md.get_user("ana")
    memory = team_md.add_memory(ana.id, "I play the guitar.")
    give_questions(team_md, memory.id, GUITAR, prompt=1)  # as 0027 moves a NULL version
    [line] = [json.loads(x) for x in team_md.export_memories(ana.id)[1:]]
    assert line["question_prompt"] == 1
    fake_llm.script(ask(*GUITAR), ask(*WORK))
    assert team_md.extract(ask_questions=5).memories_questioned == 1
    assert team_md.get_memory(ana.id, memory.id).questions == (*GUITAR, WORK[0], WORK[2])
    assert prompt_of(team_md, memory.id) == 2


def test_the_write_never_replaces_a_newer_or_an_equal_ask(team_md: Memoryd) -> None:
    ana = team_md.get_user("ana")
    memory = team_md.add_memory(ana.id, "I play the guitar.")
    key = content_key("I play the guitar.")
    with team_md.db.write() as repo:
        q = derived.QUESTIONS
        assert derived.put(repo.conn, memory.id, key, q, 1, GUITAR)
        assert derived.put(repo.conn, memory.id, key, q, 2, CATS)
        assert not derived.put(repo.conn, memory.id, key, q, 2, WORK)
        assert not derived.put(repo.conn, memory.id, key, q, 1, WORK)
        assert not derived.revise(repo.conn, memory.id, key, q, CATS, version=2)
    assert team_md.get_memory(ana.id, memory.id).questions == CATS
    assert prompt_of(team_md, memory.id) == 2


class Renamed:
    """The test embedder under another name: its vectors are another embedder's."""

    def __init__(self, inner: MiniLMEmbedder, name: str) -> None:
        self.inner, self.name, self.dimensions = inner, name, inner.dimensions

    def embed(self, texts: list[str]) -> list[np.ndarray]:
        return self.inner.embed(texts)


def test_embedding_again_for_a_new_embedder_keeps_the_prompt_version(
    database_url: str,
    fake_llm: FakeOpenAIServer,
    tmp_path: Path,
    clock: Clock,
    embedder: MiniLMEmbedder,
) -> None:
    """A memory an older prompt asked, whose questions another embedder embedded, is
    embedded again first (no LLM call) and keeps its version; the budget spent, it waits
    to be asked again."""
    with make_md(database_url, fake_llm, tmp_path, embedder, clock) as md:
        ana = md.create_user("ana")
        memory = md.add_memory(ana.id, "I play the guitar.")
        give_questions(md, memory.id, GUITAR, prompt=1)
    other = Renamed(embedder, "other-embedder")
    with make_md(database_url, fake_llm, tmp_path, other, clock) as md:  # type: ignore[arg-type]
        ana = md.get_user("ana")
        run = md.extract(ask_questions=1)
        assert (run.llm_calls, fake_llm.requests) == (0, [])
        [turn] = md.context(ana.id, None, "What do you play?", record=False).memories
        assert (turn.questions, turn.question_embedder) == (GUITAR, "other-embedder")
        assert prompt_of(md, memory.id) == 1
        fake_llm.script(ask(*GUITAR), ask(*WORK))
        assert md.extract(ask_questions=1).memories_questioned == 1  # now asked again
        assert prompt_of(md, memory.id) == 2


def test_export_lines_carry_the_prompt_version_and_a_line_without_it_is_version_1(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock, tmp_path: Path
) -> None:
    ana = team_md.get_user("ana")
    for fact in ("I play the guitar.", "I have two cats."):
        team_md.add_memory(ana.id, fact)
        clock.advance(minutes=1)
    fake_llm.script(ask(*GUITAR), ask(*GUITAR), ask(*CATS), ask(*CATS))
    assert team_md.extract(ask_questions=5).memories_questioned == 2
    exported = team_md.export_memories(ana.id)
    lines = [json.loads(x) for x in exported[1:]]
    assert [line["question_prompt"] for line in lines] == [2, 2]

    old = [dict(line) for line in lines]
    del old[1]["question_prompt"]  # as exported before migration 0018
    url = f"sqlite:///{tmp_path / 'other.db'}"
    with make_md(url, fake_llm, tmp_path, team_md.embedder, clock) as other:
        bob = other.create_user("bob").id
        assert other.import_memories(bob, [exported[0], *map(json.dumps, old)]).created == 2
        again = [json.loads(x) for x in other.export_memories(bob)[1:]]
        assert [(x["questions"], x["question_prompt"]) for x in again] == [
            (list(GUITAR), 2),
            (list(CATS), 1),
        ]
        fake_llm.script(ask(*CATS), ask(*WORK))
        assert other.extract(ask_questions=5).memories_questioned == 1  # the old line's
        assert asked_about(fake_llm)[-1] == "I have two cats."
        moved = {m.content: m.questions for m in other.list_memories(bob)}
        assert moved == {"I play the guitar.": GUITAR, "I have two cats.": CATS + WORK}


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ({"questions": list(GUITAR), "question_prompt": 0}, "question_prompt must be"),
        ({"questions": list(GUITAR), "question_prompt": "2"}, "question_prompt must be"),
        ({"questions": list(GUITAR), "question_prompt": True}, "question_prompt must be"),
        ({"question_prompt": 2}, "question_prompt without questions"),
    ],
    ids=["zero", "text", "bool", "no-questions"],
)
def test_an_import_line_with_a_bad_question_prompt_is_refused_naming_the_line(
    team_md: Memoryd, line: dict[str, object], said: str
) -> None:
    ana = team_md.get_user("ana")
    lines = [json.dumps({"content": "Likes jazz"}), json.dumps({"content": "Plays", **line})]
    with pytest.raises(InvalidInput, match=rf"^line 2: {said}"):
        team_md.import_memories(ana.id, lines)
    assert team_md.list_memories(ana.id) == []


def test_migration_0018_up_and_down(empty_db_url: str) -> None:
    """0018 on a database holding an asked memory and an unasked one: the asked one reads
    as asked by version 1 (asked again with the current prompts once none waits unasked),
    the other as not asked; downgrading drops the column and its index, keeping the
    questions; upgrading once more restores them."""
    db = Database.open(empty_db_url, migrate=False)
    db.upgrade(revision_before("_question_prompt.py"))
    at = datetime(2026, 1, 1, tzinfo=UTC)
    insert = (
        "INSERT INTO memories (id, user_id, scope, content, content_key, source, created_at, "
        "updated_at, source_chats, questions) VALUES (:id, 1, 'global', :text, :key, 'user', "
        ":at, :at, '[]', :questions)"
    )
    with db.engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO users (id, name, role, created_at) VALUES (1, 'ana', 'default', :at)"
            ),
            {"at": at},
        )
        for memory_id, fact, asked in (
            ("m1", "I play chess.", json.dumps(list(GUITAR))),
            ("m2", "I drink tea.", None),
        ):
            conn.execute(
                text(insert),
                {"id": memory_id, "text": fact, "key": fact.lower(), "at": at, "questions": asked},
            )
    db.upgrade()

    def prompts() -> dict[str, int | None]:
        with db.engine.connect() as conn:
            rows = conn.execute(
                text(
                    "SELECT m.id, d.version FROM memories m LEFT JOIN memory_derived d "
                    "ON d.memory_id = m.id AND d.kind = 'questions' ORDER BY m.id"
                )
            )
            return {memory_id: prompt for memory_id, prompt in rows}

    assert prompts() == {"m1": 1, "m2": None}
    with db.read() as repo:
        assert [m.id for m in derived.underived(repo.conn, derived.QUESTIONS, 10, at)] == ["m2"]
        outdated = derived.outdated(repo.conn, derived.QUESTIONS, 2, 10, at)
        assert [(m.id, m.value) for m in outdated] == [("m1", list(GUITAR))]
    with db.engine.connect() as conn:
        command.downgrade(_alembic_config(conn), revision_before("_question_prompt.py"))
        conn.commit()
    with db.engine.connect() as conn:
        columns = set(conn.execute(text("SELECT * FROM memories")).keys())
        kept = conn.execute(text("SELECT questions FROM memories WHERE id = 'm1'")).scalar()
    assert "question_prompt" not in columns and json.loads(kept) == list(GUITAR)
    db = Database.open(empty_db_url)  # and up again
    assert prompts() == {"m1": 1, "m2": None}
    db.dispose()
