"""The web UI in headless Chromium (Debian's /usr/bin/chromium driven by Playwright).

Walks what a person does: find their memories behind their name at the bottom left and
delete one from its row's menu (R8), an admin deleting another user's memory, settings
toggles changing the next chat turn, and a chat answer that used an injected memory.
Each runs at 1280 and 390 px (the ``page`` fixture). The README's screenshots are made
by ``scripts/screenshots.py``.
"""

from __future__ import annotations

from typing import Any

import pytest

from memoryd.domain.injection import SECTION_HEADING
from memoryd.testing import FakeOpenAIServer, Reply
from memoryd.testing.live import LiveServer
from support.browser import check_page, confirm, memory_menu, open_menu
from support.browser import sign_in as browser_sign_in
from support.server import ADMIN_PASSWORD, USER_PASSWORD, World

pytestmark = pytest.mark.browser

Live = tuple[World, LiveServer]


def sign_in(page: Any, live: LiveServer, name: str, password: str) -> None:
    browser_sign_in(page, live.url, name, password)


def test_user_deletes_a_memory_from_the_profile_panel(live_world: Live, page: Any) -> None:
    world, live = live_world
    alice = world.ids["alice"]
    world.md.add_memory(alice, "Alice likes green tea")
    world.md.add_memory(alice, "Alice works at Acme as a data engineer")
    doomed = world.md.add_memory(alice, "Alpha deploys with Ansible", workspace="alpha")
    world.md.add_memory(alice, "Alpha's database is PostgreSQL 16", workspace="alpha")
    world.md.add_memory(alice, "Beta is a mobile app in Kotlin", workspace="beta")
    page.goto(f"{live.url}/")
    sign_in(page, live, "alice", USER_PASSWORD)

    # 1. the avatar / user name at the bottom left opens the profile panel
    page.get_by_role("button", name="alice").click()
    dialog = page.get_by_role("dialog")
    assert dialog.is_visible()
    # 2. the Memories tab
    dialog.get_by_role("tab", name="Memories").click()
    # 3. both scopes, with how full they are
    assert dialog.get_by_role("heading", name="Global (2/5)").is_visible()
    assert dialog.get_by_role("heading", name="Alpha (2/20)").is_visible()
    assert dialog.get_by_role("heading", name="Beta (1/20)").is_visible()
    assert dialog.get_by_text("Alice likes green tea").is_visible()
    check_page(page)
    # 4. Delete in the memory's menu deletes (after the confirmation)
    row = memory_menu(dialog, "Alpha deploys with Ansible")
    check_page(page)  # the menu open fits the panel
    row.get_by_role("button", name="Delete").click()
    assert "Alpha deploys with Ansible" in confirm(page, "Delete")
    page.wait_for_selector("text=Memory deleted.")
    assert page.get_by_text("Alpha deploys with Ansible").count() == 0
    page.reload()
    page.wait_for_selector("#panel-memories")
    assert page.get_by_text("Alpha deploys with Ansible").count() == 0
    assert page.get_by_role("heading", name="Alpha (1/20)").is_visible()
    assert doomed.id not in {m.id for m in world.md.list_memories(alice)}


def test_add_edit_promote_demote_and_full_scope_message(live_world: Live, page: Any) -> None:
    world, live = live_world
    alice = world.ids["alice"]
    for i in range(4):
        world.md.add_memory(alice, f"Global fact {i}")
    sign_in(page, live, "alice", USER_PASSWORD)
    page.get_by_role("button", name="alice").click()
    page.get_by_label("Add to Alpha").fill("Alpha ships every Tuesday")
    page.get_by_label("Add to Alpha").press("Enter")
    page.wait_for_selector("text=Memory added.")
    row = memory_menu(page, "Alpha ships every Tuesday")
    row.get_by_role("button", name="Edit").click()
    row.get_by_label("Memory text").fill("Alpha ships every Wednesday")
    row.get_by_role("button", name="Save").click()
    page.wait_for_selector("text=Memory saved.")
    row = memory_menu(page, "Alpha ships every Wednesday")
    row.get_by_role("button", name="Make global").click()
    page.wait_for_selector("text=Memory moved to Global.")
    assert page.get_by_role("heading", name="Global (5/5)").is_visible()
    assert page.get_by_text("Global is full (5 memories)").is_visible()
    assert page.get_by_label("Add to Global").is_disabled()
    row = memory_menu(page, "Global fact 0")
    row.get_by_label("Move to").select_option("beta")
    row.get_by_role("button", name="Move", exact=True).click()
    page.wait_for_selector("text=Memory moved to Beta.")
    contents = {(m.scope.value, m.workspace, m.content) for m in world.md.list_memories(alice)}
    assert ("global", None, "Alpha ships every Wednesday") in contents
    assert ("workspace", "beta", "Global fact 0") in contents


def test_keyboard_opens_the_panel_and_switches_tabs(live_world: Live, page: Any) -> None:
    _, live = live_world
    sign_in(page, live, "bob", USER_PASSWORD)
    page.locator("#user-button").focus()
    page.keyboard.press("Enter")
    assert page.get_by_role("dialog").is_visible()
    page.get_by_role("tab", name="Memories").focus()
    page.keyboard.press("ArrowRight")
    assert page.get_by_role("tab", name="API keys").get_attribute("aria-selected") == "true"
    assert page.get_by_role("tabpanel", name="API keys").is_visible()
    page.keyboard.press("Escape")
    assert not page.get_by_role("dialog").is_visible()


def test_admin_deletes_another_users_memory(live_world: Live, page: Any) -> None:
    world, live = live_world
    bob = world.ids["bob"]
    world.md.add_memory(bob, "Bob prefers dark roast coffee")
    target = world.md.add_memory(bob, "Bob's alpha password hint is obsolete", workspace="alpha")
    world.md.record_chat(bob, "alpha", "hello", "hi")
    sign_in(page, live, "admin", ADMIN_PASSWORD)
    open_menu(page)
    page.get_by_role("link", name="Admin panel").click()
    page.get_by_role("tab", name="Memories").click()
    page.get_by_label("User", exact=True).select_option(label="bob (default)")
    page.get_by_role("button", name="Show memories").click()
    section = page.get_by_role("tabpanel", name="Memories")
    # "Show memories" loads a new page: wait for it (is_visible() would not, and failed once)
    section.get_by_text("Bob prefers dark roast coffee").wait_for(state="visible")
    check_page(page)
    memory_menu(section, "Bob's alpha password hint is obsolete").get_by_role(
        "button", name="Delete"
    ).click()
    confirm(page, "Delete")
    page.wait_for_selector("text=Memory deleted.")
    page.reload()
    assert page.get_by_text("Bob's alpha password hint is obsolete").count() == 0
    assert target.id not in {m.id for m in world.md.list_memories(bob)}
    assert world.md.audit_log(bob, target.id)[-1].actor == f"admin:{world.ids['admin']}"


def test_settings_toggles_change_the_next_chat_turn(
    live_world: Live, page: Any, fake_llm: FakeOpenAIServer
) -> None:
    world, live = live_world
    world.md.add_memory(world.ids["admin"], "The admin's name is Ada")
    fake_llm.responder = lambda body: Reply.text("ok")
    sign_in(page, live, "admin", ADMIN_PASSWORD)

    def chat_turn(text: str) -> str:
        page.goto(f"{live.url}/chat/alpha")
        page.get_by_label("Message").fill(text)
        page.get_by_role("button", name="Send").click()
        page.locator(".message.assistant").last.locator(".used").wait_for()  # it ended
        return str(fake_llm.requests[-1]["messages"][0].get("content", ""))

    assert SECTION_HEADING in chat_turn("first")
    page.goto(f"{live.url}/admin?tab=settings")
    page.get_by_label("Memory enabled").uncheck()
    page.get_by_label("Automatic extraction").uncheck()
    page.get_by_role("button", name="Save settings").click()
    page.wait_for_selector("text=Settings saved.")
    settings = world.md.get_settings()
    assert (settings["memory_enabled"], settings["memory_auto_extraction"]) == (False, False)
    assert SECTION_HEADING not in chat_turn("second")
    page.goto(f"{live.url}/admin?tab=settings")
    page.get_by_label("Memory enabled").check()
    page.get_by_role("button", name="Save settings").click()
    page.wait_for_selector("text=Settings saved.")
    assert SECTION_HEADING in chat_turn("third")


def test_chat_answer_uses_an_injected_memory(
    live_world: Live, page: Any, fake_llm: FakeOpenAIServer
) -> None:
    world, live = live_world
    alice = world.ids["alice"]
    world.md.add_memory(alice, "Alice is allergic to peanuts")
    world.md.add_memory(alice, "Alpha's team meets on Mondays", workspace="alpha")

    def answer(body: dict[str, Any]) -> Reply:
        system = body["messages"][0]
        if system["role"] == "system" and "allergic to peanuts" in system["content"]:
            return Reply.text("Since you are allergic to peanuts, skip the satay sauce.")
        return Reply.text("Satay sauce would go well with it.")

    fake_llm.responder = answer
    sign_in(page, live, "alice", USER_PASSWORD)
    page.goto(f"{live.url}/chat/alpha")
    page.get_by_label("Message").fill("What sauce should I make for dinner?")
    page.keyboard.press("Enter")
    page.wait_for_selector("text=Answered with 2 memories")
    reply = page.locator(".message.assistant .message-text").last
    assert reply.inner_text() == "Since you are allergic to peanuts, skip the satay sauce."
    check_page(page)
    chats = world.md.list_chats(alice, "alpha")
    assert [(c.prompt, c.response) for c in chats] == [
        (
            "What sauce should I make for dinner?",
            "Since you are allergic to peanuts, skip the satay sauce.",
        )
    ]
    page.reload()
    assert page.locator(".message.assistant").last.inner_text().startswith("Since you are")
