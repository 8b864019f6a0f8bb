"""The audit log through ``MemorydClient`` and ``AsyncMemorydClient`` against a real server,
on SQLite and PostgreSQL: ``audit_log`` reads every page and returns what the library
returns, ``list_audit`` is one page; a default user's key never reaches what the REST API
hides from them; a bad filter is the library's ``InvalidInput``, with its message.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import anyio
import pytest

from memoryd.client import AsyncMemorydClient, MemorydClient
from memoryd.domain.errors import InvalidInput, PermissionDenied
from memoryd.domain.models import AuditAction
from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.testing.live import LiveMemoryd
from support.audit import Story, tell_story


@pytest.fixture
def any_live(tmp_path: Path, embedder: MiniLMEmbedder, db_url: str) -> Iterator[LiveMemoryd]:
    with LiveMemoryd(tmp_path, embedder, database_url=db_url) as server:
        yield server


def story_of(live: LiveMemoryd) -> Story:
    live.md.create_workspace("gamma")  # alice is no member of it
    ids = live.ids
    return tell_story(live.md, ids["alice"], ids["bob"], ids["admin"], kept="alpha", left="gamma")


def test_the_whole_log_like_the_library(any_live: LiveMemoryd) -> None:
    live = any_live
    story = story_of(live)
    alice, md = story.alice, live.md
    mine = {"alpha", "beta"}  # alice's workspaces
    seen = md.list_audit(alice, limit=1000, visible_in=mine)[::-1]
    with MemorydClient(live.url, live.keys["alice"]) as client:
        assert client.audit_log(alice) == seen
        # secret and gone stay in gamma, out of alice's reach; her joining alpha and beta
        # when the live server was set up are the two oldest
        assert len(seen) == 10
        assert [e.after["value"] for e in seen[:2] if e.after] == ["member", "member"]
        gone = story.ids["gone"]
        assert client.audit_log(alice, gone) == []
        vim = story.ids["vim"]
        assert client.audit_log(alice, vim) == md.audit_log(alice, vim)
        page = client.list_audit(alice, limit=3)
        assert page == seen[::-1][:3]
        assert client.list_audit(alice, before=page[-1].id, limit=3) == seen[::-1][3:6]
        deletions = client.list_audit(alice, action=[AuditAction.DELETE, "delete_chats"])
        assert deletions == md.list_audit(alice, action=["delete", "delete_chats"], visible_in=mine)
        assert [e.action for e in deletions] == [AuditAction.DELETE, AuditAction.DELETE_CHATS]
        since = seen[4].at
        assert client.audit_log(alice, since=since) == [e for e in seen if e.at >= since]
        assert client.audit_log(alice, workspace="alpha", actor="user") == md.audit_log(
            alice, workspace="alpha", actor="user"
        )
        with pytest.raises(PermissionDenied):
            client.audit_log(story.bob)
    with MemorydClient(live.url, live.keys["admin"]) as admin:
        assert admin.audit_log(alice) == md.audit_log(alice)
        assert admin.audit_log(alice, gone) == md.audit_log(alice, gone)


def test_every_page_is_read(any_live: LiveMemoryd) -> None:
    """More entries than one page (1,000) holds: the sync and async clients read them all."""
    live = any_live
    alice = live.ids["alice"]
    memory = live.md.add_memory(alice, "Version 0")
    with live.md.db.write() as repo:
        for n in range(1, 1201):
            repo.add_audit(
                memory_id=memory.id,
                user_id=alice,
                action=AuditAction.UPDATE,
                actor=f"user:{alice}",
                before={"content": f"Version {n - 1}", "scope": "global", "workspace": None},
                after={"content": f"Version {n}", "scope": "global", "workspace": None},
                now=datetime.now(UTC),
            )
    expected = live.md.audit_log(alice)
    assert len(expected) == 1203  # with her joining alpha and beta
    with MemorydClient(live.url, live.keys["alice"]) as client:
        assert client.audit_log(alice) == expected
        assert client.audit_log(alice, memory.id) == expected[2:]

    async def read() -> None:
        async with AsyncMemorydClient(live.url, live.keys["alice"]) as client:
            assert await client.audit_log(alice) == expected
            assert await client.list_audit(alice, limit=2) == expected[::-1][:2]

    anyio.run(read)


@pytest.mark.parametrize(
    "filters",
    [
        {"limit": 0},
        {"before": 0},
        {"action": "erase"},
        {"actor": "robot"},
        {"since": "yesterday"},
        {"workspace": "Not A Slug"},
    ],
)
def test_a_bad_filter_is_the_librarys_invalid_input(
    live: LiveMemoryd, filters: dict[str, object]
) -> None:
    alice = live.ids["alice"]
    with pytest.raises(InvalidInput) as library:
        live.md.list_audit(alice, **filters)  # type: ignore[arg-type]
    with MemorydClient(live.url, live.keys["alice"]) as client:
        with pytest.raises(InvalidInput) as remote:
            client.list_audit(alice, **filters)  # type: ignore[arg-type]
        assert str(remote.value) == str(library.value)
