"""The "Bring your history" page in headless Chromium, at 1280 px and 390 px, light and
dark: upload a ChatGPT export, watch its progress (the status fragment the page polls)
until it is complete, then upload it again and see nothing new recorded; without
JavaScript, the same with a Refresh link. Each state is checked for sideways scrolling
and axe-core violations; the ``page`` fixture fails a test on any console error."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from memoryd.app.history_formats import History
from memoryd.app.history_import import HistoryImport
from memoryd.testing.live import LiveServer
from support.browser import ConsoleLog, check_page, check_scriptless_page, open_page, sign_in
from support.history import EXPECTED, FILES, SAMPLES
from support.server import USER_PASSWORD, World

pytestmark = pytest.mark.browser


@pytest.fixture(params=["desktop-light", "desktop-dark", "phone-light", "phone-dark"])
def page(request: pytest.FixtureRequest, browser: Any, console: ConsoleLog) -> Iterator[Any]:
    """The folder's ``page`` in both colour schemes."""
    viewport, scheme = request.param.split("-")
    with open_page(browser, viewport, dark=scheme == "dark") as (opened, log):
        log.allowed = console.allowed
        console.errors = log.errors
        yield opened
    assert console.unexpected() == [], f"console errors at {request.param}"


def hold_imports(world: World, monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Imports stop after saying how many turns they hold, until the event is set: the
    page is seen while one runs."""
    gate = threading.Event()
    real = world.md.import_history

    def held(
        user_id: int,
        history: History,
        workspace: str,
        *,
        actor: Any = None,
        progress: Callable[[HistoryImport], None] | None = None,
    ) -> HistoryImport:
        def step(now: HistoryImport) -> None:
            if progress is not None:
                progress(now)
            if now.done == 0:
                assert gate.wait(30)

        return real(user_id, history, workspace, actor=actor, progress=step)

    monkeypatch.setattr(world.md, "import_history", held)
    return gate


def test_upload_an_export_and_watch_it_complete(
    live_world: tuple[World, LiveServer], page: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    world, live = live_world
    gate = hold_imports(world, monkeypatch)
    sign_in(page, live.url, "alice", USER_PASSWORD)
    if page.viewport_size["width"] < 600:  # the sidebar's links open with Menu
        page.get_by_role("button", name="Menu").click()
    page.get_by_role("link", name="Bring your history").click()
    page.wait_for_url(f"{live.url}/import")
    check_page(page)

    def upload() -> None:
        page.get_by_label("Export file (JSON)").set_input_files(str(SAMPLES / FILES["chatgpt"]))
        page.get_by_label("Workspace", exact=True).select_option("alpha")
        page.get_by_role("button", name="Import").click()

    upload()
    status = page.locator("#history-status")
    status.get_by_text("Importing into alpha…").wait_for()
    assert "0 of 3 turns" in status.inner_text()
    check_page(page)

    gate.set()  # the page asks again by itself, and shows the end
    status.get_by_text("Import complete").wait_for()
    assert "ChatGPT export: 2 conversations, 3 turns recorded, 0 already there, 0 skipped" in (
        status.inner_text()
    )
    check_page(page)
    chats = world.md.list_chats(world.ids["alice"], "alpha")
    assert [(c.prompt, c.created_at) for c in chats] == [(p, t) for p, _, t in EXPECTED["chatgpt"]]

    upload()  # the same file again changes nothing
    status.get_by_text("Import complete").wait_for()
    assert "0 turns recorded, 3 already there, 0 skipped (nothing new)" in status.inner_text()
    assert len(world.md.list_chats(world.ids["alice"])) == 3


def test_without_javascript_the_page_refreshes_by_a_link(
    live_world: tuple[World, LiveServer], scriptless_page: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    world, live = live_world
    gate = hold_imports(world, monkeypatch)
    page = scriptless_page
    sign_in(page, live.url, "alice", USER_PASSWORD)
    page.goto(f"{live.url}/import")
    page.get_by_label("Export file (JSON)").set_input_files(str(SAMPLES / FILES["openwebui"]))
    page.get_by_role("button", name="Import").click()
    page.get_by_text("Importing into alpha…").wait_for()
    check_scriptless_page(page)
    gate.set()
    job_id = str(page.url).split("job=")[1]
    jobs = world.app.state.memoryd.history_jobs
    deadline = time.monotonic() + 30
    while jobs.get(world.ids["alice"], job_id).state == "running":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    page.get_by_role("link", name="Refresh").click()
    page.get_by_text("Import complete").wait_for()
    assert "Open WebUI export: 2 conversations, 3 turns recorded" in page.inner_text("main")
