"""Changes to a user's settings in their audit log (``change_setting``), on SQLite and
PostgreSQL: learning from chats, the review mode and the role, through the library and an
import's preferences line; one entry per real change with the old and new value and who
made it, none when the value stays; the entry and its change are written together or not
at all; the log's filters take the new action.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from sqlalchemy.exc import SQLAlchemyError

from memoryd import InvalidInput, Memoryd
from memoryd.domain.models import Actor, AuditAction, AuditEntry, Role, Source
from support.refusing import refuse_setting_entries


def settings_log(md: Memoryd, user_id: int) -> list[AuditEntry]:
    return md.audit_log(user_id, action="change_setting")


def changes(md: Memoryd, user_id: int) -> list[tuple[str, object, object, str]]:
    """(setting, old value, new value, actor) of the user's setting entries, oldest first."""
    found = []
    for entry in settings_log(md, user_id):
        assert entry.before is not None and entry.after is not None
        assert entry.before["setting"] == entry.after["setting"]
        found.append(
            (entry.after["setting"], entry.before["value"], entry.after["value"], entry.actor)
        )
    return found


@pytest.fixture
def alice(any_md: Memoryd) -> int:
    return any_md.create_user("alice").id


def test_turning_learning_off_and_on_is_one_entry_each(any_md: Memoryd, alice: int) -> None:
    any_md.set_learning(alice, False)
    [entry] = settings_log(any_md, alice)
    assert entry.action is AuditAction.CHANGE_SETTING
    assert entry.memory_id == "" and entry.user_id == alice
    assert entry.actor == f"user:{alice}"
    assert entry.before == {"setting": "learn_from_chats", "workspace": None, "value": True}
    assert entry.after == {"setting": "learn_from_chats", "workspace": None, "value": False}
    any_md.set_learning(alice, False)  # already off: nothing changes, nothing recorded
    assert len(settings_log(any_md, alice)) == 1
    any_md.set_learning(alice, True, actor=Actor(Source.ADMIN))
    assert changes(any_md, alice) == [
        ("learn_from_chats", True, False, f"user:{alice}"),
        ("learn_from_chats", False, True, "admin"),
    ]
    assert any_md.learns_from_chats(alice) is True


def test_the_review_mode_records_default_when_the_user_follows_the_instance(
    any_md: Memoryd, alice: int
) -> None:
    any_md.set_review_preference(alice, "updates")
    any_md.set_review_preference(alice, "UPDATES")  # the same mode, spelled otherwise
    any_md.set_review_preference(alice, "everything", actor=Actor(Source.ADMIN, 7))
    any_md.set_review_preference(alice, None)
    any_md.set_review_preference(alice, None)
    assert changes(any_md, alice) == [
        ("memory_review", "default", "updates", f"user:{alice}"),
        ("memory_review", "updates", "everything", "admin:7"),
        ("memory_review", "everything", "default", f"user:{alice}"),
    ]


def test_a_role_change_is_in_the_users_own_log(any_md: Memoryd, alice: int) -> None:
    root = any_md.create_user("root", Role.ADMIN).id
    any_md.set_role(alice, "admin")  # the library's caller administers the database
    any_md.set_role(alice, Role.ADMIN)
    any_md.set_role(alice, "default", keep_an_admin=True, actor=Actor(Source.ADMIN, root))
    assert changes(any_md, alice) == [
        ("role", "default", "admin", "admin"),
        ("role", "admin", "default", f"admin:{root}"),
    ]
    assert settings_log(any_md, root) == []


def test_a_refused_change_records_nothing(any_md: Memoryd, alice: int) -> None:
    root = any_md.create_user("root", Role.ADMIN).id
    with pytest.raises(InvalidInput):
        any_md.set_learning(alice, "no")  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        any_md.set_review_preference(alice, "sometimes")
    with pytest.raises(InvalidInput):
        any_md.set_role(alice, "owner")
    with pytest.raises(Exception, match="last admin"):
        any_md.set_role(root, "default", keep_an_admin=True)
    assert settings_log(any_md, alice) == [] and settings_log(any_md, root) == []
    assert any_md.get_user(root).role is Role.ADMIN


def test_an_import_records_the_choices_its_preferences_line_changes(
    any_md: Memoryd, alice: int
) -> None:
    any_md.set_review_preference(alice, "updates")
    line = {"preferences": {"learn_from_chats": False, "memory_review": "updates"}}
    memory = json.dumps({"content": "Reads science fiction"})
    any_md.import_memories(alice, [json.dumps(line), memory])
    assert changes(any_md, alice) == [
        ("memory_review", "default", "updates", f"user:{alice}"),
        ("learn_from_chats", True, False, f"import:{alice}"),  # review mode was already so
    ]
    again = {"preferences": {"learn_from_chats": True, "memory_review": "everything"}}
    any_md.import_memories(alice, [json.dumps(again)], preferences=False)
    assert len(settings_log(any_md, alice)) == 2  # its choices were left alone
    assert any_md.learns_from_chats(alice) is False


@pytest.fixture
def refusing_setting_entries(any_md: Memoryd) -> Iterator[None]:
    refuse_setting_entries(any_md)
    yield


@pytest.mark.usefixtures("refusing_setting_entries")
def test_no_change_without_its_entry(any_md: Memoryd, alice: int) -> None:
    with pytest.raises(SQLAlchemyError, match="no setting entries"):
        any_md.set_learning(alice, False)
    with pytest.raises(SQLAlchemyError, match="no setting entries"):
        any_md.set_review_preference(alice, "everything")
    with pytest.raises(SQLAlchemyError, match="no setting entries"):
        any_md.set_role(alice, "admin")
    line = json.dumps({"preferences": {"learn_from_chats": False}})
    with pytest.raises(SQLAlchemyError, match="no setting entries"):
        any_md.import_memories(alice, [line, json.dumps({"content": "Likes jazz"})])
    assert any_md.learns_from_chats(alice) is True
    assert any_md.review_preference(alice) is None
    assert any_md.get_user(alice).role is Role.DEFAULT
    assert any_md.list_memories(alice) == []  # the import's memory went back with it
    any_md.set_learning(alice, True)  # no change, so no entry to refuse
    assert any_md.audit_log(alice) == []


def test_the_logs_filters_and_visibility_take_setting_entries(any_md: Memoryd, alice: int) -> None:
    any_md.create_workspace("alpha")
    memory = any_md.add_memory(alice, "Phoenix ships in Q3", workspace="alpha")
    any_md.set_learning(alice, False)
    any_md.set_role(alice, "admin")
    newest = any_md.list_audit(alice)
    assert [e.action.value for e in newest] == ["change_setting", "change_setting", "create"]
    assert any_md.list_audit(alice, action=["change_setting"]) == newest[:2]
    assert any_md.list_audit(alice, action=AuditAction.CHANGE_SETTING, actor="admin") == [newest[0]]
    assert any_md.list_audit(alice, actor="user") == newest[1:]
    # in no workspace: a workspace filter leaves them out, and they are never hidden
    assert [e.memory_id for e in any_md.list_audit(alice, workspace="alpha")] == [memory.id]
    assert any_md.list_audit(alice, visible_in=set()) == newest[:2]
    with pytest.raises(InvalidInput, match="change_setting"):
        any_md.list_audit(alice, action="change_settings")
