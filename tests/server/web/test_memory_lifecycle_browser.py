"""The memory lifecycle in the web UI, in headless Chromium at 1280 px and at 390 px.

Remember until (a date on add and edit, expired memories marked), the review queue
(an update shown side by side with the memory it would replace; edit, accept, reject)
and a memory's detail dialog (source, source chats, history), by mouse and by
keyboard, with an axe-core check of the panel and no console errors.
Set MEMORYD_SCREENSHOTS=docs/screenshots to refresh the docs' screenshots.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from support.lifecycle import expire_now, file_suggestion

from ..conftest import ADMIN_PASSWORD, USER_PASSWORD, LiveServer, World
from .test_browser import browser, sign_in  # noqa: F401  (the module's Chromium fixture)

pytestmark = pytest.mark.browser

Live = tuple[World, LiveServer]
WIDTHS = {"desktop": (1280, 860), "phone": (390, 844)}
# Issue 12 item 4 (owned by another change): the admin page's slug pattern is not a valid
# regular expression under the v flag, which Chromium reports on the console.
KNOWN_ELSEWHERE = ("Pattern attribute value",)


@pytest.fixture(params=sorted(WIDTHS))
def page(request: pytest.FixtureRequest, browser: Any) -> Iterator[Any]:  # noqa: F811
    width, height = WIDTHS[request.param]
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.width_name = request.param
    errors: list[str] = []
    page.on(
        "console",
        lambda m: (
            errors.append(m.text)
            if m.type == "error" and not any(k in m.text for k in KNOWN_ELSEWHERE)
            else None
        ),
    )
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.console_errors = errors
    yield page
    context.close()
    assert errors == [], errors


def shot(page: Any, name: str, tmp_path: Path) -> None:
    folder = Path(os.environ.get("MEMORYD_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}-{page.width_name}.png"))


def axe_violations(page: Any, selector: str) -> list[str]:
    axe = pytest.importorskip("axe_playwright_python.sync_playwright")
    results = axe.Axe().run(page, context=selector)
    return [f"{v['id']}: {v['help']}" for v in results.response["violations"]]


def later(days: int) -> str:
    return (datetime.now(UTC) + timedelta(days=days)).date().isoformat()


def open_memories(page: Any) -> Any:
    page.locator("#user-button").click()
    dialog = page.locator("#profile")
    dialog.get_by_role("tab", name="Memories").click()
    return dialog


def test_add_with_an_expiry_and_expired_memories_are_marked(
    live_world: Live, page: Any, tmp_path: Path
) -> None:
    world, live = live_world
    alice = world.ids["alice"]
    gone = world.md.add_memory(
        alice, "The Alpha demo is on Friday", workspace="alpha", expires_at=later(3)
    )
    expire_now(world.md, gone.id)
    sign_in(page, live, "alice", USER_PASSWORD)
    panel = open_memories(page)
    expired = panel.locator(".memory", has_text="The Alpha demo is on Friday")
    assert expired.get_by_text("Expired").is_visible()
    assert "line-through" in expired.locator(".memory-text").evaluate(
        "e => getComputedStyle(e).textDecorationLine"
    )
    # the expired one holds no slot
    assert panel.get_by_role("heading", name="Workspace alpha (0/20)").is_visible()

    day = later(10)
    panel.get_by_label("Add to Global").fill("Is in Lisbon for the conference")
    panel.locator("#add-until-me-scope-global").fill(day)
    panel.get_by_label("Add to Global").press("Enter")
    page.wait_for_selector("text=Memory added.")
    row = page.locator("#profile .memory", has_text="Is in Lisbon for the conference")
    assert row.get_by_text(f"Until {day}").is_visible()
    [made] = [m for m in world.md.list_memories(alice) if m.content.startswith("Is in Lisbon")]
    assert made.expires_at == datetime.fromisoformat(day).replace(tzinfo=UTC) + timedelta(days=1)
    shot(page, "memories-expiry", tmp_path)
    assert axe_violations(page, "#profile") == []

    # edit only the date: the text stays, the expiry moves
    row.get_by_text("Edit").click()
    row.get_by_label("Remember until").fill(later(20))
    row.get_by_role("button", name="Save").click()
    page.wait_for_selector("text=Memory saved.")
    moved = world.md.get_memory(alice, made.id)
    assert moved.content == made.content and moved.expires_at != made.expires_at
    # saving the text alone keeps the expiry exactly
    row = page.locator("#profile .memory", has_text="Is in Lisbon for the conference")
    row.get_by_text("Edit").click()
    row.get_by_label("Memory text").fill("Is in Lisbon for the PyCon conference")
    row.get_by_role("button", name="Save").click()
    page.wait_for_selector("text=Memory saved.")
    assert world.md.get_memory(alice, made.id).expires_at == moved.expires_at


def test_review_queue_side_by_side_accept_edited_and_reject(
    live_world: Live, page: Any, tmp_path: Path
) -> None:
    world, live = live_world
    alice = world.ids["alice"]
    porto = world.md.add_memory(alice, "Lives in Porto")
    file_suggestion(world.md, world.ids["alice"], "Moved to Lisbon in May", porto.id)
    file_suggestion(world.md, world.ids["alice"], "Plays chess on Sundays")
    sign_in(page, live, "alice", USER_PASSWORD)
    panel = open_memories(page)
    assert panel.get_by_role("heading", name="Suggestions to review (2)").is_visible()
    change = panel.locator(".suggestion[data-kind=update]")
    old = change.locator(".side-old")
    new = change.locator(".side-new")
    assert old.inner_text().endswith("Lives in Porto")
    assert new.inner_text().endswith("Moved to Lisbon in May")
    old_box, new_box = old.bounding_box(), new.bounding_box()
    assert new_box["x"] > old_box["x"] + old_box["width"] - 1  # side by side
    assert abs(new_box["y"] - old_box["y"]) < 2
    assert old_box["x"] >= 0 and new_box["x"] + new_box["width"] <= page.viewport_size["width"]
    shot(page, "review-queue", tmp_path)
    assert axe_violations(page, "#profile") == []

    # keyboard only: type the new wording, Tab past the date field to Accept, Enter
    change.get_by_label("Text to remember").focus()
    page.keyboard.press("Control+A")
    page.keyboard.type("Lives in Lisbon since May")
    for _ in range(5):  # the date field's parts are tab stops of their own
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.textContent") == "Accept":
            break
    assert page.evaluate("document.activeElement.textContent") == "Accept"
    page.keyboard.press("Enter")
    page.wait_for_selector("text=Suggestion accepted.")
    assert world.md.get_memory(alice, porto.id).content == "Lives in Lisbon since May"
    panel = page.locator("#profile")
    assert panel.get_by_role("heading", name="Suggestions to review (1)").is_visible()
    panel.get_by_role("button", name="Reject suggestion: Plays chess on Sundays").click()
    page.wait_for_selector("text=Suggestion rejected.")
    assert page.locator(".suggestions").count() == 0
    assert world.md.list_suggestions(alice) == []
    assert [m.content for m in world.md.list_memories(alice)] == ["Lives in Lisbon since May"]


def test_accepting_into_a_full_scope_says_why(live_world: Live, page: Any) -> None:
    world, live = live_world
    bob = world.ids["bob"]
    for n in range(5):
        world.md.add_memory(bob, f"Global fact {n}")
    file_suggestion(world.md, world.ids["bob"], "Plays chess on Sundays")
    sign_in(page, live, "bob", USER_PASSWORD)
    panel = open_memories(page)
    panel.locator(".suggestion").get_by_role("button", name="Accept").click()
    page.wait_for_selector("text=global is full (5 memories); delete one first")
    assert len(world.md.list_suggestions(bob)) == 1


def test_memory_detail_by_keyboard(live_world: Live, page: Any, tmp_path: Path) -> None:
    world, live = live_world
    alice = world.ids["alice"]
    chat = world.md.record_chat(alice, "alpha", "I play the cello in an orchestra.", "Nice!")
    memory = world.md.add_memory(alice, "Plays the cello", source_chat_ids=[chat.id])
    world.md.edit_memory(alice, memory.id, "Plays the cello in an orchestra", expires_at=later(30))
    sign_in(page, live, "alice", USER_PASSWORD)
    open_memories(page)
    button = page.get_by_role("button", name="Details of memory: Plays the cello in an orchestra")
    button.focus()
    page.keyboard.press("Enter")
    detail = page.locator("#memory-detail")
    detail.get_by_text("History").wait_for()
    assert detail.locator(".detail-text").inner_text() == "Plays the cello in an orchestra"
    assert detail.get_by_text(f"Added by the user (user:{alice})").is_visible()
    assert detail.get_by_text("I play the cello in an orchestra.").is_visible()
    assert detail.locator(".detail-history tbody tr").count() == 2
    assert detail.get_by_text("Not available on this server.").is_visible()  # H2's list
    box = detail.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= page.viewport_size["width"]
    shot(page, "memory-detail", tmp_path)
    assert axe_violations(page, "#memory-detail") == []
    page.keyboard.press("Escape")
    assert not detail.is_visible()
    assert page.evaluate("document.activeElement.dataset.detail") == (
        f"/api/v1/memories/{memory.id}"
    )


def test_admin_sets_review_and_reads_a_users_memory_detail(live_world: Live, page: Any) -> None:
    world, live = live_world
    bob = world.ids["bob"]
    memory = world.md.add_memory(bob, "Bob prefers dark roast coffee")
    file_suggestion(world.md, world.ids["bob"], "Bob drinks oat milk")
    sign_in(page, live, "admin", ADMIN_PASSWORD)
    page.goto(f"{live.url}/admin?user={bob}")
    page.get_by_label("Ask users before extraction changes memories").select_option("updates")
    page.get_by_label("Days an expired memory is kept before it is deleted").fill("7")
    page.get_by_role("button", name="Save settings").click()
    page.wait_for_selector("text=Settings saved.")
    settings = world.md.get_settings()
    assert (settings["memory_review"], settings["expired_grace_days"]) == ("updates", 7)
    section = page.locator("section", has=page.get_by_role("heading", name="A user's memories"))
    assert section.locator(".suggestion .memory-text").inner_text() == "Bob drinks oat milk"
    section.get_by_role("button", name="Details of memory: Bob prefers dark roast coffee").click()
    detail = page.locator("#memory-detail")
    detail.get_by_text("History").wait_for()
    assert detail.locator(".detail-text").inner_text() == memory.content
    page.keyboard.press("Escape")
    section.get_by_role("button", name="Reject suggestion: Bob drinks oat milk").click()
    page.wait_for_selector("text=Suggestion rejected.")
    assert world.md.list_suggestions(bob) == []
