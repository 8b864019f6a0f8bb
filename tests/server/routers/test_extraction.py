"""Extraction for admins: run now (with FakeOpenAIServer as the LLM), history, parked
batches and their retry."""

from __future__ import annotations

from pathlib import Path

from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.testing import FakeOpenAIServer, Reply
from support.server import build_world, make_settings
from support.web import flash_of, post_form

OBSERVED = {"person": [1, 2, 3, 4, 5], "project": []}  # the same sentence in five chats


def test_run_now_learns_from_chats_and_shows_in_history(
    tmp_path: Path, embedder: MiniLMEmbedder, fake_llm: FakeOpenAIServer
) -> None:
    settings = make_settings(
        tmp_path, llm_provider="openai", llm_base_url=fake_llm.base_url, llm_model="fake-model"
    )
    world = build_world(settings, embedder)
    alice = world.ids["alice"]
    for _ in range(5):
        world.md.record_chat(alice, "alpha", "I just moved to Oslo.", "Welcome to Norway!")
    fake_llm.script(Reply.json(OBSERVED))
    with world.client:
        ran = world.call("admin", "POST", "/api/v1/extraction/run", json={"force": True})
        assert ran.status_code == 200, ran.text
        run = ran.json()["run"]
        assert (run["memories_created"], run["chats_processed"]) == (1, 5)
        assert [m.content for m in world.md.list_memories(alice)] == [
            "The user just moved to Oslo."
        ]
        history = world.call("admin", "GET", "/api/v1/extraction/runs").json()
        assert [r["id"] for r in history] == [run["id"]]
        assert world.call("alice", "POST", "/api/v1/extraction/run", json={}).status_code == 403


def test_failed_pair_is_listed_and_retried_by_name(
    tmp_path: Path, embedder: MiniLMEmbedder, fake_llm: FakeOpenAIServer
) -> None:
    settings = make_settings(
        tmp_path, llm_provider="openai", llm_base_url=fake_llm.base_url, llm_model="fake-model"
    )
    world = build_world(settings, embedder)
    bob = world.ids["bob"]
    for _ in range(5):
        world.md.record_chat(bob, "alpha", "My dog is called Rex.", "Cute!")
    fake_llm.default = Reply.error(500, "model crashed")
    with world.client:
        world.call("admin", "POST", "/api/v1/extraction/run", json={"force": True})
        [listed] = world.call("admin", "GET", "/api/v1/extraction/runs").json()
        # the call was made and got no answer: counted, apart from the answered ones
        assert (listed["llm_calls"], listed["llm_calls_failed"]) == (1, 1)
        one = world.call("admin", "GET", f"/api/v1/extraction/runs/{listed['id']}").json()
        assert (one["pairs"][0]["llm_calls"], one["pairs"][0]["llm_calls_failed"]) == (1, 1)
        failures = world.call("admin", "GET", "/api/v1/extraction/failures").json()
        assert [(f["user_id"], f["workspace"]) for f in failures] == [(bob, "alpha")]
        assert "model crashed" in failures[0]["last_error"]
        assert world.md.list_chats(bob, processed=False)  # nothing lost (R9)
        fake_llm.default = Reply.error(500, "still down")
        fake_llm.script(Reply.json({"person": [1], "project": []}))
        retried = world.call("admin", "POST", f"/api/v1/extraction/parked/{bob}/alpha/retry")
        assert retried.status_code == 200, retried.text
        assert retried.json()["pair"]["status"] == "processed"
        assert [m.content for m in world.md.list_memories(bob)] == ["The user's dog is called Rex."]
        assert world.call("admin", "GET", "/api/v1/extraction/failures").json() == []


def test_a_run_from_the_panel_that_cannot_start_says_why(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    """The hosted API without a key: the run cannot start. The panel says so, instead of
    "started" with nothing in the history and the reason only in the server log."""
    world = build_world(make_settings(tmp_path, llm_provider="openai"), embedder)
    with world.client:
        for path, form in (
            ("/ui/extraction/run", {}),
            ("/ui/extraction/retry", {"user_id": str(world.ids["bob"]), "workspace": "alpha"}),
        ):
            flash = flash_of(post_form(world, "admin", path, form, back="/admin?tab=extraction"))
            assert flash["level"] == "error", flash
            assert flash["text"].startswith("Extraction could not start: MEMORYD_LLM_API_KEY ")
        assert world.md.extraction_runs() == []
        unknown = {"user_id": "9999", "workspace": "alpha"}
        flash = flash_of(post_form(world, "admin", "/ui/extraction/retry", unknown))
        assert flash["level"] == "error"
        assert flash["text"] == "Extraction could not start: no user 9999"
