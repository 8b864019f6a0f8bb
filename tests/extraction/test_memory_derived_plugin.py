"""A plugin adds a kind of derived value without a column, a migration or a client change.

``WordCount`` below is a whole pass: one ``MemoryPass`` subclass and one
``register_memory_passes`` hook (as docs/architecture.md shows it). Registered with the
plugin manager, extraction runs with a budget derive its values next to the built-in
questions, store them in ``memory_derived``, count them by kind in the run, derive them
again when the memory's text changes, and leave them out of export files (only the
questions travel; a plugin's values are derived again on the target). SQLite and
PostgreSQL.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from memoryd import Memoryd
from memoryd.extraction.memory_pass import MemoryPass
from memoryd.plugins import plugin_manager
from memoryd.plugins.hookspecs import hookimpl
from memoryd.storage import derived
from memoryd.testing import FakeOpenAIServer, Reply


class WordCount(MemoryPass):
    kind = "word_count"

    def derive(self, memory: derived.Pending) -> Any:
        return len(memory.content.split())


class WordCountPlugin:
    @hookimpl
    def register_memory_passes(self, register: Callable[[str, Callable[[], Any]], None]) -> None:
        register("word_count", WordCount)


@pytest.fixture(autouse=True)
def word_count(fake_llm: FakeOpenAIServer) -> Iterator[None]:
    fake_llm.default = Reply.json({"questions": []})  # the questions pass finds none
    plugin = WordCountPlugin()
    plugin_manager().register(plugin, "test-word-count")
    try:
        yield
    finally:
        plugin_manager().unregister(plugin)


def counts(md: Memoryd, memory_id: str) -> Any:
    with md.db.read() as repo:
        return derived.values(repo.conn, memory_id).get("word_count")


def test_a_plugin_kind_is_derived_stored_and_counted_by_kind(team_md: Memoryd) -> None:
    ana = team_md.get_user("ana")
    short = team_md.add_memory(ana.id, "I play the guitar.")
    long = team_md.add_memory(ana.id, "I run the lab's cluster on weekends.")

    run = team_md.extract(ask_questions=1)  # the budget holds for each pass

    assert run.memories_derived == {"word_count": 1, "questions": 1}
    found = (counts(team_md, short.id), counts(team_md, long.id))
    assert found in ((4, None), (None, 7))  # one memory: the oldest (here: equal times)
    run = team_md.extract(ask_questions=5)
    assert run.memories_derived == {"word_count": 1, "questions": 1}
    assert (counts(team_md, short.id), counts(team_md, long.id)) == (4, 7)
    assert team_md.extract(ask_questions=5).memories_derived == {"word_count": 0, "questions": 0}
    listed = [r for r in team_md.extraction_runs() if r.id == run.id]
    assert listed[0].memories_derived == run.memories_derived  # stored with the run


def test_editing_the_text_resets_the_value_and_the_next_run_derives_it_again(
    team_md: Memoryd,
) -> None:
    ana = team_md.get_user("ana")
    memory = team_md.add_memory(ana.id, "I play the guitar.")
    team_md.extract(ask_questions=5)
    assert counts(team_md, memory.id) == 4

    team_md.edit_memory(ana.id, memory.id, "I play the guitar and the drums.")

    assert counts(team_md, memory.id) is None
    assert team_md.extract(ask_questions=5).memories_derived["word_count"] == 1
    assert counts(team_md, memory.id) == 7


def test_a_value_of_an_older_text_reads_as_absent(team_md: Memoryd) -> None:
    """The content version guards reads too: a row whose key is not the memory's text's
    (written for a text since replaced) is not the memory's value."""
    ana = team_md.get_user("ana")
    memory = team_md.add_memory(ana.id, "I play the guitar.")
    with team_md.db.write() as repo:
        assert not derived.put(repo.conn, memory.id, "i play chess.", "word_count", 1, 3)
        assert derived.put(repo.conn, memory.id, "i play the guitar.", "word_count", 1, 4)
    assert counts(team_md, memory.id) == 4
    with team_md.db.write() as repo:  # the text changes under the value
        repo.update_memory(memory.id, {"content": "I sing.", "content_key": "i sing."})
    assert counts(team_md, memory.id) is None
    with team_md.db.read() as repo:
        pending = derived.underived(repo.conn, "word_count", 5, team_md.clock())
    assert [m.id for m in pending] == [memory.id]


def test_export_carries_the_questions_and_not_a_plugins_values(team_md: Memoryd) -> None:
    ana, bo = team_md.get_user("ana"), team_md.get_user("bo")
    team_md.add_memory(ana.id, "I play the guitar.")
    team_md.extract(ask_questions=5)
    lines = team_md.export_memories(ana.id)
    [line] = [json.loads(x) for x in lines[1:]]
    assert line["questions"] == [] and "word_count" not in json.dumps(line)

    team_md.import_memories(bo.id, lines[1:])
    [copy] = team_md.list_memories(bo.id)
    assert copy.questions == () and counts(team_md, copy.id) is None
    assert team_md.extract(ask_questions=5).memories_derived == {"word_count": 1, "questions": 0}
    assert counts(team_md, copy.id) == 4


class Broken(MemoryPass):
    kind = "broken"

    def derive(self, memory: derived.Pending) -> Any:
        raise KeyError(memory.content)


class BrokenPlugin:
    @hookimpl
    def register_memory_passes(self, register: Callable[[str, Callable[[], Any]], None]) -> None:
        register("broken", Broken)


def test_a_failing_pass_is_listed_and_fails_neither_the_run_nor_the_others(
    team_md: Memoryd,
) -> None:
    ana = team_md.get_user("ana")
    memory = team_md.add_memory(ana.id, "I play the guitar.")
    plugin = BrokenPlugin()
    plugin_manager().register(plugin, "test-broken-pass")
    try:
        run = team_md.extract(ask_questions=5)
    finally:
        plugin_manager().unregister(plugin)
    assert run.status == "ok" and counts(team_md, memory.id) == 4
    assert run.memories_derived == {"word_count": 1, "questions": 1, "broken": 0}
    [error] = run.errors
    assert error["kind"] == "broken" and "KeyError" in error["error"]
