"""Copying a whole memoryd database into another one (``memoryd db copy``).

Moving an install between SQLite and PostgreSQL must keep everything, where an export
keeps one user's memories. The rules (docs/cli.md, "Moving an install") are enforced
here: the source is at the newest revision and read in one snapshot; the target holds no
memoryd data, is migrated, then filled in one transaction, so a failure leaves it empty.
Values pass untouched (JSON as its stored text, so SQL NULL and JSON ``null`` stay apart).
Ids are never given twice: sequences and ``id_high_water`` marks move past every id the
source ever gave, including chat ids memories still name.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    Table,
    Text,
    bindparam,
    cast,
    delete,
    func,
    insert,
    inspect,
    select,
    text,
)
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from memoryd.domain.errors import InvalidInput, MemorydError
from memoryd.domain.models import json_ready
from memoryd.storage.database import Database, parse_url
from memoryd.storage.opening import first_line, safe_url
from memoryd.storage.tables import (
    cache_epoch,
    chats,
    id_high_water,
    import_chats,
    memories,
    memory_suggestions,
    metadata,
)

BATCH_ROWS = 1000
NEW_SQLITE_FILE = "a new SQLite file"
# Counters, not data: merged (id_high_water) or left to each database (cache_epoch).
BOOKKEEPING = frozenset({cache_epoch.name, id_high_water.name})
# Tables whose ids id_high_water keeps from being given twice (on SQLite).
_MARKED = frozenset({"users", "chats"})


class CopyRefused(InvalidInput):
    """The copy cannot start: a source or target it must not (or cannot) use."""


class CopyFailed(MemorydError):
    """The copy started and failed; the target's transaction was rolled back."""


@dataclass(frozen=True)
class TableCount:
    table: str
    source: int  # rows in the source snapshot
    target: int | None  # rows in the target after the copy (None: dry run)


@dataclass(frozen=True)
class CopyReport:
    source: str  # URLs with any password hidden
    target: str
    revision: str
    dry_run: bool
    target_state: str  # what the target was before the copy
    tables: tuple[TableCount, ...]
    next_ids: dict[str, int] = field(default_factory=dict)  # after the copy
    not_copied: tuple[str, ...] = ()

    @property
    def total(self) -> int:
        return sum(t.source for t in self.tables if t.table not in BOOKKEEPING)

    def to_dict(self) -> dict[str, Any]:
        tables = [
            {"table": t.table, "source_rows": t.source, "target_rows": t.target}
            for t in self.tables
        ]
        return {
            **json_ready(self, "source target revision dry_run target_state"),
            **{"tables": tables, "total_rows": self.total},
            **json_ready(self, "next_ids not_copied"),
        }


def copied_tables() -> list[Table]:
    """memoryd's tables in foreign-key order (parents first), cache_epoch and the chats of
    unfinished imports (``import_chats``, never seen by a read) left out."""
    skipped = {cache_epoch.name, import_chats.name}
    return [t for t in metadata.sorted_tables if t.name not in skipped]


# ----------------------------------------------------------------------------------------
def copy_database(
    source_url: str, target_url: str, *, dry_run: bool = False, batch_rows: int = BATCH_ROWS
) -> CopyReport:
    """Copy every memoryd table of ``source_url`` into ``target_url`` (see the module doc).

    Raises CopyRefused before anything is written, CopyFailed if the copy itself fails
    (the target then holds no memoryd rows). ``dry_run`` checks the same things and
    counts the rows without writing (or migrating, or creating) anything."""
    if batch_rows < 1:
        raise ValueError("batch_rows must be at least 1")
    if _same_database(source_url, target_url):
        raise CopyRefused(f"the target {safe_url(target_url)} is the source database itself")
    with _opened(source_url, "source") as source:
        revision = _check_source(source, source_url)
        report = functools.partial(_report, source_url, target_url, revision)
        new_file = _missing_sqlite_file(target_url)
        if dry_run and new_file:  # opening it would create it
            return report(NEW_SQLITE_FILE, *_dry_counts(source))
        with _opened(target_url, "target") as target:
            was = _unused_target(target, target_url)
            state = NEW_SQLITE_FILE if new_file else _describe(was)
            if dry_run:
                return report(state, *_dry_counts(source))
            try:
                target.upgrade()
            except Exception as exc:  # alembic's own errors, for a revision it does not know
                raise CopyRefused(
                    f"cannot migrate target database {safe_url(target_url)} (at revision {was}): "
                    f"{first_line(exc)}"
                ) from None
            return report(state, *_copy(source, target, target_url, batch_rows))


def _report(
    source_url: str,
    target_url: str,
    revision: str,
    state: str,
    counts: Mapping[str, int],
    skipped: list[str],
    copied: Mapping[str, int] | None = None,
    next_ids: dict[str, int] | None = None,
) -> CopyReport:
    """The report of a copy, or of a dry run (``copied`` None)."""
    return CopyReport(
        source=safe_url(source_url),
        target=safe_url(target_url),
        revision=revision,
        dry_run=copied is None,
        target_state=state,
        tables=tuple(
            TableCount(name, n, None if copied is None else copied[name])
            for name, n in counts.items()
        ),
        next_ids=next_ids or {},
        not_copied=(cache_epoch.name, *skipped),
    )


@contextmanager
def _opened(url: str, role: str) -> Iterator[Database]:
    if role == "source" and _missing_sqlite_file(url):
        raise CopyRefused(f"source database {safe_url(url)} does not exist: nothing to copy")
    try:
        database = Database.open(url, migrate=False)
    except (ArgumentError, ValueError, OSError, ImportError) as exc:
        raise CopyRefused(f"cannot open {role} database {safe_url(url)}: {exc}") from None
    try:
        yield database
    finally:
        database.dispose()


def _check_source(source: Database, url: str) -> str:
    try:
        current = source.current_revision()
        head = source.head_revision()
    except SQLAlchemyError as exc:
        raise CopyRefused(
            f"cannot open source database {safe_url(url)}: {first_line(exc)}"
        ) from None
    assert head is not None
    if current is None:
        raise CopyRefused(f"source database {safe_url(url)} holds no memoryd data (no schema)")
    if current != head:
        raise CopyRefused(
            f"source database {safe_url(url)} is at revision {current}, not {head} (this "
            "memoryd's newest): run `memoryd db upgrade` on it first"
        )
    return head


def _unused_target(target: Database, url: str) -> str | None:
    """The target's revision; CopyRefused unless it holds no memoryd data."""
    try:
        with target.engine.connect() as conn:
            revision, held = _target_contents(conn)
    except SQLAlchemyError as exc:
        raise CopyRefused(
            f"cannot open target database {safe_url(url)}: {first_line(exc)}"
        ) from None
    _refuse_if_used(url, held)
    return revision


def _target_contents(conn: Connection) -> tuple[str | None, dict[str, int]]:
    """The target's revision and the non-empty memoryd tables it already has."""
    from alembic.runtime.migration import MigrationContext

    revision = MigrationContext.configure(conn).get_current_revision()
    present = set(inspect(conn).get_table_names())
    counts = {
        t.name: _count(conn, t)
        for t in copied_tables()
        if t.name not in BOOKKEEPING and t.name in present
    }
    return revision, {name: n for name, n in counts.items() if n}


def _refuse_if_used(url: str, held: Mapping[str, int]) -> None:
    if not held:
        return
    listed = ", ".join(f"{name} {count}" for name, count in sorted(held.items()))
    raise CopyRefused(
        f"target database {safe_url(url)} already holds memoryd data ({listed}); copy only "
        "into an empty database (create a new one, or delete this one yourself first)"
    )


def _describe(revision: str | None) -> str:
    return f"an empty memoryd database at revision {revision}" if revision else "an empty database"


# ----------------------------------------------------------------------------------------
@contextmanager
def _snapshot(source: Database) -> Iterator[Connection]:
    """One read transaction on the source: every table is read as of the same moment."""
    with source.engine.connect() as conn:
        if source.dialect == "postgresql":
            conn = conn.execution_options(
                isolation_level="REPEATABLE READ", postgresql_readonly=True
            )
        with conn.begin():
            yield conn


def _count(conn: Connection, table: Table) -> int:
    return int(conn.execute(select(func.count()).select_from(table)).scalar_one())


def _counts(conn: Connection) -> dict[str, int]:
    return {t.name: _count(conn, t) for t in copied_tables()}


def _foreign_tables(conn: Connection) -> list[str]:
    """Tables in the source that are not memoryd's (procrastinate's job queue, say)."""
    ours = {t.name for t in metadata.sorted_tables} | {"alembic_version"}
    return sorted(set(inspect(conn).get_table_names()) - ours)


def _dry_counts(source: Database) -> tuple[dict[str, int], list[str]]:
    with _snapshot(source) as src:
        return _counts(src), _foreign_tables(src)


def _copy(
    source: Database, target: Database, target_url: str, batch_rows: int
) -> tuple[dict[str, int], list[str], dict[str, int], dict[str, int]]:
    """Copy in one target transaction: the source's counts and foreign tables, the
    target's counts after the copy and its next ids."""
    table = "(setup)"
    try:
        with _snapshot(source) as src:
            counts = _counts(src)
            skipped = _foreign_tables(src)
            highest: dict[str, int] = {}  # per id-numbered table, from every sign of it
            writing = target.engine.connect().execution_options(memoryd_write=True)
            with writing as dst, dst.begin():
                _refuse_if_used(target_url, _target_contents(dst)[1])
                for t in copied_tables():
                    table = t.name
                    if t is id_high_water:
                        _merge_high_water(src, dst)
                        continue
                    top, named_chats = _copy_table(src, dst, t, batch_rows)
                    highest[chats.name] = max(highest.get(chats.name, 0), named_chats)
                    if t.autoincrement_column is not None:
                        highest[t.name] = max(highest.get(t.name, 0), top)
                table = "(ids)"
                next_ids = _move_ids(dst, highest)
                table = "(verifying)"
                copied = _verify(dst, counts)
    except (MemorydError, KeyboardInterrupt):
        raise
    except SQLAlchemyError as exc:
        raise CopyFailed(
            f"copying table {table} failed, nothing was written to {safe_url(target_url)}: "
            f"{first_line(exc)}"
        ) from None
    return counts, skipped, copied, next_ids


def _copy_table(src: Connection, dst: Connection, table: Table, batch_rows: int) -> tuple[int, int]:
    """Stream ``table`` from ``src`` into ``dst``, ``batch_rows`` at a time. Returns the
    highest id it gave (its rows' and, on PostgreSQL, its sequence's) and the highest chat
    id its rows name."""
    raw = {c.name for c in table.columns if isinstance(c.type, JSON)}
    # JSON as its stored text both ways: re-encoding would turn SQL NULL into JSON null
    columns = [cast(c, Text).label(c.name) if c.name in raw else c for c in table.columns]
    query = select(*columns).order_by(*table.primary_key.columns)
    postgres = dst.dialect.name == "postgresql"
    values: dict[str, Any] = {}
    for c in table.columns:
        bound = bindparam(f"p_{c.name}", type_=Text if c.name in raw else c.type)
        values[c.name] = cast(bound, c.type) if c.name in raw and postgres else bound
    statement = insert(table).values(values)
    auto = table.autoincrement_column
    names_chats = table is memories or table is memory_suggestions
    highest = named_chats = 0
    result = src.execution_options(yield_per=batch_rows).execute(query)
    for batch in result.partitions():
        dst.execute(statement, [{f"p_{k}": v for k, v in row._mapping.items()} for row in batch])
        for row in batch:
            if auto is not None:
                highest = max(highest, int(row._mapping[auto.name]))
            for chat_id in json.loads(row.source_chats or "[]") if names_chats else ():
                if isinstance(chat_id, int):
                    named_chats = max(named_chats, chat_id)
    if auto is not None and src.dialect.name == "postgresql":
        highest = max(highest, _sequence_used(src, table))
    return highest, named_chats


def _merge_high_water(src: Connection, dst: Connection) -> None:
    """id_high_water: the higher mark of source and target per name (a fresh target has
    zeros from its migrations)."""
    merged = {str(r.name): int(r.value) for r in dst.execute(select(id_high_water))}
    for r in src.execute(select(id_high_water)):
        merged[str(r.name)] = max(merged.get(str(r.name), 0), int(r.value))
    dst.execute(delete(id_high_water))
    if merged:
        dst.execute(insert(id_high_water), [{"name": k, "value": v} for k, v in merged.items()])


def _move_ids(dst: Connection, highest: Mapping[str, int]) -> dict[str, int]:
    """Move the target's counters past every id given (``highest``, per table); the next
    id per table."""
    marks = {str(r.name): int(r.value) for r in dst.execute(select(id_high_water))}
    next_ids: dict[str, int] = {}
    for table in copied_tables():
        name = table.name
        if table.autoincrement_column is None:
            continue
        top = max(highest.get(name, 0), marks.get(name, 0))
        if dst.dialect.name == "postgresql":
            top = max(top, _sequence_used(dst, table))
            if top:
                sequence = _sequence_name(dst, table)
                dst.execute(text("SELECT setval(:s, :v, true)"), {"s": sequence, "v": top})
        elif name in _MARKED:
            stored = _max_id(dst, table)
            if top > max(stored, marks.get(name, 0)):
                dst.execute(delete(id_high_water).where(id_high_water.c.name == name))
                dst.execute(insert(id_high_water).values(name=name, value=top))
            top = max(top, stored)
        else:
            top = _max_id(dst, table)  # SQLite numbers these max(id) + 1
        next_ids[name] = top + 1
    return next_ids


def _sequence_name(conn: Connection, table: Table) -> str:
    auto = table.autoincrement_column
    assert auto is not None
    found = conn.execute(
        text("SELECT pg_get_serial_sequence(:t, :c)"), {"t": table.name, "c": auto.name}
    ).scalar_one()
    if found is None:
        raise CopyFailed(f"table {table.name} has no id sequence in {conn.engine.url.database}")
    return str(found)


def _sequence_used(conn: Connection, table: Table) -> int:
    """The highest value the table's PostgreSQL sequence has given (0: none yet)."""
    sequence = _sequence_name(conn, table)
    # the name comes from pg_get_serial_sequence, quoted as needed
    row = conn.execute(text(f"SELECT last_value, is_called FROM {sequence}")).one()
    return int(row.last_value) if row.is_called else int(row.last_value) - 1


def _max_id(conn: Connection, table: Table) -> int:
    auto = table.autoincrement_column
    assert auto is not None
    return int(conn.execute(select(func.coalesce(func.max(auto), 0))).scalar_one())


def _verify(dst: Connection, expected: Mapping[str, int]) -> dict[str, int]:
    """The target's row counts, which must be the source's (id_high_water: at least)."""
    found = _counts(dst)
    for name, count in expected.items():
        short = found[name] < count if name in BOOKKEEPING else found[name] != count
        if short:
            raise CopyFailed(
                f"table {name}: the source has {count} rows but the target {found[name]} "
                "after copying; nothing was written"
            )
    return found


def _same_database(a: str, b: str) -> bool:
    def place(url: str) -> object:
        parsed = parse_url(url)
        if parsed.get_backend_name() == "sqlite":
            return parsed.database and Path(parsed.database).expanduser().resolve()
        return (parsed.get_backend_name(), parsed.host, parsed.port or 5432, parsed.database)

    try:
        first = place(a)
        return bool(first) and first == place(b)
    except ArgumentError:
        return False


def _missing_sqlite_file(url: str) -> bool:
    try:
        parsed = make_url(url)
    except ArgumentError:
        return False
    if parsed.get_backend_name() != "sqlite" or not parsed.database:
        return False
    if parsed.database.startswith("file:") or parsed.database == ":memory:":
        return False
    return not Path(parsed.database).expanduser().exists()
