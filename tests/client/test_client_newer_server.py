"""An older client against a newer server: answers carrying enum values the client does not
know (a role, a memory source, an audit action, a suggestion's kind and status) are read,
not refused. The unknown value is kept as the plain string, the known ones are still the
library's enum members, and the rest of the answer is intact; for the generated sync
client and the async one, against a real HTTP server on loopback
(``tests/support/newer_server.py``).
"""

from __future__ import annotations

from collections.abc import Iterator

import anyio
import pytest

from memoryd.client import AsyncMemorydClient, MemorydClient
from memoryd.client._shared import known
from memoryd.domain.models import (
    AuditAction,
    AuditEntry,
    Memory,
    Role,
    Source,
    Suggestion,
    SuggestionKind,
    SuggestionStatus,
    User,
)
from support.newer_server import NewerServer


@pytest.fixture(scope="module")
def newer() -> Iterator[NewerServer]:
    with NewerServer() as server:
        yield server


def test_known_gives_the_member_or_the_string() -> None:
    assert known(Role, "admin") is Role.ADMIN
    assert known(AuditAction, "change_setting") is AuditAction.CHANGE_SETTING
    unknown = known(Role, "auditor")
    assert unknown == "auditor" and type(unknown) is str


def unknown_str(value: object, expected: str) -> bool:
    """The value is the server's plain string, not a member of any enum."""
    return type(value) is str and value == expected


def check_users(me: User, users: list[User], bob: User) -> None:
    assert unknown_str(me.role, "auditor") and (me.id, me.name) == (1, "alice")
    assert me.role != Role.ADMIN and me.role != Role.DEFAULT
    assert [u.name for u in users] == ["alice", "bob"]
    assert unknown_str(users[0].role, "auditor") and users[1].role is Role.DEFAULT
    assert bob == User(2, "bob", Role.DEFAULT)


def check_memories(memories: list[Memory]) -> None:
    new, old = memories
    assert unknown_str(new.source, "sync") and new.content == "Came from a newer kind of source"
    assert old.source is Source.USER and old.content == "Typed by hand"


def check_audit(entries: list[AuditEntry]) -> None:
    assert [e.id for e in entries] == [1, 2, 3]  # oldest first, as the library gives them
    created, setting, quota = entries
    assert created.action is AuditAction.CREATE and created.memory_id == "m-old"
    assert setting.action is AuditAction.CHANGE_SETTING  # a setting it does not know: kept
    assert setting.after == {"setting": "language", "workspace": None, "value": "de"}
    assert unknown_str(quota.action, "change_quota")
    assert quota.before == {"quota": 100} and quota.actor == "admin:9"


def check_suggestions(suggestions: list[Suggestion]) -> None:
    new, old = suggestions
    assert unknown_str(new.kind, "merge") and unknown_str(new.status, "snoozed")
    assert old.kind is SuggestionKind.CREATE and old.status is SuggestionStatus.PENDING


def test_the_sync_client_reads_values_it_does_not_know(newer: NewerServer) -> None:
    with MemorydClient(newer.url, "mdk_any") as client:
        check_users(client.whoami(), client.list_users(), client.get_user(2))
        check_memories(client.list_memories(1))
        check_audit(client.audit_log(1))
        assert [e.id for e in client.list_audit(1, limit=3)] == [3, 2, 1]
        check_suggestions(client.list_suggestions(1, None))
        detail = client.memory_detail(1, "m-new")
        assert unknown_str(detail.memory.source, "sync") and detail.created_by == "sync:1"
        assert [str(e.action) for e in detail.history] == ["change_quota", "create"]
        turn = client.context(1, message="What do I like?")
        assert [unknown_str(s.memory.source, "sync") for s in turn.global_memories] == [
            True,
            False,
        ]
        assert turn.reranker == "newest-model"


def test_the_async_client_reads_values_it_does_not_know(newer: NewerServer) -> None:
    async def read() -> None:
        async with AsyncMemorydClient(newer.url, "mdk_any") as client:
            me = await client.whoami()
            check_users(me, await client.list_users(), await client.get_user(2))
            check_memories(await client.list_memories(1))
            check_audit(await client.audit_log(1))
            check_suggestions(await client.list_suggestions(1, None))
            detail = await client.memory_detail(1, "m-new")
            assert [str(e.action) for e in detail.history] == ["change_quota", "create"]
            turn = await client.context(1, message="What do I like?")
            assert unknown_str(turn.global_memories[0].memory.source, "sync")

    anyio.run(read)
