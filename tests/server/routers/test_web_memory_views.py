"""The memories list without JavaScript, over HTTP: ``?edit=<id>`` renders that memory's
edit form open and filled in (and no other form carries its text), ``?detail=<id>`` renders
the detail dialog open with what the REST API's detail says, another user's memory id is a
404 with a message, the admin's view works for the user they picked, and a refused edit
comes back open with what was typed and why it was refused.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from html import escape

from support.lifecycle import expire_now
from support.server import World
from support.web import element, flash_of, follow, get_page, post_form, words

PANEL = "/chat/alpha?panel=memories"


def later(days: int) -> str:
    return (datetime.now(UTC) + timedelta(days=days)).date().isoformat()


def edit_box(html: str, prefix: str, memory_id: str) -> str:
    return element(html, f"{prefix}-edit-{memory_id}").text


def test_edit_opens_only_that_memorys_form_filled_in(world: World) -> None:
    alice = world.ids["alice"]
    day = later(40)
    chosen = world.md.add_memory(alice, "Alice & Bob <share> a desk", expires_at=day)
    other = world.md.add_memory(alice, "Alpha deploys on Fridays", workspace="alpha")
    plain = get_page(world, "alice", PANEL)
    assert plain.status_code == 200
    # the list links to the server's edit form; no form carries a memory's text
    assert f'href="{PANEL}&amp;edit={chosen.id}"' in plain.text
    assert edit_box(plain.text, "me", chosen.id) == edit_box(plain.text, "me", other.id) == ""
    assert element(plain.text, f"me-edit-form-{chosen.id}").has("hidden")

    page = get_page(world, "alice", f"{PANEL}&edit={chosen.id}")
    assert page.status_code == 200
    assert not element(page.text, f"me-edit-form-{chosen.id}").has("hidden")
    assert edit_box(page.text, "me", chosen.id) == "Alice & Bob <share> a desk"
    assert element(page.text, f"me-edit-until-{chosen.id}").attrs["value"] == day
    assert element(page.text, f"me-edit-{chosen.id}").has("autofocus")
    assert element(page.text, f"me-edit-form-{other.id}").has("hidden")
    assert edit_box(page.text, "me", other.id) == ""
    assert element(page.text, "profile").has("open")
    # Save comes back to the list (not to the open form); Cancel is a link back to the row
    form = element(page.text, f"me-edit-form-{chosen.id}")
    assert form.attrs["action"] == f"/ui/memories/{chosen.id}/edit"
    assert f'name="next" value="{PANEL}"' in page.text
    assert f'href="{PANEL}#me-memory-{chosen.id}" data-cancel-edit' in page.text


def test_saving_from_the_open_form_changes_the_memory(world: World) -> None:
    alice = world.ids["alice"]
    memory = world.md.add_memory(alice, "Alice likes tea", expires_at=later(10))
    form = {"content": "Alice likes green tea", "expires_at": later(20)}
    form["expires_was"] = later(10)
    response = post_form(world, "alice", f"/ui/memories/{memory.id}/edit", form, back=PANEL)
    assert response.headers["location"] == PANEL
    assert flash_of(response) == {"level": "ok", "text": "Memory saved."}
    saved = world.md.get_memory(alice, memory.id)
    assert saved.content == "Alice likes green tea"
    assert saved.expires_at is not None and saved.expires_at.date().isoformat() == later(21)


def test_detail_shows_what_the_api_says(world: World) -> None:
    alice = world.ids["alice"]
    chat = world.md.record_chat(alice, "alpha", "I play the cello in an orchestra.", "Nice!")
    memory = world.md.add_memory(alice, "Plays the cello", source_chat_ids=[chat.id])
    world.md.edit_memory(
        alice, memory.id, "Plays the cello in an orchestra", expires_at="2031-05-01"
    )
    world.md.record_chat(
        alice, "alpha", "Which hall suits a cellist?", "The Gulbenkian.", memory_ids=[memory.id]
    )
    api = world.call("alice", "GET", f"/api/v1/memories/{memory.id}").json()
    page = get_page(world, "alice", f"{PANEL}&detail={memory.id}")
    assert page.status_code == 200
    dialog = element(page.text, "memory-detail")
    assert dialog.has("open") and dialog.attrs["data-memory-id"] == memory.id
    shown = words(dialog.text)
    assert "Plays the cello in an orchestra Where Global" in shown
    assert "Source Added by hand" in shown
    assert "Remember until 2031-05-01 (to the end of the day, UTC)" in shown
    assert "I play the cello in an orchestra." in shown  # came from this chat
    assert "alpha · " in shown and ": Which hall suits a cellist?" in shown  # used in
    assert len(api["history"]) == 2 == page.text.count('data-label="When"')
    # the history reads as the Activity page does (test_memory_history_web has the rest)
    assert "Created you Global Plays the cello" in shown
    edited = "Edited you Global Before: Plays the cello After: Plays the cello in an orchestra"
    assert edited in shown
    assert f"user:{alice} " not in shown.split("History", 1)[1] and "None" not in shown
    close = re.search(
        r'<a class="button close" href="([^"]+)" data-close="memory-detail"', page.text
    )
    assert close and close.group(1) == f"{PANEL}#me-memory-{memory.id}"
    # the list links each memory's Details to this view, and the script to the API
    listing = get_page(world, "alice", PANEL).text
    assert f'href="{PANEL}&amp;detail={memory.id}#memory-detail"' in listing
    assert f'data-detail="/api/v1/memories/{memory.id}"' in listing
    assert not element(listing, "memory-detail").has("open")


def test_another_users_memory_is_a_404_with_a_message(world: World) -> None:
    alice, bob = world.ids["alice"], world.ids["bob"]
    world.md.add_memory(alice, "Alice's own fact")
    secret = world.md.add_memory(bob, "Bob's private plan", workspace="alpha")
    left = world.md.add_memory(alice, "A beta fact", workspace="beta")
    world.auth.remove_member("beta", alice)  # her memories there are no longer hers to see
    for opener in ("edit", "detail"):
        for memory_id in (secret.id, left.id, "no-such-memory"):
            page = get_page(world, "alice", f"{PANEL}&{opener}={memory_id}")
            assert page.status_code == 404, (opener, memory_id)
            assert f"No memory &#39;{memory_id}&#39; for this user." in page.text
            assert "Bob&#39;s private plan" not in page.text and "A beta fact" not in page.text
            assert not element(page.text, "memory-detail").has("open")
            assert "Alice&#39;s own fact" in page.text  # the rest of the page is there


def test_the_admin_opens_the_picked_users_memory(world: World) -> None:
    bob = world.ids["bob"]
    memory = world.md.add_memory(bob, "Bob prefers dark roast", workspace="alpha")
    own = world.md.add_memory(world.ids["admin"], "The admin's own fact")
    listing = f"/admin?tab=memories&user={bob}"
    in_html = escape(listing)
    page = get_page(world, "admin", listing)
    assert f'href="{in_html}&amp;edit={memory.id}"' in page.text
    assert f'data-detail="/api/v1/users/{bob}/memories/{memory.id}"' in page.text

    page = get_page(world, "admin", f"{listing}&edit={memory.id}")
    assert page.status_code == 200
    assert edit_box(page.text, "admin", memory.id) == "Bob prefers dark roast"
    assert f'name="user_id" value="{bob}"' in page.text
    assert not element(page.text, "profile").has("open")  # the admin's own panel stays shut

    page = get_page(world, "admin", f"{listing}&detail={memory.id}")
    dialog = element(page.text, "memory-detail")
    assert dialog.has("open") and "Bob prefers dark roast" in dialog.text
    assert f'href="{in_html}#admin-memory-{memory.id}" data-close="memory-detail"' in page.text
    # the admin's own memories, in their profile panel on the same page
    page = get_page(world, "admin", f"{listing}&panel=memories&detail={own.id}")
    assert page.status_code == 200
    assert "The admin's own fact" in element(page.text, "memory-detail").text
    # a memory of someone the admin did not pick is not in this page
    alices = world.md.add_memory(world.ids["alice"], "Alice's fact")
    assert get_page(world, "admin", f"{listing}&edit={alices.id}").status_code == 404
    # and a default user has no admin panel at all
    assert get_page(world, "bob", f"{listing}&edit={memory.id}").status_code == 303


def refuse(world: World, who: str, memory_id: str, form: dict[str, str], back: str) -> str:
    """Post an edit that must be refused; returns the page it comes back to."""
    response = post_form(world, who, f"/ui/memories/{memory_id}/edit", form, back=back)
    assert flash_of(response)["level"] == "error", flash_of(response)
    assert response.headers["location"] == f"{back}&edit={memory_id}"
    page = follow(world, who, response)
    assert page.status_code == 200
    return str(page.text)


def test_a_refused_edit_comes_back_open_with_what_was_typed(world: World) -> None:
    alice = world.ids["alice"]
    memory = world.md.add_memory(alice, "Alpha ships on Tuesdays", workspace="alpha")
    was = world.md.get_memory(alice, memory.id)
    typed_day = later(30)
    for typed, reason in (
        ("## Alpha ships on Wednesdays", "must not start with Markdown"),
        ("x" * 501, "the limit is 500"),  # not "500": it can be in a memory id
        ("", "empty"),
    ):
        form = {"content": typed, "expires_at": typed_day, "expires_was": ""}
        page = refuse(world, "alice", memory.id, form, PANEL)
        assert not element(page, f"me-edit-form-{memory.id}").has("hidden")
        box = element(page, f"me-edit-{memory.id}")
        assert box.text == typed and box.attrs["aria-invalid"] == "true"
        error = element(page, f"me-edit-{memory.id}-error").text
        assert reason in error, (typed[:20], error)
        assert box.attrs["aria-describedby"] == f"me-edit-{memory.id}-error"
        assert element(page, f"me-edit-until-{memory.id}").attrs["value"] == typed_day
        # the message is in the open panel, not behind it on the page
        assert reason in element(page, "profile").text
        assert reason not in element(page, "main").text
        assert world.md.get_memory(alice, memory.id) == was


def test_a_refused_edit_over_a_scope_limit_keeps_the_text_and_date(world: World) -> None:
    alice = world.ids["alice"]
    gone = world.md.add_memory(alice, "Is in Lisbon this week", expires_at=later(3))
    expire_now(world.md, gone.id)
    for n in range(5):  # Global is full: bringing the expired one back needs a slot
        world.md.add_memory(alice, f"Global fact {n}")
    was = world.md.get_memory(alice, gone.id)
    form = {"content": "Is in Lisbon next week too", "expires_at": later(9)}
    assert was.expires_at is not None
    form["expires_was"] = (was.expires_at - timedelta(days=1)).date().isoformat()
    page = refuse(world, "alice", gone.id, form, PANEL)
    assert edit_box(page, "me", gone.id) == "Is in Lisbon next week too"
    assert element(page, f"me-edit-until-{gone.id}").attrs["value"] == later(9)
    assert "full" in element(page, f"me-edit-{gone.id}-error").text
    assert world.md.get_memory(alice, gone.id) == was


def test_a_refused_edit_by_the_admin_comes_back_to_the_picked_user(world: World) -> None:
    bob = world.ids["bob"]
    memory = world.md.add_memory(bob, "Bob drinks oat milk")
    listing = f"/admin?tab=memories&user={bob}"
    form = {"content": "> Bob drinks soy milk", "user_id": str(bob)}
    page = refuse(world, "admin", memory.id, form, listing)
    assert edit_box(page, "admin", memory.id) == "> Bob drinks soy milk"
    assert "Markdown" in element(page, f"admin-edit-{memory.id}-error").text
    assert world.md.get_memory(bob, memory.id).content == "Bob drinks oat milk"


def test_an_edit_of_a_memory_that_is_gone_goes_back_to_the_list(world: World) -> None:
    memory = world.md.add_memory(world.ids["bob"], "Bob's fact")
    form = {"content": "not alice's to change"}
    response = post_form(world, "alice", f"/ui/memories/{memory.id}/edit", form, back=PANEL)
    assert response.headers["location"] == PANEL  # no form to open again
    assert flash_of(response)["level"] == "error"
    assert world.md.get_memory(world.ids["bob"], memory.id).content == "Bob's fact"
