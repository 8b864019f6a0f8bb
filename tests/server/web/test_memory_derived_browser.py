"""A memory's detail dialog shows its questions in words, in headless Chromium, with and
without JavaScript: "None" when the answer held none, "Not asked yet" before asking."""

from __future__ import annotations

from typing import Any

import pytest

from memoryd.testing.live import LiveServer
from support.browser import memory_menu, open_page, sign_in
from support.questions import give_questions
from support.server import USER_PASSWORD, World

pytestmark = pytest.mark.browser

Live = tuple[World, LiveServer]
QUESTIONS = {
    "Grows roses in the garden": (
        ["Do you garden?", "What do you grow?"],
        "Do you garden? / What do you grow?",
    ),
    "Watches films on Sundays": ([], "None"),
    "Prefers concise answers": (None, "Not asked yet"),
}


def test_the_detail_shows_the_derived_data_with_and_without_script(
    live_world: Live, browser: Any
) -> None:
    world, live = live_world
    alice = world.ids["alice"]
    for text, (questions, _) in QUESTIONS.items():
        memory = world.md.add_memory(alice, text)
        give_questions(world.md, memory.id, questions)
    for javascript in (True, False):
        with open_page(browser, "desktop", javascript=javascript) as (page, log):
            sign_in(page, live.url, "alice", USER_PASSWORD)
            for text, (_, expected) in QUESTIONS.items():
                page.locator("#user-button").click()
                page.locator("#profile").get_by_text(text).wait_for()
                row = memory_menu(page.locator("#profile"), text)
                row.get_by_text("Details and history").click()
                detail = page.locator("#memory-detail")
                detail.get_by_text("History").wait_for()
                assert detail.locator(".detail-text").inner_text() == text
                asked = detail.locator(".detail-facts dt:text-is('Questions it answers') + dd")
                assert asked.inner_text() == expected, (javascript, text)
                if javascript:
                    page.keyboard.press("Escape")  # the detail, then the profile
                    page.keyboard.press("Escape")
                else:
                    detail.get_by_role("link", name="Close memory details").click()
            assert log.unexpected() == []
