"""Changes of workspace membership in the member's audit log, through the library, on
SQLite and PostgreSQL: a ``change_setting`` entry of the setting ``membership`` per real
change (the workspace, ``member``/``not member`` before and after, who did it), none for
an add that changes nothing or a refused remove; deleting a workspace records the end of
each membership; an import that creates a workspace records its member; the entry and its
change are written together or not at all; concurrent adds of one member write one
entry; the log's workspace filter finds them.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy.exc import SQLAlchemyError

from memoryd import Memoryd, NotFound
from memoryd.domain.models import Actor, AuditAction, AuditEntry, Source
from memoryd.storage.membership import Memberships
from support.refusing import refuse_setting_entries


def membership_log(md: Memoryd, user_id: int) -> list[tuple[str, str, str, str]]:
    """(workspace, before, after, actor) of the user's membership entries, oldest first."""
    found = []
    for entry in md.audit_log(user_id, action="change_setting"):
        assert entry.before is not None and entry.after is not None
        if entry.after["setting"] == "membership":
            assert entry.before["workspace"] == entry.after["workspace"]
            found.append(
                (
                    entry.after["workspace"],
                    entry.before["value"],
                    entry.after["value"],
                    entry.actor,
                )
            )
    return found


def members(md: Memoryd, slug: str) -> list[str]:
    return [u.name for u in Memberships(md.db).members(slug)]


@pytest.fixture
def alice(any_md: Memoryd) -> int:
    for slug in ("alpha", "beta"):
        any_md.create_workspace(slug)
    return any_md.create_user("alice").id


def test_adding_and_removing_a_member_is_one_entry_each(any_md: Memoryd, alice: int) -> None:
    assert any_md.add_member("alpha", alice) is True
    [entry] = any_md.audit_log(alice)
    assert isinstance(entry, AuditEntry) and entry.action is AuditAction.CHANGE_SETTING
    assert entry.memory_id == "" and entry.user_id == alice and entry.actor == "admin"
    assert entry.before == {"setting": "membership", "workspace": "alpha", "value": "not member"}
    assert entry.after == {"setting": "membership", "workspace": "alpha", "value": "member"}
    assert any_md.add_member("alpha", alice) is False  # a member already: nothing recorded
    assert len(any_md.audit_log(alice)) == 1
    any_md.remove_member("alpha", alice, actor=Actor(Source.ADMIN, 7))
    with pytest.raises(NotFound, match="not a member of workspace 'alpha'"):
        any_md.remove_member("alpha", alice)  # refused: nothing recorded
    assert membership_log(any_md, alice) == [
        ("alpha", "not member", "member", "admin"),
        ("alpha", "member", "not member", "admin:7"),
    ]
    assert members(any_md, "alpha") == []


def test_an_unknown_user_or_workspace_records_nothing(any_md: Memoryd, alice: int) -> None:
    with pytest.raises(NotFound, match="no workspace 'nowhere'"):
        any_md.add_member("nowhere", alice)
    with pytest.raises(NotFound, match="no user"):
        any_md.add_member("alpha", 999_999)
    assert any_md.audit_log(alice) == []


def test_deleting_a_workspace_ends_each_membership_in_each_members_log(
    any_md: Memoryd, alice: int
) -> None:
    bob = any_md.create_user("bob").id
    carol = any_md.create_user("carol").id  # never a member of beta
    any_md.add_member("beta", alice)
    any_md.add_member("beta", bob, actor=Actor(Source.ADMIN, 3))
    any_md.add_member("alpha", carol)
    any_md.delete_workspace("beta", actor=Actor(Source.ADMIN, 3))
    assert membership_log(any_md, alice) == [
        ("beta", "not member", "member", "admin"),
        ("beta", "member", "not member", "admin:3"),
    ]
    assert membership_log(any_md, bob) == [
        ("beta", "not member", "member", "admin:3"),
        ("beta", "member", "not member", "admin:3"),
    ]
    assert membership_log(any_md, carol) == [("alpha", "not member", "member", "admin")]
    any_md.delete_workspace("alpha")  # by the library's caller: admin
    assert membership_log(any_md, carol)[-1] == ("alpha", "member", "not member", "admin")


def test_an_import_that_creates_a_workspace_records_its_member(any_md: Memoryd, alice: int) -> None:
    line = json.dumps({"content": "Orion ships in May", "scope": "workspace", "workspace": "orion"})
    result = any_md.import_memories(alice, [line])
    assert result.workspaces_created == ["orion"]
    assert membership_log(any_md, alice) == [("orion", "not member", "member", f"import:{alice}")]
    assert members(any_md, "orion") == ["alice"]


def test_no_change_without_its_entry(any_md: Memoryd, alice: int) -> None:
    any_md.add_member("beta", alice)
    refuse_setting_entries(any_md)
    with pytest.raises(SQLAlchemyError, match="no setting entries"):
        any_md.add_member("alpha", alice)
    with pytest.raises(SQLAlchemyError, match="no setting entries"):
        any_md.remove_member("beta", alice)
    with pytest.raises(SQLAlchemyError, match="no setting entries"):
        any_md.delete_workspace("beta")
    assert members(any_md, "alpha") == [] and members(any_md, "beta") == ["alice"]
    assert [w.slug for w in any_md.list_workspaces()] == ["alpha", "beta"]
    assert any_md.add_member("beta", alice) is False  # no change, so no entry to refuse


def test_the_workspace_filter_finds_membership_entries(any_md: Memoryd, alice: int) -> None:
    any_md.add_member("alpha", alice)
    any_md.add_member("beta", alice)
    memory = any_md.add_memory(alice, "Phoenix ships in Q3", workspace="alpha")
    alpha = any_md.list_audit(alice, workspace="alpha")
    assert [(e.action.value, e.memory_id) for e in alpha] == [
        ("create", memory.id),
        ("change_setting", ""),
    ]
    assert any_md.list_audit(alice, visible_in=set())[-2:] == any_md.list_audit(alice)[-2:]


def test_concurrent_adds_of_one_member_write_one_entry(any_md: Memoryd, alice: int) -> None:
    with ThreadPoolExecutor(max_workers=6) as pool:
        added = list(pool.map(lambda _: any_md.add_member("alpha", alice), range(6)))
    assert sorted(added) == [False] * 5 + [True]
    assert membership_log(any_md, alice) == [("alpha", "not member", "member", "admin")]
