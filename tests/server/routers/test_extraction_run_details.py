"""``GET /api/v1/extraction/runs/{id}``: one run with every pair's outcome (issue 12, item 7).

A run that only dropped facts the model invented is ``ok`` with its dropped facts counted
apart; a run with a failed pair is ``errors``; the details name each pair's user.
"""

from __future__ import annotations

import re
from pathlib import Path

from memoryd.extraction.runs import Run, finish_run, new_run_id, start_run
from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.server.web.admin_pages import run_pairs
from memoryd.testing import FakeOpenAIServer, Reply
from support.server import build_world, make_settings
from support.web import get_page, words


def test_run_details_with_pairs_dropped_facts_and_failures(
    tmp_path: Path, embedder: MiniLMEmbedder, fake_llm: FakeOpenAIServer
) -> None:
    settings = make_settings(
        tmp_path,
        llm_provider="openai",
        llm_base_url=fake_llm.base_url,
        llm_model="fake-model",
        question_memories_per_run=50,
    )
    world = build_world(settings, embedder)
    alice, bob = world.ids["alice"], world.ids["bob"]
    for _ in range(3):
        world.md.record_chat(alice, "alpha", "I just moved to Oslo.", "Welcome to Norway!")
    # sentence 1 is real, 7 does not exist (an invented fact): dropped, the run is fine;
    # then Run now asks the new memory's questions (MEMORYD_QUESTION_MEMORIES_PER_RUN),
    # one call per prompt
    asked = Reply.json({"questions": ["Where do you live?", "Did you move?", "Why Oslo?"]})
    fake_llm.script(Reply.json({"person": [1, 7], "project": []}), asked, asked)
    with world.client:
        ran = world.call("admin", "POST", "/api/v1/extraction/run", json={"force": True}).json()
        run_id = ran["run"]["id"]
        listed = world.call("admin", "GET", "/api/v1/extraction/runs").json()[0]
        assert (listed["status"], listed["pairs_failed"], listed["facts_dropped"]) == ("ok", 0, 1)
        assert (listed["memories_questioned"], listed["llm_calls"]) == (1, 3)
        details = world.call("admin", "GET", f"/api/v1/extraction/runs/{run_id}")
        assert details.status_code == 200, details.text
        body = details.json()
        assert body["id"] == run_id and body["status"] == "ok"
        [pair] = body["pairs"]
        assert (pair["user_name"], pair["workspace"]) == ("alice", "alpha")
        assert pair["status"] == "processed"
        [memory] = world.md.list_memories(alice)
        assert pair["created"] == [memory.id] and len(pair["chats_processed"]) == 3
        assert memory.questions is not None and body["memories_questioned"] == 1
        assert len(pair["dropped"]) == 1 and pair["error"] is None
        assert [e["kind"] for e in body["errors"]] == ["item"]

        for _ in range(3):
            world.md.record_chat(bob, "alpha", "My dog is called Rex.", "Cute!")
        fake_llm.default = Reply.error(500, "model crashed")
        failed = world.call("admin", "POST", "/api/v1/extraction/run", json={"force": True})
        failed_id = failed.json()["run"]["id"]
        body = world.call("admin", "GET", f"/api/v1/extraction/runs/{failed_id[:8]}").json()
        assert (body["status"], body["pairs_failed"]) == ("errors", 1)
        [pair] = body["pairs"]
        assert pair["user_name"] == "bob" and "model crashed" in pair["error"]

        missing = world.call("admin", "GET", "/api/v1/extraction/runs/abcdef0123")
        assert missing.status_code == 404
        assert "no extraction run 'abcdef0123'" in missing.json()["error"]["message"]
        short = world.call("admin", "GET", f"/api/v1/extraction/runs/{run_id[:3]}")
        assert short.status_code == 422
        assert short.json()["error"]["message"] == (
            f"run id '{run_id[:3]}' is too short: give the full id or a unique prefix of at "
            "least 6 characters"
        )
        bad = world.call("admin", "GET", "/api/v1/extraction/runs/not-hex")
        assert bad.status_code == 422
        refused = world.call("alice", "GET", f"/api/v1/extraction/runs/{run_id}")
        assert refused.status_code == 403


def test_the_run_page_shows_the_memories_asked_and_a_stopped_questions_pass(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    world = build_world(make_settings(tmp_path), embedder)
    run = Run(id=new_run_id(), trigger="scheduler", started_at=world.md.clock())
    start_run(world.md.db, run)
    run.memories_derived, run.llm_calls, run.llm_calls_failed = {"questions": 2}, 3, 1
    run.errors = [
        {
            "kind": "questions",
            "user_id": None,
            "workspace": None,
            "error": "asking memories' questions stopped after 2 memories: the LLM request "
            "timed out",
        }
    ]
    finish_run(world.md.db, run, world.md.clock())
    with world.client:
        page = get_page(world, "admin", f"/admin/runs/{run.id}")
    assert page.status_code == 200
    shown = words(re.sub(r"<[^>]+>", " ", page.text))
    assert "Questions 2 memories asked" in shown and "3 LLM calls (1 failed)" in shown
    assert (
        "Asking questions stopped : asking memories" in shown
        and "stopped after 2 memories" in shown
    )
    assert run_pairs(run, {})[0].entries[0]["label"] == "Asking questions stopped"


def test_a_run_under_review_counts_its_suggestions_in_the_json_and_on_its_pages(
    tmp_path: Path, embedder: MiniLMEmbedder, fake_llm: FakeOpenAIServer
) -> None:
    """Issue 38: with memory_review on, the run says how many changes wait for review."""
    settings = make_settings(
        tmp_path, llm_provider="openai", llm_base_url=fake_llm.base_url, llm_model="fake"
    )
    world = build_world(settings, embedder)
    world.md.set_setting("memory_review", "everything")
    for _ in range(3):
        world.md.record_chat(world.ids["alice"], "alpha", "I just moved to Oslo.", "Welcome!")
    fake_llm.script(Reply.json({"person": [1], "project": []}))
    with world.client:
        ran = world.call("admin", "POST", "/api/v1/extraction/run", json={"force": True}).json()
        listed = world.call("admin", "GET", "/api/v1/extraction/runs").json()[0]
        details = world.call("admin", "GET", f"/api/v1/extraction/runs/{listed['id']}").json()
        page = get_page(world, "admin", f"/admin/runs/{listed['id']}")
        table = get_page(world, "admin", "/admin/extraction-runs")
    [waiting] = world.md.list_suggestions(world.ids["alice"])
    assert ran["run"]["memories_suggested"] == listed["memories_suggested"] == 1
    assert (listed["memories_created"], listed["memories_updated"]) == (0, 0)
    assert details["pairs"][0]["suggested"] == [waiting.id]
    shown = words(re.sub(r"<[^>]+>", " ", page.text))
    assert "Memories 0 created, 0 updated, 1 suggested: waiting for review" in shown
    assert "Waiting for review : create: The user just moved to Oslo." in shown
    header = re.findall(r"<th[^>]*>([^<]*)</th>", table.text)
    row = re.findall(r"<td>([^<]*)</td>", table.text)  # the cells after the linked start
    assert row[header.index("Suggested") - 1] == "1"


def test_a_runs_status_and_trigger_are_shown_in_the_readers_language(
    tmp_path: Path, embedder: MiniLMEmbedder, fake_llm: FakeOpenAIServer
) -> None:
    """Issue 35: the stored words ("ok", "manual") are not shown as they are stored."""
    settings = make_settings(
        tmp_path, llm_provider="openai", llm_base_url=fake_llm.base_url, llm_model="fake"
    )
    world = build_world(settings, embedder)
    world.md.set_language_preference(world.ids["admin"], "fr")
    with world.client:
        world.call("admin", "POST", "/api/v1/extraction/run", json={"force": True})
        [listed] = world.call("admin", "GET", "/api/v1/extraction/runs").json()
        table = get_page(world, "admin", "/admin/extraction-runs")
        page = get_page(world, "admin", f"/admin/runs/{listed['id']}")
    assert (listed["status"], listed["trigger"]) == ("ok", "manual")
    cells = re.findall(r"<td>([^<]*)</td>", table.text)
    assert cells[:2] == ["réussie", "à la main"]
    shown = words(re.sub(r"<[^>]+>", " ", page.text))
    assert "réussie" in shown and "à la main" in shown and "manual" not in shown
