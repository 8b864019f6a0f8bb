"""The admin panel in Chromium, at 1280 and 390 px: users (add, role, password, delete
with a confirmation), workspaces (create, members in and out, delete), an extraction
run's details, and the refusals an admin must see (the last admin, themselves).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from memoryd.extraction.runs import Run, finish_run, new_run_id, start_run
from memoryd.testing.live import LiveServer
from support.browser import check_page, confirm, open_menu, sign_in
from support.extraction import stored_run
from support.server import ADMIN_PASSWORD, World

pytestmark = pytest.mark.browser

Live = tuple[World, LiveServer]


def open_admin(page: Any, live: LiveServer, tab: str) -> Any:
    sign_in(page, live.url, "admin", ADMIN_PASSWORD)
    open_menu(page)
    page.get_by_role("link", name="Admin panel").click()
    page.get_by_role("tab", name=tab).click()
    panel = page.get_by_role("tabpanel", name=tab)
    panel.wait_for()
    return panel


def flash(page: Any, text: str) -> None:
    page.locator(".flash", has_text=text).wait_for()


def user_card(page: Any, name: str) -> Any:
    return page.locator(f".entity[data-user-name='{name}']")


def test_admin_adds_changes_and_deletes_a_user(live_world: Live, page: Any) -> None:
    world, live = live_world
    panel = open_admin(page, live, "Users")
    check_page(page)
    panel.get_by_label("User name").fill("dora")
    panel.get_by_label("Password", exact=True).fill("dora-password-1")
    panel.get_by_label("Workspace").select_option("gamma")
    panel.get_by_role("button", name="Add user").click()
    flash(page, "User dora added.")
    dora = world.md.get_user("dora")
    assert [u.name for u in world.auth.members("gamma")] == ["dora"]
    card = user_card(page, "dora")
    assert "Workspaces: gamma" in card.inner_text()
    # the tab survives the round trip through the server
    assert page.get_by_role("tab", name="Users").get_attribute("aria-selected") == "true"

    card.get_by_label("Role of dora").select_option("admin")
    card.get_by_role("button", name="Change role").click()
    flash(page, "dora is now an admin.")
    assert world.md.get_user(dora.id).role.value == "admin"

    card = user_card(page, "dora")
    card.get_by_text("Reset password").click()
    card.get_by_label("New password for dora").fill("brand-new-pass-9")
    card.get_by_role("button", name="Set password").click()
    flash(page, "New password set for dora")
    assert world.auth.authenticate("dora", "brand-new-pass-9") is not None
    assert world.auth.authenticate("dora", "dora-password-1") is None

    world.md.add_memory(dora.id, "Dora keeps bees")
    assert "Learning from chats: on" in card.inner_text()
    world.md.set_learning(dora.id, False)
    page.reload()
    card = user_card(page, "dora")
    assert "Memories: 1 global, 0 in workspaces" in card.inner_text()
    assert "Learning from chats: off" in card.inner_text()
    assert "Review: default" in card.inner_text()
    card.get_by_role("button", name="Delete dora").click()
    dialog = page.get_by_role("alertdialog")
    dialog.wait_for()
    box, width = dialog.bounding_box(), page.viewport_size["width"]
    assert box["x"] >= 0 and box["x"] + box["width"] <= width  # fits the screen
    check_page(page)
    question = confirm(page)  # Cancel first: nothing happens
    assert "dora" in question and "their 1 memory and all their chats" in question
    assert world.md.get_user(dora.id).name == "dora"
    user_card(page, "dora").get_by_role("button", name="Delete dora").click()
    confirm(page, "Delete user")
    flash(page, "User dora deleted")
    assert "dora" not in [u.name for u in world.md.list_users()]
    assert user_card(page, "dora").count() == 0


def test_the_last_admin_is_kept_and_nobody_deletes_themselves(live_world: Live, page: Any) -> None:
    world, live = live_world
    open_admin(page, live, "Users")
    card = user_card(page, "admin")
    assert card.get_by_role("button", name="Delete admin").count() == 0
    card.get_by_label("Role of admin").select_option("default")
    card.get_by_role("button", name="Change role").click()
    flash(page, "admin is the last admin; make another admin first")
    assert page.locator(".flash-error").is_visible()
    assert world.md.get_user(world.ids["admin"]).role.value == "admin"


def test_admin_manages_workspaces_and_members(live_world: Live, page: Any) -> None:
    world, live = live_world
    panel = open_admin(page, live, "Workspaces")
    check_page(page)
    slug = panel.get_by_label("Slug")
    slug.fill("Not A Slug")
    assert slug.evaluate("e => e.validity.patternMismatch") is True  # checked in the page
    slug.fill("delta")
    panel.get_by_label("Name").fill("Delta team")
    panel.get_by_role("button", name="Create workspace").click()
    flash(page, "Workspace delta created.")

    delta = page.locator(".entity[data-workspace='delta']")
    delta.get_by_label("Add to delta").select_option(label="bob")
    delta.get_by_role("button", name="Add member").click()
    flash(page, "bob is now a member of delta.")
    assert [u.name for u in world.auth.members("delta")] == ["bob"]

    page.get_by_role("button", name="Remove bob from alpha").click()
    flash(page, "bob is no longer a member of alpha.")
    assert "bob" not in [u.name for u in world.auth.members("alpha")]

    world.md.add_memory(world.ids["bob"], "Delta ships on Fridays", workspace="delta")
    page.locator(".entity[data-workspace='delta']").get_by_role(
        "button", name="Delete delta"
    ).click()
    assert "delta" in confirm(page, "Delete workspace")
    flash(page, "Workspace delta deleted")
    assert "delta" not in [w.slug for w in world.md.list_workspaces()]
    assert world.md.list_memories(world.ids["bob"]) == []


def test_slug_pattern_is_valid_under_the_v_flag(live_world: Live, desktop_page: Any) -> None:
    _, live = live_world
    panel = open_admin(desktop_page, live, "Workspaces")
    pattern = panel.get_by_label("Slug").get_attribute("pattern")
    # the browser checks `pattern` as a regular expression with the v flag
    assert desktop_page.evaluate("p => { new RegExp(p, 'v'); return true; }", pattern)


def add_run(world: World) -> Run:
    md = world.md
    run = Run(id=new_run_id(), trigger="manual", started_at=md.clock())
    start_run(md.db, run)
    run.pairs_seen = run.pairs_processed = 1
    run.memories_created, run.memories_suggested = 1, 2
    where = {"user_id": world.ids["alice"], "workspace": "alpha"}
    run.errors = [
        {"kind": "item", **where, "error": "dropped: the user never said this"},
        {"kind": "not_stored", **where, "error": "looks like a password"},
    ]
    run.facts_dropped = run.facts_not_stored = 1  # counted as a real run counts them
    run.llm_calls = 1
    return finish_run(md.db, run, md.clock())


def test_admin_opens_a_runs_details(live_world: Live, page: Any) -> None:
    world, live = live_world
    run = add_run(world)
    panel = open_admin(page, live, "Extraction")
    check_page(page)
    cells = panel.locator("tbody tr").first.locator("td")
    # status, suggested (waiting for review), dropped, not stored, failed, LLM calls
    shown = [cells.nth(i).inner_text() for i in (1, 6, 8, 9, 10, 11)]
    assert shown == ["ok", "2", "1", "1", "0", "1"]
    panel.get_by_role("link", name="details").click()
    page.wait_for_url(f"**/admin/runs/{run.id}")
    assert page.get_by_role("heading", name="alice in alpha").is_visible()
    items = page.locator(".run-errors li")
    assert items.nth(0).inner_text() == "Dropped: dropped: the user never said this"
    assert items.nth(1).inner_text() == "Not stored: looks like a password"
    check_page(page)
    page.get_by_role("link", name="Extraction runs").click()
    assert page.get_by_role("tab", name="Extraction").get_attribute("aria-selected") == "true"


def test_an_interrupted_run_says_so_in_the_list_and_on_its_page(
    live_world: Live, page: Any
) -> None:
    world, live = live_world
    started = world.md.clock() - timedelta(hours=2)  # its process died two hours ago
    run_id = stored_run(world.md, started, finished=False, last_beat=started)
    panel = open_admin(page, live, "Extraction")
    cells = panel.locator("tbody tr").first.locator("td")
    assert cells.nth(1).inner_text() == "interrupted"
    legend = panel.get_by_text("interrupted: the process running the run stopped")
    assert legend.is_visible()
    panel.get_by_role("link", name="details").click()
    page.wait_for_url(f"**/admin/runs/{run_id}")
    summary = page.get_by_role("region", name="Summary")
    assert "Interrupted: the process running it stopped before it finished" in (
        summary.inner_text()
    )
    assert f"{started:%Y-%m-%d %H:%M:%S} UTC" in summary.inner_text()  # last sign of life
    pairs = page.get_by_role("region", name="Per user and workspace")
    assert "Not recorded: a run writes what it did" in pairs.inner_text()
    check_page(page)


def test_keyboard_only_tabs_and_a_confirmed_deletion(live_world: Live, desktop_page: Any) -> None:
    world, live = live_world
    page = desktop_page
    open_admin(page, live, "Users")
    users_tab = page.get_by_role("tab", name="Users")
    users_tab.focus()
    page.keyboard.press("ArrowRight")
    assert page.get_by_role("tab", name="Workspaces").evaluate("e => e === document.activeElement")
    assert page.get_by_role("tabpanel", name="Workspaces").is_visible()
    assert "tab=workspaces" in page.url
    page.keyboard.press("End")
    assert page.get_by_role("tab", name="Settings").get_attribute("aria-selected") == "true"
    page.keyboard.press("ArrowRight")  # wraps around
    assert page.get_by_role("tab", name="Users").get_attribute("aria-selected") == "true"
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Home")
    assert page.get_by_role("tabpanel", name="Users").is_visible()
    assert not page.get_by_role("tabpanel", name="Settings").is_visible()

    delete = user_card(page, "bob").get_by_role("button", name="Delete bob")
    delete.focus()
    page.keyboard.press("Enter")
    dialog = page.get_by_role("alertdialog")
    dialog.wait_for()
    assert dialog.get_by_role("button", name="Cancel").evaluate("e => e === document.activeElement")
    page.keyboard.press("Escape")
    assert not dialog.is_visible()
    assert "bob" in [u.name for u in world.md.list_users()]
    delete.focus()
    page.keyboard.press("Enter")
    dialog.wait_for()
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    flash(page, "User bob deleted")
    assert "bob" not in [u.name for u in world.md.list_users()]
