"""The web UI with JavaScript turned off, in headless Chromium at 1280 and 390 px: open the
profile, edit a memory (a refused edit keeps the text), read a memory's detail, delete
one (the server asks first), switch tabs, create an API key, open the menu on a phone and
use the admin panel's tabs and a user's memories; every state passes the page checks
(``check_scriptless_page``). Then with JavaScript on: the detail dialog says the same as
the server's, and addresses that open an edit form or a detail (``edit=``, ``detail=``)
open them in place.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from memoryd.testing.live import LiveServer
from support.browser import check_page, check_scriptless_page, memory_menu, open_page, sign_in
from support.server import ADMIN_PASSWORD, USER_PASSWORD, World

pytestmark = pytest.mark.browser

Live = tuple[World, LiveServer]


def later(days: int) -> str:
    return (datetime.now(UTC) + timedelta(days=days)).date().isoformat()


def open_profile(page: Any) -> Any:
    page.locator("#user-button").click()  # a link: the page comes back with the panel open
    page.wait_for_url("**panel=memories")
    profile = page.locator("#profile")
    assert profile.is_visible()
    return profile


def test_edit_a_memory_with_javascript_off(live_world: Live, scriptless_page: Any) -> None:
    world, live = live_world
    page = scriptless_page
    alice = world.ids["alice"]
    world.md.add_memory(alice, "Alice likes green tea")
    day = later(30)
    memory = world.md.add_memory(
        alice, "Alpha ships on Tuesdays", workspace="alpha", expires_at=day
    )
    sign_in(page, live.url, "alice", USER_PASSWORD)
    page.goto(f"{live.url}/chat/alpha")
    profile = open_profile(page)
    row = memory_menu(profile, "Alpha ships on Tuesdays")  # a <details>: opens without script
    assert not row.get_by_label("Memory text").is_visible()
    row.get_by_role("link", name="Edit").click()
    page.wait_for_url(f"**edit={memory.id}*")
    box = row.get_by_label("Memory text")
    assert box.is_visible() and box.input_value() == "Alpha ships on Tuesdays"
    assert row.get_by_label("Remember until").input_value() == day
    assert box.evaluate("e => e === document.activeElement")  # autofocus
    check_scriptless_page(page)

    # refused: the form comes back open with what was typed and why, beside the box
    box.fill("## Alpha ships on Wednesdays")
    row.get_by_label("Remember until").fill(later(60))
    row.get_by_role("button", name="Save").click()
    error = row.locator(".field-error")
    error.wait_for()
    assert "must not start with Markdown" in error.inner_text()
    box = row.get_by_label("Memory text")
    assert box.input_value() == "## Alpha ships on Wednesdays"
    assert row.get_by_label("Remember until").input_value() == later(60)
    assert profile.locator(".flash-error").is_visible()  # in the panel, not behind it
    check_scriptless_page(page)
    assert world.md.get_memory(alice, memory.id).content == "Alpha ships on Tuesdays"

    box.fill("Alpha ships on Wednesdays")
    row.get_by_role("button", name="Save").click()
    profile.locator(".flash-ok", has_text="Memory saved.").wait_for()
    saved = world.md.get_memory(alice, memory.id)
    assert saved.content == "Alpha ships on Wednesdays"
    assert saved.expires_at is not None and saved.expires_at.date().isoformat() == later(61)
    assert not row.get_by_label("Memory text").is_visible()  # back to the list

    # Cancel is a link back to the list: nothing saved, the form closed
    row = memory_menu(profile, "Alpha ships on Wednesdays")
    row.get_by_role("link", name="Edit").click()
    row.get_by_label("Memory text").fill("Not to be saved")
    row.get_by_role("link", name="Cancel").click()
    page.wait_for_url(f"**#me-memory-{memory.id}")
    assert "edit=" not in page.url
    assert not row.get_by_label("Memory text").is_visible()
    assert world.md.get_memory(alice, memory.id).content == "Alpha ships on Wednesdays"


def test_memory_detail_with_javascript_off(live_world: Live, scriptless_page: Any) -> None:
    world, live = live_world
    page = scriptless_page
    alice = world.ids["alice"]
    chat = world.md.record_chat(alice, "alpha", "I play the cello in an orchestra.", "Nice!")
    memory = world.md.add_memory(alice, "Plays the cello", source_chat_ids=[chat.id])
    world.md.record_chat(alice, "alpha", "Which hall?", "The Gulbenkian.", memory_ids=[memory.id])
    sign_in(page, live.url, "alice", USER_PASSWORD)
    profile = open_profile(page)
    memory_menu(profile, "Plays the cello").get_by_role("link", name="Details and history").click()
    detail = page.locator("#memory-detail")
    detail.wait_for()
    assert detail.locator(".detail-text").inner_text() == "Plays the cello"
    assert detail.get_by_text("Added by hand", exact=True).is_visible()
    assert detail.get_by_text("I play the cello in an orchestra.").is_visible()
    assert "Which hall?" in detail.locator(".detail-section", has_text="Used in chats").inner_text()
    assert detail.locator(".detail-history tbody tr").count() == 1
    box = detail.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= page.viewport_size["width"] + 0.5
    check_scriptless_page(page)
    detail.get_by_role("link", name="Close memory details").click()
    page.wait_for_url(f"**#me-memory-{memory.id}")
    assert not detail.is_visible() and profile.is_visible()


def test_delete_asks_on_a_page_with_javascript_off(live_world: Live, scriptless_page: Any) -> None:
    world, live = live_world
    page = scriptless_page
    alice = world.ids["alice"]
    memory = world.md.add_memory(alice, "Alpha deploys with Ansible", workspace="alpha")
    sign_in(page, live.url, "alice", USER_PASSWORD)
    page.goto(f"{live.url}/chat/alpha")
    profile = open_profile(page)
    memory_menu(profile, "Alpha deploys with Ansible").get_by_role("button", name="Delete").click()
    question = page.locator("#confirm-page-question")
    assert question.inner_text() == "Delete this memory? “Alpha deploys with Ansible”"
    cancel = page.get_by_role("link", name="Cancel")
    assert cancel.evaluate("e => e === document.activeElement")
    check_scriptless_page(page)
    cancel.click()
    page.wait_for_url("**/chat/alpha?panel=memories")
    assert world.md.get_memory(alice, memory.id).content == "Alpha deploys with Ansible"
    memory_menu(page.locator("#profile"), "Alpha deploys with Ansible").get_by_role(
        "button", name="Delete"
    ).click()
    page.get_by_role("button", name="Delete", exact=True).click()
    page.locator("#profile .flash-ok", has_text="Memory deleted.").wait_for()
    assert memory.id not in {m.id for m in world.md.list_memories(alice)}


def test_tabs_keys_menu_and_chat_with_javascript_off(
    live_world: Live, scriptless_page: Any
) -> None:
    _, live = live_world
    page = scriptless_page
    sign_in(page, live.url, "alice", USER_PASSWORD)
    page.goto(f"{live.url}/chat/alpha")
    notice = page.locator("#chat-needs-script")
    assert notice.is_visible() and "JavaScript" in notice.inner_text()
    assert page.get_by_role("button", name="Send").is_disabled()
    # the menu on a phone: a link to the links, which then show
    beta = page.get_by_role("link", name="Beta")
    if page.viewport_size["width"] <= 760:
        assert not beta.is_visible()
        page.get_by_role("link", name="Menu").click()
    assert beta.is_visible()
    check_scriptless_page(page)
    profile = open_profile(page)
    profile.get_by_role("tab", name="API keys").click()
    page.wait_for_url("**panel=keys")
    keys = page.get_by_role("tabpanel", name="API keys")
    assert keys.is_visible() and not page.get_by_role("tabpanel", name="Memories").is_visible()
    keys.get_by_label("Key name").fill("no-script laptop")
    keys.get_by_role("button", name="Create key").click()
    assert page.locator("#profile .secret").inner_text().startswith("mdk_")
    check_scriptless_page(page)
    page.get_by_role("tab", name="Account").click()
    page.wait_for_url("**panel=account")
    assert page.get_by_role("button", name="Change password").is_visible()
    page.get_by_role("link", name="Close profile").click()
    page.wait_for_url(lambda url: "panel=" not in url)
    assert not page.locator("#profile").is_visible()


def test_admin_panel_with_javascript_off(live_world: Live, scriptless_page: Any) -> None:
    world, live = live_world
    page = scriptless_page
    bob = world.ids["bob"]
    memory = world.md.add_memory(bob, "Bob prefers dark roast", workspace="alpha")
    sign_in(page, live.url, "admin", ADMIN_PASSWORD)
    page.goto(f"{live.url}/admin")
    page.get_by_role("tab", name="Workspaces").click()
    page.wait_for_url("**tab=workspaces*")
    assert page.get_by_role("tabpanel", name="Workspaces").is_visible()
    assert not page.get_by_role("tabpanel", name="Users").is_visible()
    page.get_by_role("tab", name="Memories").click()
    page.get_by_label("User", exact=True).select_option(label="bob (default)")
    page.get_by_role("button", name="Show memories").click()
    section = page.get_by_role("tabpanel", name="Memories")
    row = memory_menu(section, "Bob prefers dark roast")
    row.get_by_role("link", name="Edit").click()
    page.wait_for_url(f"**user={bob}&edit={memory.id}*")
    box = row.get_by_label("Memory text")
    assert box.input_value() == "Bob prefers dark roast"
    check_scriptless_page(page)
    box.fill("Bob prefers light roast")
    row.get_by_role("button", name="Save").click()
    page.locator(".flash-ok", has_text="Memory saved.").wait_for()
    assert world.md.get_memory(bob, memory.id).content == "Bob prefers light roast"
    assert world.md.audit_log(bob, memory.id)[-1].actor == f"admin:{world.ids['admin']}"
    memory_menu(section, "Bob prefers light roast").get_by_role(
        "link", name="Details and history"
    ).click()
    detail = page.locator("#memory-detail")
    detail.wait_for()
    assert "Bob prefers dark roast" in detail.locator(".detail-history").inner_text()
    check_scriptless_page(page)
    detail.get_by_role("link", name="Close memory details").click()
    page.wait_for_url(f"**/admin?tab=memories&user={bob}#admin-memory-{memory.id}")


# with JavaScript on ------------------------------------------------------------------------
def test_the_script_and_the_server_show_the_same_detail(live_world: Live, browser: Any) -> None:
    world, live = live_world
    alice = world.ids["alice"]
    chat = world.md.record_chat(alice, "alpha", "I moved to Lisbon " + "and more " * 40, "Ok")
    memory = world.md.add_memory(
        alice, "Lives in Lisbon", workspace="alpha", source_chat_ids=[chat.id]
    )
    world.md.edit_memory(alice, memory.id, "Lives in Lisbon since May", expires_at=later(90))
    world.md.promote(alice, memory.id)
    world.md.record_chat(alice, "beta", "Where do I live?", "Lisbon.", memory_ids=[memory.id])
    name = "Lives in Lisbon since May"
    shown = []
    for javascript in (True, False):
        with open_page(browser, "desktop", javascript=javascript) as (page, log):
            sign_in(page, live.url, "alice", USER_PASSWORD)
            page.locator("#user-button").click()
            page.locator("#profile").get_by_text(name).wait_for()
            memory_menu(page.locator("#profile"), name).get_by_text("Details and history").click()
            page.locator("#memory-detail").get_by_text("History").wait_for()
            page.locator("#memory-detail .detail-history tbody tr").nth(2).wait_for()
            shown.append(" ".join(page.locator("#detail-body").inner_text().split()))
            assert log.unexpected() == []
    assert shown[0] == shown[1]
    assert "Extraction" not in shown[0] and "Global" in shown[0] and "…" in shown[0]


def test_a_source_chat_in_a_workspace_left_shows_no_text(live_world: Live, browser: Any) -> None:
    """A global memory learned in beta, which alice has left: the detail names that chat
    as one she can't open, with the script and without, and never shows its text."""
    world, live = live_world
    alice = world.ids["alice"]
    said = world.md.record_chat(alice, "alpha", "I moved to Lisbon last spring", "Nice.")
    secret = world.md.record_chat(alice, "beta", "Beta's launch code is TANGO-19", "Noted.")
    gone = world.md.record_chat(alice, "alpha", "I live near the river", "Lovely.")
    world.md.add_memory(alice, "Lives in Lisbon", source_chat_ids=[said.id, secret.id, gone.id])
    world.md.delete_chat(alice, gone.id)
    world.auth.remove_member("beta", alice)
    shown = []
    for javascript in (True, False):
        with open_page(browser, "desktop", javascript=javascript) as (page, log):
            sign_in(page, live.url, "alice", USER_PASSWORD)
            page.locator("#user-button").click()
            row = memory_menu(page.locator("#profile"), "Lives in Lisbon")
            row.get_by_text("Details and history").click()
            detail = page.locator("#memory-detail")
            detail.get_by_text("History").wait_for()
            source = detail.locator(".detail-section", has_text="Came from these chats")
            assert source.get_by_text("I moved to Lisbon last spring").is_visible()
            assert source.get_by_text("A chat in a workspace you can't open").is_visible()
            assert source.get_by_text(f"Deleted chat (#{gone.id})").is_visible()
            assert "TANGO-19" not in page.content() and "beta ·" not in detail.inner_text()
            shown.append(" ".join(page.locator("#detail-body").inner_text().split()))
            assert log.unexpected() == []
    assert shown[0] == shown[1]


def test_addresses_that_open_a_form_or_detail_open_them_in_place(
    live_world: Live, desktop_page: Any
) -> None:
    world, live = live_world
    page = desktop_page
    alice = world.ids["alice"]
    memory = world.md.add_memory(alice, "Alice cycles to work", workspace="alpha")
    sign_in(page, live.url, "alice", USER_PASSWORD)
    page.goto(f"{live.url}/chat/alpha?panel=memories&edit={memory.id}")
    row = page.locator("#profile .memory", has_text="Alice cycles to work")
    box = row.get_by_label("Memory text")
    assert page.evaluate("document.getElementById('profile').matches(':modal')")
    assert box.input_value() == "Alice cycles to work"
    assert box.evaluate("e => e === document.activeElement")
    edit = row.locator(".edit-toggle")  # in the row's menu
    assert edit.get_attribute("aria-expanded") == "true"
    assert "edit=" not in page.url  # the script owns the state now: a reload opens nothing
    check_page(page)
    page.keyboard.press("Escape")  # closes the box, not the dialog
    assert not box.is_visible() and edit.get_attribute("aria-expanded") == "false"
    # a refused edit with the script: the same form comes back open with the text
    memory_menu(page.locator("#profile"), "Alice cycles to work")
    edit.click()
    box.fill("# Alice cycles to work")
    page.keyboard.press("Enter")
    row.locator(".field-error", has_text="Markdown").wait_for()
    page.wait_for_load_state("load")  # the script has run
    box = page.locator("#profile .memory", has_text="Alice cycles to work").get_by_label(
        "Memory text"
    )
    assert box.input_value() == "# Alice cycles to work"
    assert box.evaluate("e => e === document.activeElement")
    assert page.locator("#profile .flash-error").is_visible()
    assert world.md.get_memory(alice, memory.id).content == "Alice cycles to work"

    page.goto(f"{live.url}/chat/alpha?panel=memories&detail={memory.id}")
    detail = page.locator("#memory-detail")
    assert page.evaluate("document.getElementById('memory-detail').matches(':modal')")
    assert detail.locator(".detail-text").inner_text() == "Alice cycles to work"
    check_page(page)
    # (Escape: test_escape_closes_only_the_topmost_dialog)
    detail.get_by_role("button", name="Close memory details").click()
    assert not detail.is_visible() and page.locator("#profile").is_visible()
    # the focus goes back to the memory's menu, where Details is (on the dialog's close event)
    page.wait_for_function(
        "() => document.activeElement.getAttribute('aria-label')"
        " === 'Actions for memory: Alice cycles to work'"
    )


def test_a_french_users_detail_reads_the_same_with_the_script_and_without(
    live_world: Live, browser: Any
) -> None:
    """memoryd.js writes the detail with the page's translations of its words, as the
    server renders it without the script."""
    world, live = live_world
    alice = world.ids["alice"]
    world.md.set_language_preference(alice, "fr")
    said = world.md.record_chat(alice, "alpha", "I moved to Lisbon last spring", "Nice.")
    gone = world.md.record_chat(alice, "alpha", "I live near the river", "Lovely.")
    world.md.add_memory(alice, "Lives in Lisbon", source_chat_ids=[said.id, gone.id])
    world.md.delete_chat(alice, gone.id)
    shown = []
    for javascript in (True, False):
        with open_page(browser, "desktop", javascript=javascript) as (page, log):
            sign_in(page, live.url, "alice", USER_PASSWORD)
            page.locator("#user-button").click()
            row = memory_menu(page.locator("#profile"), "Lives in Lisbon")
            row.get_by_text("Détails et historique").click()
            detail = page.locator("#memory-detail")
            detail.get_by_text("Historique", exact=True).wait_for()
            shown.append(" ".join(page.locator("#detail-body").inner_text().split()))
            assert log.unexpected() == []
    assert shown[0] == shown[1]
    for french in ("Issu de ces conversations", f"Conversation supprimée (n° {gone.id})", "jamais"):
        assert french in shown[0], french
