"""A user deletes their recorded chats: one, several, a workspace's or all of them.

The rows go (text and memory links), only the user's own chats can be named, the audit
log says how many went and who deleted them without their text, memories learned from a
deleted chat stay and keep its id (shown as deleted in their detail, kept by export and
import), and no chat id is ever given twice. On SQLite and PostgreSQL (``any_md``).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import func, select

from memoryd import Memoryd
from memoryd.domain.errors import InvalidInput, NotFound
from memoryd.domain.models import Actor, AuditAction, Source
from memoryd.storage.tables import audit_log, chat_memories, chats


def team(md: Memoryd) -> tuple[int, int]:
    """Alice and Bob, both chatting in lab and home."""
    md.create_workspace("lab")
    md.create_workspace("home")
    return md.create_user("alice").id, md.create_user("bob").id


def rows_saying(md: Memoryd, text: str) -> int:
    """How many chat rows still hold ``text``, read straight from the table."""
    with md.db.read() as repo:
        query = select(func.count()).where((chats.c.prompt == text) | (chats.c.response == text))
        return int(repo.conn.execute(query).scalar_one())


def test_deleting_a_chat_erases_its_row_and_links(any_md: Memoryd) -> None:
    alice, _ = team(any_md)
    memory = any_md.add_memory(alice, "Prefers short answers")
    kept = any_md.record_chat(alice, "lab", "keep me", "ok")
    doomed = any_md.record_chat(
        alice, "lab", "my bank PIN is 4321", "noted", memory_ids=[memory.id]
    )

    assert any_md.delete_chat(alice, doomed.id) == 1

    assert rows_saying(any_md, "my bank PIN is 4321") == rows_saying(any_md, "noted") == 0
    with any_md.db.read() as repo:
        links = select(func.count()).where(chat_memories.c.chat_id == doomed.id)
        assert repo.conn.execute(links).scalar_one() == 0
    assert [c.id for c in any_md.list_chats(alice)] == [kept.id]
    with pytest.raises(NotFound):
        any_md.get_chat(alice, doomed.id)
    assert any_md.chats_using(alice, memory.id) == []
    with pytest.raises(NotFound):  # deleted once is gone: a second time is not found
        any_md.delete_chat(alice, doomed.id)


def test_another_users_chat_is_not_found_and_stays(any_md: Memoryd) -> None:
    alice, bob = team(any_md)
    bobs = any_md.record_chat(bob, "lab", "Bob's words", "ok")
    mine = any_md.record_chat(alice, "lab", "Alice's words", "ok")
    with pytest.raises(NotFound) as others:
        any_md.delete_chat(alice, bobs.id)
    with pytest.raises(NotFound) as unknown:
        any_md.delete_chat(alice, 999_999)
    # the same answer as for a chat that does not exist: nothing says Bob's is there
    assert str(others.value) == f"no chat {bobs.id} for this user"
    assert str(unknown.value) == "no chat 999999 for this user"
    with pytest.raises(NotFound):  # all or nothing: Alice's own chat stays too
        any_md.delete_chats(alice, [mine.id, bobs.id])
    assert any_md.get_chat(bob, bobs.id).prompt == "Bob's words"
    assert any_md.get_chat(alice, mine.id).prompt == "Alice's words"
    assert any_md.audit_log(alice) == []


def test_clearing_a_workspace_then_everything(any_md: Memoryd) -> None:
    alice, bob = team(any_md)
    for n in range(3):
        any_md.record_chat(alice, "lab", f"lab {n}", "ok")
    any_md.record_chat(alice, "home", "home 0", "ok")
    bobs = any_md.record_chat(bob, "lab", "Bob in lab", "ok")

    assert any_md.clear_chats(alice, "lab") == 3
    assert [c.prompt for c in any_md.list_chats(alice)] == ["home 0"]
    assert any_md.clear_chats(alice, "lab") == 0
    assert any_md.clear_chats(alice) == 1
    assert any_md.list_chats(alice) == []
    assert any_md.clear_chats(alice) == 0
    assert [c.id for c in any_md.list_chats(bob)] == [bobs.id]
    with pytest.raises(NotFound, match="no workspace 'nope'"):
        any_md.clear_chats(alice, "nope")
    with pytest.raises(NotFound, match="no user"):
        any_md.clear_chats(12345)


def test_bad_chat_ids_are_refused(any_md: Memoryd) -> None:
    alice, _ = team(any_md)
    chat = any_md.record_chat(alice, "lab", "hi", "ok")
    with pytest.raises(InvalidInput, match="whole numbers"):
        any_md.delete_chats(alice, [str(chat.id)])  # type: ignore[list-item]
    with pytest.raises(InvalidInput, match="whole numbers"):
        any_md.delete_chats(alice, [True])
    with pytest.raises(InvalidInput, match="list of whole numbers"):
        any_md.delete_chats(alice, "12")  # type: ignore[arg-type]
    assert any_md.delete_chats(alice, []) == 0
    assert any_md.delete_chats(alice, [chat.id, chat.id]) == 1


def test_the_audit_log_says_how_many_and_who_without_the_text(any_md: Memoryd) -> None:
    alice, _ = team(any_md)
    first = any_md.record_chat(alice, "lab", "secret one", "reply one")
    second = any_md.record_chat(alice, "lab", "secret two", "reply two")
    third = any_md.record_chat(alice, "home", "secret three", "reply three")
    any_md.delete_chats(alice, [second.id, first.id])
    any_md.clear_chats(alice, actor=Actor(Source.ADMIN))

    entries = any_md.audit_log(alice)
    assert [(e.action, e.memory_id, e.actor) for e in entries] == [
        (AuditAction.DELETE_CHATS, "", f"user:{alice}"),
        (AuditAction.DELETE_CHATS, "", "admin"),
    ]
    assert entries[0].before == {
        "count": 2,
        "workspaces": {"lab": 2},
        "chat_ids": [first.id, second.id],
    }
    assert entries[1].before == {"count": 1, "workspaces": {"home": 1}, "chat_ids": [third.id]}
    assert entries[0].after is None and entries[1].after is None
    with any_md.db.read() as repo:
        stored = json.dumps([list(r) for r in repo.conn.execute(select(audit_log))], default=str)
    assert "secret" not in stored and "reply" not in stored


def test_memories_learned_from_a_deleted_chat_stay_with_its_id(any_md: Memoryd) -> None:
    alice, _ = team(any_md)
    said = any_md.record_chat(alice, "lab", "I moved to Lisbon", "Nice")
    other = any_md.record_chat(alice, "lab", "The lab uses Slurm", "ok")
    memory = any_md.add_memory(alice, "Lives in Lisbon", source_chat_ids=[said.id, other.id])
    any_md.delete_chat(alice, said.id)

    kept = any_md.get_memory(alice, memory.id)
    assert kept.content == "Lives in Lisbon"
    assert kept.source_chat_ids == (said.id, other.id)
    detail = any_md.memory_detail(alice, memory.id)
    assert [c.id for c in detail.source_chats] == [other.id]
    assert detail.deleted_source_chat_ids == (said.id,)
    # export keeps the id, and importing it again is accepted (an id no chat has)
    exported = any_md.export_memories(alice)
    assert json.loads(exported[1])["source_chat_ids"] == [said.id, other.id]
    any_md.delete_memory(alice, memory.id)
    assert any_md.import_memories(alice, exported).created == 1
    assert any_md.memory_detail(alice, memory.id).deleted_source_chat_ids == (said.id,)


def test_a_deleted_chats_id_is_never_given_again(any_md: Memoryd) -> None:
    """SQLite numbers a row max(id) + 1; a new chat must not take a deleted chat's id
    (memories name it as their source). PostgreSQL's sequence never repeats one."""
    alice, bob = team(any_md)
    any_md.record_chat(alice, "lab", "old", "ok")
    newest = any_md.record_chat(alice, "lab", "newest", "ok")
    memory = any_md.add_memory(alice, "Said something once", source_chat_ids=[newest.id])
    any_md.delete_chat(alice, newest.id)

    bobs = any_md.record_chat(bob, "lab", "Bob's first", "ok")
    assert bobs.id > newest.id
    detail = any_md.memory_detail(alice, memory.id)
    assert detail.source_chats == () and detail.deleted_source_chat_ids == (newest.id,)
    # Alice's export still imports: the id is not another user's chat now
    assert any_md.import_memories(alice, any_md.export_memories(alice)).unchanged == 1

    # the same after a user or a workspace is deleted with their chats
    carol = any_md.create_user("carol").id
    carols = any_md.record_chat(carol, "home", "Carol's", "ok")
    any_md.delete_user(carol)
    assert any_md.record_chat(bob, "lab", "after carol", "ok").id > carols.id
    any_md.create_workspace("tmp")
    in_tmp = any_md.record_chat(bob, "tmp", "in tmp", "ok")
    any_md.delete_workspace("tmp")
    assert any_md.record_chat(bob, "lab", "after tmp", "ok").id > in_tmp.id


def test_clearing_writes_queued_exchanges_first(any_md: Memoryd) -> None:
    """An exchange queued for the background writer just before a clear is cleared too,
    not recorded after it."""
    alice, _ = team(any_md)
    any_md.record_chat_later(alice, "lab", "queued just before", "ok")
    assert any_md.clear_chats(alice) == 1
    any_md.writer.flush()
    assert any_md.list_chats(alice) == []


def test_the_text_is_gone_from_the_sqlite_file(sqlite_md: Memoryd) -> None:
    """Not only unlisted: once SQLite checkpoints its log, no byte of it is in the file."""
    alice, _ = team(sqlite_md)
    marker = "zq-unique-marker-" * 40  # long enough to spill out of a row into its own page
    for n in range(5):
        sqlite_md.record_chat(alice, "lab", f"{marker}{n}", f"reply {marker}")
    sqlite_md.clear_chats(alice)
    path = Path(sqlite_md.db.engine.url.database or "")
    sqlite_md.close()  # the last connection checkpoints the log into the file
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    for part in (path, path.with_name(path.name + "-wal")):
        if part.exists():
            assert b"zq-unique-marker-" not in part.read_bytes(), part


def test_upgrading_keeps_ids_that_memories_name_from_new_chats(tmp_path: Path) -> None:
    """Chats deleted before chat ids were retired (with their user or workspace) left
    no mark; the migration takes the highest id a memory or suggestion still names."""
    from datetime import UTC, datetime

    from sqlalchemy import insert

    from memoryd.storage import Database
    from memoryd.storage.tables import memories, users, workspaces
    from support.databases import revision_before

    url = f"sqlite:///{tmp_path / 'old.db'}"
    db = Database.open(url, migrate=False)
    db.upgrade(revision_before("_retired_chat_ids.py"))
    now = datetime(2026, 1, 1, tzinfo=UTC)
    with db.engine.begin() as conn:
        conn.execute(insert(users).values(id=1, name="al", role="default", created_at=now))
        conn.execute(insert(workspaces).values(id=1, slug="lab", name="lab", created_at=now))
        conn.execute(
            insert(chats).values(
                id=3, user_id=1, workspace_id=1, prompt="p", response="r", created_at=now
            )
        )
        conn.execute(
            insert(memories).values(
                id="m1",
                user_id=1,
                scope="global",
                content="Likes tea",
                content_key="likes tea",
                source="extraction",
                source_chats=[3, 9],
                created_at=now,
                updated_at=now,
            )
        )
    db.upgrade("head")
    db.dispose()
    with Memoryd(url) as md:
        assert md.record_chat(1, "lab", "new", "ok").id == 10  # not 4, not the named 9
