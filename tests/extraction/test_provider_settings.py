"""A provider that refuses memoryd's settings is reported as configuration, not as a bad pair.

A wrong API key (401), a model the server does not have or a base URL without its chat
endpoint (404), a hosted API without a key, an unknown provider name: every call would
fail the same way, so the run stops at the first refusal with the setting to change, no
attempt is counted on the pair (fixing the setting must not leave every pair parked),
and its chats stay unprocessed (R9). Real HTTP against the scripted server.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memoryd import Memoryd
from memoryd.domain.errors import MemorydError
from memoryd.extraction.runs import get_pair_state
from memoryd.extraction.scheduler import SETTINGS_REFUSED, ExtractionScheduler
from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.server.web.admin_pages import run_pairs
from memoryd.testing import FakeOpenAIServer, Reply
from support.extraction import Clock, chat, make_md, observe

REFUSALS = {
    "openai-401": ("openai", None, Reply.error(401, "Incorrect API key"), "MEMORYD_LLM_API_KEY"),
    "anthropic-401": ("anthropic", None, Reply.error(401, "invalid x-api-key"),
                      "MEMORYD_LLM_API_KEY"),
    "openai-404-model": ("openai", None, Reply.error(404, "The model `fake-model` does not exist"),
                         "MEMORYD_LLM_MODEL"),
    "anthropic-404-model": ("anthropic", None, Reply.error(404, "model: fake-model"),
                            "MEMORYD_LLM_MODEL"),
    "openai-no-v1": ("openai", "", None, "ends in /v1"),
}  # fmt: skip


def pairs(md: Memoryd) -> list[int]:
    ids = [md.create_user(name).id for name in ("ana", "bo", "cy")]
    md.create_workspace("lab")
    for user_id in ids:
        chat(md, user_id, "lab", 3, "I run the Porto lab.")
    return ids


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_a_refused_setting_stops_the_run_and_counts_no_attempt(
    case: str,
    database_url: str,
    fake_llm: FakeOpenAIServer,
    tmp_path: Path,
    embedder: MiniLMEmbedder,
) -> None:
    provider, base_url, reply, setting = REFUSALS[case]
    overrides: dict[str, object] = {"llm_provider": provider}
    if base_url is not None:  # the server's root, without /v1: its paths are all unknown
        overrides["llm_base_url"] = fake_llm.base_url.removesuffix("/v1")
    if reply is not None:
        fake_llm.script(reply)
    with make_md(database_url, fake_llm, tmp_path, embedder, Clock(), **overrides) as md:
        ids = pairs(md)

        run = md.extract(force=True)

        assert len(fake_llm.requests) == 1  # not one call per pair
        assert run.status == "errors" and run.pairs_failed == 1
        assert (run.llm_calls, run.llm_calls_failed) == (1, 1)  # made, and refused
        assert run.skipped_reasons == {SETTINGS_REFUSED: 2}
        [error] = [e for e in run.errors if e["kind"] == "pair"]
        assert setting in error["error"] and error["parked"] is False
        with md.db.read() as repo:
            lab = repo.workspace_id("lab") or 0
            assert all(get_pair_state(repo.conn, uid, lab) is None for uid in ids)
        assert md.extraction_failures() == []
        assert not any(c.memory_processed for uid in ids for c in md.list_chats(uid, "lab"))

        # once the setting is right, every pair goes through at the next run
        fake_llm.reset()
        fake_llm.default = observe(person=[1])
        if base_url is not None:
            md.settings = md.settings.model_copy(update={"llm_base_url": fake_llm.base_url})
        back = md.extract(force=True)
        assert back.pairs_processed == 3
        assert (back.llm_calls, back.llm_calls_failed) == (3, 0)


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        ({"llm_provider": "nope"}, "unknown LLM provider 'nope'"),
        ({"llm_base_url": None, "llm_api_key": None}, "MEMORYD_LLM_API_KEY is not set"),
        (
            {"llm_provider": "anthropic", "llm_base_url": None, "llm_api_key": None},
            "talks to api.anthropic.com",
        ),
    ],
)
def test_a_scheduled_run_that_cannot_build_its_provider_is_in_the_run_history(
    overrides: dict[str, object],
    expected: str,
    database_url: str,
    fake_llm: FakeOpenAIServer,
    tmp_path: Path,
    embedder: MiniLMEmbedder,
) -> None:
    with make_md(database_url, fake_llm, tmp_path, embedder, Clock(), **overrides) as md:
        pairs(md)
        scheduler = ExtractionScheduler(md)

        with pytest.raises(MemorydError, match=expected):
            scheduler.tick()

        [run] = md.extraction_runs()
        assert run.status == "errors" and run.trigger == "scheduler"
        [error] = run.errors
        assert error["kind"] == "config" and expected in error["error"]
        assert md.extraction_failures() == []
        [shown] = run_pairs(run, {})  # the admin panel's run page
        assert (shown.user, shown.entries[0]["label"]) == ("The whole run", "LLM settings unusable")
    assert fake_llm.requests == []


def test_an_unreachable_server_stops_the_run_and_parks_nothing(
    database_url: str,
    fake_llm: FakeOpenAIServer,
    tmp_path: Path,
    embedder: MiniLMEmbedder,
) -> None:
    from memoryd.extraction.scheduler import SERVER_UNREACHABLE
    from memoryd.testing.live import free_port

    nowhere = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    with make_md(
        database_url, fake_llm, tmp_path, embedder, Clock(), llm_base_url=nowhere,
        extraction_max_attempts=2,
    ) as md:  # fmt: skip
        ids = pairs(md)
        for _ in range(4):  # twice the attempts that would park a failing pair
            run = md.extract(force=True)
            assert run.status == "errors" and run.pairs_failed == 1
            assert run.skipped_reasons == {SERVER_UNREACHABLE: 2}
            assert (run.llm_calls, run.llm_calls_failed) == (1, 1)  # tried, not answered
        [error] = [e for e in run.errors if e["kind"] == "pair"]
        assert "cannot reach the LLM server" in error["error"] and error["parked"] is False
        with md.db.read() as repo:
            lab = repo.workspace_id("lab") or 0
            assert all(get_pair_state(repo.conn, uid, lab) is None for uid in ids)
        assert md.extraction_failures() == []
        assert not any(c.memory_processed for uid in ids for c in md.list_chats(uid, "lab"))

        # the server is back: the next run (not a retry by hand) goes through every pair
        fake_llm.default = observe(person=[1])
        md.settings = md.settings.model_copy(update={"llm_base_url": fake_llm.base_url})
        back = md.extract(force=True)
        assert back.pairs_processed == 3
        assert (back.llm_calls, back.llm_calls_failed) == (3, 0)
