"""The pastime pass of extraction runs (issue 10): per memory, the LLM's yes/no to "does it
say what the person does for fun?", against the scripted LLM server on SQLite and
PostgreSQL; what the run counts and lists; that the pass is off unless its setting is
set; that a new text is asked again; export and import; and migrations 0021 and 0022.
The loop's shared rules (oldest first, refusals, edits while the LLM answers) are tested
once for the other passes in ``test_memory_pass.py``.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import text

from memoryd import InvalidInput, Memoryd
from memoryd.embedding.minilm import MiniLMEmbedder
from memoryd.extraction import pastime
from memoryd.extraction.runs import list_runs
from memoryd.storage import Database
from memoryd.storage.database import _alembic_config
from memoryd.testing import FakeOpenAIServer, Reply
from support.databases import revision_before, seed_memory_and_run
from support.extraction import Clock, make_md

YES, NO = Reply.json({"free_time": True}), Reply.json({"free_time": False})


def _add(md: Memoryd, clock: Clock, user_id: int, *texts: str) -> None:
    """Add memories a second apart, so "oldest first" is their order."""
    for content in texts:
        clock.advance(seconds=1)
        md.add_memory(user_id, content)


def _pastimes(md: Memoryd, user_id: int) -> dict[str, bool | None]:
    return {m.content: m.pastime for m in md.list_memories(user_id)}


@pytest.mark.parametrize(
    ("reply", "stored"),
    [
        (YES, True),
        (NO, False),
        (Reply.text("Yes, it is a hobby."), False),
        (Reply.text('{"free_time": "yes"}'), False),
        (Reply.text('{"free_time": tr'), False),
    ],
    ids=["yes", "no", "prose", "string", "cut-off"],
)
def test_an_answer_is_stored_once_and_only_a_json_true_says_yes(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, reply: Reply, stored: bool
) -> None:
    ana = team_md.get_user("ana")
    memory = team_md.add_memory(ana.id, "I play the guitar in a band.")
    before = team_md.get_memory(ana.id, memory.id)
    fake_llm.script(reply)

    run = team_md.extract(judge_pastimes=5)

    after = team_md.get_memory(ana.id, memory.id)
    assert after.pastime is stored
    assert after.updated_at == before.updated_at  # derived data: no edit
    assert (run.memories_judged, run.llm_calls, run.llm_calls_failed, run.errors) == (1, 1, 0, [])
    assert team_md.extraction_runs(1)[0].memories_judged == 1  # stored with the run
    (request,) = fake_llm.requests
    assert request["messages"][0]["content"] == pastime.SYSTEM
    assert request["messages"][-1]["content"] == "Fact: I play the guitar in a band."
    team_md.extract(judge_pastimes=5)  # asked once
    assert len(fake_llm.requests) == 1


def test_unset_the_pass_asks_a_hosted_llm_and_not_the_bundled_model() -> None:
    assert [pastime.budget(None, p) for p in ("local", "openai", "anthropic")] == [0, 50, 50]
    assert [pastime.budget(7, "local"), pastime.budget(0, "openai")] == [7, 0]


def test_the_setting_decides_what_a_run_asks(
    db_url: str,
    fake_llm: FakeOpenAIServer,
    tmp_path: Path,
    embedder: MiniLMEmbedder,
    clock: Clock,
) -> None:
    with make_md(db_url, fake_llm, tmp_path / "off", embedder, clock) as md:  # set to 0
        uid = md.create_user("ana").id
        md.add_memory(uid, "I collect stamps.")
        md.extract()
        assert fake_llm.requests == []
        assert _pastimes(md, uid) == {"I collect stamps.": None}
    with make_md(
        db_url, fake_llm, tmp_path / "unset", embedder, clock, pastime_memories_per_run=None
    ) as md:  # unset, with an OpenAI-compatible server: asked
        fake_llm.script(YES)
        md.extract()
        assert _pastimes(md, uid) == {"I collect stamps.": True}
    with make_md(
        db_url, fake_llm, tmp_path / "on", embedder, clock, pastime_memories_per_run=2
    ) as md:
        bo = md.create_user("bo").id
        _add(md, clock, bo, "I go to the gym.", "I work as a nurse.", "I bake bread.")
        fake_llm.script(YES, NO, YES)
        md.extract()  # the setting's budget: the two oldest
        assert _pastimes(md, bo) == {
            "I go to the gym.": True,
            "I work as a nurse.": False,
            "I bake bread.": None,
        }
        md.extract()
        assert _pastimes(md, bo)["I bake bread."] is True
        assert len(fake_llm.requests) == 4


def test_an_llm_error_stops_the_pass_lists_it_and_leaves_the_memory_unasked(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    ana = team_md.get_user("ana")
    _add(team_md, clock, ana.id, "I collect stamps.", "I work as a nurse.")
    fake_llm.script(Reply.error(500, "model crashed"))

    run = team_md.extract(judge_pastimes=5)

    assert _pastimes(team_md, ana.id) == {"I collect stamps.": None, "I work as a nurse.": None}
    assert len(fake_llm.requests) == 1  # the pass stopped at the first memory
    assert run.memories_judged == 0
    (error,) = run.errors
    assert error["kind"] == "pastime"
    assert "asking which memories are pastimes stopped after 0 memories" in error["error"]
    assert "model crashed" in error["error"]
    fake_llm.script(YES, NO)
    assert team_md.extract(judge_pastimes=5).errors == []  # the next run asks them
    assert _pastimes(team_md, ana.id) == {"I collect stamps.": True, "I work as a nurse.": False}


def test_a_refused_text_is_stored_as_no_so_it_does_not_block_the_rest(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    ana = team_md.get_user("ana")
    _add(team_md, clock, ana.id, "A text a content filter rejects.", "I collect stamps.")
    fake_llm.script(Reply.error(400, "content refused"), YES)

    run = team_md.extract(judge_pastimes=5)

    assert (run.errors, run.memories_judged) == ([], 2)
    assert _pastimes(team_md, ana.id) == {
        "A text a content filter rejects.": False,
        "I collect stamps.": True,
    }


def test_new_words_are_asked_again(team_md: Memoryd, fake_llm: FakeOpenAIServer) -> None:
    ana = team_md.get_user("ana")
    memory = team_md.add_memory(ana.id, "I work as a nurse.")
    fake_llm.script(NO)
    team_md.extract(judge_pastimes=5)
    team_md.edit_memory(ana.id, memory.id, "I work as a nurse and sing in a choir.")
    assert team_md.get_memory(ana.id, memory.id).pastime is None
    fake_llm.script(YES)
    team_md.extract(judge_pastimes=5)
    assert team_md.get_memory(ana.id, memory.id).pastime is True
    assert fake_llm.requests[-1]["messages"][-1]["content"] == (
        "Fact: I work as a nurse and sing in a choir."
    )


def test_answers_travel_with_an_export_and_a_bad_value_is_refused(
    team_md: Memoryd,
    fake_llm: FakeOpenAIServer,
    clock: Clock,
    other_db_url: str,
    embedder: MiniLMEmbedder,
) -> None:
    ana = team_md.get_user("ana")
    _add(team_md, clock, ana.id, "I collect stamps.", "I work as a nurse.")
    fake_llm.script(YES)
    team_md.extract(judge_pastimes=1)
    exported = team_md.export_memories(ana.id)
    lines = {r["content"]: r for r in (json.loads(x) for x in exported[1:])}
    assert lines["I collect stamps."]["pastime"] is True
    assert "pastime" not in lines["I work as a nurse."]  # not asked: as before the pass
    with Memoryd(other_db_url, embedder=embedder) as other:
        target = other.create_user("ana").id
        other.import_memories(target, exported)
        assert _pastimes(other, target) == {"I collect stamps.": True, "I work as a nurse.": None}
        assert other.export_memories(target) == exported
        bad = json.loads(exported[1])
        bad["pastime"] = "yes"
        with pytest.raises(InvalidInput, match="line 2: pastime must be true, false or null"):
            other.import_memories(target, [exported[0], json.dumps(bad)])
        assert other.export_memories(target) == exported  # nothing imported


def test_migration_0021_up_and_down(empty_db_url: str) -> None:
    """0021 on a database holding a memory: it reads as not asked yet; downgrading drops
    the column and the index again, and upgrading once more restores them."""
    db = Database.open(empty_db_url, migrate=False)
    db.upgrade(revision_before("_memory_pastime.py"))
    at = datetime(2026, 1, 1, tzinfo=UTC)
    seed_memory_and_run(db.engine, at)
    db.upgrade()
    with db.read() as repo:
        memory = repo.get_memory("m1")
        assert memory is not None and memory.pastime is None
        assert [m.id for m in repo.unjudged_memories(10, at)] == ["m1"]

    def columns() -> set[str]:
        with db.engine.connect() as conn:
            return set(conn.execute(text("SELECT * FROM memories")).keys())

    assert "pastime" in columns()
    with db.engine.connect() as conn:
        command.downgrade(_alembic_config(conn), revision_before("_memory_pastime.py"))
        conn.commit()
    assert "pastime" not in columns()
    db = Database.open(empty_db_url)  # and up again
    with db.read() as repo:
        assert [m.id for m in repo.unjudged_memories(10, at)] == ["m1"]
    db.dispose()


def test_migration_0022_counts_the_runs_before_it_as_having_judged_none(
    empty_db_url: str,
) -> None:
    db = Database.open(empty_db_url, migrate=False)
    db.upgrade(revision_before("_run_pastime_count.py"))
    seed_memory_and_run(db.engine, datetime(2026, 1, 1, tzinfo=UTC))
    db.upgrade()
    assert [r.memories_judged for r in list_runs(db)] == [0]
    with db.engine.connect() as conn:
        command.downgrade(_alembic_config(conn), revision_before("_run_pastime_count.py"))
        conn.commit()
    with db.engine.connect() as conn:
        columns = set(conn.execute(text("SELECT * FROM extraction_runs")).keys())
    assert "memories_judged" not in columns
    db.dispose()
