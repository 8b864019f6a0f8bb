"""The admin panel's run list in Chromium: "Run now" lists the new run on the page it comes
back to (with JavaScript off too), the list follows the run to its end without a reload,
a run whose every LLM call failed says so, and the figures come from the run's counters.

The scripted LLM holds its answer until the test lets it go (``gate``), so the run is
seen in progress without any timing guess.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.testing import FakeOpenAIServer, Reply
from memoryd.testing.live import LiveServer
from support.browser import check_page, check_scriptless_page, sign_in
from support.extraction import chat, stored_run
from support.server import ADMIN_PASSWORD, World, build_world, make_settings

pytestmark = pytest.mark.browser

UI_RUN_THREAD = "memoryd-ui-extraction"


@dataclass
class Held:
    """A served world whose LLM answers (HTTP 500) only once ``gate`` is set."""

    world: World
    live: LiveServer
    gate: threading.Event

    def finish_run(self) -> None:
        """Let the LLM answer and wait for the run started from the panel to end."""
        self.gate.set()
        for thread in threading.enumerate():
            if thread.name == UI_RUN_THREAD:
                thread.join(timeout=30)
                assert not thread.is_alive(), "the run started from the panel did not end"


@pytest.fixture
def held(tmp_path: Path, embedder: MiniLMEmbedder, fake_llm: FakeOpenAIServer) -> Iterator[Held]:
    settings = make_settings(
        tmp_path,
        proxy_upstream_url=fake_llm.base_url,
        llm_provider="openai",
        llm_base_url=fake_llm.base_url,
        llm_model="fake-model",
        llm_api_key="sk-test-not-a-real-key-0000",
        idle_threshold_ms=0,
    )
    world = build_world(settings, embedder)
    chat(world.md, world.ids["alice"], "alpha", 3, "I run the Porto lab.")
    gate = threading.Event()

    def answer(body: dict[str, Any]) -> Reply:
        gate.wait(30)
        return Reply.error(500, "model crashed")

    fake_llm.responder = answer
    with LiveServer(world.app) as live:
        state = Held(world, live, gate)
        try:
            yield state
        finally:
            state.finish_run()
    world.md.close()


def open_runs(page: Any, live: LiveServer) -> Any:
    sign_in(page, live.url, "admin", ADMIN_PASSWORD)
    page.goto(f"{live.url}/admin?tab=extraction")
    return page.get_by_role("tabpanel", name="Extraction")


def cells(row: Any) -> dict[str, str]:
    """A row of the run list by column header."""
    table = row.locator("xpath=ancestor::table")
    headers = [str(h) for h in table.locator("thead th").all_inner_texts()]
    return dict(zip(headers, [str(c) for c in row.locator("td").all_inner_texts()], strict=True))


def test_run_now_lists_the_run_and_follows_it_to_the_end_without_a_reload(
    held: Held, desktop_page: Any
) -> None:
    page = desktop_page
    panel = open_runs(page, held.live)
    assert "No run yet." in panel.locator("#runs-table").inner_text()

    panel.get_by_role("button", name="Run now").click()

    page.locator(".flash-ok", has_text="started.").wait_for()
    row = panel.locator("#runs-table tbody tr").first
    assert row.get_attribute("data-status") == "running"  # on the page it came back to
    assert cells(row)["Status"] == "running"
    assert panel.get_by_role("button", name="Running…").is_disabled()
    check_page(page)
    page.evaluate("window.sameDocument = true")  # gone if the page were loaded again

    held.gate.set()  # the LLM answers: HTTP 500, the pair's batch fails

    done = panel.locator("#runs-table tbody tr[data-status='errors']")
    done.wait_for()
    assert page.evaluate("window.sameDocument === true")
    shown = cells(done)
    # the call was made and failed: not "0", and told apart from a run that needed none
    assert (shown["Failed"], shown["LLM calls"], shown["Chats"]) == ("1", "1 (1 failed)", "0")
    run = held.world.md.extraction_runs()[0]
    news = page.locator("#runs-news")
    assert news.inner_text() == f"Extraction run {run.id[:8]} finished: errors."
    assert panel.get_by_role("button", name="Run now").is_enabled()
    check_page(page)


def test_without_javascript_the_page_after_run_now_lists_the_run(
    held: Held, scriptless_page: Any
) -> None:
    page = scriptless_page
    panel = open_runs(page, held.live)

    panel.get_by_role("button", name="Run now").click()

    page.locator(".flash-ok", has_text="started.").wait_for()
    [run] = held.world.md.extraction_runs()
    assert page.locator(".flash-ok").inner_text() == f"Extraction run {run.id[:8]} started."
    row = panel.locator(f"#runs-table tr[data-run-id='{run.id}']")
    assert cells(row)["Status"] == "running"
    check_scriptless_page(page)

    held.finish_run()
    page.reload()
    shown = cells(panel.locator(f"#runs-table tr[data-run-id='{run.id}']"))
    assert (shown["Status"], shown["LLM calls"]) == ("errors", "1 (1 failed)")


def test_the_list_shows_the_runs_counters_even_before_it_finished(
    held: Held, desktop_page: Any
) -> None:
    """A run whose process died wrote its counters at its last heartbeat, but never its
    itemised errors: the list shows its counters (it counted the errors list before)."""
    world = held.world
    started = world.md.clock() - timedelta(hours=2)
    counters = {"pairs_seen": 2, "pairs_failed": 1, "facts_dropped": 2, "facts_not_stored": 1}
    run_id = stored_run(
        world.md, started, finished=False, last_beat=started, llm_calls=3, llm_calls_failed=1,
        **counters,
    )  # fmt: skip
    panel = open_runs(desktop_page, held.live)
    shown = cells(panel.locator(f"#runs-table tr[data-run-id='{run_id}']"))
    assert shown["Status"] == "interrupted"
    assert (shown["Dropped"], shown["Not stored"], shown["Failed"]) == ("2", "1", "1")
    assert shown["LLM calls"] == "3 (1 failed)"
    desktop_page.get_by_role("link", name="details").click()
    summary = desktop_page.get_by_role("region", name="Summary")
    assert "3 LLM calls (1 failed), 0 prompt and 0 completion tokens" in summary.inner_text()
