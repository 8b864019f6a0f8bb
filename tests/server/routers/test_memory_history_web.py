"""A memory's History in its detail dialog, over HTTP: it reads as the Activity page
words its entries ("Edited", "by you", "an admin", "extraction run 1a2b3c4d"), both where
the server renders the dialog (``?detail=``) and in the table alone that memoryd.js puts
into the dialog (``.../activity/history/{id}``), which only the memory's owner (or an
admin) may read; its "All changes to this memory" link is the Activity page narrowed to
the memory (``memory=``), which works for a deleted memory too.
"""

from __future__ import annotations

import re
from html import unescape

import pytest

from memoryd.domain.models import Actor, Source
from support.server import World
from support.web import element, get_page, words

PANEL = "/chat/alpha?panel=memories"
RUN = "run0123456789"


def rows(html: str) -> list[str]:
    """The History table's rows, each as its words without its time (the first cell)."""
    body = re.search(r'<table class="detail-history">.*?<tbody>(.*?)</tbody>', html, re.S)
    assert body is not None, "no History table"
    cells = re.findall(r"<tr[^>]*>(.*?)</tr>", body.group(1), re.S)
    said = [words(unescape(re.sub(r"<[^>]+>", " ", c))) for c in cells]
    assert all(re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC ", s) for s in said), said
    return [s[len("2026-01-01 00:00 UTC ") :] for s in said]


def a_memory_with_every_kind_of_author(world: World) -> str:
    """alice's memory learned by an extraction run, edited by her, moved by an admin."""
    alice, admin = world.ids["alice"], world.ids["admin"]
    run = Actor(Source.EXTRACTION, run_id=RUN)
    memory = world.md.add_memory(alice, "Likes jazz", actor=run)
    world.md.edit_memory(alice, memory.id, "Likes cool jazz", expires_at="2030-05-01")
    world.md.demote(alice, memory.id, "alpha", actor=Actor(Source.ADMIN, admin))
    return memory.id


WORDED = [  # what alice reads, oldest first
    "Learned from chats extraction run run01234 Global Likes jazz",
    "Edited you Global Before: Likes jazz After: Likes cool jazz"
    " Remember until: no end → 2030-05-01",
    "Moved to workspace alpha an admin Global → Workspace alpha Likes cool jazz",
]


def test_the_detail_dialogs_history_reads_as_the_activity_page(world: World) -> None:
    memory_id = a_memory_with_every_kind_of_author(world)
    page = get_page(world, "alice", f"{PANEL}&detail={memory_id}")
    assert page.status_code == 200
    dialog = page.text[page.text.index('id="memory-detail"') :]
    assert rows(dialog) == WORDED
    for raw in ("update", "demote", "user:", "admin:", "extraction:"):
        assert raw not in words(element(page.text, "memory-detail").text).split("History")[1]
    assert "/admin/runs/" not in dialog  # a default user has no run page to open
    assert f'<a href="/activity?memory={memory_id}">All changes to this memory</a>' in dialog
    # the script's copy of the table is the same, from the same template
    alone = get_page(world, "alice", f"/activity/history/{memory_id}")
    assert alone.status_code == 200 and alone.headers["content-type"].startswith("text/html")
    assert rows(alone.text) == WORDED
    assert f'href="/activity?memory={memory_id}"' in alone.text
    # and the list's Details link says where the script finds it
    listing = get_page(world, "alice", PANEL).text
    assert f'data-history="/activity/history/{memory_id}"' in listing


def test_an_admin_reads_a_users_memory_history_with_the_run_linked(world: World) -> None:
    alice = world.ids["alice"]
    memory_id = a_memory_with_every_kind_of_author(world)
    listing = f"/admin?tab=memories&user={alice}"
    page = get_page(world, "admin", f"{listing}&detail={memory_id}").text
    dialog = page[page.index('id="memory-detail"') :]
    expected = [
        WORDED[0],
        WORDED[1].replace(" you ", " alice "),
        WORDED[2].replace(" an admin ", " you (as an admin) "),
    ]
    assert rows(dialog) == expected
    assert f'<a href="/admin/runs/{RUN}">extraction run run01234</a>' in dialog
    base = f"/admin/users/{alice}/activity"
    assert f'href="{base}?memory={memory_id}">All changes to this memory</a>' in dialog
    assert f'data-history="{base}/history/{memory_id}"' in get_page(world, "admin", listing).text
    alone = get_page(world, "admin", f"{base}/history/{memory_id}")
    assert alone.status_code == 200 and rows(alone.text) == expected


def test_the_history_alone_is_only_for_whoever_may_open_the_memory(world: World) -> None:
    alice, bob = world.ids["alice"], world.ids["bob"]
    mine = world.md.add_memory(alice, "Alice's own fact").id
    left = world.md.add_memory(alice, "A beta fact", workspace="beta").id
    world.auth.remove_member("beta", alice)
    for path, who, status, said in [
        (f"/activity/history/{mine}", None, 401, "You are signed out: sign in again."),
        (f"/activity/history/{mine}", "bob", 404, f"No memory '{mine}' for this user."),
        (f"/activity/history/{left}", "alice", 404, f"No memory '{left}' for this user."),
        ("/activity/history/no-such", "alice", 404, "No memory 'no-such' for this user."),
        (f"/admin/users/{alice}/activity/history/{mine}", None, 401, "You are signed out"),
        (f"/admin/users/{alice}/activity/history/{mine}", "bob", 403, "The admin panel is for"),
        (f"/admin/users/{bob}/activity/history/{mine}", "admin", 404, f"No memory '{mine}'"),
        (f"/admin/users/999999/activity/history/{mine}", "admin", 404, "No user '999999'."),
    ]:
        answer = get_page(world, who, path)
        assert (answer.status_code, answer.text[: len(said)]) == (status, said), path
        assert "Alice&#39;s own fact" not in answer.text and "Alice's own fact" not in answer.text


def test_the_activity_page_narrows_to_one_memory(world: World) -> None:
    alice = world.ids["alice"]
    memory_id = a_memory_with_every_kind_of_author(world)
    other = world.md.add_memory(alice, "Something else").id
    world.md.delete_memory(alice, other)
    page = get_page(world, "alice", f"/activity?memory={memory_id}")
    assert page.status_code == 200
    actions = re.findall(r'data-action="([a-z_]+)"', page.text)
    assert actions == ["demote", "update", "create"]
    assert words(element(page.text, "activity-memory").text) == (
        "Only the changes to one memory: Likes cool jazz . Changes to every memory"
    )
    assert f'name="memory" value="{memory_id}"' in page.text  # kept by the filter form
    assert "Clear filters" in page.text
    # a deleted memory's entries are still there, and each entry links to its memory's
    everything = get_page(world, "alice", "/activity").text
    assert f'href="/activity?memory={other}" aria-label="All changes to this memory' in everything
    gone = get_page(world, "alice", f"/activity?memory={other}").text
    assert re.findall(r'data-action="([a-z_]+)"', gone) == ["delete", "create"]
    assert "All changes to this memory" not in gone  # already narrowed to it
    # with the other filters; someone else's memory is nothing
    edited = get_page(world, "alice", f"/activity?memory={memory_id}&change=edited").text
    assert re.findall(r'data-action="([a-z_]+)"', edited) == ["update"]
    bobs = get_page(world, "bob", f"/activity?memory={memory_id}").text
    assert "data-entry-id" not in bobs and "Nothing matches these filters." in bobs
    admin = get_page(world, "admin", f"/admin/users/{alice}/activity?memory={memory_id}").text
    assert len(re.findall(r"data-entry-id=", admin)) == 3


@pytest.mark.parametrize("memory", ["x" * 65])
def test_a_too_long_memory_id_is_a_422_that_says_so(world: World, memory: str) -> None:
    page = get_page(world, "alice", f"/activity?memory={memory}")
    assert page.status_code == 422
    assert "memory id is too long (at most 64 characters)" in page.text
