"""The web UI over HTTP, without a browser: a signed-in page or form post through the test
client, the one-time message a post redirects back with, and reading one element of a page
(the standard library's HTML parser; the tests need no other).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any
from urllib.parse import unquote

from support.server import World

FLASH_COOKIE = "memoryd_flash"
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source"}


def session_cookie(world: World, who: str) -> tuple[str, str]:
    """A new session of ``who``: (the Cookie header's value, its CSRF token)."""
    session = world.auth.create_session(world.ids[who], 1)
    return f"memoryd_session={session.token}", session.csrf_token


def get_page(world: World, who: str | None, path: str, *, flash: str | None = None) -> Any:
    """GET ``path`` as ``who`` (None: signed out), with a flash cookie if given."""
    cookies = [session_cookie(world, who)[0]] if who is not None else []
    if flash is not None:
        cookies.append(f"{FLASH_COOKIE}={flash}")
    headers = {"Cookie": "; ".join(cookies)} if cookies else {}
    response = world.client.get(path, headers=headers, follow_redirects=False)
    world.client.cookies.clear()
    return response


def post_form(world: World, who: str, path: str, form: dict[str, str], *, back: str = "/") -> Any:
    """POST a form as ``who`` with its CSRF token, coming back to ``back``."""
    cookie, csrf = session_cookie(world, who)
    data = {**form, "csrf_token": csrf, "next": back}
    response = world.client.post(
        path, data=data, headers={"Cookie": cookie}, follow_redirects=False
    )
    world.client.cookies.clear()
    return response


def flash_of(response: Any) -> dict[str, str]:
    """The one message a form post redirects back with."""
    raw = response.cookies.get(FLASH_COOKIE)
    assert raw, (response.status_code, response.headers)
    [message] = json.loads(unquote(raw.strip('"')))
    return dict(message)


def follow(world: World, who: str, response: Any) -> Any:
    """The page a form post redirected to, as the browser gets it (with the message)."""
    assert response.status_code == 303, response.text
    return get_page(world, who, response.headers["location"], flash=response.cookies[FLASH_COOKIE])


@dataclass
class Element:
    tag: str
    attrs: dict[str, str | None]
    text: str = ""

    def has(self, attribute: str) -> bool:
        return attribute in self.attrs


class _Finder(HTMLParser):
    def __init__(self, wanted: str) -> None:
        super().__init__()
        self.wanted = wanted
        self.found: Element | None = None
        self.depth = 0
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.depth:
            self.depth += tag not in VOID
            self.parts.append(" ")  # a tag separates words, as a browser shows them
        elif self.found is None and dict(attrs).get("id") == self.wanted:
            self.found = Element(tag, dict(attrs))
            self.depth = 0 if tag in VOID else 1

    def handle_endtag(self, tag: str) -> None:
        if self.depth:
            self.depth -= 1
            if not self.depth and self.found is not None:
                self.found.text = "".join(self.parts)
            else:
                self.parts.append(" ")

    def handle_data(self, data: str) -> None:
        if self.depth:
            self.parts.append(data)


def element(html: str, dom_id: str) -> Element:
    """The element with this id: its tag, attributes and text (entities decoded; a space
    where a tag inside it was)."""
    finder = _Finder(dom_id)
    finder.feed(html)
    assert finder.found is not None, f"no element #{dom_id} in the page"
    return finder.found


def words(text: str) -> str:
    """Text with its runs of white space made single spaces."""
    return " ".join(text.split())
