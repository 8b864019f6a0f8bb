"""The memory lifecycle in the web UI, in headless Chromium at 1280 px and at 390 px.

Remember until (a date on add and edit, expired memories marked), the review queue
(one line each, an update showing the memory it would replace; edit, accept, reject)
and a memory's detail dialog (source, source chats, the chats it was used in, history),
by mouse and by keyboard, with main's page checks (no sideways scrolling, axe-core, no
console errors). scripts/screenshots.py takes the docs' pictures of the same views.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from memoryd.testing.live import LiveServer
from support.browser import axe_violations, check_page, memory_menu, open_menu, sign_in
from support.lifecycle import expire_now, file_suggestion
from support.server import ADMIN_PASSWORD, USER_PASSWORD, World

pytestmark = pytest.mark.browser

Live = tuple[World, LiveServer]


def later(days: int) -> str:
    return (datetime.now(UTC) + timedelta(days=days)).date().isoformat()


def open_memories(page: Any) -> Any:
    page.locator("#user-button").click()
    dialog = page.locator("#profile")
    dialog.get_by_role("tab", name="Memories").click()
    return dialog


def fits(page: Any, box: dict[str, float]) -> bool:
    return box["x"] >= 0 and box["x"] + box["width"] <= page.viewport_size["width"] + 0.5


def test_add_with_an_expiry_and_expired_memories_are_marked(live_world: Live, page: Any) -> None:
    world, live = live_world
    alice = world.ids["alice"]
    gone = world.md.add_memory(
        alice, "The Alpha demo is on Friday", workspace="alpha", expires_at=later(3)
    )
    expire_now(world.md, gone.id)
    sign_in(page, live.url, "alice", USER_PASSWORD)
    panel = open_memories(page)
    expired = panel.locator(".memory", has_text="The Alpha demo is on Friday")
    assert expired.get_by_text("Expired").is_visible()
    assert "line-through" in expired.locator(".memory-text").evaluate(
        "e => getComputedStyle(e).textDecorationLine"
    )
    # the expired one holds no slot
    assert panel.get_by_role("heading", name="Alpha (0/20)").is_visible()

    day = later(10)
    panel.get_by_label("Add to Global").fill("Is in Lisbon for the conference")
    panel.locator("#add-until-me-scope-global").fill(day)
    panel.get_by_label("Add to Global").press("Enter")
    page.wait_for_selector("text=Memory added.")
    row = page.locator("#profile .memory", has_text="Is in Lisbon for the conference")
    assert row.get_by_text(f"Until {day}").is_visible()
    [made] = [m for m in world.md.list_memories(alice) if m.content.startswith("Is in Lisbon")]
    assert made.expires_at == datetime.fromisoformat(day).replace(tzinfo=UTC) + timedelta(days=1)
    check_page(page)

    # edit only the date: the text stays, the expiry moves
    memory_menu(page.locator("#profile"), "Is in Lisbon").get_by_role("button", name="Edit").click()
    row.get_by_label("Remember until").fill(later(20))
    row.get_by_role("button", name="Save").click()
    page.wait_for_selector("text=Memory saved.")
    moved = world.md.get_memory(alice, made.id)
    assert moved.content == made.content and moved.expires_at != made.expires_at
    # saving the text alone keeps the expiry exactly
    row = memory_menu(page.locator("#profile"), "Is in Lisbon for the conference")
    row.get_by_role("button", name="Edit").click()
    row.get_by_label("Memory text").fill("Is in Lisbon for the PyCon conference")
    row.get_by_role("button", name="Save").click()
    page.wait_for_selector("text=Memory saved.")
    assert world.md.get_memory(alice, made.id).expires_at == moved.expires_at


def test_review_queue_one_line_each_accept_edited_and_reject(live_world: Live, page: Any) -> None:
    world, live = live_world
    alice = world.ids["alice"]
    porto = world.md.add_memory(alice, "Lives in Porto")
    file_suggestion(world.md, world.ids["alice"], "Moved to Lisbon in May", porto.id)
    file_suggestion(world.md, world.ids["alice"], "Plays chess on Sundays")
    sign_in(page, live.url, "alice", USER_PASSWORD)
    panel = open_memories(page)
    assert panel.get_by_role("heading", name="Suggestions to review (2)").is_visible()
    change = panel.locator(".suggestion[data-kind=update]")
    assert change.locator(".suggestion-line").inner_text() == (
        "Change Lives in Porto → Moved to Lisbon in May"
    )
    line = change.locator(".suggestion-line").bounding_box()
    assert fits(page, line)
    check_page(page)

    # keyboard only: open Edit, type the new wording, Shift+Tab back to Accept, Enter
    change.get_by_text("Edit", exact=True).click()
    box = change.get_by_label("Text to remember")
    assert fits(page, box.bounding_box())  # the text box fits a phone
    check_page(page)
    box.focus()
    page.keyboard.press("Control+A")
    page.keyboard.type("Lives in Lisbon since May")
    for _ in range(3):
        page.keyboard.press("Shift+Tab")
        if page.evaluate("document.activeElement.textContent") == "Accept":
            break
    assert page.evaluate("document.activeElement.textContent") == "Accept"
    page.keyboard.press("Enter")
    page.wait_for_selector("text=Suggestion accepted into Global.")
    assert world.md.get_memory(alice, porto.id).content == "Lives in Lisbon since May"
    panel = page.locator("#profile")
    assert panel.get_by_role("heading", name="Suggestions to review (1)").is_visible()
    panel.get_by_role("button", name="Reject: Plays chess on Sundays").click()
    page.wait_for_selector("text=Suggestion rejected.")
    assert page.locator(".suggestion").count() == 0
    assert page.locator("#profile .suggestions .empty-state").is_visible()
    assert world.md.list_suggestions(alice) == []
    assert [m.content for m in world.md.list_memories(alice)] == ["Lives in Lisbon since May"]


def test_a_full_scope_is_not_offered_and_says_why(live_world: Live, page: Any) -> None:
    world, live = live_world
    bob = world.ids["bob"]
    for n in range(5):
        world.md.add_memory(bob, f"Global fact {n}")
    file_suggestion(world.md, world.ids["bob"], "Plays chess on Sundays")
    sign_in(page, live.url, "bob", USER_PASSWORD)
    panel = open_memories(page)
    row = panel.locator(".suggestion")
    assert row.get_by_role("button", name="Accept").count() == 0
    assert row.get_by_text("Can't accept: Global is full").is_visible()
    assert len(world.md.list_suggestions(bob)) == 1


def test_memory_detail_by_keyboard(live_world: Live, page: Any) -> None:
    world, live = live_world
    alice = world.ids["alice"]
    chat = world.md.record_chat(alice, "alpha", "I play the cello in an orchestra.", "Nice!")
    memory = world.md.add_memory(alice, "Plays the cello", source_chat_ids=[chat.id])
    world.md.edit_memory(alice, memory.id, "Plays the cello in an orchestra", expires_at=later(30))
    world.md.record_chat(
        alice,
        "alpha",
        "Which concert hall suits a cellist?",
        "The Gulbenkian.",
        memory_ids=[memory.id],
    )
    sign_in(page, live.url, "alice", USER_PASSWORD)
    open_memories(page)
    menu = page.get_by_label("Actions for memory: Plays the cello in an orchestra")
    menu.focus()
    page.keyboard.press("Enter")  # opens the row's menu
    page.keyboard.press("Tab")  # Edit
    page.keyboard.press("Tab")  # Details and history
    assert page.evaluate("document.activeElement.textContent") == "Details and history"
    page.keyboard.press("Enter")
    detail = page.locator("#memory-detail")
    detail.get_by_text("History").wait_for()
    assert detail.locator(".detail-text").inner_text() == "Plays the cello in an orchestra"
    assert detail.get_by_text("Added by hand", exact=True).is_visible()
    assert detail.get_by_text("I play the cello in an orchestra.").is_visible()
    assert detail.locator(".detail-history tbody tr").count() == 2
    # the chats it was injected into (GET /api/v1/memories/{id}/chats)
    used = detail.locator(".detail-section", has_text="Used in chats")
    assert "Which concert hall suits a cellist?" in used.inner_text()
    assert fits(page, detail.bounding_box())
    assert axe_violations(page) == []
    page.keyboard.press("Escape")
    assert not detail.is_visible()
    # focus goes back on the dialog's "close" event, which the browser fires in a task of
    # its own after Escape: wait for it (a wait, not a timing assertion)
    label = "Actions for memory: Plays the cello in an orchestra"
    page.wait_for_function(
        f"() => document.activeElement?.getAttribute('aria-label') === {label!r}", timeout=5000
    )


def test_admin_sets_review_and_reads_a_users_memory_detail(live_world: Live, page: Any) -> None:
    world, live = live_world
    bob = world.ids["bob"]
    memory = world.md.add_memory(bob, "Bob prefers dark roast coffee")
    file_suggestion(world.md, world.ids["bob"], "Bob drinks oat milk")
    sign_in(page, live.url, "admin", ADMIN_PASSWORD)
    open_menu(page)
    page.get_by_role("link", name="Admin panel").click()
    page.get_by_role("tab", name="Settings").click()
    page.get_by_label("Ask users before extraction changes memories").select_option("updates")
    page.get_by_label("Days an expired memory is kept before it is deleted").fill("7")
    page.get_by_label("Days extraction runs are kept").fill("30")
    page.get_by_role("button", name="Save settings").click()
    page.wait_for_selector("text=Settings saved.")
    settings = world.md.get_settings()
    assert (settings["memory_review"], settings["expired_grace_days"]) == ("updates", 7)
    assert settings["run_retention_days"] == 30
    page.goto(f"{live.url}/admin?tab=memories&user={bob}")
    section = page.get_by_role("tabpanel", name="Memories")
    check_page(page)
    assert section.locator(".suggestion .memory-text").inner_text() == "Bob drinks oat milk"
    row = memory_menu(section, "Bob prefers dark roast coffee")
    row.get_by_role("button", name="Details and history").click()
    detail = page.locator("#memory-detail")
    detail.get_by_text("History").wait_for()
    assert detail.locator(".detail-text").inner_text() == memory.content
    page.keyboard.press("Escape")
    section.get_by_role("button", name="Reject: Bob drinks oat milk").click()
    page.wait_for_selector("text=Suggestion rejected.")
    assert world.md.list_suggestions(bob) == []


def test_escape_closes_only_the_topmost_dialog(live_world: Live, page: Any) -> None:
    """An address that opens the detail over the panel: each Escape closes one dialog,
    and the focus goes back to what opened it."""
    world, live = live_world
    memory = world.md.add_memory(world.ids["alice"], "Alice cycles to work", workspace="alpha")
    sign_in(page, live.url, "alice", USER_PASSWORD)
    page.goto(f"{live.url}/chat/alpha?panel=memories&detail={memory.id}")
    detail, profile = page.locator("#memory-detail"), page.locator("#profile")
    assert detail.is_visible() and profile.is_visible()
    page.keyboard.press("Escape")
    assert not detail.is_visible()
    assert profile.is_visible()
    page.wait_for_function(
        "() => document.activeElement.getAttribute('aria-label')"
        " === 'Actions for memory: Alice cycles to work'"
    )
    page.keyboard.press("Escape")
    assert not profile.is_visible()
    # a confirmation over the panel: Escape cancels it and leaves the panel open
    page.locator("#user-button").click()
    memory_menu(profile, "Alice cycles to work").get_by_role("button", name="Delete").click()
    page.get_by_role("alertdialog").wait_for()
    page.keyboard.press("Escape")
    assert not page.get_by_role("alertdialog").is_visible() and profile.is_visible()
    assert world.md.get_memory(world.ids["alice"], memory.id).content == "Alice cycles to work"
