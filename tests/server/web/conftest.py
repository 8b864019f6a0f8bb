"""Browser fixtures: one Chromium for the package, and a signed-out page per test at each width
(``page``: desktop 1280 px and phone 390 px; ``desktop_page``: 1280 px only;
``scriptless_page``: both widths in a browser with JavaScript turned off). A test fails
if the page logged an error it did not expect (``console.allow(...)``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from support.browser import ConsoleLog, chromium, open_page


@pytest.fixture(scope="package")
def browser() -> Iterator[Any]:
    """Launched once for the tests in this folder: every page opens in a context of its
    own (no cookies, storage or cache shared with another test's page). Closed when the
    run leaves the folder, since Playwright's event loop would stop other tests' asyncio."""
    with chromium() as launched:
        yield launched


@pytest.fixture
def console() -> ConsoleLog:
    """The console of the test's page (the page fixtures fill it)."""
    return ConsoleLog()


def _page(
    browser: Any, console: ConsoleLog, viewport: str, *, javascript: bool = True
) -> Iterator[Any]:
    with open_page(browser, viewport, javascript=javascript) as (page, log):
        log.allowed = console.allowed
        console.errors = log.errors
        yield page
    assert console.unexpected() == [], f"console errors at {viewport}: {console.unexpected()}"


@pytest.fixture(params=["desktop", "phone"])
def page(request: pytest.FixtureRequest, browser: Any, console: ConsoleLog) -> Iterator[Any]:
    yield from _page(browser, console, request.param)


@pytest.fixture
def desktop_page(browser: Any, console: ConsoleLog) -> Iterator[Any]:
    yield from _page(browser, console, "desktop")


@pytest.fixture(params=["desktop", "phone"])
def scriptless_page(
    request: pytest.FixtureRequest, browser: Any, console: ConsoleLog
) -> Iterator[Any]:
    """A page whose browser runs no JavaScript (check it with ``check_scriptless_page``)."""
    yield from _page(browser, console, request.param, javascript=False)
