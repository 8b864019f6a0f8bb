"""Deleting chat history from the chat page in headless Chromium, at 1280 px and 390 px:
one exchange, then the whole workspace's history, each after the confirmation dialog
(Cancel keeps everything); and the same without JavaScript, where the server asks on
a page of its own.
Each state with scripts is checked for sideways scrolling and axe-core violations; the
``page`` fixture fails a test on any console error."""

from __future__ import annotations

from typing import Any

import pytest

from memoryd.testing import FakeOpenAIServer, Reply
from memoryd.testing.live import LiveServer
from support.browser import check_page, check_scriptless_page, confirm, memory_menu, sign_in
from support.server import USER_PASSWORD, World

pytestmark = pytest.mark.browser

Live = tuple[World, LiveServer]
PROMPTS = ["Where do the logs go?", "My bank PIN is 4321", "Which database do we use?"]


def seed(world: World) -> list[int]:
    """Three exchanges of Alice's in alpha, one of Bob's there; returns Alice's ids."""
    alice = world.ids["alice"]
    ids = [world.md.record_chat(alice, "alpha", p, f"Answer {n}").id for n, p in enumerate(PROMPTS)]
    world.md.record_chat(world.ids["bob"], "alpha", "Bob's own question", "Bob's answer")
    return ids


def shown_prompts(page: Any) -> list[str]:
    return [str(t) for t in page.locator(".message.user .message-text").all_inner_texts()]


def stored_prompts(world: World, who: str = "alice") -> list[str]:
    return [c.prompt for c in world.md.list_chats(world.ids[who])]


def test_delete_one_exchange_then_clear_the_history(live_world: Live, page: Any) -> None:
    world, live = live_world
    seed(world)
    sign_in(page, live.url, "alice", USER_PASSWORD)
    page.goto(f"{live.url}/chat/alpha")
    assert shown_prompts(page) == PROMPTS
    check_page(page)

    delete = page.get_by_role("button", name="Delete this exchange: My bank PIN is 4321")
    delete.click()
    assert "My bank PIN is 4321" in confirm(page)  # Cancel: nothing happens
    assert shown_prompts(page) == PROMPTS and len(stored_prompts(world)) == 3
    delete.focus()
    page.keyboard.press("Enter")
    question = confirm(page, "Delete")
    assert (
        question.startswith("Delete this exchange?") and "memories it already learned" in question
    )
    page.wait_for_selector("text=Exchange deleted.")
    assert shown_prompts(page) == [PROMPTS[0], PROMPTS[2]]
    assert stored_prompts(world) == [PROMPTS[0], PROMPTS[2]]
    check_page(page)

    page.get_by_role("button", name="Clear history").click()
    dialog = page.get_by_role("alertdialog")
    dialog.wait_for(state="visible")
    check_page(page)  # the open dialog passes too
    assert confirm(page, "Delete all") == (
        "Delete all 2 of your exchanges in Alpha? Their text is erased and memoryd will not"
        " learn from them; memories it already learned stay."
    )
    page.wait_for_selector("text=Deleted 2 exchanges from this history.")
    assert shown_prompts(page) == [] and stored_prompts(world) == []
    assert page.get_by_role("button", name="Clear history").count() == 0
    assert stored_prompts(world, "bob") == ["Bob's own question"]
    check_page(page)


def test_a_new_answer_has_its_controls_at_once(
    live_world: Live, page: Any, fake_llm: FakeOpenAIServer
) -> None:
    """A streamed answer gets the same Delete as the exchanges the page came with, and
    the page its Clear history, without a reload."""
    world, live = live_world
    fake_llm.responder = lambda body: Reply.text("Under /var/log/memoryd.")
    sign_in(page, live.url, "alice", USER_PASSWORD)
    page.goto(f"{live.url}/chat/alpha")
    assert page.get_by_role("button", name="Clear history").count() == 0
    page.get_by_label("Message").fill("Where do the logs go?")
    page.keyboard.press("Enter")
    delete = page.get_by_role("button", name="Delete this exchange: Where do the logs go?")
    delete.wait_for()  # once the exchange is recorded
    assert stored_prompts(world) == ["Where do the logs go?"]
    assert page.get_by_role("button", name="Clear history").is_visible()
    check_page(page)
    delete.click()
    question = confirm(page, "Delete")
    assert question.startswith("Delete this exchange? \u201cWhere do the logs go?\u201d")
    page.wait_for_selector("text=Exchange deleted.")
    assert stored_prompts(world) == [] and shown_prompts(page) == []

    # two answers in a row, then Clear history counts both
    for prompt in PROMPTS[:2]:
        page.get_by_label("Message").fill(prompt)
        page.keyboard.press("Enter")
        page.get_by_role("button", name=f"Delete this exchange: {prompt}").wait_for()
    page.get_by_role("button", name="Clear history").click()
    assert confirm(page, "Delete all").startswith("Delete all 2 of your exchanges in Alpha?")
    page.wait_for_selector("text=Deleted 2 exchanges from this history.")
    assert stored_prompts(world) == []


def test_without_javascript_the_server_asks_before_deleting(
    live_world: Live, scriptless_page: Any
) -> None:
    world, live = live_world
    seed(world)
    page = scriptless_page
    sign_in(page, live.url, "alice", USER_PASSWORD)
    page.goto(f"{live.url}/chat/alpha")

    page.get_by_role("button", name="Delete this exchange: Where do the logs go?").click()
    question = page.locator("#confirm-page-question")
    assert question.inner_text().startswith("Delete this exchange? \u201cWhere do the logs go?")
    assert len(stored_prompts(world)) == 3  # only asked so far
    check_scriptless_page(page)
    page.get_by_role("link", name="Cancel").click()
    page.wait_for_url(f"{live.url}/chat/alpha")
    assert len(stored_prompts(world)) == 3

    page.get_by_role("button", name="Delete this exchange: Where do the logs go?").click()
    page.get_by_role("button", name="Delete", exact=True).click()
    page.wait_for_selector("text=Exchange deleted.")
    assert stored_prompts(world) == PROMPTS[1:]

    page.get_by_role("button", name="Clear history").click()
    assert (
        page.locator("#confirm-page-question")
        .inner_text()
        .startswith("Delete all 2 of your exchanges in Alpha?")
    )
    page.get_by_role("button", name="Delete all").click()
    page.wait_for_selector("text=Deleted 2 exchanges from this history.")
    assert stored_prompts(world) == [] and shown_prompts(page) == []
    assert stored_prompts(world, "bob") == ["Bob's own question"]


def test_a_memory_learned_from_a_deleted_exchange_says_so(live_world: Live, page: Any) -> None:
    world, live = live_world
    alice = world.ids["alice"]
    said, kept = seed(world)[1:]
    world.md.add_memory(alice, "Keeps a PIN for the bank", source_chat_ids=[said, kept])
    sign_in(page, live.url, "alice", USER_PASSWORD)
    page.goto(f"{live.url}/chat/alpha")
    page.get_by_role("button", name="Delete this exchange: My bank PIN is 4321").click()
    confirm(page, "Delete")
    page.wait_for_selector("text=Exchange deleted.")

    page.locator("#user-button").click()
    page.locator("#profile").get_by_role("tab", name="Memories").click()
    row = memory_menu(page.locator("#profile"), "Keeps a PIN for the bank")
    row.get_by_role("button", name="Details and history").click()
    detail = page.locator("#memory-detail")
    detail.get_by_text("History").wait_for()
    source = detail.locator(".detail-section", has_text="Came from these chats")
    assert source.get_by_text(f"Deleted chat (#{said})").is_visible()
    assert "Which database do we use?" in source.inner_text()
    assert "4321" not in detail.inner_text()
    check_page(page)
