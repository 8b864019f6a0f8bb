"""The chat page in headless Chromium, at 1280 px and 390 px: each answer lists the
memories it was given, the incognito box keeps a chat from being recorded, the account
panel's "don't learn from my chats" switch, and what the page says about where answers
come from. Driven by the keyboard where a person could; each page state is checked for
sideways scrolling and axe-core violations, and the ``page`` fixture fails a test on any
console error."""

from __future__ import annotations

import time
from typing import Any

import pytest

from memoryd.testing import FakeOpenAIServer, Reply
from memoryd.testing.live import LiveServer
from support.browser import check_page, sign_in
from support.server import USER_PASSWORD, World

pytestmark = pytest.mark.browser

Live = tuple[World, LiveServer]


def alice_with_memories(world: World) -> list[str]:
    alice = world.ids["alice"]
    return [
        world.md.add_memory(alice, "Alice is allergic to peanuts").id,
        world.md.add_memory(alice, "Alpha's team meets on Mondays", workspace="alpha").id,
    ]


def send_by_keyboard(page: Any, text: str) -> None:
    page.get_by_label("Message").focus()
    page.keyboard.type(text)
    page.keyboard.press("Enter")


def wait_recorded(world: World, prompt: str) -> list[str]:
    deadline = time.monotonic() + 10
    while True:
        prompts = [c.prompt for c in world.md.list_chats(world.ids["alice"])]
        if prompt in prompts:
            return prompts
        assert time.monotonic() < deadline, f"{prompt!r} was never recorded"
        time.sleep(0.05)


def test_each_answer_lists_the_memories_it_was_given(
    live_world: Live, page: Any, fake_llm: FakeOpenAIServer
) -> None:
    world, live = live_world
    peanuts, mondays = alice_with_memories(world)
    fake_llm.responder = lambda body: Reply.text("Skip the satay sauce.")
    sign_in(page, live.url, "alice", USER_PASSWORD)
    page.goto(f"{live.url}/chat/alpha")
    # a memory made after the page loaded is looked up when an answer uses it
    later = world.md.add_memory(world.ids["alice"], "Alice cooks on Sundays").id
    send_by_keyboard(page, "What sauce should I make?")
    page.wait_for_selector("text=Answered with 3 memories")
    answer = page.locator(".message.assistant").last
    used = answer.locator("details.used")
    assert used.locator(":scope > summary").inner_text() == "Answered with 3 memories"
    used.locator(":scope > summary").focus()
    page.keyboard.press("Enter")  # opens the list
    items = used.locator(".used-list > li")
    assert [i.inner_text().split(" Correct")[0] for i in items.all()] == [
        "Global Alice is allergic to peanuts",
        "Global Alice cooks on Sundays",
        "Alpha Alpha's team meets on Mondays",
    ]
    check_page(page)  # no sideways scrolling, no serious axe-core violation
    # the recorded chat keeps them, and the page shows them after a reload
    wait_recorded(world, "What sauce should I make?")
    page.reload()
    answer = page.locator(".message.assistant").last
    assert answer.locator(".used > summary").inner_text() == "Answered with 3 memories"
    assert [i.get_attribute("data-memory-id") for i in answer.locator(".used-list > li").all()] == [
        peanuts,
        later,
        mondays,
    ]
    # a memory deleted since stays on the chat as a tombstone
    world.md.delete_memory(world.ids["alice"], later)
    page.reload()
    answer = page.locator(".message.assistant").last
    answer.locator(".used > summary").click()
    assert answer.locator(".used-list > li").all_inner_texts()[1] == "A memory since deleted"


def test_incognito_chat_uses_memories_and_is_not_recorded(
    live_world: Live, page: Any, fake_llm: FakeOpenAIServer
) -> None:
    world, live = live_world
    alice_with_memories(world)
    fake_llm.responder = lambda body: Reply.text(
        "No peanuts then." if "allergic to peanuts" in body["messages"][0]["content"] else "?"
    )
    sign_in(page, live.url, "alice", USER_PASSWORD)
    page.goto(f"{live.url}/chat/alpha")
    box = page.get_by_role("checkbox", name="Incognito")
    box.focus()
    page.keyboard.press("Space")  # keyboard only
    assert box.is_checked()
    send_by_keyboard(page, "A secret question about dinner")
    page.wait_for_selector("text=Incognito: this chat was not recorded.")
    answer = page.locator(".message.assistant").last
    assert answer.locator(".message-text").inner_text() == "No peanuts then."
    assert answer.get_by_text("incognito: not recorded").is_visible()
    assert answer.locator(".used > summary").inner_text() == "Answered with 2 memories"
    check_page(page)
    # the next chat, with the box cleared, is recorded; the incognito one never was
    box.focus()
    page.keyboard.press("Space")
    send_by_keyboard(page, "An ordinary question")
    page.locator(".message.assistant").last.locator(".used").wait_for()
    assert wait_recorded(world, "An ordinary question") == ["An ordinary question"]
    page.reload()
    assert page.get_by_text("A secret question about dinner").count() == 0


def test_account_switch_stops_learning_from_my_chats(live_world: Live, page: Any) -> None:
    world, live = live_world
    alice = world.ids["alice"]
    world.md.record_chat(alice, "alpha", "I moved to Lisbon.", "Nice!")
    sign_in(page, live.url, "alice", USER_PASSWORD)
    page.goto(f"{live.url}/chat/alpha")
    page.get_by_role("button", name="alice").click()
    page.get_by_role("tab", name="Memories").focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    panel = page.get_by_role("tabpanel", name="Account")
    assert panel.get_by_text("On: memoryd learns new memories").is_visible()
    panel.get_by_role("button", name="Don't learn from my chats").click()
    page.wait_for_selector("text=memoryd no longer learns from your chats (1 waiting chat will")
    assert world.md.learns_from_chats(alice) is False
    assert world.md.list_chats(alice, processed=False) == []
    page.keyboard.press("Escape")
    assert page.locator("#learning-off").is_visible()
    check_page(page)
    page.get_by_role("button", name="alice").click()
    page.get_by_role("tab", name="Account").click()
    page.get_by_role("button", name="Learn from my chats again").click()
    page.wait_for_selector("text=memoryd learns from your chats again")
    assert world.md.learns_from_chats(alice) is True


def test_account_panel_sets_my_own_review_mode(live_world: Live, page: Any) -> None:
    world, live = live_world
    alice = world.ids["alice"]
    world.md.set_setting("memory_review", "updates")
    sign_in(page, live.url, "alice", USER_PASSWORD)
    page.goto(f"{live.url}/chat/alpha")
    page.get_by_role("button", name="alice").click()
    page.get_by_role("tab", name="Account").click()
    panel = page.get_by_role("tabpanel", name="Account")
    state = panel.locator("#review-state").inner_text()
    assert state.startswith("Now: ask me before changing a memory I have (the instance's setting)")
    choice = panel.get_by_label("Changes to my memories from my chats")
    assert choice.input_value() == "default"
    choice.select_option("everything")
    panel.get_by_role("button", name="Save review choice").click()
    page.wait_for_selector("text=Every new or changed memory now waits for your review.")
    assert world.md.review_preference(alice) == "everything"
    assert world.md.review_mode(world.ids["bob"]) == "updates"  # only Alice's choice
    check_page(page)
    panel = page.get_by_role("tabpanel", name="Account")  # it opens again after saving
    assert (
        panel.locator("#review-state")
        .inner_text()
        .startswith("Now: ask me before every new or changed memory.")
    )
    choice = panel.get_by_label("Changes to my memories from my chats")
    assert choice.input_value() == "everything"
    choice.select_option("default")
    panel.get_by_role("button", name="Save review choice").click()
    page.wait_for_selector("text=Extraction's changes follow the instance setting again.")
    assert world.md.review_preference(alice) is None


def test_the_page_says_truthfully_where_answers_come_from(live_world: Live, page: Any) -> None:
    _, live = live_world
    sign_in(page, live.url, "alice", USER_PASSWORD)
    page.goto(f"{live.url}/chat/alpha")
    said = page.locator("#chat-upstream").inner_text()
    assert said.startswith("No chat model is configured (an admin sets MEMORYD_PROXY_MODEL)")
    assert "OpenAI-compatible server at http://127.0.0.1:" in said
    assert "Answers come from default" not in page.content()
