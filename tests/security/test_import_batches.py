"""Attack class: one user's large import holding every other writer (issue 37, item 6).

On SQLite one import used to write all its chats in one transaction: during a 40 MB
import another user's write waited 30 s, then got 503 ``database is locked``. An import
now stages its chats in short transactions and publishes them in its last one
(``memoryd.storage.import_staging``): another user's write waits about a second at most
and is never refused, and an import that fails, even half-way, leaves nothing anyone can
see. SQLite only: it is the database with one writer at a time.
"""

from __future__ import annotations

import json
import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import func, select

from memoryd import Memoryd
from memoryd.extraction.scheduler import due_pairs
from memoryd.storage import import_staging
from memoryd.storage.tables import import_chats

CHATS = 20_000  # about 17 MB of chat lines


def chat_line(n: int, workspace: str = "moving", *, processed: bool = False) -> str:
    chat = {
        "id": n + 1,
        "workspace": workspace,
        "prompt": f"Question {n}: " + "about the move " * 27,
        "response": "An answer of some length. " * 16,
        "created_at": "2026-01-01T00:00:00+00:00",
        "memory_processed": processed,
    }
    return json.dumps({"chat": chat})


def big_file(count: int) -> list[str]:
    memory = {"content": "Moved from the old server", "scope": "global", "source_chat_ids": [1]}
    return [*(chat_line(n) for n in range(count)), json.dumps(memory)]


def staged_rows(md: Memoryd) -> int:
    with md.db.read() as repo:
        return int(repo.conn.execute(select(func.count()).select_from(import_chats)).scalar_one())


def what_others_see(md: Memoryd, user_id: int) -> tuple[Any, ...]:
    """Everything a reader could learn of the import: chats, workspaces, memories, the
    export and the pairs extraction would read."""
    with md.db.read() as repo:
        due = due_pairs(repo.conn, now=datetime.now(UTC), idle_threshold=timedelta(0), min_chats=1)
    return (
        md.list_chats(user_id),
        [w.slug for w in md.list_workspaces()],
        md.list_memories(user_id),
        md.export_memories(user_id)[1:],
        due,
    )


def test_another_users_write_waits_at_most_a_second_during_a_large_import(
    sqlite_md: Memoryd,
) -> None:
    md = sqlite_md
    alice, bob = md.create_user("alice"), md.create_user("bob")
    md.create_workspace("bobs", member=bob.id)
    lines = big_file(CHATS)
    waits: list[float] = []
    refused: list[Exception] = []
    importing = threading.Event()
    done = threading.Event()

    def bob_writes() -> None:
        importing.wait()
        while not done.is_set():
            started = time.monotonic()
            try:
                md.record_chat(bob.id, "bobs", f"bob's turn {len(waits)}", "ok")
            except Exception as exc:  # the old failure: database is locked
                refused.append(exc)
            waits.append(time.monotonic() - started)
            time.sleep(0.02)

    writer = threading.Thread(target=bob_writes)
    writer.start()
    try:
        importing.set()
        result = md.import_memories(alice.id, lines)
    finally:
        done.set()
        writer.join()

    assert not refused, refused[0]
    assert len(waits) >= 5, "bob wrote during the import"
    assert max(waits) < 2.0, f"bob waited {max(waits):.2f} s"
    assert result.chats_created == CHATS and result.created == 1
    assert len(md.list_chats(alice.id)) == CHATS
    assert len(md.list_chats(bob.id)) == len(waits)
    (memory,) = md.list_memories(alice.id)
    assert memory.source_chat_ids == (md.list_chats(alice.id)[0].id,)
    assert staged_rows(md) == 0


def test_an_import_failing_half_way_shows_nothing_before_or_after(
    sqlite_md: Memoryd, monkeypatch: pytest.MonkeyPatch
) -> None:
    md = sqlite_md
    alice = md.create_user("alice")
    before = what_others_see(md, alice.id)
    seen: list[tuple[Any, ...]] = []
    stage = import_staging.stage

    def stage_then_fail(conn: Any, import_id: str, rows: Any) -> None:
        stage(conn, import_id, rows)
        if rows[0]["seq"] >= 2 * import_staging.BATCH_ROWS:  # the third batch: the process "dies"
            raise RuntimeError("disk gone")

    def look(*args: Any, **kwargs: Any) -> Any:  # between two batches, from outside
        seen.append(what_others_see(md, alice.id))
        return real_reserve(*args, **kwargs)

    real_reserve = import_staging.reserve_chat_ids
    monkeypatch.setattr(import_staging, "stage", stage_then_fail)
    monkeypatch.setattr(import_staging, "reserve_chat_ids", look)
    with pytest.raises(RuntimeError, match="disk gone"):
        md.import_memories(alice.id, big_file(5 * import_staging.BATCH_ROWS))

    assert len(seen) == 3
    assert all(view == before for view in seen)
    assert what_others_see(md, alice.id) == before
    assert staged_rows(md) == 0


def test_an_import_failing_in_its_last_transaction_leaves_nothing(
    sqlite_md: Memoryd, monkeypatch: pytest.MonkeyPatch
) -> None:
    md = sqlite_md
    alice = md.create_user("alice")
    before = what_others_see(md, alice.id)

    def fail(*_: Any, **__: Any) -> None:
        raise RuntimeError("injected after the chats were staged")

    monkeypatch.setattr("memoryd.app.transfer.link_chats", fail)
    with pytest.raises(RuntimeError, match="injected"):
        md.import_memories(alice.id, big_file(3 * import_staging.BATCH_ROWS + 7))
    assert what_others_see(md, alice.id) == before
    assert staged_rows(md) == 0


def test_a_bad_line_near_the_end_writes_nothing(sqlite_md: Memoryd) -> None:
    md = sqlite_md
    alice = md.create_user("alice")
    before = what_others_see(md, alice.id)
    lines = big_file(3 * import_staging.BATCH_ROWS)
    lines.insert(-1, '{"chat": {"workspace": "moving", "prompt": ""}}')
    with pytest.raises(Exception, match="chat prompt is empty"):
        md.import_memories(alice.id, lines)
    assert what_others_see(md, alice.id) == before
    assert staged_rows(md) == 0


def test_the_chats_of_a_dead_import_never_show_and_go_with_the_next_import(
    sqlite_md: Memoryd,
) -> None:
    md = sqlite_md
    alice = md.create_user("alice")
    md.create_workspace("moving", member=alice.id)
    long_ago = datetime.now(UTC) - import_staging.STALE - timedelta(minutes=1)
    with md.db.write() as repo:  # what a process killed half-way through an import leaves
        (chat_id,) = import_staging.reserve_chat_ids(repo.conn, 1)
        row = {
            "seq": 0,
            "chat_id": chat_id,
            "user_id": alice.id,
            "workspace": "moving",
            "prompt": "staged, never published",
            "response": "",
            "created_at": long_ago,
            "memory_processed": False,
            "staged_at": long_ago,
        }
        import_staging.stage(repo.conn, "dead" * 8, [row])
    assert md.list_chats(alice.id) == []
    assert md.export_memories(alice.id)[1:] == []

    md.import_memories(alice.id, [chat_line(1)])
    assert [c.prompt for c in md.list_chats(alice.id)] == [
        json.loads(chat_line(1))["chat"]["prompt"]
    ]
    assert staged_rows(md) == 0
    md.record_chat(alice.id, "moving", "a new one", "ok")  # ids never collide with staged ones
    assert chat_id not in {c.id for c in md.list_chats(alice.id)}
