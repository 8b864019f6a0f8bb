"""The Activity page in Chromium, at 1280 and 390 px: reached from the sidebar (behind
*Menu* on a phone), filtered with its form, paged with *Older*, an entry's memory opened
in the detail dialog; with JavaScript off (every step a link or a form the server
answers) and on (the dialog opens in place). Every state passes the page checks: nothing
scrolls sideways, even with a long unbroken word before and after an edit; no serious
accessibility violation. An admin reaches a user's activity from the Users tab. Turning
learning off on the account panel reads as an entry of its own.
"""

from __future__ import annotations

from typing import Any

import pytest

from memoryd.testing.live import LiveServer
from support.audit import STORY, Story, tell_story
from support.browser import check_page, check_scriptless_page, sign_in
from support.server import ADMIN_PASSWORD, USER_PASSWORD, World

pytestmark = pytest.mark.browser

Live = tuple[World, LiveServer]
# alice is no member of gamma: what she sees of STORY (9 entries)
SHOWN = [("create", "tea"), *STORY[1:3], *STORY[4:6], *STORY[8:]]
WORD = "Supercalifragilisticexpialidocious" * 8


def story_of(world: World) -> Story:
    ids = world.ids
    return tell_story(world.md, ids["alice"], ids["bob"], ids["admin"], kept="alpha", left="gamma")


def listed(page: Any) -> list[int]:
    return [int(i) for i in page.locator("[data-entry-id]").evaluate_all(
        "nodes => nodes.map(n => n.dataset.entryId)")]  # fmt: skip


def visible_log(world: World, story: Story) -> list[int]:
    """The ids of the entries alice may see, newest first."""
    entries = world.md.list_audit(story.alice, visible_in={"alpha", "beta"})
    return [e.id for e in entries]


def ends_with(tail: str) -> Any:
    """A URL test for ``wait_for_url`` (in a glob, ``?`` would match any character)."""
    return lambda url: url.endswith(tail)


def go_to_activity(page: Any) -> None:
    """Follow the sidebar's Activity link (on a phone, open the menu first: without
    JavaScript it is a link to the menu, which the stylesheet shows)."""
    menu = page.locator("#menu-button")
    if menu.is_visible():
        menu.click()
    page.get_by_role("link", name="Activity", exact=True).click()
    page.wait_for_url("**/activity")


def test_activity_without_javascript_filters_pages_and_opens_a_memory(
    live_world: Live, scriptless_page: Any
) -> None:
    world, live = live_world
    page = scriptless_page
    story = story_of(world)
    sign_in(page, live.url, "alice", USER_PASSWORD)
    go_to_activity(page)
    assert page.get_by_role("heading", name="Activity", level=1).is_visible()
    assert listed(page) == visible_log(world, story) and len(listed(page)) == len(SHOWN)
    assert page.get_by_text("The gamma launch is secret").count() == 0
    check_scriptless_page(page)

    # the filters: a plain GET form
    form = page.get_by_role("form", name="Filters")
    form.get_by_label("Workspace").select_option("alpha")
    form.get_by_label("Change").select_option("edited")
    form.get_by_role("button", name="Show").click()
    page.wait_for_url(ends_with("/activity?workspace=alpha&change=edited&by="))
    [entry] = page.locator(".activity-entry").all()
    assert entry.locator(".activity-what").inner_text() == "Edited"
    assert entry.locator(".side-old .side-text").inner_text() == "Phoenix ships in Q3"
    assert entry.locator(".side-new .side-text").inner_text() == "Phoenix ships in Q4"
    assert form.get_by_label("Change").input_value() == "edited"  # kept in the form
    check_scriptless_page(page)

    # its memory opens in the detail dialog the server renders; Close comes back here
    entry.get_by_role("link", name="Open memory: Phoenix ships in Q4").click()
    dialog = page.locator("#memory-detail")
    dialog.wait_for(state="visible")
    assert "Phoenix ships in Q4" in dialog.locator(".detail-text").inner_text()
    check_scriptless_page(page)
    dialog.get_by_role("link", name="Close memory details").click()
    page.wait_for_url(ends_with("/activity?workspace=alpha&change=edited&by="))
    assert not page.locator("#memory-detail").is_visible()
    page.get_by_role("link", name="Clear filters").click()
    page.wait_for_url("**/activity")

    # Older, a page of 4 at a time, to the end: every entry once, newest first
    page.goto(f"{live.url}/activity?limit=4")
    seen = listed(page)
    while page.get_by_role("link", name="Older").count():
        page.get_by_role("link", name="Older").click()
        page.wait_for_load_state("load")
        assert page.get_by_role("link", name="Newest", exact=True).is_visible()
        seen += listed(page)
    assert seen == visible_log(world, story)
    check_scriptless_page(page)
    page.get_by_role("link", name="Newest", exact=True).click()
    assert listed(page) == visible_log(world, story)[:4]


def test_activity_with_javascript_fits_and_opens_a_memory_in_place(
    live_world: Live, page: Any
) -> None:
    world, live = live_world
    alice = world.ids["alice"]
    memory = world.md.add_memory(alice, "One word: " + WORD, workspace="alpha")
    world.md.edit_memory(alice, memory.id, "Still one word: " + WORD[::-1])
    world.md.add_memory(alice, "Alice is vegetarian")
    sign_in(page, live.url, "alice", USER_PASSWORD)
    go_to_activity(page)
    edited = page.locator(".activity-entry[data-action=update]")
    assert edited.locator(".side-new .side-text").inner_text().startswith("Still one word: ")
    check_page(page)  # the long word wraps: nothing scrolls sideways
    page.evaluate("window.sameDocument = true")

    page.get_by_role("button", name="Open memory: Alice is vegetarian").click()  # acts in place
    dialog = page.get_by_role("dialog", name="Memory")
    dialog.get_by_role("heading", name="History").wait_for()
    assert dialog.locator(".detail-text").inner_text() == "Alice is vegetarian"
    assert page.evaluate("window.sameDocument === true")  # opened in place
    check_page(page)
    page.keyboard.press("Escape")
    assert not dialog.is_visible()

    form = page.get_by_role("form", name="Filters")
    form.get_by_label("By").select_option("user")
    form.get_by_role("button", name="Show").click()
    page.wait_for_url(ends_with("&by=user"))
    assert len(listed(page)) == 3
    check_page(page)


def test_an_admin_opens_a_users_activity_from_the_users_tab(live_world: Live, page: Any) -> None:
    world, live = live_world
    story = story_of(world)
    sign_in(page, live.url, "admin", ADMIN_PASSWORD)
    page.goto(f"{live.url}/admin?tab=users")
    card = page.locator(".entity[data-user-name='alice']")
    card.get_by_role("link", name="Activity of alice").click()
    page.wait_for_url(f"**/admin/users/{story.alice}/activity")
    assert page.get_by_role("heading", name="Activity of alice", level=1).is_visible()
    assert len(listed(page)) == len(STORY)  # the admin sees gamma's entries too
    assert page.get_by_text("The gamma launch is secret").is_visible()
    check_page(page)
    page.get_by_role("link", name="← Users").click()
    page.wait_for_url("**/admin?tab=users")


def test_the_detail_dialogs_history_reads_as_the_activity_page_and_links_to_it(
    live_world: Live, page: Any
) -> None:
    """With JavaScript the dialog is filled in place, its History table from the server
    (``.../activity/history/{id}``): the same words as the page, not ``update``/``user:3``."""
    world, live = live_world
    alice = world.ids["alice"]
    memory = world.md.add_memory(alice, "Phoenix ships in Q3", workspace="alpha")
    world.md.edit_memory(alice, memory.id, "Phoenix ships in Q4")
    world.md.delete_memory(alice, world.md.add_memory(alice, "Something else").id)
    sign_in(page, live.url, "alice", USER_PASSWORD)
    page.goto(f"{live.url}/activity")
    page.evaluate("window.sameDocument = true")
    page.get_by_role("button", name="Open memory: Phoenix ships in Q4").first.click()
    dialog = page.get_by_role("dialog", name="Memory")
    dialog.get_by_role("heading", name="History").wait_for()
    assert page.evaluate("window.sameDocument === true")  # filled in place, by the script
    rows = dialog.locator(".detail-history tbody tr")
    changes = rows.locator("td[data-label=Change]").all_inner_texts()
    assert changes == ["Created", "Edited"]
    assert rows.locator("td[data-label=By]").all_inner_texts() == ["you", "you"]
    assert rows.nth(1).locator("td[data-label=Text] p").all_inner_texts() == [
        "Before: Phoenix ships in Q3",
        "After: Phoenix ships in Q4",
    ]
    check_page(page)

    dialog.get_by_role("link", name="All changes to this memory").click()
    page.wait_for_url(ends_with(f"/activity?memory={memory.id}"))
    assert page.locator(".activity-entry").evaluate_all(
        "nodes => nodes.map(n => n.dataset.action)") == ["update", "create"]  # fmt: skip
    assert (
        page.locator("#activity-memory").inner_text().startswith("Only the changes to one memory")
    )
    check_page(page)


def test_turning_learning_off_shows_on_the_activity_page(live_world: Live, page: Any) -> None:
    """The account panel's switch, then the Activity page filtered to setting changes:
    the entry in words, fitting the screen (desktop and phone)."""
    world, live = live_world
    alice = world.ids["alice"]
    world.md.add_memory(alice, "Alice is vegetarian")
    sign_in(page, live.url, "alice", USER_PASSWORD)
    page.goto(f"{live.url}/?panel=account")
    panel = page.get_by_role("tabpanel", name="Account")
    panel.get_by_role("button", name="Don't learn from my chats").click()
    page.wait_for_selector("text=memoryd no longer learns from your chats")
    page.keyboard.press("Escape")
    go_to_activity(page)
    form = page.get_by_role("form", name="Filters")
    form.get_by_label("Change").select_option("settings")
    form.get_by_role("button", name="Show").click()
    page.wait_for_url(ends_with("&change=settings&by="))
    [entry] = page.locator(".activity-entry").all()
    assert entry.get_attribute("data-action") == "change_setting"
    assert entry.locator(".activity-what").inner_text() == "Turned off learning from chats"
    assert entry.locator(".activity-meta").inner_text().endswith("by you · Whole account")
    assert entry.locator(".activity-text").inner_text() == "Learning from chats: on → off"
    assert entry.get_by_role("link").count() == 0  # no memory to open
    check_page(page)
