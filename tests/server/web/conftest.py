"""Browser fixtures shared by the web UI tests: one headless Chromium per module and a
fresh page (1280 px wide unless a test module overrides ``viewport``) that records
console errors for ``support.browser.console_errors``."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from support.browser import CHROMIUM, LAUNCH_ARGS, WIDE


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        reason = f"{CHROMIUM} is missing (apt-get install chromium)"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=LAUNCH_ARGS
        )
        yield chromium
        chromium.close()


@pytest.fixture
def viewport() -> dict[str, int]:
    return dict(WIDE)


@pytest.fixture
def page(browser: Any, viewport: dict[str, int]) -> Iterator[Any]:
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.on("dialog", lambda dialog: dialog.accept())  # the delete confirmations
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.memoryd_console_errors = errors
    yield page
    context.close()
