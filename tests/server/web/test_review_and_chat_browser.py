"""The review queue, the chat's Markdown replies and correcting a memory from a reply, in
headless Chromium at 1280 px and 390 px, light and dark (issue 38): a suggestion accepted
into its workspace, Accept not offered where the scope is full, Accept all, a reply
rendered as Markdown with an XSS payload left as text, a reply cut off (by the length
limit, and by Stop) marked as such, and a memory edited from a reply's memory list.

To keep the run short the module has one server and one fake LLM, and one signed-in page
per width and colour scheme that every test reuses; each test makes its own data (named
after the screen it runs on) and leaves the scopes as it found them. Each state is
checked for sideways scrolling and serious axe-core violations, and a test fails on any
console error.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from memoryd.testing import FakeOpenAIServer, Reply
from memoryd.testing.live import LiveServer
from support.browser import ConsoleLog, check_page, open_page, sign_in
from support.lifecycle import file_suggestion
from support.server import USER_PASSWORD, World, build_world, make_settings

pytestmark = pytest.mark.browser

SCREENS = ["desktop-light", "desktop-dark", "phone-light", "phone-dark"]
XSS_REPLY = (
    "**Oak** it is.\n\n- seal it\n- wait a day\n\n"
    '<img src=x onerror="window.pwned=1"> <script>window.pwned=2</script>'
)


@dataclasses.dataclass
class Site:
    world: World
    url: str
    llm: FakeOpenAIServer
    pages: dict[str, tuple[Any, ConsoleLog]]

    @property
    def alice(self) -> int:
        return self.world.ids["alice"]


@pytest.fixture(scope="module")
def site(browser: Any, tmp_path_factory: pytest.TempPathFactory, embedder: Any) -> Iterator[Site]:
    tmp: Path = tmp_path_factory.mktemp("review-chat")
    with ExitStack() as stack:
        llm = stack.enter_context(FakeOpenAIServer())
        world = build_world(make_settings(tmp, proxy_upstream_url=llm.base_url), embedder)
        stack.callback(world.md.close)
        live = stack.enter_context(LiveServer(world.app))
        pages = {}
        for screen in SCREENS:
            viewport, scheme = screen.split("-")
            page, log = stack.enter_context(open_page(browser, viewport, dark=scheme == "dark"))
            sign_in(page, live.url, "alice", USER_PASSWORD)
            pages[screen] = (page, log)
        yield Site(world, live.url, llm, pages)


@pytest.fixture(params=SCREENS)
def screen(request: pytest.FixtureRequest, site: Site) -> Iterator[tuple[Any, str]]:
    """The signed-in page of one width and scheme, and that screen's name; fails the test
    on a console error it logged."""
    page, log = site.pages[request.param]
    log.errors.clear()
    yield page, request.param
    assert log.unexpected() == [], f"console errors on {request.param}: {log.unexpected()}"


def open_memories(page: Any, site: Site) -> Any:
    page.goto(f"{site.url}/chat/alpha?panel=memories")
    profile = page.locator("#profile")
    profile.get_by_role("tab", name="Memories").wait_for()
    return profile


def flash(page: Any, level: str = "ok") -> str:
    shown = page.locator(f".flash-{level}").first
    shown.wait_for()
    return str(shown.inner_text())


def test_accept_a_suggestion_into_its_workspace(site: Site, screen: tuple[Any, str]) -> None:
    page, name = screen
    chat = site.world.md.record_chat(site.alice, "alpha", f"I play chess ({name})", "Nice").id
    text = f"Alice plays chess on {name}"
    sid = file_suggestion(site.world.md, site.alice, text, chats=[chat])
    profile = open_memories(page, site)
    row = profile.locator(f'.suggestion[data-suggestion-id="{sid}"]')
    assert row.locator(".memory-text").inner_text() == text  # one line, shown once
    row.get_by_label("Into").select_option("workspace")
    check_page(page)
    row.get_by_role("button", name="Accept").click()
    assert flash(page) == "Suggestion accepted into workspace Alpha."
    [made] = [m for m in site.world.md.list_memories(site.alice) if name in m.content]
    assert (made.scope.value, made.workspace) == ("workspace", "alpha")
    site.world.md.delete_memory(site.alice, made.id)


def test_accept_is_not_offered_where_the_scope_is_full(site: Site, screen: tuple[Any, str]) -> None:
    page, name = screen
    md = site.world.md
    filled = [md.add_memory(site.alice, f"Fact {n} for {name}").id for n in range(5)]
    sid = file_suggestion(md, site.alice, f"Alice likes tea on {name}")  # global, no chats
    profile = open_memories(page, site)
    row = profile.locator(f'.suggestion[data-suggestion-id="{sid}"]')
    assert row.get_by_role("button", name="Accept").count() == 0
    assert "Can't accept: Global is full" in row.inner_text()
    assert row.get_by_role("button", name="Reject").is_visible()
    check_page(page)
    md.reject_suggestion(site.alice, sid)
    for memory_id in filled:
        md.delete_memory(site.alice, memory_id)


def test_accept_all_empties_the_queue(site: Site, screen: tuple[Any, str]) -> None:
    page, name = screen
    md = site.world.md
    for topic in ("tea", "jazz"):
        file_suggestion(md, site.alice, f"Alice likes {topic} on {name}", workspace="beta")
    profile = open_memories(page, site)
    assert profile.locator(".suggestion").count() == 2
    check_page(page)
    profile.get_by_role("button", name="Accept all").click()
    assert flash(page) == "Accepted 2 suggestions."
    assert page.locator("#profile .suggestions .empty-state").is_visible()
    made = [m for m in md.list_memories(site.alice) if name in m.content]
    assert sorted(m.workspace or "" for m in made) == ["beta", "beta"]
    for memory in made:
        md.delete_memory(site.alice, memory.id)


def send(page: Any, text: str) -> Any:
    """Send ``text`` on the chat page; the new reply's list item."""
    box = page.get_by_label("Message")
    box.fill(text)
    box.press("Enter")
    return page.locator(".message.assistant").last


def test_a_reply_is_markdown_and_its_markup_stays_text(site: Site, screen: tuple[Any, str]) -> None:
    page, name = screen
    site.llm.responder = lambda body: Reply.text(XSS_REPLY)
    page.goto(f"{site.url}/chat/beta")
    reply = send(page, f"Which worktop? ({name})")
    reply.locator(".markdown strong").wait_for()
    reply.locator(".delete-exchange").wait_for()  # recorded (its Delete comes then)
    chat_id = reply.get_attribute("data-chat-id")
    for shown in (reply, None):
        if shown is None:  # the same reply as the server renders it, after a reload
            page.reload()
            shown = page.locator(f'.message.assistant[data-chat-id="{chat_id}"]')
        text = shown.locator(".message-text")
        assert text.locator("strong").inner_text() == "Oak"
        assert text.locator("li").all_inner_texts() == ["seal it", "wait a day"]
        assert text.locator("img, script").count() == 0
        assert "<script>window.pwned=2</script>" in text.inner_text()
        assert page.evaluate("window.pwned") is None
    assert page.locator("#chat-status").inner_text() == ""  # no second "0 memories" line
    check_page(page)


def test_a_cut_reply_is_marked(site: Site, screen: tuple[Any, str]) -> None:
    page, name = screen
    page.goto(f"{site.url}/chat/beta")
    site.llm.responder = lambda body: Reply.text("The budget is", finish_reason="length")
    reply = send(page, f"Budget? ({name})")
    marker = reply.locator(".cut-marker")
    marker.wait_for()
    assert marker.inner_text() == "Cut off: the reply reached the model's length limit."
    # long enough that it cannot end before the click on a loaded machine
    slow = dataclasses.replace(Reply.text("word " * 2000), chunk_pause_seconds=0.1)
    site.llm.responder = lambda body: slow
    reply = send(page, f"Tell me more ({name})")
    stop = page.get_by_role("button", name="Stop")
    stop.wait_for()
    reply.locator(".message-text", has_text="word").wait_for()
    stop.click()
    marker = reply.locator(".cut-marker")
    marker.wait_for()
    assert marker.get_attribute("data-cut") == "stopped"
    assert marker.inner_text().startswith("Stopped")
    assert page.get_by_role("button", name="Send").is_visible()
    check_page(page)


def test_edit_a_memory_from_a_replys_memory_list(site: Site, screen: tuple[Any, str]) -> None:
    page, name = screen
    md = site.world.md
    memory = md.add_memory(site.alice, f"Alice cooks risotto ({name})", workspace="alpha")
    md.record_chat(site.alice, "alpha", f"Dinner? ({name})", "Risotto.", memory_ids=[memory.id])
    page.goto(f"{site.url}/chat/alpha")
    reply = page.locator(".message.assistant").last
    used = reply.locator("details.used")
    used.locator(":scope > summary").click()
    used.get_by_text("Correct", exact=True).click()
    box = used.get_by_label("Memory text")
    assert box.input_value() == memory.content
    check_page(page)
    box.fill(f"Alice cooks paella ({name})")
    used.get_by_role("button", name="Save").click()
    assert flash(page) == "Memory saved."
    assert md.get_memory(site.alice, memory.id).content == f"Alice cooks paella ({name})"
    md.delete_memory(site.alice, memory.id)
