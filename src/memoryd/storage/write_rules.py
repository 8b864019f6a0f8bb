"""The core's write rules inside an open transaction: one place for create and update.

The library facade (``memoryd.app.service.Memoryd``), import and the extraction pipeline all
write memories through ``MemoryStore``: ownership, exact duplicates, the scope limits and
the audit log are checked and written here, inside the caller's serialised write
transaction, so two writers racing for the last slot cannot both win (R1, R12).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from memoryd.domain.errors import DuplicateMemory, NotFound, ScopeFull
from memoryd.domain.models import Actor, AuditAction, Memory, Scope, Source
from memoryd.domain.rules import KEEP, Keep, Limits, content_key, is_row_id, scope_label

__all__ = ["KEEP", "Keep", "MemoryStore", "audit_view"]
from memoryd.storage import derived
from memoryd.storage.membership import workspace_id_of
from memoryd.storage.repository import Repository
from memoryd.storage.vectors import vector_columns


class MemoryStore:
    """Memory writes and the checks they need, given an open ``Repository``."""

    def __init__(
        self, limits: Limits, clock: Callable[[], datetime], embedder_name: Callable[[], str]
    ) -> None:
        self.limits = limits
        self.clock = clock
        self.embedder_name = embedder_name

    def insert_memory(
        self,
        repo: Repository,
        user_id: int,
        text: str,
        scope: Scope,
        slug: str | None,
        actor: Actor,
        vector: Any,
        source_chat_ids: Sequence[int] = (),
        *,
        expires_at: datetime | None = None,
        source: Source | None = None,
        run_id: str | None = None,
    ) -> Memory:
        """Create a memory: ownership, exact duplicates and the scope limit, then audit.

        ``source`` and ``run_id`` default to the actor's (an accepted suggestion keeps
        the extraction run it came from while the user is the one who wrote it)."""
        self.require_user(repo, user_id, lock=True)
        workspace_id = self.require_workspace(repo, slug) if slug else None
        key = content_key(text)
        if repo.find_duplicate(user_id, scope, workspace_id, key):
            raise DuplicateMemory(f"this memory already exists in {scope_label(scope, slug)}")
        self.require_room(repo, user_id, scope, workspace_id, slug)
        now = self.clock()
        memory_id = uuid.uuid4().hex
        repo.insert_memory(
            {
                "id": memory_id,
                "user_id": user_id,
                "scope": scope.value,
                "workspace_id": workspace_id,
                "content": text,
                "content_key": key,
                "source": (source or actor.kind).value,
                "created_at": now,
                "updated_at": now,
                "source_chats": sorted(set(source_chat_ids)),
                **vector_columns(vector, self.embedder_name()),
                "expires_at": expires_at,
                "run_id": run_id or actor.run_id,
            }
        )
        created = repo.get_memory(memory_id)
        assert created is not None
        self.audit(repo, AuditAction.CREATE, actor, None, created, now)
        return created

    def revise_memory(
        self,
        repo: Repository,
        user_id: int,
        memory_id: str,
        text: str | None,
        actor: Actor,
        vector: Any,
        source_chat_ids: Sequence[int] = (),
        *,
        expires_at: datetime | Keep | None = KEEP,
    ) -> Memory:
        """Revise a memory in place: ownership and exact duplicates, then audit.

        ``text`` None keeps the text (and vector); ``expires_at`` KEEP keeps the expiry.
        Giving an expired memory a later (or no) expiry brings it back, so it needs a
        free slot like a new one."""
        self.require_user(repo, user_id, lock=True)
        before = self.owned(repo, user_id, memory_id)
        workspace_id = repo.workspace_id(before.workspace) if before.workspace else None
        now = self.clock()
        values: dict[str, Any] = {"updated_at": now}
        if text is not None:
            key = content_key(text)
            duplicate = repo.find_duplicate(user_id, before.scope, workspace_id, key)
            if duplicate and duplicate != memory_id:
                where = scope_label(before.scope, before.workspace)
                raise DuplicateMemory(f"this memory already exists in {where}")
            vector_values = vector_columns(vector, self.embedder_name())
            values.update(content=text, content_key=key, **vector_values)
            derived.forget(repo.conn, [memory_id])  # new words: derived (questions...) again
        if expires_at is not KEEP:
            revived = before.is_expired(now) and (expires_at is None or expires_at > now)
            if revived:
                self.require_room(repo, user_id, before.scope, workspace_id, before.workspace)
            values["expires_at"] = expires_at
        values["source_chats"] = sorted({*before.source_chat_ids, *source_chat_ids})
        repo.update_memory(memory_id, values)
        after = self.owned(repo, user_id, memory_id)
        self.audit(repo, AuditAction.UPDATE, actor, before, after, now)
        return after

    def require_user(self, repo: Repository, user_id: int, *, lock: bool = False) -> None:
        """Raise NotFound unless the user exists; ``lock`` serialises their memory writes."""
        exists = is_row_id(user_id) and (
            repo.lock_user(user_id) if lock else repo.get_user(user_id) is not None
        )
        if not exists:
            raise NotFound(f"no user with id {user_id!r}")

    def require_workspace(self, repo: Repository, slug: str | None) -> int:
        if not isinstance(slug, str):
            raise NotFound(f"no workspace {slug!r}")
        return workspace_id_of(repo.conn, slug)

    def owned(self, repo: Repository, user_id: int, memory_id: str) -> Memory:
        """The memory if it belongs to this user; anyone else's is simply not found."""
        memory = repo.get_memory(memory_id) if isinstance(memory_id, str) else None
        if memory is None or memory.user_id != user_id:
            raise NotFound(f"no memory {memory_id!r} for this user")
        return memory

    def require_room(
        self,
        repo: Repository,
        user_id: int,
        scope: Scope,
        workspace_id: int | None,
        slug: str | None,
    ) -> None:
        limit = self.limits.for_scope(scope)
        if repo.count_memories(user_id, scope, workspace_id, self.clock()) >= limit:
            raise ScopeFull(
                f"{scope_label(scope, slug)} is full ({limit} memories); delete one first",
                scope=scope.value,
                limit=limit,
            )

    def audit(
        self,
        repo: Repository,
        action: AuditAction,
        actor: Actor,
        before: Memory | None,
        after: Memory | None,
        now: datetime,
        *,
        reason: str | None = None,
    ) -> None:
        """One audit entry; ``reason`` (a deletion's why) is kept in its ``before``."""
        subject = after or before
        assert subject is not None
        was = audit_view(before)
        if reason and was is not None:
            was["reason"] = reason
        repo.add_audit(
            memory_id=subject.id,
            user_id=subject.user_id,
            action=action,
            actor=actor.label,
            before=was,
            after=audit_view(after),
            now=now,
        )


def audit_view(memory: Memory | None) -> dict[str, Any] | None:
    if memory is None:
        return None
    view = memory.to_dict()
    view.pop("last_used_at", None)
    view.pop("questions", None)  # derived from the text, like the vector
    return view
