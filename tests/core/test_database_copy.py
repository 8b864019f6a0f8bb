"""``memoryd db copy``: a whole install moves between SQLite and PostgreSQL and keeps
everything, or nothing is written at all."""

from __future__ import annotations

import tracemalloc
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import create_engine, func, inspect, select
from typer.testing import CliRunner

from memoryd import Memoryd
from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.scale.tasks import PRUNE_TASK, QUEUE, make_app
from memoryd.scale.worker import install_schema
from memoryd.storage.database import Database
from memoryd.storage.database_copy import CopyRefused, copied_tables, copy_database
from memoryd.storage.tables import metadata
from support.cli import Cli
from support.database_copy import (
    check_working,
    populate,
    put_nul_in_a_chat,
    table_contents,
)
from support.databases import revision_before

UNREACHABLE = "postgresql+psycopg://postgres@127.0.0.1:1/nowhere"


def row_counts(url: str) -> dict[str, int]:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            present = set(inspect(conn).get_table_names())
            return {
                t.name: int(conn.execute(select(func.count()).select_from(t)).scalar_one())
                for t in copied_tables()  # not import_chats: an unfinished import's
                if t.name in present and t.name != "id_high_water"
            }
    finally:
        engine.dispose()


def test_sqlite_to_postgres_and_back_keeps_everything(
    sqlite_url: str, pg_url: str, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    with Memoryd(sqlite_url, embedder=embedder) as md:
        seeded = populate(md)
    original = table_contents(sqlite_url)
    assert all(original[name] for name in original), "every table has rows to copy"

    report = Cli(sqlite_url, CliRunner()).json("db", "copy", "--to", pg_url)
    assert report["target_state"] == "an empty database"
    assert {t["table"]: t["target_rows"] for t in report["tables"]} == {
        name: len(rows) for name, rows in original.items()
    }
    assert table_contents(pg_url) == original

    back = f"sqlite:///{tmp_path / 'back.db'}"
    again = copy_database(pg_url, back)
    assert again.target_state == "a new SQLite file"
    assert table_contents(back) == original

    check_working(pg_url, seeded, embedder)
    check_working(back, seeded, embedder)


@pytest.mark.parametrize("db_url", ["postgres"], indirect=True)
def test_postgres_to_postgres_and_sqlite_keep_ids_of_deleted_rows(
    db_url: str, other_db_url: str, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    """Sequences, not rows, remember a PostgreSQL install's deleted ids: the copies still
    never give them again."""
    with Memoryd(db_url, embedder=embedder) as md:
        seeded = populate(md)
    original = table_contents(db_url)

    report = copy_database(db_url, other_db_url)
    assert report.next_ids["chats"] == seeded.highest_chat + 1
    assert report.next_ids["workspaces"] == seeded.highest_workspace + 1
    assert table_contents(other_db_url) == original
    check_working(other_db_url, seeded, embedder, keeps_workspace_ids=True)

    sqlite = f"sqlite:///{tmp_path / 'from-pg.db'}"
    copy_database(db_url, sqlite)
    check_working(sqlite, seeded, embedder)


def test_embeddings_json_and_times_survive_as_stored(
    sqlite_url: str, pg_url: str, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    with Memoryd(sqlite_url, embedder=embedder) as md:
        alice = md.create_user("alice")
        md.add_memory(alice.id, "Uses a standing desk", "global", expires_at="2030-01-01")
        md.add_memory(alice.id, "Drinks green tea", "global")
    with create_engine(sqlite_url).begin() as conn:  # SQL NULL, not JSON null, in one row
        conn.exec_driver_sql("UPDATE audit_log SET before = NULL WHERE id = 1")
    before = table_contents(sqlite_url)
    copy_database(sqlite_url, pg_url)
    back = f"sqlite:///{tmp_path / 'back.db'}"
    copy_database(pg_url, back)

    columns = [c.name for c in metadata.tables["memories"].columns]
    for url in (pg_url, back):
        after = table_contents(url)
        assert after == before
        desk = next(r for r in after["memories"] if r[columns.index("content")].endswith("desk"))
        vector = desk[columns.index("embedding")]
        assert isinstance(vector, bytes) and len(vector) >= 384
        assert desk[columns.index("expires_at")].utcoffset() == timedelta(0)
        assert [row[5] for row in after["audit_log"]] == [None, "null"]


def test_a_failure_mid_copy_leaves_the_target_empty(
    sqlite_url: str, pg_url: str, embedder: MiniLMEmbedder
) -> None:
    with Memoryd(sqlite_url, embedder=embedder) as md:
        populate(md)
    put_nul_in_a_chat(sqlite_url)
    cli = Cli(sqlite_url, CliRunner())

    line = cli.fails("db", "copy", "--to", pg_url)
    assert "copying table chats failed, nothing was written" in line
    assert row_counts(pg_url) and not any(row_counts(pg_url).values())

    with create_engine(sqlite_url).begin() as conn:  # repair the source: now it copies
        conn.exec_driver_sql("UPDATE chats SET prompt = 'fixed' WHERE prompt LIKE 'bad %'")
    cli.ok("db", "copy", "--to", pg_url)
    assert table_contents(pg_url) == table_contents(sqlite_url)


def test_a_target_with_memoryd_data_is_refused_and_left_alone(
    db_url: str, other_db_url: str, embedder: MiniLMEmbedder
) -> None:
    with Memoryd(db_url, embedder=embedder) as md:
        md.add_memory(md.create_user("alice").id, "Likes tea", "global")
    with Memoryd(other_db_url, embedder=embedder) as md:
        md.add_memory(md.create_user("zoe").id, "Likes coffee", "global")
    before = table_contents(other_db_url)
    cli = Cli(db_url, CliRunner())

    for extra in ([], ["--dry-run"]):
        line = cli.fails("db", "copy", "--to", other_db_url, *extra)
        assert "already holds memoryd data (audit_log 1, memories 1, users 1)" in line
        assert "copy only into an empty database" in line
    assert table_contents(other_db_url) == before


def test_a_target_whose_data_was_all_deleted_keeps_its_highest_ids(
    db_url: str, other_db_url: str, embedder: MiniLMEmbedder
) -> None:
    """An "empty" target that once had users: ids it gave stay given."""
    with Memoryd(db_url, embedder=embedder) as md:
        md.create_user("alice")
    with Memoryd(other_db_url, embedder=embedder) as md:
        for name in ("x", "y", "z"):
            md.delete_user(md.create_user(name).id)
    copy_database(db_url, other_db_url)
    with Memoryd(other_db_url, embedder=embedder) as md:
        assert md.get_user("alice").id == 1
        assert md.create_user("bob").id == 4


def test_a_source_behind_the_newest_revision_is_refused(tmp_path: Path) -> None:
    source = f"sqlite:///{tmp_path / 'old.db'}"
    old = Database.open(source, migrate=False)
    old.upgrade(revision_before("_retired_chat_ids.py"))
    old.dispose()
    target = tmp_path / "new.db"

    line = Cli(source, CliRunner()).fails("db", "copy", "--to", f"sqlite:///{target}")
    assert f"is at revision {revision_before('_retired_chat_ids.py')}, not " in line
    assert "run `memoryd db upgrade` on it first" in line
    assert not target.exists()


def test_refusals_before_anything_is_written(sqlite_url: str, tmp_path: Path) -> None:
    cli = Cli(sqlite_url, CliRunner())
    missing = f"sqlite:///{tmp_path / 'missing.db'}"
    assert "does not exist: nothing to copy" in cli.fails(
        "db", "copy", "--to", sqlite_url, db=missing
    )
    assert not (tmp_path / "missing.db").exists()

    cli.ok("users", "add", "alice")
    line = cli.fails("db", "copy", "--to", UNREACHABLE)
    assert line.startswith(f"error: cannot open target database {UNREACHABLE}: ")
    assert "Connection refused" in line

    same = f"sqlite:///{tmp_path}/./memoryd.db"
    assert "is the source database itself" in cli.fails("db", "copy", "--to", same)
    with pytest.raises(CopyRefused, match="cannot open target database"):
        copy_database(sqlite_url, UNREACHABLE, dry_run=True)


def test_dry_run_counts_and_writes_nothing(
    sqlite_url: str, pg_url: str, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    with Memoryd(sqlite_url, embedder=embedder) as md:
        populate(md)
    expected = row_counts(sqlite_url)
    cli = Cli(sqlite_url, CliRunner())

    report = cli.json("db", "copy", "--to", pg_url, "--dry-run")
    assert report["dry_run"] is True and report["next_ids"] == {}
    counted = {t["table"]: t["source_rows"] for t in report["tables"]}
    assert {k: v for k, v in counted.items() if k in expected} == expected
    assert all(t["target_rows"] is None for t in report["tables"])
    assert inspect(create_engine(pg_url)).get_table_names() == []

    new_file = tmp_path / "sub" / "new.db"
    text = cli.ok("db", "copy", "--to", f"sqlite:///{new_file}", "--dry-run").stdout
    assert f"would copy {report['total_rows']} rows in 17 tables from {sqlite_url}" in text
    assert f"into sqlite:///{new_file} (a new SQLite file); nothing was written" in text
    assert "│ memories " in text
    assert not new_file.parent.exists()


def test_text_summary_lists_every_table(sqlite_url: str, tmp_path: Path) -> None:
    cli = Cli(sqlite_url, CliRunner())
    cli.ok("users", "add", "alice")
    cli.ok("memories", "add", "-u", "alice", "--global", "Likes tea")
    text = cli.ok("db", "copy", "--to", f"sqlite:///{tmp_path / 'copy.db'}").stdout
    assert "copied 3 rows in 17 tables" in text
    assert "(a new SQLite file); row counts verified" in text
    for table in copied_tables():
        assert f"│ {table.name} " in text
    assert "next ids: audit_log 2, users 2, workspaces 1, chats 1" in text
    assert "not copied: cache_epoch" in text


@pytest.mark.slow
def test_twenty_thousand_chats_copy_in_batches(
    sqlite_url: str, pg_url: str, embedder: MiniLMEmbedder
) -> None:
    """20,000 chats of 500 characters (10 MB of text) copy with a small peak of memory
    (about 4 MiB; 40 MiB when read all at once): rows go through in batches."""
    with Memoryd(sqlite_url, embedder=embedder) as md:
        alice = md.create_user("alice")
        md.create_workspace("phoenix")
        md.record_chat(alice.id, "phoenix", "first", "chat")
    rows, size = 20_000, 500
    with create_engine(sqlite_url).begin() as conn:
        conn.exec_driver_sql(
            "WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i <= ?)"
            " INSERT INTO chats (id, user_id, workspace_id, prompt, response, created_at,"
            " memory_processed) SELECT i, 1, 1, printf('%d', i) || substr(hex(zeroblob(?)),"
            " 1, ?), 'ok', '2026-01-01 00:00:00.000000', 0 FROM n",
            (rows, size, size),
        )
    tracemalloc.start()
    try:
        report = copy_database(sqlite_url, pg_url)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    counts = {t.table: t.target for t in report.tables}
    assert counts["chats"] == rows + 1
    assert report.next_ids["chats"] == rows + 2
    assert peak < 12 * 2**20, f"peak {peak / 2**20:.0f} MiB"


@pytest.mark.parametrize("db_url", ["postgres"], indirect=True)
def test_the_job_queue_is_left_to_each_install(
    db_url: str, other_db_url: str, embedder: MiniLMEmbedder
) -> None:
    """procrastinate's tables are not memoryd's: a queued job stays with the source, and
    a target prepared as docs/deploy.md says (`memoryd worker --setup-only`) is empty."""
    with Memoryd(db_url, embedder=embedder) as md, Memoryd(other_db_url, embedder=embedder) as new:
        md.create_user("alice")
        queue = make_app(db_url, interval=timedelta(hours=1))
        install_schema(md, queue)
        install_schema(new, make_app(other_db_url, interval=timedelta(hours=1)))
        with queue.open():
            queue.configure_task(PRUNE_TASK, queue=QUEUE).defer(timestamp=0)

    report = copy_database(db_url, other_db_url)
    assert "procrastinate_jobs" in report.not_copied
    assert [t.target for t in report.tables if t.table == "users"] == [1]
    jobs = "SELECT count(*) FROM procrastinate_jobs"
    for url, expected in ((db_url, 1), (other_db_url, 0)):
        with create_engine(url).connect() as conn:
            assert conn.exec_driver_sql(jobs).scalar_one() == expected
