"""The database schema as SQLAlchemy Core tables.

Alembic migrations (``storage/migrations``) create and evolve these tables; this module is
what the code queries against. Times are stored as UTC and always read back timezone-aware.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    SmallInteger,
    String,
    Table,
    Text,
    TypeDecorator,
    and_,
    false,
    literal_column,
    or_,
    text,
    true,
)
from sqlalchemy.engine import Dialect

from memoryd.domain.perspective import VECTOR_FORM


class UTCDateTime(TypeDecorator[datetime]):
    """A DateTime that stores UTC and returns aware datetimes on every backend."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to the database")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if isinstance(value, str):
            value = datetime.fromisoformat(value)
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)  # type: ignore[no-any-return]
        return value.astimezone(UTC)  # type: ignore[no-any-return]


def _owner(*, primary_key: bool = False) -> Column[int]:
    """``user_id``: the user the row belongs to, deleted with them."""
    user = ForeignKey("users.id", ondelete="CASCADE")
    return Column("user_id", Integer, user, nullable=False, primary_key=primary_key)


def _in_workspace(*, nullable: bool = False, primary_key: bool = False) -> Column[int]:
    """``workspace_id``: the workspace the row belongs to, deleted with it."""
    workspace = ForeignKey("workspaces.id", ondelete="CASCADE")
    return Column("workspace_id", Integer, workspace, nullable=nullable, primary_key=primary_key)


metadata = MetaData(
    naming_convention={
        "ix": "ix_%(column_0_label)s",
        "uq": "uq_%(table_name)s_%(column_0_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)

users = Table(
    "users",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(64), nullable=False, unique=True),
    Column("role", String(16), nullable=False, default="default"),
    Column("created_at", UTCDateTime, nullable=False),
    # off: the user's chats are recorded as already processed, never extracted
    # (migration chat_memories)
    Column("learn_from_chats", Boolean, nullable=False, server_default=true()),
    # the user's own review mode; NULL follows the run-time setting memory_review (0010)
    Column("memory_review", String(16), nullable=True),
    # the user's own language (memoryd.app.i18n); NULL follows MEMORYD_LANGUAGE (0026)
    Column("language", String(8), nullable=True),
)

workspaces = Table(
    "workspaces",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("slug", String(64), nullable=False, unique=True),
    Column("name", String(200), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
)

# Vectors made from another form of their memory's text than ``first_person`` of this
# version (NULL: written before 0019, or by a process older than it: the text as written).
_OLD_VECTORS = f"embedding IS NOT NULL AND (vector_form IS NULL OR vector_form < {VECTOR_FORM})"

memories = Table(
    "memories",
    metadata,
    Column("id", String(32), primary_key=True),
    _owner(),
    Column("scope", String(16), nullable=False),
    _in_workspace(nullable=True),
    Column("content", Text, nullable=False),
    Column("content_key", Text, nullable=False),
    Column("source", String(16), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    Column("last_used_at", UTCDateTime, nullable=True),
    Column("source_chats", JSON, nullable=False, default=list),
    Column("embedding", LargeBinary, nullable=True),
    Column("embedder", String(64), nullable=True),
    # the version of memoryd.domain.perspective.first_person the vector was made from
    # (0019); NULL: from the text as written, before 0019
    Column("vector_form", SmallInteger, nullable=True),
    Column("expires_at", UTCDateTime, nullable=True),  # "remember until" (0009)
    Column("run_id", String(32), nullable=True),  # the extraction run that made it (0009)
    Index("ix_memories_user_scope_workspace", "user_id", "scope", "workspace_id"),
    Index("ix_memories_workspace_id", "workspace_id"),  # deleting a workspace (0004)
    Index("ix_memories_expires_at", "expires_at"),  # purging expired memories (0009)
    # the background passes walk memories oldest first for those without a current value
    # of their kind in memory_derived (0026)
    Index("ix_memories_created_at", "created_at"),
    # the vectors made from an older form of their text, refreshed oldest first (0019)
    Index(
        "ix_memories_old_vectors",
        "created_at",
        sqlite_where=text(_OLD_VECTORS),
        postgresql_where=text(_OLD_VECTORS),
    ),
)

# Extraction's changes waiting for the user's decision under memory_review (0009).
memory_suggestions = Table(
    "memory_suggestions",
    metadata,
    Column("id", String(32), primary_key=True),
    _owner(),
    Column("kind", String(16), nullable=False),  # create | update
    Column("scope", String(16), nullable=False),
    _in_workspace(nullable=True),
    Column("target_id", String(32), nullable=True),  # the memory an update revises
    Column("target_content", Text, nullable=True),  # its text when suggested (side by side)
    Column("content", Text, nullable=False),
    Column("content_key", Text, nullable=False),
    Column("expires_at", UTCDateTime, nullable=True),
    Column("source_chats", JSON, nullable=False, default=list),
    Column("run_id", String(32), nullable=True),
    Column("status", String(16), nullable=False),  # pending | accepted | rejected
    Column("created_at", UTCDateTime, nullable=False),
    Column("decided_at", UTCDateTime, nullable=True),
    Column("memory_id", String(32), nullable=True),  # the memory an accept wrote
    Index("ix_memory_suggestions_user_status", "user_id", "status"),
    Index("ix_memory_suggestions_workspace_id", "workspace_id"),
)

chats = Table(
    "chats",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    _owner(),
    _in_workspace(),
    Column("prompt", Text, nullable=False),
    Column("response", Text, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("memory_processed", Boolean, nullable=False, default=False),
    Index("ix_chats_pair_processed", "user_id", "workspace_id", "memory_processed"),
    Index("ix_chats_workspace_id", "workspace_id"),  # deleting a workspace (0004)
    # Due-pair selection (memoryd.extraction.scheduler) reads only unprocessed chats.
    Index(
        "ix_chats_unprocessed",
        "user_id",
        "workspace_id",
        "created_at",
        sqlite_where=text("memory_processed = 0"),
        postgresql_where=text("memory_processed = false"),
    ),
)

# Chats of an import not finished yet (0024, ``memoryd.storage.import_staging``): written in
# short transactions, each with the id it will have, and copied into ``chats`` by the
# import's last transaction; no read of chats sees them. No foreign key to workspaces: the
# import's last transaction creates the workspaces it names.
import_chats = Table(
    "import_chats",
    metadata,
    Column("import_id", String(32), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("chat_id", Integer, nullable=False),
    _owner(),
    Column("workspace", String(64), nullable=False),
    Column("prompt", Text, nullable=False),
    Column("response", Text, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("memory_processed", Boolean, nullable=False),
    Column("staged_at", UTCDateTime, nullable=False),
    Index("ix_import_chats_user_id", "user_id"),
)

# The memories injected into a recorded chat, in prompt order (migration chat_memories).
# No foreign key to memories: a deleted memory's id stays as a tombstone; deleting the
# chat drops its links.
chat_memories = Table(
    "chat_memories",
    metadata,
    Column("chat_id", Integer, ForeignKey("chats.id", ondelete="CASCADE"), primary_key=True),
    Column("memory_id", String(32), primary_key=True),
    Column("position", Integer, nullable=False),
    Index("ix_chat_memories_memory_id", "memory_id", "chat_id"),
)

# The one spelling of "not yet processed" that matches ix_chats_unprocessed's predicate:
# a literal ``= false`` (``= 0`` on SQLite). With ``IS FALSE`` or a bound parameter the
# planners of both databases cannot use the partial index and scan every chat instead.
CHAT_UNPROCESSED = chats.c.memory_processed == false()
# "A vector of an older form of the text", as ix_memories_old_vectors' predicate.
MEMORY_OLD_VECTORS = and_(
    memories.c.embedding.is_not(None),
    or_(
        memories.c.vector_form.is_(None), memories.c.vector_form < literal_column(str(VECTOR_FORM))
    ),
)
# What the background passes derive from a memory's text, one row per memory and kind
# (0026; ``memoryd.storage.derived`` says how a row goes stale). On PostgreSQL a row of 6
# questions' vectors (4.6 kB) is kept whole, like 0017's memories rows
# (toast_tuple_target), so a turn reads no TOAST.
memory_derived = Table(
    "memory_derived",
    metadata,
    Column(
        "memory_id", String(32), ForeignKey("memories.id", ondelete="CASCADE"), primary_key=True
    ),
    Column("kind", String(64), primary_key=True),
    Column("content_key", Text, nullable=False),
    Column("version", SmallInteger, nullable=False),
    Column("value", Text, nullable=False),
    Column("vectors", LargeBinary, nullable=True),
    Column("embedder", String(64), nullable=True),
    Index("ix_memory_derived_kind_version", "kind", "version"),  # values an older pass wrote
)

settings = Table(
    "settings",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("value", JSON, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
)

# The highest id ever given per table, so a deleted user's id is never given again (0005).
id_high_water = Table(
    "id_high_water",
    metadata,
    Column("name", String(32), primary_key=True),
    Column("value", Integer, nullable=False),
)

audit_log = Table(
    "audit_log",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("memory_id", String(32), nullable=False),
    Column("user_id", Integer, nullable=False),
    Column("action", String(16), nullable=False),
    Column("actor", String(100), nullable=False),
    Column("before", JSON, nullable=True),
    Column("after", JSON, nullable=True),
    Column("at", UTCDateTime, nullable=False),
    Index("ix_audit_log_user_id", "user_id", "id"),
    Index("ix_audit_log_memory_id", "memory_id"),
)

# Extraction (issue 3) --------------------------------------------------------

extraction_runs = Table(
    "extraction_runs",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("trigger", String(16), nullable=False),
    Column("provider", String(64), nullable=True),
    Column("model", String(200), nullable=True),
    Column("dry_run", Boolean, nullable=False, default=False),
    Column("started_at", UTCDateTime, nullable=False),
    Column("finished_at", UTCDateTime, nullable=True),
    Column("status", String(16), nullable=False),
    Column("pairs_seen", Integer, nullable=False, default=0),
    Column("pairs_processed", Integer, nullable=False, default=0),
    Column("pairs_skipped", Integer, nullable=False, default=0),
    Column("skipped_reasons", JSON, nullable=False, default=dict),
    Column("memories_created", Integer, nullable=False, default=0),
    Column("memories_updated", Integer, nullable=False, default=0),
    # changes filed as suggestions for the user's review (memory_review; 0025)
    Column("memories_suggested", Integer, nullable=False, default=0),
    Column("chats_processed", Integer, nullable=False, default=0),
    Column("llm_calls", Integer, nullable=False, default=0),  # made, answered or not
    Column("prompt_tokens", Integer, nullable=False, default=0),
    Column("completion_tokens", Integer, nullable=False, default=0),
    Column("errors", JSON, nullable=False, default=list),
    # one outcome per pair processed, and honest counters (issue 12: a run that only
    # dropped invented facts is "ok", not "errors")
    Column("pairs", JSON, nullable=False, default=list),
    Column("pairs_failed", Integer, nullable=False, default=0),
    Column("facts_dropped", Integer, nullable=False, default=0),
    Column("facts_not_stored", Integer, nullable=False, default=0),
    # a run in progress moves these forward; still running past alive_until: interrupted
    Column("heartbeat_at", UTCDateTime, nullable=True),
    Column("alive_until", UTCDateTime, nullable=True),
    # of llm_calls, those that got no answer: "every call failed" is not "no call needed"
    Column("llm_calls_failed", Integer, nullable=False, default=0),
    # memories each background pass derived a value for, by kind (0026; was
    # memories_questioned, 0016)
    Column("memories_derived", JSON, nullable=False, default=dict),
    Index("ix_extraction_runs_started_at", "started_at"),
)

extraction_pairs = Table(
    "extraction_pairs",
    metadata,
    _owner(primary_key=True),
    _in_workspace(primary_key=True),
    Column("attempts", Integer, nullable=False, default=0),
    Column("next_attempt_at", UTCDateTime, nullable=True),
    Column("parked", Boolean, nullable=False, default=False),
    Column("last_error", Text, nullable=True),
    Column("last_run_id", String(32), nullable=True),
    Column("failed_chat_ids", JSON, nullable=False, default=list),
    Column("updated_at", UTCDateTime, nullable=False),
)

# Each (user, workspace) pair's newest finished run that processed it (0011): the run
# history's retention (memoryd.storage.run_retention) never deletes these runs.
extraction_last_runs = Table(
    "extraction_last_runs",
    metadata,
    _owner(primary_key=True),
    _in_workspace(primary_key=True),
    Column("run_id", String(32), nullable=False),
    Column("started_at", UTCDateTime, nullable=False),
    Index("ix_extraction_last_runs_run_id", "run_id"),
    Index("ix_extraction_last_runs_workspace_id", "workspace_id"),
)

# Authentication and workspace membership (the server, issue 4) ------------------------
user_credentials = Table(
    "user_credentials",
    metadata,
    _owner(primary_key=True),
    Column("password_hash", String(255), nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
)

# One row; its version rises (by trigger, migration 0005) on any change to users,
# workspaces, memberships, settings or API-key revocation: see memoryd.storage.catalog.
cache_epoch = Table(
    "cache_epoch",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("version", BigInteger, nullable=False),
)

api_keys = Table(
    "api_keys",
    metadata,
    Column("id", String(32), primary_key=True),
    _owner(),
    Column("name", String(100), nullable=False),
    Column("prefix", String(16), nullable=False),
    Column("key_hash", String(64), nullable=False, unique=True),
    Column("created_at", UTCDateTime, nullable=False),
    Column("last_used_at", UTCDateTime, nullable=True),
    Column("revoked_at", UTCDateTime, nullable=True),
    Index("ix_api_keys_user_id", "user_id"),
)

sessions = Table(
    "sessions",
    metadata,
    Column("token_hash", String(64), primary_key=True),
    _owner(),
    Column("csrf_token", String(64), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("expires_at", UTCDateTime, nullable=False),
    Index("ix_sessions_user_id", "user_id"),
)

user_workspaces = Table(
    "user_workspaces",
    metadata,
    _owner(primary_key=True),
    _in_workspace(primary_key=True),
    Column("added_at", UTCDateTime, nullable=False),
    Index("ix_user_workspaces_workspace_id", "workspace_id"),
)
