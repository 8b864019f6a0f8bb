"""Helpers for the browser tests (Debian's /usr/bin/chromium driven by Playwright):
signing in, the console errors a page logged, and an axe-core accessibility check."""

from __future__ import annotations

from pathlib import Path
from typing import Any

CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
WIDE = {"width": 1280, "height": 860}
NARROW = {"width": 390, "height": 844}


def sign_in(page: Any, url: str, name: str, password: str) -> None:
    page.goto(f"{url}/")
    page.get_by_label("User name").fill(name)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_selector("#user-button")


def console_errors(page: Any) -> list[str]:
    """What the page fixture collected from the console (errors and uncaught exceptions)."""
    return list(getattr(page, "memoryd_console_errors", []))


def axe_violations(page: Any, selector: str | None = None) -> list[str]:
    """axe-core's WCAG A/AA violations on the page (or inside ``selector``), one line each."""
    from axe_playwright_python.sync_playwright import Axe

    options = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa"]}}
    results = Axe().run(page, context=selector, options=options)
    return [
        f"{v['id']}: {v['help']} ({len(v['nodes'])} node(s))"
        for v in results.response["violations"]
    ]
