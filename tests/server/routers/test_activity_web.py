"""The web UI's Activity page (``/activity``, and ``/admin/users/{id}/activity`` for
admins) through the app, without a browser: who may read whose log, what a default user
sees of it (what ``GET /api/v1/audit`` gives them, never another user's entries or a
memory of a workspace they left), how each kind of entry reads, the filters and the
"Older" paging as plain GET fields, bad fields answered with a 4xx and a message, and
every text escaped.
"""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import quote

import pytest

from memoryd.domain.models import Actor, Source
from support.audit import STORY, Story, tell_story
from support.server import World
from support.web import element, flash_of, get_page, post_form, words

# alice is no member of gamma: what she sees of STORY (secret and gone stay in gamma)
SHOWN = [("create", "tea"), *STORY[1:3], *STORY[4:6], *STORY[8:]]


@pytest.fixture
def story(world: World) -> Story:
    ids = world.ids
    return tell_story(world.md, ids["alice"], ids["bob"], ids["admin"], kept="alpha", left="gamma")


def entry_ids(html: str) -> list[int]:
    """The entries a page lists, in order (their log ids)."""
    return [int(i) for i in re.findall(r'data-entry-id="(\d+)"', html)]


def told(world: World, story: Story, html: str) -> list[tuple[str, str]]:
    """(action, STORY name) of the entries a page lists, in order."""
    by_id = {e.id: e for e in world.md.audit_log(story.alice)}
    entries = [by_id[i] for i in entry_ids(html)]
    names = story.names([e.memory_id for e in entries])
    return [(e.action.value, n) for e, n in zip(entries, names, strict=True)]


def entry_text(html: str, world: World, story: Story, action: str, name: str) -> str:
    """The words of the entry of STORY's (action, memory name)."""
    memory_id = story.ids[name]
    log = world.md.audit_log(story.alice)
    [entry] = [e for e in log if (e.action.value, e.memory_id) == (action, memory_id)]
    return words(element(html, f"entry-{entry.id}").text)


def older_link(html: str) -> str | None:
    found = re.search(r'<a class="button" href="([^"]+)" rel="next">Older</a>', html)
    return unescape(found.group(1)) if found else None


# who may read it ---------------------------------------------------------------------------
@pytest.mark.parametrize("path", ["/activity", "/activity?change=edited&before=5"])
def test_signed_out_it_sends_you_to_sign_in_and_back(world: World, path: str) -> None:
    page = get_page(world, None, path)
    assert page.status_code == 303
    assert page.headers["location"] == f"/login?next={quote(path)}"
    assert "data-entry-id" not in page.text


def test_a_user_sees_their_own_entries_newest_first_and_never_anyone_elses(
    world: World, story: Story
) -> None:
    page = get_page(world, "alice", "/activity")
    assert page.status_code == 200
    assert told(world, story, page.text) == SHOWN[::-1]
    # the same entries as the API gives her, in the same order
    api = world.call("alice", "GET", "/api/v1/audit").json()
    assert entry_ids(page.text) == [e["id"] for e in api]
    assert "Bob&#39;s own fact" not in page.text and "Bob's own fact" not in page.text
    # gamma, which she is not a member of: neither its memories nor their text
    assert "gamma launch" not in page.text and "An old gamma fact" not in page.text
    bob = get_page(world, "bob", "/activity")
    bobs = [e.id for e in world.md.audit_log(story.bob)]
    assert entry_ids(bob.text) == bobs[::-1] and len(bobs) == 1
    assert "Prefers tea" not in bob.text and "Phoenix" not in bob.text


def test_a_workspace_left_takes_its_entries_with_it(world: World, story: Story) -> None:
    world.auth.remove_member("alpha", story.alice)
    page = get_page(world, "alice", "/activity")
    left = [e for e in SHOWN[::-1] if e[1] != "plans"]
    assert told(world, story, page.text) == [("change_setting", ""), *left]
    assert "Phoenix" not in page.text
    assert "Removed from workspace alpha" in page.text
    world.auth.add_member("gamma", story.alice)
    world.auth.add_member("alpha", story.alice)
    membership = [("change_setting", "")] * 3  # each change of membership, newest first
    page = get_page(world, "alice", "/activity")
    assert told(world, story, page.text) == [*membership, *STORY[::-1]]
    assert "Added to workspace gamma" in page.text


def test_only_an_admin_reads_another_users_activity(world: World, story: Story) -> None:
    path = f"/admin/users/{story.alice}/activity"
    admin = get_page(world, "admin", path)
    assert admin.status_code == 200
    assert told(world, story, admin.text) == STORY[::-1]  # gamma's too, as the API
    assert "The gamma launch is secret" in admin.text
    assert words(element(admin.text, "main").text).startswith("← Users Activity of alice")
    for who, target in (("bob", story.alice), ("alice", story.alice), ("alice", story.bob)):
        refused = get_page(world, who, f"/admin/users/{target}/activity")
        assert (refused.status_code, refused.headers["location"]) == (303, "/?denied=1")
        assert "admin panel is for admins" in flash_of(refused)["text"]
    signed_out = get_page(world, None, path)
    assert signed_out.headers["location"] == f"/login?next={quote(path)}"
    for missing in ("999999", "abc", "-1"):
        gone = get_page(world, "admin", f"/admin/users/{missing}/activity")
        assert gone.headers["location"] == "/admin?tab=users"
        assert flash_of(gone) == {"level": "error", "text": f"No user '{missing}'."}


def test_the_admin_panel_links_to_a_users_activity(world: World, story: Story) -> None:
    users = get_page(world, "admin", "/admin?tab=users").text
    assert f'href="/admin/users/{story.alice}/activity">Activity of alice</a>' in users
    everyone = get_page(world, "alice", "/activity").text
    assert 'href="/activity" aria-current="page">Activity</a>' in everyone  # the sidebar
    assert "/admin/users/" not in everyone


# how entries read -----------------------------------------------------------------------------
def test_each_kind_of_entry_says_what_happened_who_did_it_and_the_text(
    world: World, story: Story
) -> None:
    html = get_page(world, "alice", "/activity").text

    def says(action: str, name: str) -> str:
        return entry_text(html, world, story, action, name)

    created = says("create", "tea")
    assert created.startswith("Created ") and "by you · Global Prefers tea" in created
    assert "Deleted" in says("delete", "tea") and "by an admin" in says("delete", "tea")
    assert "Prefers tea" in says("delete", "tea")
    edited = says("update", "plans")
    assert edited.startswith("Edited") and "by you · Workspace alpha" in edited
    assert "Before Phoenix ships in Q3 After Phoenix ships in Q4" in edited
    promoted = says("promote", "vim")
    assert promoted.startswith("Made global") and "Workspace gamma → Global" in promoted
    imported = says("create", "imported")
    assert imported.startswith("Imported") and "by an import" in imported
    [chats] = [e for e in world.md.audit_log(story.alice) if e.action.value == "delete_chats"]
    deleted = words(element(html, f"entry-{chats.id}").text)
    assert deleted.startswith("Chats deleted")
    assert "2 recorded chats deleted (1 in alpha, 1 in gamma). Their text is gone." in deleted
    assert "secret words" not in html and "hello there" not in html
    # the memories still there open in the detail dialog; a deleted one says so
    assert f"?detail={story.ids['plans']}#memory-detail" in html
    assert f'data-detail="/api/v1/memories/{story.ids["imported"]}"' in html
    assert f"detail={story.ids['tea']}" not in html
    assert "This memory has since been deleted." in says("create", "tea")


def test_extraction_expiry_and_an_admins_view_name_who_did_it(world: World, story: Story) -> None:
    alice = story.alice
    run = Actor(Source.EXTRACTION, run_id="run0123456789")
    learned = world.md.add_memory(alice, "Learned: likes jazz", actor=run)
    world.md.edit_memory(alice, learned.id, expires_at="2030-05-01")
    by_admin = Actor(Source.ADMIN, story.admin)
    admin_made = world.md.add_memory(alice, "Set by the admin", actor=by_admin)
    html = get_page(world, "alice", "/activity").text
    top = [words(element(html, f"entry-{i}").text) for i in entry_ids(html)[:3]]
    assert top[0].startswith("Created") and "by an admin" in top[0]
    assert top[1].startswith("Edited") and "Remember until: no end → 2030-05-01" in top[1]
    assert top[2].startswith("Learned from chats") and "by extraction run run01234" in top[2]
    assert "/admin/runs/" not in html  # a default user has no run page to open
    admin = get_page(world, "admin", f"/admin/users/{alice}/activity").text
    assert 'href="/admin/runs/run0123456789">extraction run run01234</a>' in admin
    assert "by you (as an admin)" in words(element(admin, f"entry-{entry_ids(admin)[0]}").text)
    assert "by alice" in words(element(admin, f"entry-{entry_ids(admin)[1]}").text)
    assert f'data-detail="/api/v1/users/{alice}/memories/{admin_made.id}"' in admin


def test_a_change_of_a_setting_reads_what_changed_where_and_who_did_it(world: World) -> None:
    alice = world.ids["alice"]
    # through the web UI's own forms: her account panel, the admin panel's role form
    assert post_form(world, "alice", "/ui/learning", {"learn": "off"}).status_code == 303
    assert post_form(world, "alice", "/ui/learning", {"learn": "off"}).status_code == 303
    assert post_form(world, "alice", "/ui/review", {"mode": "everything"}).status_code == 303
    role = post_form(world, "admin", f"/ui/users/{alice}/role", {"role": "admin"})
    assert flash_of(role)["text"] == "alice is now an admin."
    html = get_page(world, "alice", "/activity").text
    ids = entry_ids(html)
    assert len(ids) == 3  # turning learning off twice changed it once
    role_change, review, learning = (words(element(html, f"entry-{i}").text) for i in ids)
    assert learning.startswith("Turned off learning from chats")
    assert "by you · Whole account Learning from chats: on → off" in learning
    assert "Chats recorded while it is off are never learned from." in learning
    assert review.startswith("Changed what waits for review") and "by you" in review
    assert (
        "Review of what memoryd learns: as the instance is set → ask before every new or "
        "changed memory" in review
    )
    assert role_change.startswith("Made an admin")
    assert "by an admin · Whole account Role: default user → admin" in role_change
    assert 'data-action="change_setting"' in html
    assert "Open memory" not in html and "All changes to this memory" not in html
    # the admin's view of her log names who did what from where the admin stands
    seen = get_page(world, "admin", f"/admin/users/{alice}/activity").text
    entries = [words(element(seen, f"entry-{i}").text) for i in entry_ids(seen)]
    assert "by you (as an admin)" in entries[0] and "by alice" in entries[2]


def test_the_change_filter_picks_out_setting_changes(world: World, story: Story) -> None:
    world.md.set_learning(story.alice, False)
    world.md.set_review_preference(story.alice, "updates", actor=Actor(Source.ADMIN))
    page = get_page(world, "alice", "/activity?change=settings")
    assert page.status_code == 200
    assert 'option value="settings" selected' in page.text
    texts = [words(element(page.text, f"entry-{i}").text) for i in entry_ids(page.text)]
    assert len(texts) == 2
    assert texts[0].startswith("Changed what waits for review")
    assert "by an admin (command line)" in texts[0]
    assert texts[1].startswith("Turned off learning from chats")
    # a workspace holds no setting of the whole account
    alpha = get_page(world, "alice", "/activity?workspace=alpha&change=settings").text
    assert entry_ids(alpha) == [] and "Nothing matches these filters." in alpha


def test_every_text_is_escaped(world: World) -> None:
    alice = world.ids["alice"]
    nasty = '<script>alert("x")</script> & <b>bold</b>'
    memory = world.md.add_memory(alice, "Plain at first")
    world.md.edit_memory(alice, memory.id, nasty)
    html = get_page(world, "alice", "/activity").text
    assert "<script>alert" not in html and "<b>bold</b>" not in html
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;" in html
    refused = get_page(world, "alice", "/activity?change=<img src=x>")
    assert "<img src=x>" not in refused.text and "&lt;img src=x&gt;" in refused.text


# filters and paging ---------------------------------------------------------------------------
def test_filters_are_plain_get_fields(world: World, story: Story) -> None:
    def shown(query: str, who: str = "alice") -> list[tuple[str, str]]:
        page = get_page(world, who, f"/activity?{query}")
        assert page.status_code == 200, page.text
        return told(world, story, page.text)

    alpha = [("delete_chats", ""), ("update", "plans"), ("create", "plans")]
    assert shown("workspace=alpha") == alpha
    assert shown("change=deleted") == [("delete", "tea")]
    assert shown("change=moved") == [("promote", "vim")]
    assert shown("change=chats") == [("delete_chats", "")]
    assert shown("by=import") == [("create", "imported")]
    assert shown("by=admin&change=deleted") == [("delete", "tea")]
    assert shown("workspace=&change=&by=") == SHOWN[::-1]  # the form's empty fields
    page = get_page(world, "alice", "/activity?workspace=alpha&change=edited")
    assert 'option value="alpha" selected' in page.text
    assert 'option value="edited" selected' in page.text
    assert "Clear filters" in page.text and "gamma" not in element(page.text, "f-workspace").text
    nothing = get_page(world, "bob", "/activity?change=chats").text
    assert "Nothing matches these filters." in nothing


def test_older_pages_follow_the_before_cursor_with_the_filters(world: World, story: Story) -> None:
    newest = entry_ids(get_page(world, "alice", "/activity").text)
    seen: list[int] = []
    address: str | None = "/activity?limit=3"
    pages = 0
    while address is not None:
        page = get_page(world, "alice", address)
        assert page.status_code == 200
        ids = entry_ids(page.text)
        assert 0 < len(ids) <= 3
        seen += ids
        pages += 1
        address = older_link(page.text)
        if address is not None:
            assert address == f"/activity?limit=3&before={ids[-1]}"
        if pages > 1:
            assert 'href="/activity?limit=3">Newest</a>' in page.text
    assert seen == newest and pages == 3  # 9 entries: 3 full pages, no empty fourth
    filtered = get_page(world, "alice", "/activity?workspace=alpha&limit=2").text
    link = older_link(filtered)
    assert link == f"/activity?workspace=alpha&limit=2&before={entry_ids(filtered)[-1]}"
    rest = get_page(world, "alice", link).text
    assert told(world, story, rest) == [("create", "plans")] and older_link(rest) is None
    last = get_page(world, "alice", f"/activity?before={min(newest)}").text
    assert entry_ids(last) == [] and "No older entries." in last


@pytest.mark.parametrize(
    ("query", "status", "said"),
    [
        ("before=abc", 422, "before 'abc' is not an entry number"),
        ("before=0", 422, "before '0' is not an entry number"),
        ("limit=5000", 422, "limit '5000' is not a page size (a whole number, 1 to 200)"),
        ("change=erased", 422, "unknown change 'erased': use one of created, edited, deleted"),
        ("by=robot", 422, "unknown by 'robot': use one of user, admin, extraction, import"),
        ("workspace=Not%20A%20Slug", 422, "invalid workspace slug 'Not A Slug'"),
        ("workspace=gamma", 404, "no workspace 'gamma' for this user"),
    ],
)
def test_a_bad_field_is_a_4xx_that_says_what_is_wrong(
    world: World, story: Story, query: str, status: int, said: str
) -> None:
    page = get_page(world, "alice", f"/activity?{query}")
    assert page.status_code == status
    flashes = re.findall(r'class="flash flash-error"[^>]*>([^<]*)<', page.text)
    assert any(unescape(f).startswith(said) for f in flashes), flashes
    assert entry_ids(page.text) == []
    assert 'id="f-change"' in page.text  # the form is there to fix it


def test_an_entrys_memory_opens_in_the_detail_dialog_and_closes_back_here(
    world: World, story: Story
) -> None:
    plans = story.ids["plans"]
    page = get_page(world, "alice", f"/activity?workspace=alpha&detail={plans}")
    assert page.status_code == 200
    dialog = element(page.text, "memory-detail")
    assert dialog.has("open") and "Phoenix ships in Q4" in dialog.text
    close = re.search(r'class="button close" href="([^"]+)" data-close="memory-detail"', page.text)
    assert close is not None and unescape(close.group(1)) == "/activity?workspace=alpha"
    secret = get_page(world, "alice", f"/activity?detail={story.ids['secret']}")
    assert secret.status_code == 404 and "The gamma launch" not in secret.text
