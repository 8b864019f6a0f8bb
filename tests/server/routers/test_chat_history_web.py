"""The chat page's history controls as plain form posts, as a browser without JavaScript
sends them: a deletion without the dialog's answer gets the server's question page and
deletes nothing; answering it there deletes. Another user's chat, or one in a
workspace the user has left, is refused with a message and stays."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import unquote

from support.server import World


class Browser:
    """Alice's signed-in session, posting forms the way a page without JavaScript does."""

    def __init__(self, world: World, who: str = "alice") -> None:
        self.world = world
        self.session = world.auth.create_session(world.ids[who], 1)

    def post(self, path: str, **form: str) -> Any:
        form = {"csrf_token": self.session.csrf_token, **form}
        return self.world.client.post(
            path, data=form, headers=self.cookie(), follow_redirects=False
        )

    def get(self, path: str) -> Any:
        return self.world.client.get(path, headers=self.cookie(), follow_redirects=False)

    def cookie(self) -> dict[str, str]:
        self.world.client.cookies.clear()
        return {"Cookie": f"memoryd_session={self.session.token}"}


def flash(response: Any) -> dict[str, str]:
    [message] = json.loads(unquote(response.cookies["memoryd_flash"].strip('"')))
    return dict(message)


def prompts(world: World, who: str = "alice") -> list[str]:
    return [c.prompt for c in world.md.list_chats(world.ids[who])]


def test_deleting_an_exchange_without_javascript_asks_first(world: World) -> None:
    alice = world.ids["alice"]
    doomed = world.md.record_chat(alice, "alpha", "forget <this> one", "ok").id
    world.md.record_chat(alice, "alpha", "keep this one", "ok")
    browser = Browser(world)

    page = browser.get("/chat/alpha")
    assert f'action="/ui/chats/{doomed}/delete"' in page.text
    assert 'name="confirmed"' not in page.text  # the dialog's answer, or the server's page
    asked = browser.post(f"/ui/chats/{doomed}/delete", workspace="alpha", next="/chat/alpha")
    assert asked.status_code == 200 and "memoryd_flash" not in asked.cookies
    assert prompts(world) == ["forget <this> one", "keep this one"]
    question = asked.text
    assert "Delete this exchange? \u201cforget &lt;this&gt; one\u201d" in question  # escaped
    assert f'action="/ui/chats/{doomed}/delete"' in question
    assert 'name="confirmed" value="yes"' in question and 'href="/chat/alpha"' in question

    done = browser.post(f"/ui/chats/{doomed}/delete", workspace="alpha", confirmed="yes")
    assert (done.status_code, done.headers["location"]) == (303, "/chat/alpha")
    assert flash(done) == {"level": "ok", "text": "Exchange deleted."}
    assert prompts(world) == ["keep this one"]


def test_clearing_the_history_without_javascript_asks_first(world: World) -> None:
    alice = world.ids["alice"]
    for n in range(3):
        world.md.record_chat(alice, "alpha", f"alpha {n}", "ok")
    world.md.record_chat(alice, "beta", "beta 0", "ok")
    world.md.record_chat(world.ids["bob"], "alpha", "Bob in alpha", "ok")
    browser = Browser(world)

    asked = browser.post("/ui/chats/clear", workspace="alpha", next="/chat/alpha")
    assert asked.status_code == 200 and len(prompts(world)) == 4
    assert "Delete all 3 of your exchanges in Alpha?" in asked.text
    assert 'action="/ui/chats/clear"' in asked.text

    done = browser.post("/ui/chats/clear", workspace="alpha", confirmed="yes")
    assert flash(done) == {"level": "ok", "text": "Deleted 3 exchanges from this history."}
    assert prompts(world) == ["beta 0"] and prompts(world, "bob") == ["Bob in alpha"]
    # the form stays in the page for answers streamed later, hidden while there is nothing
    assert re.search(
        r'<form[^>]*id="clear-history"[^>]*\shidden[\s>]', browser.get("/chat/alpha").text
    )


def test_another_users_chat_or_a_left_workspace_is_refused(world: World) -> None:
    alice = world.ids["alice"]
    bobs = world.md.record_chat(world.ids["bob"], "alpha", "Bob's words", "ok").id
    in_gamma = world.md.record_chat(alice, "gamma", "said in gamma", "ok").id
    browser = Browser(world)
    for chat_id in (bobs, in_gamma, 999_999):
        refused = browser.post(f"/ui/chats/{chat_id}/delete", workspace="alpha", confirmed="yes")
        assert refused.headers["location"] == "/chat/alpha"
        assert flash(refused) == {"level": "error", "text": f"no chat {chat_id} for this user"}
    cleared = browser.post("/ui/chats/clear", workspace="gamma", confirmed="yes")
    assert flash(cleared) == {"level": "error", "text": "no workspace 'gamma' for this user"}
    assert prompts(world) == ["said in gamma"] and prompts(world, "bob") == ["Bob's words"]
    forged = world.client.post(
        f"/ui/chats/{in_gamma}/delete",
        data={"csrf_token": "wrong", "confirmed": "yes"},
        headers=browser.cookie(),
        follow_redirects=False,
    )
    assert forged.status_code == 403 and prompts(world) == ["said in gamma"]
