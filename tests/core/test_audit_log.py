"""Reading a user's whole audit log with the library: ``list_audit`` pages newest first
with a ``before`` cursor, ``audit_log`` gives everything oldest first, both with the same
filters, on SQLite and PostgreSQL; entries of memories in workspaces a reader may no
longer see are left out with ``visible_in``; bad values are ``InvalidInput``.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memoryd import InvalidInput, Memoryd, NotFound
from memoryd.domain.models import AuditAction, AuditEntry
from support.audit import STORY, Story, tell_story


@pytest.fixture
def story(any_md: Memoryd) -> Story:
    for slug in ("alpha", "beta", "gamma"):
        any_md.create_workspace(slug)
    alice, bob, admin = (any_md.create_user(n).id for n in ("alice", "bob", "root"))
    return tell_story(any_md, alice, bob, admin, kept="alpha", left="gamma")


def told(story: Story, entries: list[AuditEntry]) -> list[tuple[str, str]]:
    """The entries as STORY writes them: (action, memory name)."""
    names = story.names([e.memory_id for e in entries])
    return [(e.action.value, name) for e, name in zip(entries, names, strict=True)]


def read_every_page(md: Memoryd, story: Story, limit: int, **filters: object) -> list[AuditEntry]:
    pages: list[list[AuditEntry]] = []
    before = None
    while True:
        page = md.list_audit(story.alice, before=before, limit=limit, **filters)  # type: ignore[arg-type]
        pages.append(page)
        if len(page) < limit:
            return [e for p in pages for e in p]
        before = page[-1].id


def test_the_whole_log_newest_first_page_by_page(any_md: Memoryd, story: Story) -> None:
    everything = any_md.audit_log(story.alice)
    assert told(story, everything) == STORY
    assert {e.user_id for e in everything} == {story.alice}
    newest = any_md.list_audit(story.alice)
    assert newest == everything[::-1]  # one default page holds all eleven
    for limit in (1, 2, 3, 11):
        assert read_every_page(any_md, story, limit) == newest
    first = any_md.list_audit(story.alice, limit=4)
    assert told(story, first) == STORY[::-1][:4]
    rest = any_md.list_audit(story.alice, before=first[-1].id)
    assert told(story, rest) == STORY[::-1][4:]
    assert any_md.list_audit(story.alice, before=everything[0].id) == []  # nothing older
    imported, deleted_by_admin = everything[-2], everything[-1]
    assert imported.actor == f"import:{story.alice}"
    assert deleted_by_admin.actor == f"admin:{story.admin}"
    assert deleted_by_admin.before is not None and deleted_by_admin.after is None
    assert deleted_by_admin.before["content"] == "Prefers tea"


def test_a_cursor_need_not_be_one_of_the_users_entries(any_md: Memoryd, story: Story) -> None:
    """Entry ids are shared by all users and only grow, so any id is a place in time."""
    bobs = any_md.audit_log(story.bob)[0].id
    older = any_md.list_audit(story.alice, before=bobs)
    assert told(story, older) == [("create", "tea")]
    assert any_md.list_audit(story.alice, before=2**31 - 1) == any_md.list_audit(story.alice)
    assert [e.memory_id for e in any_md.list_audit(story.bob)] == [
        m.id for m in any_md.list_memories(story.bob)
    ]


def test_one_memory_even_deleted(any_md: Memoryd, story: Story) -> None:
    gone = story.ids["gone"]
    assert told(story, any_md.audit_log(story.alice, gone)) == [
        ("create", "gone"),
        ("delete", "gone"),
    ]
    assert told(story, any_md.list_audit(story.alice, memory_id=gone)) == [
        ("delete", "gone"),
        ("create", "gone"),
    ]
    assert any_md.list_audit(story.alice, memory_id="0" * 32) == []
    assert any_md.list_audit(story.bob, memory_id=gone) == []  # alice's, not bob's


def test_filters(any_md: Memoryd, story: Story) -> None:
    def oldest_first(**filters: object) -> list[tuple[str, str]]:
        listed = any_md.audit_log(story.alice, **filters)  # type: ignore[arg-type]
        assert read_every_page(any_md, story, 2, **filters) == listed[::-1]
        return told(story, listed)

    assert oldest_first(action="delete") == [("delete", "gone"), ("delete", "tea")]
    assert oldest_first(action=["promote", AuditAction.DELETE_CHATS]) == [
        ("promote", "vim"),
        ("delete_chats", ""),
    ]
    assert oldest_first(actor="import") == [("create", "imported")]
    assert oldest_first(actor="admin") == oldest_first(actor=f"admin:{story.admin}")
    assert oldest_first(actor="admin") == [("delete", "tea")]
    assert len(oldest_first(actor=f"user:{story.alice}")) == len(STORY) - 2
    assert oldest_first(actor=f"user:{story.bob}") == []
    assert oldest_first(actor="extraction") == []
    # a workspace: what was in it before or after the change, and chats deleted there
    assert oldest_first(workspace="alpha") == [
        ("create", "plans"),
        ("update", "plans"),
        ("delete_chats", ""),
    ]
    assert oldest_first(workspace="gamma") == [
        ("create", "secret"),
        ("create", "vim"),
        ("promote", "vim"),
        ("create", "gone"),
        ("delete", "gone"),
        ("delete_chats", ""),
    ]
    assert oldest_first(workspace="beta") == []
    assert oldest_first(workspace="gamma", action="create", memory_id=story.ids["vim"]) == [
        ("create", "vim")
    ]


def test_since(any_md: Memoryd, story: Story) -> None:
    everything = any_md.audit_log(story.alice)
    middle = everything[5].at
    expected = [e for e in everything if e.at >= middle]
    assert any_md.audit_log(story.alice, since=middle) == expected
    assert any_md.audit_log(story.alice, since=middle.isoformat()) == expected
    assert any_md.audit_log(story.alice, since="2000-01-01") == everything
    tomorrow = (datetime.now(UTC) + timedelta(days=1)).date()
    assert any_md.audit_log(story.alice, since=tomorrow) == []
    assert any_md.list_audit(story.alice, since=tomorrow.isoformat()) == []
    naive = middle.replace(tzinfo=None)  # read as UTC
    assert any_md.audit_log(story.alice, since=naive) == expected


def test_visible_in_hides_memories_last_seen_in_other_workspaces(
    any_md: Memoryd, story: Story
) -> None:
    """What a default user who left ``gamma`` sees: not the memories still there or
    deleted there, but a memory promoted out of it (whole history), globals, and the chat
    deletion (counts and ids, no text)."""
    shown = [("create", "tea"), *STORY[1:3], *STORY[4:6], *STORY[8:]]
    page = any_md.list_audit(story.alice, visible_in={"alpha", "beta"})
    assert told(story, page) == shown[::-1]
    assert read_every_page(any_md, story, 2, visible_in=["alpha", "beta"]) == page
    assert any_md.list_audit(story.alice, memory_id=story.ids["secret"], visible_in=[]) == []
    assert told(story, any_md.list_audit(story.alice, visible_in=[])) == [
        e for e in shown[::-1] if e[1] != "plans"
    ]
    assert any_md.list_audit(story.alice, visible_in={"alpha", "gamma"}) == any_md.list_audit(
        story.alice
    )


def test_more_than_a_thousand_entries_are_all_read(any_md: Memoryd) -> None:
    """``audit_log`` once stopped at the 1,000 oldest entries without saying so."""
    user = any_md.create_user("busy").id
    memory = any_md.add_memory(user, "Version 0")
    with any_md.db.write() as repo:
        for n in range(1, 1001):
            repo.add_audit(
                memory_id=memory.id,
                user_id=user,
                action=AuditAction.UPDATE,
                actor=f"user:{user}",
                before={"content": f"Version {n - 1}"},
                after={"content": f"Version {n}"},
                now=datetime.now(UTC),
            )
    everything = any_md.audit_log(user)
    assert len(everything) == 1001
    assert everything[-1].after == {"content": "Version 1000"}
    assert len(any_md.audit_log(user, memory.id)) == 1001
    assert len(any_md.memory_detail(user, memory.id).history) == 1001
    assert any_md.list_audit(user, limit=1000)[0] == everything[-1]


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        ({"before": 0}, "before 0 is not an audit entry id"),
        ({"before": -3}, "before -3 is not an audit entry id"),
        ({"before": True}, "before True is not an audit entry id"),
        ({"before": "12"}, "before '12' is not an audit entry id"),
        ({"before": 2**31}, "a whole number from 1 to 2147483647"),
        ({"limit": 0}, "limit 0 is not a whole number from 1 to 1000"),
        ({"limit": 1001}, "limit 1001 is not a whole number from 1 to 1000"),
        ({"limit": "10"}, "limit '10' is not a whole number"),
        ({"action": "erase"}, "unknown action 'erase': use one of create, update, delete,"),
        ({"action": ["create", 5]}, "unknown action 5"),
        ({"action": 5}, "action 5 is not an action"),
        ({"actor": "robot"}, "unknown actor 'robot': use one of user, admin, extraction,"),
        ({"actor": ""}, "actor '' is not an actor"),
        ({"workspace": "Not A Slug"}, "invalid workspace slug 'Not A Slug'"),
        ({"since": "yesterday"}, r"invalid since 'yesterday': use a date \(YYYY-MM-DD\)"),
        ({"since": 5}, "invalid since 5"),
        ({"memory_id": ""}, "memory id '' is not a memory id"),
        ({"memory_id": "x" * 65}, "is not a memory id"),
        ({"visible_in": "alpha"}, "visible_in is a collection of workspace slugs"),
    ],
)
def test_bad_arguments_are_invalid_input(
    any_md: Memoryd, arguments: dict[str, object], said: str
) -> None:
    user = any_md.create_user("alice").id
    with pytest.raises(InvalidInput, match=said):
        any_md.list_audit(user, **arguments)  # type: ignore[arg-type]


def test_an_unknown_user_is_not_found(any_md: Memoryd) -> None:
    with pytest.raises(NotFound, match="no user with id 4242"):
        any_md.list_audit(4242)
    with pytest.raises(NotFound):
        any_md.audit_log(4242, action="create")
