"""The topic-tagging pass of extraction runs (issue 10), against the scripted LLM server.

Each untagged memory is asked about once, oldest first, up to the run's budget; a good
answer's labels are stored as keys, an unusable one as "no topics" (not asked again),
and an LLM error leaves the memory untagged and stops the pass. SQLite and PostgreSQL.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest

from memoryd import Memoryd
from memoryd.domain.rules import content_key
from memoryd.embedding.minilm import MiniLMEmbedder
from memoryd.extraction import topics
from memoryd.extraction.scheduler import ExtractionScheduler
from memoryd.testing import FakeOpenAIServer, Reply
from support.extraction import Clock, chat, make_md, observe


def tags(*labels: object) -> Reply:
    return Reply.json({"topics": list(labels)}, usage=(310, 9))


def asked(srv: FakeOpenAIServer) -> list[str]:
    """The memory texts the LLM was asked to tag, in order."""
    return [
        str(r["messages"][-1]["content"]).removeprefix("Fact: ")
        for r in srv.requests
        if r["messages"][0]["content"] == topics.SYSTEM
    ]


def wait_until(condition: Callable[[], bool], seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_a_good_answer_is_stored_as_keys_and_counted(
    team_md: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = team_md.get_user("ana")
    memory = team_md.add_memory(ana.id, "I play the guitar in a band.")
    fake_llm.script(tags("music", "hobbies and free time"))

    run = team_md.extract(tag_topics=5)

    tagged = team_md.get_memory(ana.id, memory.id)
    assert tagged.topics == ("hobbies", "music")
    assert tagged.updated_at == memory.updated_at  # derived data: no edit
    assert [e.action.value for e in team_md.audit_log(ana.id, memory.id)] == ["create"]
    assert (run.memories_tagged, run.llm_calls, run.llm_calls_failed) == (1, 1, 0)
    assert (run.prompt_tokens, run.completion_tokens) == (310, 9)
    assert run.status == "ok" and run.errors == []
    [request] = fake_llm.requests
    assert request["messages"] == topics.messages("I play the guitar in a band.")
    assert (request["max_tokens"], request["temperature"]) == (60, 0.0)
    assert request["response_format"]["json_schema"]["schema"] == topics.SCHEMA
    stored = team_md.extraction_run(run.id)
    assert stored.memories_tagged == 1 and stored.to_dict()["memories_tagged"] == 1

    again = team_md.extract(tag_topics=5)  # tagged once: not asked again
    assert (again.memories_tagged, again.llm_calls, len(fake_llm.requests)) == (0, 0, 1)


@pytest.mark.parametrize(
    ("reply", "stored"),
    [
        (Reply.text("Music, I think."), ()),
        (Reply.text('{"topics": ["music"'), ()),  # cut off
        (Reply.json({"topics": "music"}), ()),
        (Reply.json({"labels": ["music"]}), ()),
        (Reply.json({"topics": ["astrology", "cars"]}), ()),
        (Reply.json({"topics": ["astrology", " Music ", 7, "music"]}), ("music",)),
        (
            Reply.json(
                {"topics": ["music", "work and career", "travel and places", "food and drink"]}
            ),
            ("work", "music", "travel"),  # the first three named, in the list's order
        ),
    ],
    ids=["prose", "cut-off", "not-a-list", "wrong-key", "unknown", "some-known", "four"],
)
def test_an_unusable_answer_stores_what_is_known_and_is_not_retried(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, reply: Reply, stored: tuple[str, ...]
) -> None:
    ana = team_md.get_user("ana")
    memory = team_md.add_memory(ana.id, "I play the guitar in a band.")
    fake_llm.script(reply)

    run = team_md.extract(tag_topics=5)

    assert team_md.get_memory(ana.id, memory.id).topics == stored
    assert (run.memories_tagged, run.llm_calls, run.llm_calls_failed) == (1, 1, 0)
    assert run.errors == []
    team_md.extract(tag_topics=5)
    assert len(fake_llm.requests) == 1


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        (Reply.error(500, "model crashed"), "model crashed"),
        (Reply.delay(3, Reply.json({"topics": ["music"]})), "timed out"),
    ],
    ids=["500", "timeout"],
)
def test_an_llm_error_leaves_memories_untagged_and_stops_the_pass(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, reply: Reply, said: str
) -> None:
    ana = team_md.get_user("ana")
    for text in ("I play the guitar.", "I have two cats.", "I live in Porto."):
        team_md.add_memory(ana.id, text)
    fake_llm.script(reply)

    run = team_md.extract(tag_topics=5)

    assert [m.topics for m in team_md.list_memories(ana.id)] == [None, None, None]
    assert len(fake_llm.requests) == 1  # no doomed calls for the other two
    assert (run.memories_tagged, run.llm_calls, run.llm_calls_failed) == (0, 1, 1)
    assert run.status == "ok"  # tagging never fails a run
    [error] = run.errors
    assert error["kind"] == "topics" and said in error["error"]
    assert team_md.extraction_run(run.id).errors == [error]

    fake_llm.script(*(tags("music") for _ in range(3)))  # the next run tries again
    assert team_md.extract(tag_topics=5).memories_tagged == 3


def test_the_budget_is_kept_and_the_oldest_go_first(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    ana, bo = team_md.get_user("ana"), team_md.get_user("bo")
    texts = ["I was born in Lisbon.", "I have two cats.", "I play chess.", "I drink tea."]
    for n, text in enumerate(texts):
        team_md.add_memory((ana, bo)[n % 2].id, text, workspace="lab" if n == 2 else None)
        clock.advance(minutes=1)
    fake_llm.default = tags("past and life events")

    assert team_md.extract(tag_topics=2).memories_tagged == 2
    assert asked(fake_llm) == texts[:2]
    assert team_md.extract(tag_topics=0).llm_calls == 0  # 0: no tagging at all
    assert team_md.extract(tag_topics=5).memories_tagged == 2
    assert asked(fake_llm) == texts


def test_a_pair_run_tags_only_that_users_globals_and_workspace(
    team_md: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana, bo = team_md.get_user("ana"), team_md.get_user("bo")
    team_md.add_memory(ana.id, "I have two cats.")
    team_md.add_memory(ana.id, "I run the lab's cluster.", workspace="lab")
    team_md.add_memory(ana.id, "I am on call on Mondays.", workspace="ops")
    team_md.add_memory(bo.id, "I play chess.")
    team_md.add_memory(bo.id, "I order the lab's reagents.", workspace="lab")
    fake_llm.default = tags("work and career")

    result = team_md.extract(ana.id, "lab", force=True, tag_topics=10)

    assert result.status == "nothing_to_do"
    assert sorted(asked(fake_llm)) == ["I have two cats.", "I run the lab's cluster."]
    [run] = team_md.extraction_runs(1)
    assert (run.memories_tagged, run.llm_calls) == (2, 2)
    untagged = [
        m.content for u in (ana, bo) for m in team_md.list_memories(u.id) if m.topics is None
    ]
    assert sorted(untagged) == [
        "I am on call on Mondays.",
        "I order the lab's reagents.",
        "I play chess.",
    ]


def test_a_text_changed_while_the_llm_answers_keeps_its_new_text_untagged(
    team_md: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = team_md.get_user("ana")
    memory = team_md.add_memory(ana.id, "I play the guitar.")
    fake_llm.script(Reply.delay(0.5, tags("music")))
    runs = []
    tagging = threading.Thread(target=lambda: runs.append(team_md.extract(tag_topics=5)))
    tagging.start()
    wait_until(lambda: len(fake_llm.requests) == 1)
    team_md.edit_memory(ana.id, memory.id, "I play the cello.")
    tagging.join(10)

    after = team_md.get_memory(ana.id, memory.id)
    assert (after.content, after.topics) == ("I play the cello.", None)
    assert (runs[0].memories_tagged, runs[0].llm_calls) == (0, 1)


def test_the_guarded_write_needs_the_text_it_was_asked_for(team_md: Memoryd) -> None:
    ana = team_md.get_user("ana")
    memory = team_md.add_memory(ana.id, "I play the guitar.")
    with team_md.db.write() as repo:
        assert not repo.set_topics(memory.id, content_key("I play the flute."), "music")
        assert repo.set_topics(memory.id, content_key("I play the guitar."), "music")
        assert not repo.set_topics(memory.id, content_key("I play the guitar."), "hobbies")
    assert team_md.get_memory(ana.id, memory.id).topics == ("music",)


def test_editing_the_text_resets_the_topics(team_md: Memoryd, fake_llm: FakeOpenAIServer) -> None:
    ana = team_md.get_user("ana")
    memory = team_md.add_memory(ana.id, "I play the guitar.")
    fake_llm.script(tags("music"))
    team_md.extract(tag_topics=1)
    kept = team_md.edit_memory(ana.id, memory.id, expires_at="2099-01-01")
    assert kept.topics == ("music",)  # same words: same topics
    assert team_md.edit_memory(ana.id, memory.id, "I play the drums.").topics is None
    fake_llm.script(tags("music", "hobbies and free time"))
    assert team_md.extract(tag_topics=1).memories_tagged == 1
    assert asked(fake_llm)[-1] == "I play the drums."


def test_expired_memories_are_skipped(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    ana = team_md.get_user("ana")
    team_md.add_memory(ana.id, "I am in Rome this week.", expires_at=clock() + timedelta(days=1))
    clock.advance(days=2)
    run = team_md.extract(tag_topics=5)
    assert (run.llm_calls, fake_llm.requests) == (0, [])
    assert team_md.list_memories(ana.id)[0].topics is None


def test_a_dry_run_tags_nothing(team_md: Memoryd, fake_llm: FakeOpenAIServer) -> None:
    ana = team_md.get_user("ana")
    team_md.add_memory(ana.id, "I play the guitar.")
    run = team_md.extract(dry_run=True, tag_topics=5)
    assert (run.memories_tagged, fake_llm.requests) == (0, [])
    assert team_md.list_memories(ana.id)[0].topics is None


def test_nothing_is_tagged_while_memory_is_switched_off(
    team_md: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = team_md.get_user("ana")
    team_md.add_memory(ana.id, "I play the guitar.")
    team_md.set_setting("memory_enabled", False)
    assert team_md.extract(tag_topics=5).llm_calls == 0 and fake_llm.requests == []
    team_md.set_setting("memory_enabled", True)
    fake_llm.script(tags("music"))
    assert team_md.extract(tag_topics=5).memories_tagged == 1


def test_an_unavailable_llm_stops_the_run_before_tagging(
    team_md: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = team_md.get_user("ana")
    team_md.add_memory(ana.id, "I play the guitar.")
    chat(team_md, ana.id, "lab", 3)
    fake_llm.default = Reply.error(401, "invalid api key")
    run = team_md.extract(force=True, tag_topics=5)
    assert len(fake_llm.requests) == 1  # the Observer's call, refused; no tagging after it
    assert run.memories_tagged == 0 and not any(e["kind"] == "topics" for e in run.errors)


def test_memories_extracted_in_a_run_are_tagged_by_it(
    team_md: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = team_md.get_user("ana")
    chat(team_md, ana.id, "lab", 3, "I keep bees on my roof.")
    fake_llm.script(observe(person=[1]), tags("hobbies and free time", "home and where they live"))
    run = team_md.extract(force=True, tag_topics=5)
    assert (run.memories_created, run.memories_tagged, run.llm_calls) == (1, 1, 2)
    [memory] = team_md.list_memories(ana.id)
    assert memory.topics == ("hobbies", "home")


@pytest.mark.parametrize(("budget", "calls"), [(None, 1), (0, 0)])
def test_the_scheduler_tick_tags_with_the_setting(
    database_url: str,
    fake_llm: FakeOpenAIServer,
    tmp_path: Path,
    embedder: MiniLMEmbedder,
    clock: Clock,
    budget: int | None,
    calls: int,
) -> None:
    overrides = {"question_memories_per_run": 0}  # the topics alone (see test_questions)
    if budget is not None:
        overrides["topic_tags_per_run"] = budget
    with make_md(database_url, fake_llm, tmp_path, embedder, clock, **overrides) as md:
        ana = md.create_user("ana")
        md.add_memory(ana.id, "I play the guitar.")
        fake_llm.default = tags("music")
        run = ExtractionScheduler(md).tick()
        assert run is not None and run.trigger == "scheduler"
        assert (run.memories_tagged, len(fake_llm.requests)) == (calls, calls)
        assert md.list_memories(ana.id)[0].topics == (("music",) if calls else None)


def test_the_setting_defaults_to_50_and_refuses_a_negative_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pydantic import ValidationError

    from memoryd.config import MemorydSettings, environment_error

    assert MemorydSettings().topic_tags_per_run == 50
    monkeypatch.setenv("MEMORYD_TOPIC_TAGS_PER_RUN", "-1")
    with pytest.raises(ValidationError) as refused:
        MemorydSettings()
    message = environment_error(refused.value)
    assert message is not None and "MEMORYD_TOPIC_TAGS_PER_RUN='-1'" in message
    monkeypatch.setenv("MEMORYD_TOPIC_TAGS_PER_RUN", "0")
    assert MemorydSettings().topic_tags_per_run == 0


def test_a_text_the_server_refuses_while_it_answers_others_gets_no_topics(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    """A refused text (a content filter's 400) would stay first in line and stop every
    later pass; once the server answers the next memory, it is stored as "no topics"."""
    ana = team_md.get_user("ana")
    for text in ("I said something a filter dislikes.", "I have two cats."):
        team_md.add_memory(ana.id, text)
        clock.advance(minutes=1)  # the refused one is the oldest, asked first
    fake_llm.script(Reply.error(400, "content refused"), tags("pets and animals"))

    run = team_md.extract(tag_topics=5)

    stored = {m.content: m.topics for m in team_md.list_memories(ana.id)}
    assert stored == {"I said something a filter dislikes.": (), "I have two cats.": ("pets",)}
    assert (run.memories_tagged, run.llm_calls, run.llm_calls_failed) == (2, 2, 1)
    assert run.errors == []  # the pass did not stop


def test_two_refusals_in_a_row_stop_the_pass_and_store_nothing(
    team_md: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    """Every request refused alike is the request's fault (say, a server that rejects
    the request's settings), not the texts': nothing is marked, the next run asks again."""
    ana = team_md.get_user("ana")
    for text in ("I play the guitar.", "I have two cats.", "I live in Porto."):
        team_md.add_memory(ana.id, text)
    fake_llm.script(Reply.error(400, "max_tokens too small"), Reply.error(400, "again"))

    run = team_md.extract(tag_topics=5)

    assert [m.topics for m in team_md.list_memories(ana.id)] == [None, None, None]
    assert (run.memories_tagged, run.llm_calls, run.llm_calls_failed) == (0, 2, 2)
    [error] = run.errors
    assert error["kind"] == "topics" and "again" in error["error"]
