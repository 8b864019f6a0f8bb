"""The library refuses bad arguments with its own exceptions, never a driver's or Python's.

A caller handling ``MemorydError`` must not be surprised by an ``OverflowError`` from the
SQLite driver (an id too large for an INTEGER column), an ``AttributeError`` from deep
inside (a history that is not a list of messages), or SQLAlchemy's errors for a database
URL that is not one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from memoryd import InvalidInput, Memoryd, MemorydError, NotFound

TOO_BIG = 10**30  # no database column holds it; SQLite's driver overflows on it


@pytest.fixture
def alice(any_md: Memoryd) -> int:
    user = any_md.create_user("alice")
    any_md.create_workspace("phoenix")
    return user.id


USER_CALLS: dict[str, Callable[[Memoryd, Any], object]] = {
    "get_user": lambda md, uid: md.get_user(uid),
    "add_memory": lambda md, uid: md.add_memory(uid, "A fact", scope="global"),
    "list_memories": lambda md, uid: md.list_memories(uid),
    "context": lambda md, uid: md.context(uid, "phoenix", "hi"),
    "record_chat": lambda md, uid: md.record_chat(uid, "phoenix", "p", "r"),
    "list_chats": lambda md, uid: md.list_chats(uid),
    "learns_from_chats": lambda md, uid: md.learns_from_chats(uid),
    "set_learning": lambda md, uid: md.set_learning(uid, False),
    "export_memories": lambda md, uid: md.export_memories(uid),
    "audit_log": lambda md, uid: md.audit_log(uid),
    "list_audit": lambda md, uid: md.list_audit(uid, action="delete"),
    "delete_user": lambda md, uid: md.delete_user(uid),
}


@pytest.mark.parametrize("call", sorted(USER_CALLS))
@pytest.mark.parametrize("user_id", [TOO_BIG, True], ids=["too-big", "bool"])
def test_an_impossible_user_id_is_not_found(
    any_md: Memoryd, alice: int, call: str, user_id: object
) -> None:
    with pytest.raises(NotFound):
        USER_CALLS[call](any_md, user_id)
    assert any_md.get_user(alice).name == "alice"  # True is not user 1


@pytest.mark.parametrize("chat_id", [TOO_BIG, 2**31])
def test_an_impossible_chat_id_is_not_found_and_deletes_nothing(
    any_md: Memoryd, alice: int, chat_id: int
) -> None:
    kept = any_md.record_chat(alice, "phoenix", "I moved to Lisbon", "Noted")
    with pytest.raises(NotFound, match=f"no chat {chat_id}"):
        any_md.get_chat(alice, chat_id)
    with pytest.raises(NotFound, match=f"no chat {chat_id}"):
        any_md.delete_chats(alice, [kept.id, chat_id])
    assert any_md.chat_memories(alice, [chat_id]) == {}
    assert [c.id for c in any_md.list_chats(alice)] == [kept.id]


@pytest.mark.parametrize(
    ("history", "said"),
    [
        ("Let's plan the release.", "history must be a list of messages"),
        (None, "history must be a list of messages"),
        ([1], "history message 1 is not an object"),
        ([{"role": "user", "content": "ok"}, "plain text"], "history message 2 is not an object"),
    ],
)
def test_a_history_that_is_not_messages_is_invalid_input(
    any_md: Memoryd, alice: int, history: Any, said: str
) -> None:
    with pytest.raises(InvalidInput, match=said):
        any_md.context(alice, "phoenix", "When do we ship?", history)


def test_import_lines_that_are_not_text_are_invalid_input(any_md: Memoryd, alice: int) -> None:
    good = '{"content": "Prefers concise answers", "scope": "global"}'
    with pytest.raises(InvalidInput, match="line 2: a line is text"):
        any_md.import_memories(alice, [good, 5])  # type: ignore[list-item]
    assert any_md.list_memories(alice) == []


def test_import_takes_a_whole_file_as_one_string(any_md: Memoryd, alice: int) -> None:
    text = (
        '{"content": "Prefers concise answers", "scope": "global"}\n'
        '{"content": "Phoenix ships in Q3", "workspace": "phoenix"}\n'
    )
    assert any_md.import_memories(alice, text).created == 2  # type: ignore[arg-type]
    assert sorted(m.content for m in any_md.list_memories(alice)) == [
        "Phoenix ships in Q3",
        "Prefers concise answers",
    ]


@pytest.mark.parametrize(
    ("url", "said"),
    [
        (5, "database URL must be text"),
        ("not a url", "cannot open database"),
        ("nonsense://x", "cannot open database nonsense://x"),
        ("sqlite://", "in-memory SQLite is not supported"),
    ],
)
def test_a_database_url_that_is_not_one_is_invalid_input(url: Any, said: str) -> None:
    with pytest.raises(InvalidInput, match=said) as caught:
        Memoryd(url).list_users()
    assert isinstance(caught.value, MemorydError)


def test_a_bad_url_error_hides_the_password() -> None:
    with pytest.raises(InvalidInput) as caught:
        Memoryd("nonsense://bob:hunter2@host/db").list_users()
    assert "hunter2" not in str(caught.value) and "***" in str(caught.value)
