"""The chat page's history controls as plain form posts, as a browser without JavaScript
sends them: a deletion without the dialog's answer comes back to the page with the
question and deletes nothing; answering it deletes. Another user's chat, or one in a
workspace the user has left, is refused with a message and stays."""

from __future__ import annotations

import json
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


def test_deleting_an_exchange_without_javascript_asks_on_the_page(world: World) -> None:
    alice = world.ids["alice"]
    doomed = world.md.record_chat(alice, "alpha", "forget <this> one", "ok").id
    world.md.record_chat(alice, "alpha", "keep this one", "ok")
    browser = Browser(world)

    page = browser.get("/chat/alpha")
    assert f'action="/ui/chats/{doomed}/delete"' in page.text
    assert 'name="confirmed" value=""' in page.text
    asked = browser.post(f"/ui/chats/{doomed}/delete", workspace="alpha")
    assert (asked.status_code, asked.headers["location"]) == (303, f"/chat/alpha?confirm={doomed}")
    assert "memoryd_flash" not in asked.cookies
    assert prompts(world) == ["forget <this> one", "keep this one"]

    question = browser.get(f"/chat/alpha?confirm={doomed}").text
    assert '<h2 id="confirm-panel-title">Delete this exchange?</h2>' in question
    assert "forget &lt;this&gt; one" in question  # the text is escaped, never markup
    assert 'name="confirmed" value="yes"' in question

    done = browser.post(f"/ui/chats/{doomed}/delete", workspace="alpha", confirmed="yes")
    assert (done.status_code, done.headers["location"]) == (303, "/chat/alpha")
    assert flash(done) == {"level": "ok", "text": "Exchange deleted."}
    assert prompts(world) == ["keep this one"]
    assert "confirm-panel" not in browser.get(f"/chat/alpha?confirm={doomed}").text


def test_clearing_the_history_without_javascript_asks_on_the_page(world: World) -> None:
    alice = world.ids["alice"]
    for n in range(3):
        world.md.record_chat(alice, "alpha", f"alpha {n}", "ok")
    world.md.record_chat(alice, "beta", "beta 0", "ok")
    world.md.record_chat(world.ids["bob"], "alpha", "Bob in alpha", "ok")
    browser = Browser(world)

    asked = browser.post("/ui/chats/clear", workspace="alpha")
    assert asked.headers["location"] == "/chat/alpha?confirm=clear"
    assert len(prompts(world)) == 4
    question = browser.get("/chat/alpha?confirm=clear").text
    assert '<h2 id="confirm-panel-title">Clear this history?</h2>' in question
    assert "All 3 of your exchanges in Alpha" in question

    done = browser.post("/ui/chats/clear", workspace="alpha", confirmed="yes")
    assert flash(done) == {"level": "ok", "text": "Deleted 3 exchanges from this history."}
    assert prompts(world) == ["beta 0"] and prompts(world, "bob") == ["Bob in alpha"]
    page = browser.get("/chat/alpha?confirm=clear").text
    assert "confirm-panel" not in page and 'action="/ui/chats/clear"' not in page


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
