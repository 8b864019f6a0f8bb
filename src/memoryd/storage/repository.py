"""Queries over one open transaction; every method is one small read or write.

A Repository never decides anything: the rules (limits, validation, who may do what) are
checked by the service that holds it, inside the same transaction.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Row, and_, bindparam, delete, false, func, insert, or_, select, true, update
from sqlalchemy.engine import Connection

from memoryd.domain.models import (
    AuditAction,
    Chat,
    Memory,
    Role,
    Scope,
    User,
    UserSummary,
    Workspace,
)
from memoryd.storage import chat_erasure, turn_rows
from memoryd.storage.chat_erasure import batches
from memoryd.storage.tables import (
    CHAT_UNPROCESSED,
    audit_log,
    cache_epoch,
    chat_memories,
    chats,
    id_high_water,
    memories,
    memory_suggestions,
    settings,
    user_workspaces,
    users,
    workspaces,
)

# memories with their workspace's slug and their current questions
_MEMORY_ROWS = turn_rows.with_questions(
    memories.outerjoin(workspaces, memories.c.workspace_id == workspaces.c.id)
)
# reads other than a turn's leave the vectors out
_MEMORIES = select(*turn_rows.RAW_COLUMNS[: -turn_rows.VECTOR_COLUMNS]).select_from(_MEMORY_ROWS)
_NO_VECTORS = (None,) * turn_rows.VECTOR_COLUMNS

# A chat turn's one statement: the cache version (see memoryd.storage.catalog) and the
# user's globals plus one workspace's memories. Starting from the one-row cache_epoch
# table, the version comes back even when the user has no memories.
_TURN_POOL = (
    select(cache_epoch.c.version, *turn_rows.RAW_COLUMNS)
    .select_from(
        cache_epoch.outerjoin(
            _MEMORY_ROWS,
            and_(
                memories.c.user_id == bindparam("user_id"),
                or_(
                    memories.c.scope == Scope.GLOBAL.value,
                    memories.c.workspace_id == bindparam("workspace_id"),
                ),
            ),
        )
    )
    .where(cache_epoch.c.id == 1)
    .order_by(memories.c.created_at)
)


def _memory(row: Row[Any] | Any, dialect: Any) -> Memory:
    return turn_rows.build_memory((*row, *_NO_VECTORS), dialect)


def user_of(row: Row[Any] | Any) -> User:
    """A ``users`` row (or one holding its columns) as a ``User``."""
    return User(row.id, row.name, Role(row.role))


def chat_of(row: Row[Any] | Any) -> Chat:
    """A ``chats`` row joined with its workspace's ``slug``."""
    r = row
    return Chat(r.id, r.user_id, r.slug, r.prompt, r.response, r.created_at, r.memory_processed)


class Repository:
    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    # users -------------------------------------------------------------
    def insert_user(self, name: str, role: Role, now: datetime) -> User:
        """A new user, with an id no user ever had (deleted ones included)."""
        mark = id_high_water.c.name == "users"
        used = self.conn.execute(
            select(id_high_water.c.value).where(mark).with_for_update()
        ).scalar_one_or_none()
        highest = self.conn.execute(select(func.max(users.c.id))).scalar_one_or_none()
        user_id = max(int(used or 0), int(highest or 0)) + 1
        self.conn.execute(
            insert(users).values(id=user_id, name=name, role=role.value, created_at=now)
        )
        if used is None:
            self.conn.execute(insert(id_high_water).values(name="users", value=user_id))
        else:
            self.conn.execute(update(id_high_water).where(mark).values(value=user_id))
        return User(id=user_id, name=name, role=role)

    def get_user(self, user_id: int) -> User | None:
        row = self.conn.execute(select(users).where(users.c.id == user_id)).first()
        return user_of(row) if row else None

    def get_user_by_name(self, name: str) -> User | None:
        row = self.conn.execute(select(users).where(users.c.name == name)).first()
        return user_of(row) if row else None

    def list_users(self) -> list[User]:
        return [user_of(r) for r in self.conn.execute(select(users).order_by(users.c.id))]

    def user_summaries(self) -> list[UserSummary]:
        """Every user with memory counts, usable workspaces and own choices, by id: four
        queries whatever the number of users."""
        rows = self.conn.execute(select(users).order_by(users.c.id)).all()
        per_scope = select(memories.c.user_id, memories.c.scope, func.count()).group_by(
            memories.c.user_id, memories.c.scope
        )
        held = {(int(u), str(scope)): int(n) for u, scope, n in self.conn.execute(per_scope)}
        joined: dict[int, list[str]] = {}
        membership = (
            select(user_workspaces.c.user_id, workspaces.c.slug)
            .select_from(user_workspaces.join(workspaces))
            .order_by(workspaces.c.slug)
        )
        for user_id, slug in self.conn.execute(membership):
            joined.setdefault(int(user_id), []).append(str(slug))
        every: list[str] = []
        if any(r.role == Role.ADMIN.value for r in rows):  # admins may use every workspace
            slugs = self.conn.execute(select(workspaces.c.slug).order_by(workspaces.c.slug))
            every = [str(slug) for slug in slugs.scalars()]
        return [
            UserSummary(
                user=user_of(r),
                global_memories=held.get((r.id, Scope.GLOBAL.value), 0),
                workspace_memories=held.get((r.id, Scope.WORKSPACE.value), 0),
                workspaces=tuple(every if r.role == Role.ADMIN.value else joined.get(r.id, [])),
                learn_from_chats=bool(r.learn_from_chats),
                memory_review=None if r.memory_review is None else str(r.memory_review),
            )
            for r in rows
        ]

    def set_user_role(self, user_id: int, role: Role) -> None:
        self.conn.execute(update(users).where(users.c.id == user_id).values(role=role.value))

    def delete_user(self, user_id: int) -> None:
        self._delete_content("user_id", user_id)
        self.conn.execute(delete(audit_log).where(audit_log.c.user_id == user_id))
        self.conn.execute(delete(users).where(users.c.id == user_id))

    def _delete_content(self, column: str, value: int) -> None:
        """Delete the suggestions, memories and chats whose ``column`` is ``value``; the
        chats' ids are retired first (``chat_erasure``)."""
        for table in (memory_suggestions, memories):
            self.conn.execute(delete(table).where(table.c[column] == value))
        theirs = chats.c[column] == value
        chat_erasure.retire_chat_ids(self.conn, chat_erasure.highest_chat_id(self.conn, theirs))
        self.conn.execute(delete(chats).where(theirs))

    def lock_admins(self) -> list[int]:
        """The admins' ids, their rows locked (PostgreSQL) until the transaction ends, so two
        transactions demoting or deleting admins cannot both count the other one in."""
        query = select(users.c.id).where(users.c.role == Role.ADMIN.value).with_for_update()
        return [int(i) for i in self.conn.execute(query.order_by(users.c.id)).scalars()]

    def lock_user(self, user_id: int) -> bool:
        """Serialise memory writes of one user (row lock on PostgreSQL); True if they exist."""
        row = self.conn.execute(
            select(users.c.id).where(users.c.id == user_id).with_for_update()
        ).first()
        return row is not None

    # workspaces --------------------------------------------------------
    def insert_workspace(self, slug: str, name: str, now: datetime) -> Workspace:
        self.conn.execute(insert(workspaces).values(slug=slug, name=name, created_at=now))
        return Workspace(slug=slug, name=name)

    def workspace_id(self, slug: str) -> int | None:
        return self.conn.execute(
            select(workspaces.c.id).where(workspaces.c.slug == slug)
        ).scalar_one_or_none()

    def get_workspace(self, slug: str) -> Workspace | None:
        row = self.conn.execute(select(workspaces).where(workspaces.c.slug == slug)).first()
        return Workspace(row.slug, row.name) if row else None

    def list_workspaces(self) -> list[Workspace]:
        rows = self.conn.execute(select(workspaces).order_by(workspaces.c.slug))
        return [Workspace(r.slug, r.name) for r in rows]

    def delete_workspace(self, workspace_id: int) -> None:
        self._delete_content("workspace_id", workspace_id)
        self.conn.execute(delete(workspaces).where(workspaces.c.id == workspace_id))

    # memories ----------------------------------------------------------
    def get_memory(self, memory_id: str) -> Memory | None:
        row = self.conn.execute(_MEMORIES.where(memories.c.id == memory_id)).first()
        return _memory(row, self.conn.dialect) if row else None

    def list_memories(
        self,
        user_id: int,
        *,
        scope: Scope | None = None,
        workspace_id: int | None = None,
    ) -> list[Memory]:
        query = _MEMORIES.where(memories.c.user_id == user_id)
        if scope is not None:
            query = query.where(memories.c.scope == scope.value)
        if workspace_id is not None:
            query = query.where(memories.c.workspace_id == workspace_id)
        query = query.order_by(memories.c.scope, workspaces.c.slug, memories.c.created_at)
        dialect = self.conn.dialect
        return [_memory(r, dialect) for r in self.conn.execute(query)]

    def turn_memories(self, user_id: int, workspace_id: int | None) -> list[Memory]:
        """Everything a chat turn needs in one query: globals and this workspace's memories."""
        return self.turn_pool(user_id, workspace_id)[1]

    def turn_pool(self, user_id: int, workspace_id: int | None) -> tuple[int, list[Memory]]:
        """``turn_memories`` with the cache version read by the same statement."""
        rows = self.conn.execute(_TURN_POOL, {"user_id": user_id, "workspace_id": workspace_id})
        version = 0
        pool = []
        memo, dialect = turn_rows.TURN_ROWS, self.conn.dialect
        for row in rows:
            version = row[0]
            if row[1] is not None:
                pool.append(memo.memory(row[1:], dialect))
        return int(version), pool

    def count_memories(
        self, user_id: int, scope: Scope, workspace_id: int | None, now: datetime | None = None
    ) -> int:
        """Memories that hold a slot; given ``now``, expired ones do not (they are on
        their way out). Without it, every stored row counts."""
        query = select(func.count()).where(
            memories.c.user_id == user_id, memories.c.scope == scope.value
        )
        if now is not None:
            query = query.where(or_(memories.c.expires_at.is_(None), memories.c.expires_at > now))
        if scope is Scope.WORKSPACE:
            query = query.where(memories.c.workspace_id == workspace_id)
        return int(self.conn.execute(query).scalar_one())

    def find_duplicate(
        self, user_id: int, scope: Scope, workspace_id: int | None, key: str
    ) -> str | None:
        query = select(memories.c.id).where(
            memories.c.user_id == user_id,
            memories.c.scope == scope.value,
            memories.c.content_key == key,
        )
        if scope is Scope.WORKSPACE:
            query = query.where(memories.c.workspace_id == workspace_id)
        return self.conn.execute(query.limit(1)).scalar_one_or_none()

    def owner_of(self, memory_id: str) -> int | None:
        return self.conn.execute(
            select(memories.c.user_id).where(memories.c.id == memory_id)
        ).scalar_one_or_none()

    def insert_memory(self, values: dict[str, Any]) -> None:
        self.conn.execute(insert(memories).values(**values))

    def update_memory(self, memory_id: str, values: dict[str, Any]) -> None:
        self.conn.execute(update(memories).where(memories.c.id == memory_id).values(**values))

    def delete_memory(self, memory_id: str) -> None:
        self.conn.execute(delete(memories).where(memories.c.id == memory_id))

    def expired_before(self, cutoff: datetime, limit: int = 500) -> list[Memory]:
        """Memories whose expiry is at or before ``cutoff`` (oldest first), to purge."""
        query = (
            _MEMORIES.where(memories.c.expires_at.is_not(None), memories.c.expires_at <= cutoff)
            .order_by(memories.c.expires_at, memories.c.id)
            .limit(limit)
        )
        return [_memory(r, self.conn.dialect) for r in self.conn.execute(query)]

    def touch_memories(self, ids: Iterable[str], now: datetime) -> None:
        id_list = list(ids)
        if id_list:
            self.conn.execute(
                update(memories).where(memories.c.id.in_(id_list)).values(last_used_at=now)
            )

    # chats -------------------------------------------------------------
    def insert_chat(
        self,
        user_id: int,
        workspace_id: int,
        prompt: str,
        response: str,
        now: datetime,
        *,
        processed: bool = False,
    ) -> int:
        values: dict[str, Any] = {
            "user_id": user_id,
            "workspace_id": workspace_id,
            "prompt": prompt,
            "response": response,
            "created_at": now,
            "memory_processed": processed,
        }
        if self.conn.dialect.name == "sqlite":  # never a deleted chat's id (chat_erasure)
            values["id"] = chat_erasure.next_chat_id()
        query = insert(chats).values(**values).returning(chats.c.id)
        return int(self.conn.execute(query).scalar_one())

    def chats_of_others(self, user_id: int, chat_ids: Iterable[int]) -> set[int]:
        """Which of ``chat_ids`` exist and belong to another user."""
        found = self.conn.execute(
            select(chats.c.id).where(chats.c.id.in_(list(chat_ids)), chats.c.user_id != user_id)
        )
        return {int(i) for i in found.scalars()}

    def list_chats(
        self,
        user_id: int,
        workspace_id: int | None = None,
        *,
        processed: bool | None = None,
        limit: int | None = None,
        ids: Sequence[int] | None = None,
        using_memory: str | None = None,
    ) -> list[Chat]:
        query = (
            select(chats, workspaces.c.slug)
            .join(workspaces, chats.c.workspace_id == workspaces.c.id)
            .where(chats.c.user_id == user_id)
        )
        if ids is not None:
            query = query.where(chats.c.id.in_(list(ids)))
        if using_memory is not None:
            used = select(chat_memories.c.chat_id).where(chat_memories.c.memory_id == using_memory)
            query = query.where(chats.c.id.in_(used))
        if workspace_id is not None:
            query = query.where(chats.c.workspace_id == workspace_id)
        if processed is not None:
            query = query.where(chats.c.memory_processed == (true() if processed else false()))
        query = query.order_by(chats.c.created_at, chats.c.id)
        if limit is not None:
            query = query.limit(limit)
        return [chat_of(r) for r in self.conn.execute(query)]

    def chat_times(
        self, user_id: int, workspace_ids: Sequence[int]
    ) -> list[tuple[int, int, datetime]]:
        """(id, workspace id, created_at) of the user's chats in these workspaces."""
        query = select(chats.c.id, chats.c.workspace_id, chats.c.created_at).where(
            chats.c.user_id == user_id, chats.c.workspace_id.in_(list(workspace_ids))
        )
        return [(int(r.id), int(r.workspace_id), r.created_at) for r in self.conn.execute(query)]

    # which memories a chat used (chat_memories migration) -------------------------------
    def link_many_chats(self, links: Sequence[tuple[int, Sequence[str]]]) -> None:
        """Link each chat to its memories in prompt order, in statements of up to 1,000 rows."""
        rows = [
            {"chat_id": chat_id, "memory_id": memory_id, "position": position}
            for chat_id, memory_ids in links
            for position, memory_id in enumerate(dict.fromkeys(memory_ids))
        ]
        for part in batches(rows, 1000):
            self.conn.execute(insert(chat_memories), part)

    def chat_memory_ids(self, chat_ids: Sequence[int]) -> dict[int, list[str]]:
        """Each chat's linked memory ids in prompt order (chats without links are absent)."""
        found: dict[int, list[str]] = {}
        for part in batches(chat_ids):
            query = (
                select(chat_memories.c.chat_id, chat_memories.c.memory_id)
                .where(chat_memories.c.chat_id.in_(part))
                .order_by(chat_memories.c.chat_id, chat_memories.c.position)
            )
            for row in self.conn.execute(query):
                found.setdefault(int(row.chat_id), []).append(row.memory_id)
        return found

    def memories_by_id(self, user_id: int, memory_ids: Iterable[str]) -> dict[str, Memory]:
        """The user's memories among ``memory_ids`` (others' and deleted ones are absent)."""
        found: dict[str, Memory] = {}
        for part in batches(dict.fromkeys(memory_ids)):
            query = _MEMORIES.where(memories.c.user_id == user_id, memories.c.id.in_(part))
            found.update((r.id, _memory(r, self.conn.dialect)) for r in self.conn.execute(query))
        return found

    def memories_of_others(self, user_id: int, memory_ids: Iterable[str]) -> set[str]:
        """Which of ``memory_ids`` exist and belong to another user."""
        found: set[str] = set()
        for part in batches(dict.fromkeys(memory_ids)):
            query = select(memories.c.id).where(
                memories.c.user_id != user_id, memories.c.id.in_(part)
            )
            found.update(self.conn.execute(query).scalars())
        return found

    # the "learn from my chats" switch (chat_memories migration) ---------------------------
    def learns_from_chats(self, user_id: int, *, lock: bool = False) -> bool | None:
        """The user's switch; None when there is no such user. ``lock`` holds a shared
        row lock (PostgreSQL) so a concurrent switch waits for this transaction."""
        query = select(users.c.learn_from_chats).where(users.c.id == user_id)
        if lock:
            query = query.with_for_update(read=True)
        value = self.conn.execute(query).scalar_one_or_none()
        return None if value is None else bool(value)

    def set_learning(self, user_id: int, on: bool) -> None:
        self.conn.execute(update(users).where(users.c.id == user_id).values(learn_from_chats=on))

    # the user's own review mode (user_review migration) ---------------------------------
    def review_preference(self, user_id: int) -> str | None:
        """The user's own review mode, or None when they follow the instance setting."""
        value = self.conn.execute(
            select(users.c.memory_review).where(users.c.id == user_id)
        ).scalar_one_or_none()
        return None if value is None else str(value)

    def set_review_preference(self, user_id: int, mode: str | None) -> None:
        self.conn.execute(update(users).where(users.c.id == user_id).values(memory_review=mode))

    def user_language(self, user_id: int) -> tuple[bool, str | None]:
        """Whether the user exists, and their own language (None: the server's)."""
        row = self.conn.execute(select(users.c.language).where(users.c.id == user_id)).first()
        return (False, None) if row is None else (True, row.language)

    def set_user_language(self, user_id: int, language: str | None) -> None:
        self.conn.execute(update(users).where(users.c.id == user_id).values(language=language))

    def close_pending_chats(self, user_id: int) -> int:
        """Flag the user's unprocessed chats processed, so extraction never reads them."""
        result = self.conn.execute(
            update(chats)
            .where(chats.c.user_id == user_id, CHAT_UNPROCESSED)
            .values(memory_processed=True)
        )
        return int(result.rowcount or 0)

    # settings ----------------------------------------------------------
    def get_settings(self) -> dict[str, Any]:
        return {r.key: r.value for r in self.conn.execute(select(settings))}

    def put_setting(self, key: str, value: Any, now: datetime) -> None:
        updated = self.conn.execute(
            update(settings).where(settings.c.key == key).values(value=value, updated_at=now)
        ).rowcount
        if not updated:
            self.conn.execute(insert(settings).values(key=key, value=value, updated_at=now))

    # audit -------------------------------------------------------------
    def add_audit(
        self,
        *,
        memory_id: str,
        user_id: int,
        action: AuditAction,
        actor: str,
        before: dict[str, Any] | None,
        after: dict[str, Any] | None,
        now: datetime,
    ) -> None:
        self.conn.execute(
            insert(audit_log).values(
                memory_id=memory_id,
                user_id=user_id,
                action=action.value,
                actor=actor,
                before=before,
                after=after,
                at=now,
            )
        )
