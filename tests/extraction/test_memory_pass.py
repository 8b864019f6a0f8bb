"""The rules every per-memory pass of extraction runs keeps (``memoryd.extraction.
memory_pass``), tested against the questions pass through the scripted LLM server.
SQLite and PostgreSQL.

A pass asks each memory it has not asked about yet once (one call per prompt: questions has
two), oldest first, up to the run's budget, in the run's scope; an answer
is stored (one that is not JSON of the schema as "none", not asked again) without moving
``updated_at``; an LLM error stores nothing and stops the pass; a text the server refuses
while it answers the next one is stored as "none"; a text edited while the LLM answers
keeps its new text, not asked about. The scripts give each of a memory's calls the
pass's good answer (``goods``). What only the questions pass does (vectors,
embedders and two prompts, export and import) is in ``test_questions.py`` and
``test_question_prompts.py``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memoryd import Memoryd
from memoryd.domain.models import Memory
from memoryd.domain.rules import content_key
from memoryd.extraction import questions
from memoryd.extraction.runs import Run
from memoryd.extraction.scheduler import ExtractionScheduler
from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.storage import derived
from memoryd.storage.repository import Repository
from memoryd.testing import FakeOpenAIServer, Reply
from support.extraction import Clock, chat, make_md, observe

GUITAR = ("What instrument do you play?", "Are you in a band?", "Do you make music?")


@dataclass(frozen=True)
class Pass:
    """One pass as the tests drive it: how a run is given its budget, what it asks, what
    a good answer stores, and how its result is read back."""

    kind: str  # the kind of the run's error it lists
    budget: str  # the run's budget option
    setting: str  # the scheduler's budget setting
    request: Any  # memory_pass.Request
    answer_key: str  # the JSON key of the answer's list
    item: str  # one valid item of that list
    good: Reply
    good_value: tuple[str, ...]
    usage: tuple[int, int]  # the good answer's prompt and completion tokens
    read: Callable[[Memory], tuple[str, ...] | None]
    count: Callable[[Run], int]  # memories the run stored an answer for
    guarded_store: Callable[[Repository, str, str, tuple[str, ...]], bool]

    @property
    def calls(self) -> int:
        """LLM calls per memory: one per prompt."""
        return len(self.request.messages)

    @property
    def goods(self) -> tuple[Reply, ...]:
        """The good answer for each of one memory's calls."""
        return (self.good,) * self.calls

    def run(self, md: Memoryd, budget: int = 5, *pair: Any, **options: Any) -> Any:
        return md.extract(*pair, **{self.budget: budget}, **options)

    def asked(self, srv: FakeOpenAIServer) -> list[str]:
        """The memory texts this pass asked the LLM about, in order."""
        system = self.request.messages[0]("")[0]["content"]  # once per memory
        return [
            str(r["messages"][-1]["content"]).removeprefix("Fact: ")
            for r in srv.requests
            if r["messages"][0]["content"] == system
        ]


QUESTIONS = Pass(
    kind="questions",
    budget="ask_questions",
    setting="question_memories_per_run",
    request=questions.REQUEST,
    answer_key="questions",
    item="What do you play?",
    good=Reply.json({"questions": list(GUITAR)}, usage=(420, 40)),
    good_value=GUITAR,
    usage=(420, 40),
    read=lambda m: m.questions,
    count=lambda run: run.memories_questioned,
    guarded_store=lambda repo, mid, key, value: derived.put(
        repo.conn, mid, key, derived.QUESTIONS, questions.PROMPT_VERSION, value
    ),
)


@pytest.fixture(params=[QUESTIONS], ids=["questions"])
def memory_pass(request: pytest.FixtureRequest) -> Pass:
    chosen: Pass = request.param
    return chosen


def wait_until(condition: Callable[[], bool], seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_a_good_answer_is_stored_and_counted_and_not_asked_again(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, memory_pass: Pass
) -> None:
    ana = team_md.get_user("ana")
    memory = team_md.add_memory(ana.id, "I play the guitar in a band.")
    fake_llm.script(*memory_pass.goods)

    run = memory_pass.run(team_md)

    after = team_md.get_memory(ana.id, memory.id)
    assert memory_pass.read(after) == memory_pass.good_value
    assert after.to_dict()[memory_pass.kind] == list(memory_pass.good_value)
    assert after.updated_at == memory.updated_at  # derived data: no edit
    assert [e.action.value for e in team_md.audit_log(ana.id, memory.id)] == ["create"]
    calls = memory_pass.calls
    assert (memory_pass.count(run), run.llm_calls, run.llm_calls_failed) == (1, calls, 0)
    tokens = tuple(n * calls for n in memory_pass.usage)
    assert (run.prompt_tokens, run.completion_tokens) == tokens
    assert run.status == "ok" and run.errors == []
    sent = memory_pass.request
    assert [r["messages"] for r in fake_llm.requests] == [
        build("I play the guitar in a band.") for build in sent.messages
    ]
    for request in fake_llm.requests:
        assert (request["max_tokens"], request["temperature"]) == (sent.max_tokens, 0.0)
        assert request["response_format"]["json_schema"]["schema"] == sent.schema
    stored_run = team_md.extraction_run(run.id)
    assert memory_pass.count(stored_run) == 1
    counter = {"questions": "memories_questioned"}
    assert stored_run.to_dict()[counter[memory_pass.kind]] == 1

    again = memory_pass.run(team_md)  # asked once: not asked again
    assert (memory_pass.count(again), again.llm_calls, len(fake_llm.requests)) == (0, 0, calls)


@pytest.mark.parametrize("answer", ["prose", "cut-off", "not-a-list", "wrong-key"])
def test_an_answer_not_of_the_schema_is_stored_as_none_and_not_retried(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, memory_pass: Pass, answer: str
) -> None:
    key, item = memory_pass.answer_key, memory_pass.item
    replies = {
        "prose": Reply.text(f"{item} I think."),
        "cut-off": Reply.text(f'{{"{key}": ["{item}"'),
        "not-a-list": Reply.json({key: item}),
        "wrong-key": Reply.json({"labels": [item]}),
    }
    ana = team_md.get_user("ana")
    memory = team_md.add_memory(ana.id, "I play the guitar in a band.")
    fake_llm.script(*(replies[answer],) * memory_pass.calls)  # every call's answer

    run = memory_pass.run(team_md)

    assert memory_pass.read(team_md.get_memory(ana.id, memory.id)) == ()
    calls = memory_pass.calls
    assert (memory_pass.count(run), run.llm_calls, run.llm_calls_failed) == (1, calls, 0)
    assert run.errors == []
    memory_pass.run(team_md)
    assert len(fake_llm.requests) == calls


@pytest.mark.parametrize(
    ("error", "said"),
    [(Reply.error(500, "model crashed"), "model crashed"), ("delay", "timed out")],
    ids=["500", "timeout"],
)
def test_an_llm_error_leaves_memories_unasked_and_stops_the_pass(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, memory_pass: Pass, error: Any, said: str
) -> None:
    ana = team_md.get_user("ana")
    for text in ("I play the guitar.", "I have two cats.", "I live in Porto."):
        team_md.add_memory(ana.id, text)
    fake_llm.script(Reply.delay(3, memory_pass.good) if error == "delay" else error)

    run = memory_pass.run(team_md)

    assert [memory_pass.read(m) for m in team_md.list_memories(ana.id)] == [None, None, None]
    assert len(fake_llm.requests) == 1  # no doomed calls for the other two
    assert (memory_pass.count(run), run.llm_calls, run.llm_calls_failed) == (0, 1, 1)
    assert run.status == "ok"  # a pass never fails a run
    [listed] = run.errors
    assert listed["kind"] == memory_pass.kind and said in listed["error"]
    assert team_md.extraction_run(run.id).errors == [listed]

    fake_llm.default = memory_pass.good  # the next run tries again
    assert memory_pass.count(memory_pass.run(team_md)) == 3


@pytest.mark.parametrize("status", [400, 403, 422])
def test_a_text_the_server_refuses_while_it_answers_others_is_stored_as_none(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock, memory_pass: Pass, status: int
) -> None:
    """A refused text (a content filter's 400) would stay first in line and stop every
    later pass; once the server answers the next memory, it is stored as "none"."""
    ana = team_md.get_user("ana")
    for text in ("I said something a filter dislikes.", "I have two cats."):
        team_md.add_memory(ana.id, text)
        clock.advance(minutes=1)  # the refused one is the oldest, asked first
    fake_llm.script(Reply.error(status, "content refused"), *memory_pass.goods)

    run = memory_pass.run(team_md)

    got = {m.content: memory_pass.read(m) for m in team_md.list_memories(ana.id)}
    assert got == {
        "I said something a filter dislikes.": (),
        "I have two cats.": memory_pass.good_value,
    }
    calls = 1 + memory_pass.calls  # the refused memory's other prompt is not sent
    assert (memory_pass.count(run), run.llm_calls, run.llm_calls_failed) == (2, calls, 1)
    assert run.errors == []  # the pass did not stop


def test_two_refusals_in_a_row_stop_the_pass_and_store_nothing(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, memory_pass: Pass
) -> None:
    """Every request refused alike is the request's fault (say, a server that rejects
    the request's settings), not the texts': nothing is marked, the next run asks again."""
    ana = team_md.get_user("ana")
    for text in ("I play the guitar.", "I have two cats.", "I live in Porto."):
        team_md.add_memory(ana.id, text)
    fake_llm.script(Reply.error(400, "max_tokens too small"), Reply.error(422, "again"))

    run = memory_pass.run(team_md)

    assert [memory_pass.read(m) for m in team_md.list_memories(ana.id)] == [None, None, None]
    assert (memory_pass.count(run), run.llm_calls, run.llm_calls_failed) == (0, 2, 2)
    [listed] = run.errors
    assert listed["kind"] == memory_pass.kind and "again" in listed["error"]


def test_a_refusal_with_no_answer_after_it_stores_nothing_for_that_memory(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock, memory_pass: Pass
) -> None:
    """The last memory's refusal is judged by no later answer: it stays unasked, the
    earlier ones are stored."""
    ana = team_md.get_user("ana")
    for text in ("I said something a filter dislikes.", "I have two cats.", "I drink tea."):
        team_md.add_memory(ana.id, text)
        clock.advance(minutes=1)
    fake_llm.script(
        Reply.error(400, "content refused"),
        *memory_pass.goods,
        Reply.error(400, "max_tokens too small"),
    )

    run = memory_pass.run(team_md)

    got = {m.content: memory_pass.read(m) for m in team_md.list_memories(ana.id)}
    assert got == {
        "I said something a filter dislikes.": (),
        "I have two cats.": memory_pass.good_value,
        "I drink tea.": None,
    }
    calls = 2 + memory_pass.calls
    assert (memory_pass.count(run), run.llm_calls, run.llm_calls_failed) == (2, calls, 2)
    [listed] = run.errors
    assert listed["kind"] == memory_pass.kind and "max_tokens too small" in listed["error"]


def test_the_budget_is_kept_and_the_oldest_go_first(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock, memory_pass: Pass
) -> None:
    ana, bo = team_md.get_user("ana"), team_md.get_user("bo")
    texts = ["I was born in Lisbon.", "I have two cats.", "I play chess.", "I drink tea."]
    for n, text in enumerate(texts):
        team_md.add_memory((ana, bo)[n % 2].id, text, workspace="lab" if n == 2 else None)
        clock.advance(minutes=1)
    fake_llm.default = memory_pass.good

    assert memory_pass.count(memory_pass.run(team_md, 2)) == 2
    assert memory_pass.asked(fake_llm) == texts[:2]
    assert memory_pass.run(team_md, 0).llm_calls == 0  # 0: no pass at all
    assert memory_pass.count(memory_pass.run(team_md, 5)) == 2
    assert memory_pass.asked(fake_llm) == texts


def test_a_pair_run_asks_only_about_that_users_globals_and_workspace(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, memory_pass: Pass
) -> None:
    ana, bo = team_md.get_user("ana"), team_md.get_user("bo")
    team_md.add_memory(ana.id, "I have two cats.")
    team_md.add_memory(ana.id, "I run the lab's cluster.", workspace="lab")
    team_md.add_memory(ana.id, "I am on call on Mondays.", workspace="ops")
    team_md.add_memory(bo.id, "I play chess.")
    team_md.add_memory(bo.id, "I order the lab's reagents.", workspace="lab")
    fake_llm.default = memory_pass.good

    result = memory_pass.run(team_md, 10, ana.id, "lab", force=True)

    assert result.status == "nothing_to_do"
    assert sorted(memory_pass.asked(fake_llm)) == ["I have two cats.", "I run the lab's cluster."]
    [run] = team_md.extraction_runs(1)
    assert (memory_pass.count(run), run.llm_calls) == (2, 2 * memory_pass.calls)
    unasked = [
        m.content
        for u in (ana, bo)
        for m in team_md.list_memories(u.id)
        if memory_pass.read(m) is None
    ]
    assert sorted(unasked) == [
        "I am on call on Mondays.",
        "I order the lab's reagents.",
        "I play chess.",
    ]


def test_a_text_changed_while_the_llm_answers_keeps_its_new_text_unasked(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, memory_pass: Pass
) -> None:
    ana = team_md.get_user("ana")
    memory = team_md.add_memory(ana.id, "I play the guitar.")
    fake_llm.script(Reply.delay(0.5, memory_pass.good), *memory_pass.goods[1:])
    runs = []
    asking = threading.Thread(target=lambda: runs.append(memory_pass.run(team_md)))
    asking.start()
    wait_until(lambda: len(fake_llm.requests) == 1)
    team_md.edit_memory(ana.id, memory.id, "I play the cello.")
    asking.join(10)

    after = team_md.get_memory(ana.id, memory.id)
    assert (after.content, memory_pass.read(after)) == ("I play the cello.", None)
    assert (memory_pass.count(runs[0]), runs[0].llm_calls) == (0, memory_pass.calls)


def test_the_guarded_write_needs_the_text_it_was_asked_about_and_no_answer_yet(
    team_md: Memoryd, memory_pass: Pass
) -> None:
    ana = team_md.get_user("ana")
    memory = team_md.add_memory(ana.id, "I play the guitar.")
    value, other = memory_pass.good_value, memory_pass.good_value[:1]
    with team_md.db.write() as repo:
        store = memory_pass.guarded_store
        assert not store(repo, memory.id, content_key("I play the flute."), value)
        assert store(repo, memory.id, content_key("I play the guitar."), value)
        assert not store(repo, memory.id, content_key("I play the guitar."), other)
    assert memory_pass.read(team_md.get_memory(ana.id, memory.id)) == value


def test_editing_the_text_clears_the_answer(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, memory_pass: Pass
) -> None:
    ana = team_md.get_user("ana")
    memory = team_md.add_memory(ana.id, "I play the guitar.")
    fake_llm.script(*memory_pass.goods)
    memory_pass.run(team_md, 1)
    kept = team_md.edit_memory(ana.id, memory.id, expires_at="2099-01-01")
    assert memory_pass.read(kept) == memory_pass.good_value  # same words: same answer
    assert memory_pass.read(team_md.edit_memory(ana.id, memory.id, "I play the drums.")) is None
    fake_llm.script(*memory_pass.goods)
    assert memory_pass.count(memory_pass.run(team_md, 1)) == 1
    assert memory_pass.asked(fake_llm)[-1] == "I play the drums."


def test_the_run_beats_after_each_answer(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock, memory_pass: Pass
) -> None:
    """A long pass proves its run alive: the heartbeat moves after every memory (after
    all of its calls)."""
    ana = team_md.get_user("ana")
    for text in ("I play the guitar.", "I have two cats.", "I live in Porto."):
        team_md.add_memory(ana.id, text)
    started = clock()
    beats: list[datetime | None] = []

    def answer(request: Any) -> Reply:
        [running] = team_md.extraction_runs(1)
        beats.append(running.heartbeat_at)
        clock.advance(minutes=1)  # each call takes a minute
        return memory_pass.good

    fake_llm.responder = answer
    assert memory_pass.count(memory_pass.run(team_md)) == 3
    minute = timedelta(minutes=1)
    calls = memory_pass.calls
    assert beats == [started + calls * m * minute for m in range(3) for _ in range(calls)]


def test_expired_memories_are_skipped(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock, memory_pass: Pass
) -> None:
    ana = team_md.get_user("ana")
    team_md.add_memory(ana.id, "I am in Rome this week.", expires_at=clock() + timedelta(days=1))
    clock.advance(days=2)
    run = memory_pass.run(team_md)
    assert (run.llm_calls, fake_llm.requests) == (0, [])
    assert memory_pass.read(team_md.list_memories(ana.id)[0]) is None


def test_a_dry_run_asks_nothing(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, memory_pass: Pass
) -> None:
    ana = team_md.get_user("ana")
    team_md.add_memory(ana.id, "I play the guitar.")
    run = memory_pass.run(team_md, dry_run=True)
    assert (memory_pass.count(run), fake_llm.requests) == (0, [])
    assert memory_pass.read(team_md.list_memories(ana.id)[0]) is None


def test_nothing_is_asked_while_memory_is_switched_off(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, memory_pass: Pass
) -> None:
    ana = team_md.get_user("ana")
    team_md.add_memory(ana.id, "I play the guitar.")
    team_md.set_setting("memory_enabled", False)
    assert memory_pass.run(team_md).llm_calls == 0 and fake_llm.requests == []
    team_md.set_setting("memory_enabled", True)
    fake_llm.script(*memory_pass.goods)
    assert memory_pass.count(memory_pass.run(team_md)) == 1


def test_an_unavailable_llm_stops_the_run_before_the_pass(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, memory_pass: Pass
) -> None:
    ana = team_md.get_user("ana")
    team_md.add_memory(ana.id, "I play the guitar.")
    chat(team_md, ana.id, "lab", 3)
    fake_llm.default = Reply.error(401, "invalid api key")
    run = memory_pass.run(team_md, force=True)
    assert len(fake_llm.requests) == 1  # the Observer's call, refused; no pass after it
    assert memory_pass.count(run) == 0
    assert not any(e["kind"] == memory_pass.kind for e in run.errors)


def test_memories_extracted_in_a_run_are_asked_about_by_it(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, memory_pass: Pass
) -> None:
    ana = team_md.get_user("ana")
    chat(team_md, ana.id, "lab", 3, "I keep bees on my roof.")
    fake_llm.script(observe(person=[1]), *memory_pass.goods)
    run = memory_pass.run(team_md, force=True)
    calls = 1 + memory_pass.calls
    assert (run.memories_created, memory_pass.count(run), run.llm_calls) == (1, 1, calls)
    [memory] = team_md.list_memories(ana.id)
    assert memory_pass.read(memory) == memory_pass.good_value
    # stored as "The user ...", shown to the LLM in the user's own words, as measured
    assert memory.content == "The user keeps bees on their roof."
    assert memory_pass.asked(fake_llm) == ["I keep bees on my roof."]


@pytest.mark.parametrize(("budget", "calls"), [(None, 1), (0, 0)])
def test_the_scheduler_tick_runs_the_pass_with_its_setting(
    database_url: str,
    fake_llm: FakeOpenAIServer,
    tmp_path: Path,
    embedder: MiniLMEmbedder,
    clock: Clock,
    memory_pass: Pass,
    budget: int | None,
    calls: int,
) -> None:
    overrides: dict[str, int] = {}
    if budget is not None:
        overrides[memory_pass.setting] = budget
    with make_md(database_url, fake_llm, tmp_path, embedder, clock, **overrides) as md:
        ana = md.create_user("ana")
        md.add_memory(ana.id, "I play the guitar.")
        fake_llm.default = memory_pass.good
        run = ExtractionScheduler(md).tick()
        assert run is not None and run.trigger == "scheduler"
        sent = calls * memory_pass.calls
        assert (memory_pass.count(run), len(fake_llm.requests)) == (calls, sent)
        expected = memory_pass.good_value if calls else None
        assert memory_pass.read(md.list_memories(ana.id)[0]) == expected


def test_the_setting_defaults_to_50_and_refuses_a_negative_budget(
    monkeypatch: pytest.MonkeyPatch, memory_pass: Pass
) -> None:
    from pydantic import ValidationError

    from memoryd.config import MemorydSettings, environment_error

    variable = f"MEMORYD_{memory_pass.setting.upper()}"
    assert getattr(MemorydSettings(), memory_pass.setting) == 50
    monkeypatch.setenv(variable, "-1")
    with pytest.raises(ValidationError) as refused:
        MemorydSettings()
    message = environment_error(refused.value)
    assert message is not None and f"{variable}='-1'" in message
    monkeypatch.setenv(variable, "0")
    assert getattr(MemorydSettings(), memory_pass.setting) == 0
