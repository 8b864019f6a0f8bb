"""The chat page's pieces over HTTP, and correcting a memory from a reply, and the review
queue's choices of scope, without a browser: replies are Markdown made safe on the
server (an XSS payload stays text), a streamed reply's memory list and its Markdown are
the same as the page renders (with who may ask for them), "this is wrong" deletes a
memory and the audit log keeps why, and a suggestion is accepted into the scope asked
for (REST and web through one implementation), with Accept not offered where it cannot
succeed.
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from memoryd.config import MemorydSettings
from memoryd.server.upstream import chat_target
from memoryd.server.web.markdown import render_markdown
from support.lifecycle import file_suggestion
from support.server import World, build_world, make_settings
from support.web import flash_of, follow, get_page, post_form, session_cookie

XSS = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    "[click](javascript:alert(1))",
    '<a href="javascript:alert(1)">x</a>',
    "<svg onload=alert(1)>",
    '<iframe src="https://example.org"></iframe>',
]


class Tags(HTMLParser):
    """Every element of some HTML with its attributes."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str | None]]] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, dict(attrs)))


def dangerous(html: str) -> list[str]:
    """What in ``html`` could run a script: tags beyond text, handlers, script links."""
    bad = []
    for tag, attrs in Tags(html).found:
        if tag in ("script", "img", "svg", "iframe", "style", "object", "embed"):
            bad.append(tag)
        bad += [f"{tag}[{name}]" for name in attrs if name.startswith("on")]
        if (attrs.get("href") or "").lower().startswith("javascript:"):
            bad.append(f"{tag}[href=javascript:]")
    return bad


def test_markdown_is_rendered_and_any_markup_in_it_stays_text() -> None:
    html = render_markdown("**Oak** and `hardwax oil`:\n\n- seal\n- wait\n\n```\ncode <b>\n```")
    assert "<strong>Oak</strong>" in html and "<code>hardwax oil</code>" in html
    assert "<li>seal</li>" in html and "code &lt;b&gt;" in html
    for payload in XSS:
        out = render_markdown(payload)
        assert dangerous(out) == [], out
    link = render_markdown("[docs](https://example.org/x)")
    assert 'href="https://example.org/x"' in link and 'rel="noopener noreferrer nofollow"' in link


def test_the_chat_page_renders_recorded_replies_as_safe_markdown(world: World) -> None:
    alice = world.ids["alice"]
    world.md.record_chat(alice, "alpha", "format?", "**bold** <script>alert(1)</script>")
    page = get_page(world, "alice", "/chat/alpha")
    assert "<strong>bold</strong>" in page.text
    assert "<script>alert(1)" not in page.text and "&lt;script&gt;alert(1)" in page.text


def test_the_markdown_route_needs_a_session_and_its_token(world: World) -> None:
    body = "# Title\n\n<script>alert(1)</script>"
    assert world.client.post("/ui/markdown", content=body).status_code == 401
    cookie, csrf = session_cookie(world, "alice")
    refused = world.client.post("/ui/markdown", content=body, headers={"Cookie": cookie})
    assert refused.status_code == 403
    ok = world.client.post(
        "/ui/markdown", content=body, headers={"Cookie": cookie, "X-CSRF-Token": csrf}
    )
    world.client.cookies.clear()
    assert ok.status_code == 200
    assert ok.text.startswith("<h1>Title</h1>") and "<script" not in ok.text


def test_a_streamed_replys_memory_list_is_the_pages(world: World) -> None:
    alice = world.ids["alice"]
    kept = world.md.add_memory(alice, "Alice likes oak", workspace="alpha").id
    gone = world.md.add_memory(alice, "Alice likes pine").id
    world.md.delete_memory(alice, gone)
    path = f"/chat/alpha/used?ids={kept},{gone}"
    assert get_page(world, None, path).status_code == 401
    assert get_page(world, "bob", "/chat/beta/used?ids=x").status_code == 404  # not his
    page = get_page(world, "alice", path)
    assert page.status_code == 200 and "<html" not in page.text
    assert "Answered with 2 memories" in page.text and "Alice likes oak" in page.text
    assert "A memory since deleted" in page.text
    assert f'action="/ui/memories/{kept}/edit"' in page.text
    assert f'action="/ui/memories/{kept}/report"' in page.text
    assert "No memories used" in get_page(world, "alice", "/chat/alpha/used?ids=").text


def test_this_is_wrong_deletes_the_memory_and_the_audit_log_keeps_why(world: World) -> None:
    alice = world.ids["alice"]
    memory = world.md.add_memory(alice, "Alice lives in Porto", workspace="alpha").id
    form = {"reason": "I moved to Lisbon", "confirmed": "yes"}
    done = post_form(world, "alice", f"/ui/memories/{memory}/report", form, back="/chat/alpha")
    assert flash_of(done)["level"] == "ok" and done.headers["location"] == "/chat/alpha"
    assert [m.id for m in world.md.list_memories(alice)] == []
    [entry] = [e for e in world.md.audit_log(alice, memory) if e.action.value == "delete"]
    assert entry.before is not None
    assert entry.before["reason"] == "Reported as wrong: I moved to Lisbon"
    activity = get_page(world, "alice", "/activity")
    assert "Why: Reported as wrong: I moved to Lisbon" in activity.text
    # not asked yet: the server asks first and deletes nothing
    other = world.md.add_memory(alice, "Alice has a cat").id
    asked = post_form(world, "alice", f"/ui/memories/{other}/report", {}, back="/chat/alpha")
    assert asked.status_code == 200 and "Delete as wrong" in asked.text
    assert [m.id for m in world.md.list_memories(alice)] == [other]


def test_the_rest_api_deletes_with_a_reason_too(world: World) -> None:
    alice = world.ids["alice"]
    memory = world.md.add_memory(alice, "Alice is 30").id
    gone = world.client.delete(
        f"/api/v1/memories/{memory}?reason=wrong age", headers=world.headers("alice")
    )
    assert gone.status_code == 204
    [entry] = [e for e in world.md.audit_log(alice, memory) if e.action.value == "delete"]
    assert entry.before is not None and entry.before["reason"] == "wrong age"


def test_a_suggestion_goes_into_the_scope_asked_for_by_rest_and_web(world: World) -> None:
    alice = world.ids["alice"]
    chat = world.md.record_chat(alice, "alpha", "I play chess", "nice").id
    first = file_suggestion(world.md, alice, "Alice plays chess", chats=[chat])
    second = file_suggestion(world.md, alice, "Alice plays go", chats=[chat])
    listed = world.client.get("/api/v1/suggestions", headers=world.headers("alice")).json()
    assert {s["origin"] for s in listed} == {"alpha"}
    made = world.client.post(
        f"/api/v1/suggestions/{first}/accept",
        json={"scope": "workspace"},
        headers=world.headers("alice"),
    )
    assert made.status_code == 200, made.text
    assert (made.json()["scope"], made.json()["workspace"]) == ("workspace", "alpha")
    web = post_form(world, "alice", f"/ui/suggestions/{second}/accept", {"scope": "workspace"})
    assert flash_of(web) == {"level": "ok", "text": "Suggestion accepted into workspace Alpha."}
    assert world.md.get_memory(alice, world.md.get_suggestion(alice, second).memory_id or "")
    bad = world.client.post(
        f"/api/v1/suggestions/{first}/accept",
        json={"scope": "elsewhere"},
        headers=world.headers("alice"),
    )
    assert bad.status_code == 422


def test_accept_is_offered_only_where_there_is_room_and_fails_with_one_message(
    world: World,
) -> None:
    alice = world.ids["alice"]
    for n in range(world.md.limits.global_per_user):
        world.md.add_memory(alice, f"Alice fact number {n}")
    nowhere = file_suggestion(world.md, alice, "Alice likes tea")  # global, no chats
    chat = world.md.record_chat(alice, "alpha", "I like coffee", "ok").id
    elsewhere = file_suggestion(world.md, alice, "Alice likes coffee", chats=[chat])
    page = get_page(world, "alice", "/chat/alpha?panel=memories").text
    row = page[page.index(f'data-suggestion-id="{nowhere}"') :]
    row = row[: row.index("</li>")]
    assert "/accept" not in row and "Can't accept: Global is full" in row
    other = page[page.index(f'data-suggestion-id="{elsewhere}"') :]
    other = other[: other.index("</li>")]
    assert '<option value="global" disabled>Global (full)</option>' in other.replace(
        " selected", ""
    )
    assert '<option value="workspace" selected>Alpha</option>' in other
    # sent anyway (an old page): one message, the scope's own
    back = "/chat/alpha?panel=memories"
    refused = post_form(world, "alice", f"/ui/suggestions/{nowhere}/accept", {}, back=back)
    shown = follow(world, "alice", refused).text
    assert flash_of(refused)["level"] == "error"
    assert shown.count('role="alert"') == 1
    assert "global is full (5 memories); delete one first" in shown


def test_accept_all_takes_what_fits_and_says_why_the_rest_waits(world: World) -> None:
    alice = world.ids["alice"]
    for n in range(world.md.limits.global_per_user):
        world.md.add_memory(alice, f"Alice fact number {n}")
    file_suggestion(world.md, alice, "Alice likes tea")  # global is full: stays
    chat = world.md.record_chat(alice, "alpha", "I like coffee", "ok").id
    file_suggestion(world.md, alice, "Alice likes coffee", chats=[chat])  # goes to alpha
    file_suggestion(world.md, alice, "Alice likes jazz", workspace="alpha")
    done = post_form(world, "alice", "/ui/suggestions/accept-all", {})
    said = flash_of(done)
    assert said["level"] == "error"
    assert said["text"].startswith("Accepted 2 suggestions. 1 could not be accepted and is")
    assert said["text"].endswith("waiting: global is full (5 memories); delete one first")
    assert [s.content for s in world.md.list_suggestions(alice)] == ["Alice likes tea"]
    rejected = post_form(world, "alice", "/ui/suggestions/reject-all", {"confirmed": "yes"})
    assert flash_of(rejected) == {"level": "ok", "text": "Rejected 1 suggestion."}
    assert world.md.list_suggestions(alice) == []


def test_the_page_says_when_the_chat_model_is_the_small_local_one(
    world: World, tmp_path: Path, embedder: Any
) -> None:
    assert not chat_target(MemorydSettings(proxy_provider="openai", proxy_model="m")).local
    (tmp_path / "local").mkdir()
    local = build_world(make_settings(tmp_path / "local", proxy_provider="local"), embedder)
    with local.client:
        page = get_page(local, "alice", "/chat/alpha").text
    local.md.close()
    note = "A small local model: slow and limited. Configure an upstream for real chat."
    assert note in page and "Choosing the chat model" in page
    assert note not in get_page(world, "alice", "/chat/alpha").text  # a real upstream


def test_words_keep_their_capitals_and_workspaces_are_named(world: World) -> None:
    page = get_page(world, "alice", "/chat/alpha?panel=account").text
    assert ">Ask me before changing a memory I have</option>" in page
    assert "memory i have" not in page
    listed = get_page(world, "alice", "/chat/alpha?panel=memories").text
    assert 'id="me-scope-alpha">Alpha <span class="count">' in listed  # its name, not slug
    assert "Add to Alpha" in listed and "Workspace alpha" not in listed


def test_a_memory_is_edited_from_a_reply_with_a_plain_form(world: World) -> None:
    """What the reply's Correct form posts, without JavaScript: saved, back on the chat;
    refused, back on the chat with that form open, the text typed and why."""
    alice = world.ids["alice"]
    memory = world.md.add_memory(alice, "Alice cooks risotto", workspace="alpha").id
    world.md.record_chat(alice, "alpha", "Dinner?", "Risotto.", memory_ids=[memory])
    path = f"/ui/memories/{memory}/edit"
    saved = post_form(world, "alice", path, {"content": "Alice cooks paella"}, back="/chat/alpha")
    assert saved.headers["location"] == "/chat/alpha" and flash_of(saved)["level"] == "ok"
    assert world.md.get_memory(alice, memory).content == "Alice cooks paella"
    refused = post_form(world, "alice", path, {"content": "# heading"}, back="/chat/alpha")
    assert refused.headers["location"] == f"/chat/alpha?edit={memory}"
    page = follow(world, "alice", refused).text
    used = page[page.index('<details class="used"') :]
    assert used.startswith('<details class="used" data-used-count="1" open>')
    assert '<details class="used-fix" open>' in used and "# heading</textarea>" in used
    assert "Markdown" in used[: used.index("</textarea>")]
