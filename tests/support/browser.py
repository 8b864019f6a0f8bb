"""Driving the web UI in a real browser: Debian's /usr/bin/chromium through Playwright.

Shared by the browser tests (fixtures in tests/server/web/conftest.py) and
scripts/screenshots.py: launching Chromium, a page at a given width and colour scheme
that records console errors, signing in, answering the confirmation dialog, and the
checks every page must pass: no sideways scrolling (of the page or an open dialog) and
no serious or critical axe-core accessibility violation (axe.min.js comes from the
``axe-playwright-python`` package, so nothing is fetched from the network).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# name -> (width, height): a desktop window and a phone (iPhone 12-15 size)
VIEWPORTS = {"desktop": (1280, 860), "phone": (390, 844)}
AXE_IMPACTS = ("serious", "critical")


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium; skips (fails on CI) when Debian's chromium is missing."""
    if not CHROMIUM.exists():
        reason = f"{CHROMIUM} is missing (apt-get install chromium)"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=LAUNCH_ARGS
        )
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class ConsoleLog:
    """Errors the page logged (console.error, uncaught exceptions, failed loads) and any
    native dialog (window.confirm and the like) it opened."""

    errors: list[str] = field(default_factory=list)
    allowed: list[str] = field(default_factory=list)

    def allow(self, fragment: str) -> None:
        """Expect errors containing ``fragment`` (e.g. the 401 of a wrong password)."""
        self.allowed.append(fragment)

    def unexpected(self) -> list[str]:
        return [e for e in self.errors if not any(a in e for a in self.allowed)]


@contextmanager
def open_page(
    browser: Any, viewport: str = "desktop", *, dark: bool = False, javascript: bool = True
) -> Iterator[tuple[Any, ConsoleLog]]:
    """A page in a fresh context (no cookies) with its console errors recorded;
    ``javascript=False`` is a browser with JavaScript turned off (check its pages with
    ``check_scriptless_page``)."""
    width, height = VIEWPORTS[viewport]
    context = browser.new_context(
        viewport={"width": width, "height": height},
        color_scheme="dark" if dark else "light",
        reduced_motion="reduce",
        java_script_enabled=javascript,
    )
    page = context.new_page()
    page.set_default_timeout(10_000)
    log = ConsoleLog()
    page.on("console", lambda m: log.errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda exc: log.errors.append(f"uncaught: {exc}"))
    # window.confirm/alert/prompt: the UI has its own dialogs, so any native one is a bug
    page.on("dialog", lambda d: (log.errors.append(f"native {d.type}: {d.message}"), d.dismiss()))
    try:
        yield page, log
    finally:
        context.close()


def sign_in(page: Any, url: str, name: str, password: str) -> None:
    page.goto(f"{url}/")
    page.get_by_label("User name").fill(name)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_selector("#user-button")
    # memoryd.js sets the page up at DOMContentLoaded; until then a key on the user button
    # follows its link (a navigation) instead of opening the panel in place
    page.wait_for_load_state("domcontentloaded")


def confirm(page: Any, answer: str | None = None) -> str:
    """Answer the open confirmation dialog: click ``answer`` (its confirm button's label)
    or, when None, Cancel. Returns the question it asked."""
    dialog = page.get_by_role("alertdialog")
    dialog.wait_for(state="visible")
    question = str(dialog.locator("#confirm-text").inner_text())
    dialog.get_by_role("button", name=answer or "Cancel", exact=True).click()
    return question


def open_menu(page: Any) -> None:
    """On a phone the sidebar's links sit behind the Menu button; open them if so."""
    button = page.locator("#menu-button")
    if button.is_visible() and button.get_attribute("aria-expanded") != "true":
        button.click()


def memory_menu(scope: Any, text: str) -> Any:
    """The row of the memory whose text has ``text`` (in ``scope``: a page, dialog or
    section), with its actions menu open: Edit, Details and history, Make global or Move
    to, Delete."""
    row = scope.locator(".memory", has_text=text)
    menu = row.locator("details.row-menu")
    if menu.get_attribute("open") is None:
        menu.locator("summary").click()
    return row


def horizontal_overflow(page: Any) -> int:
    """How many pixels the page is wider than the window (0: nothing scrolls sideways)."""
    return int(page.evaluate("document.scrollingElement.scrollWidth - window.innerWidth"))


def axe_violations(page: Any, impacts: tuple[str, ...] = AXE_IMPACTS) -> list[str]:
    """axe-core's violations of the given impacts, one readable line each."""
    from axe_playwright_python.base import AXE_SCRIPT

    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(AXE_SCRIPT)  # evaluated by the driver, so the page's CSP allows it
    result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    lines = []
    for violation in result["violations"]:
        if violation.get("impact") not in impacts:
            continue
        targets = [", ".join(n["target"]) for n in violation["nodes"][:5]]
        lines.append(f"{violation['id']} ({violation['impact']}): {violation['help']} at {targets}")
    return lines


def wide_dialogs(page: Any) -> list[str]:
    """Open dialogs that scroll sideways (what is inside is wider than they are)."""
    return list(
        page.evaluate(
            "() => Array.from(document.querySelectorAll('dialog[open]'))"
            ".filter(d => d.scrollWidth > d.clientWidth + 1)"
            ".map(d => '#' + d.id + ' by ' + (d.scrollWidth - d.clientWidth) + 'px')"
        )
    )


def check_page(page: Any) -> None:
    """What every page must pass, in whatever state it is now."""
    page.wait_for_load_state("load")
    overflow = horizontal_overflow(page)
    assert overflow <= 0, f"{page.url} scrolls sideways by {overflow}px"
    assert wide_dialogs(page) == [], f"{page.url}: a dialog scrolls sideways"
    assert axe_violations(page) == [], (page.url, axe_violations(page))


def check_scriptless_page(page: Any) -> None:
    """``check_page`` for a page in a browser with JavaScript off (``open_page(...,
    javascript=False)``), whose timers never fire, so axe-core cannot finish there: the
    same document as it stands now, served at the same address to a twin page of the same
    size and colour scheme that runs no script of the page's own, gets the checks."""
    page.wait_for_load_state("load")
    html = str(page.content())
    address = str(page.url).split("#")[0]
    dark = bool(page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches"))
    context = page.context.browser.new_context(
        viewport=page.viewport_size, color_scheme="dark" if dark else "light"
    )
    try:
        twin = context.new_page()
        twin.route("**/*.js", lambda route: route.abort())
        twin.route(
            lambda url: url.split("#")[0] == address,
            lambda route: route.fulfill(body=html, content_type="text/html; charset=utf-8"),
        )
        twin.goto(address)
        assert twin.title() == page.title()  # the same page, not an error
        check_page(twin)
    finally:
        context.close()
