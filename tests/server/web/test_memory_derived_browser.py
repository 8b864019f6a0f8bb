"""A memory's detail dialog shows its topics, pastime answer and questions in words, in headless
Chromium, with and without JavaScript (the script reads the labels the server put on the
dialog): a tagged memory's labels, "None" when tagging found no topic, "Not tagged yet"
before tagging; whether it is a pastime, "Yes", "No", "Not asked yet"; its questions,
"None" when the answer held none, "Not asked yet"."""

from __future__ import annotations

from typing import Any

import pytest

from memoryd.testing.live import LiveServer
from support.browser import open_page, sign_in
from support.server import USER_PASSWORD, World
from support.topics import give_questions, judge, tag

pytestmark = pytest.mark.browser

Live = tuple[World, LiveServer]
MEMORIES = {
    "Grows roses in the garden": (
        ["hobbies", "home"],
        "Hobbies and free time, Home and where they live",
    ),
    "Watches films on Sundays": ([], "None"),
    "Prefers concise answers": (None, "Not tagged yet"),
}
QUESTIONS = {
    "Grows roses in the garden": (
        ["Do you garden?", "What do you grow?"],
        "Do you garden? / What do you grow?",
    ),
    "Watches films on Sundays": ([], "None"),
    "Prefers concise answers": (None, "Not asked yet"),
}
PASTIMES = {
    "Grows roses in the garden": (True, "Yes"),
    "Watches films on Sundays": (False, "No"),
    "Prefers concise answers": (None, "Not asked yet"),
}


def test_the_detail_shows_the_derived_data_with_and_without_script(
    live_world: Live, browser: Any
) -> None:
    world, live = live_world
    alice = world.ids["alice"]
    for text, (topics, _) in MEMORIES.items():
        memory = world.md.add_memory(alice, text)
        tag(world.md, memory.id, topics)
        give_questions(world.md, memory.id, QUESTIONS[text][0])
        judge(world.md, memory.id, PASTIMES[text][0])
    for javascript in (True, False):
        with open_page(browser, "desktop", javascript=javascript) as (page, log):
            sign_in(page, live.url, "alice", USER_PASSWORD)
            for text, (_, expected) in MEMORIES.items():
                page.locator("#user-button").click()
                page.locator("#profile").get_by_text(text).wait_for()
                page.get_by_label(f"Details of memory: {text}").click()
                detail = page.locator("#memory-detail")
                detail.get_by_text("History").wait_for()
                assert detail.locator(".detail-text").inner_text() == text
                row = detail.locator(".detail-facts dt:text-is('Topics') + dd")
                assert row.inner_text() == expected, (javascript, text)
                asked = detail.locator(".detail-facts dt:text-is('Questions it answers') + dd")
                assert asked.inner_text() == QUESTIONS[text][1], (javascript, text)
                pastime = detail.locator(".detail-facts dt:text-is('A pastime') + dd")
                assert pastime.inner_text() == PASTIMES[text][1], (javascript, text)
                if javascript:
                    page.keyboard.press("Escape")  # the detail, then the profile
                    page.keyboard.press("Escape")
                else:
                    detail.get_by_role("link", name="Close memory details").click()
            assert log.unexpected() == []
