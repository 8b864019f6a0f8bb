"""The memories part of the library facade: adding, reading, editing, deleting and moving
a user's memories (R1, R2).

Each write checks the input and embeds outside the transaction, then checks ownership,
limits and duplicates and writes the audit entry inside one write transaction
(``memoryd.storage.write_rules.MemoryStore``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from memoryd.domain.errors import DuplicateMemory, InvalidInput, InvalidScope
from memoryd.domain.models import Actor, AuditAction, Memory, Scope, Source
from memoryd.domain.rules import (
    content_key,
    normalize_content,
    normalize_reason,
    parse_expiry,
    parse_scope,
    resolve_scope,
    scope_label,
    validate_slug,
)
from memoryd.models.embedding.base import embed_memories
from memoryd.storage.write_rules import KEEP, Keep

if TYPE_CHECKING:
    from memoryd.extraction.deps import ExtractionDeps


class MemoryService:
    """A user's memories (see the module doc)."""

    def __init__(self, deps: ExtractionDeps) -> None:
        self.deps = deps
        self.store = deps.store

    def add_memory(
        self,
        user_id: int,
        content: str,
        scope: Scope | str | None = None,
        workspace: str | None = None,
        *,
        actor: Actor | None = None,
        source_chat_ids: Sequence[int] = (),
        expires_at: datetime | str | None = None,
    ) -> Memory:
        """Store a new memory; raises ScopeFull, DuplicateMemory or InvalidContent.

        ``expires_at`` ("remember until": a date or an aware time) hides the memory from
        chats once passed; see ``memoryd.domain.rules.parse_expiry``."""
        text = normalize_content(content)
        chosen, slug = resolve_scope(scope, workspace)
        until = parse_expiry(expires_at, self.deps.clock())
        actor = actor or Actor(Source.USER, user_id)
        vector = embed_memories(self.deps.embedder, [text])[0]
        with self.deps.db.write() as repo:
            return self.store.insert_memory(
                repo, user_id, text, chosen, slug, actor, vector, source_chat_ids, expires_at=until
            )

    def get_memory(self, user_id: int, memory_id: str) -> Memory:
        with self.deps.db.read() as repo:
            return self.store.owned(repo, user_id, memory_id)

    def list_memories(
        self, user_id: int, scope: Scope | str | None = None, workspace: str | None = None
    ) -> list[Memory]:
        """A user's memories, globals first, then by workspace and age."""
        with self.deps.db.read() as repo:
            self.store.require_user(repo, user_id)
            chosen = None if scope is None else parse_scope(scope)
            if chosen is Scope.GLOBAL and workspace:
                raise InvalidScope("a global memory belongs to no workspace; drop the workspace")
            workspace_id = self.store.require_workspace(repo, workspace) if workspace else None
            return repo.list_memories(user_id, scope=chosen, workspace_id=workspace_id)

    def edit_memory(
        self,
        user_id: int,
        memory_id: str,
        content: str | None = None,
        *,
        actor: Actor | None = None,
        expires_at: datetime | str | Keep | None = KEEP,
    ) -> Memory:
        """Change a memory's text, its expiry (None clears it), or both, in one write."""
        if content is None and expires_at is KEEP:
            raise InvalidInput("nothing to change: give the new text or an expiry")
        text = None if content is None else normalize_content(content)
        until = KEEP if expires_at is KEEP else parse_expiry(expires_at, self.deps.clock())
        actor = actor or Actor(Source.USER, user_id)
        vector = embed_memories(self.deps.embedder, [text])[0] if text is not None else None
        with self.deps.db.write() as repo:
            return self.store.revise_memory(
                repo, user_id, memory_id, text, actor, vector, expires_at=until
            )

    def delete_memory(
        self, user_id: int, memory_id: str, *, reason: str | None = None, actor: Actor | None = None
    ) -> None:
        """Delete a memory; ``reason`` (why, e.g. "reported as wrong") goes into the
        audit entry, as its ``before["reason"]``."""
        actor = actor or Actor(Source.USER, user_id)
        why = normalize_reason(reason)
        with self.deps.db.write() as repo:
            self.store.require_user(repo, user_id, lock=True)
            before = self.store.owned(repo, user_id, memory_id)
            repo.delete_memory(memory_id)
            now = self.deps.clock()
            self.store.audit(repo, AuditAction.DELETE, actor, before, None, now, reason=why)

    def promote(self, user_id: int, memory_id: str, *, actor: Actor | None = None) -> Memory:
        """Move a workspace memory to the user's global scope (R2)."""
        return self._move(user_id, memory_id, Scope.GLOBAL, None, actor)

    def demote(
        self, user_id: int, memory_id: str, workspace: str, *, actor: Actor | None = None
    ) -> Memory:
        """Move a global memory into a workspace (R2)."""
        return self._move(user_id, memory_id, Scope.WORKSPACE, validate_slug(workspace), actor)

    def _move(
        self, user_id: int, memory_id: str, target: Scope, slug: str | None, actor: Actor | None
    ) -> Memory:
        actor = actor or Actor(Source.USER, user_id)
        with self.deps.db.write() as repo:
            self.store.require_user(repo, user_id, lock=True)
            before = self.store.owned(repo, user_id, memory_id)
            if target is Scope.GLOBAL and before.scope is Scope.GLOBAL:
                raise InvalidScope("this memory is already global")
            if target is Scope.WORKSPACE and before.scope is Scope.WORKSPACE:
                raise InvalidScope(
                    "only a global memory can be demoted; this one is in a workspace"
                )
            workspace_id = self.store.require_workspace(repo, slug) if slug else None
            if repo.find_duplicate(user_id, target, workspace_id, content_key(before.content)):
                raise DuplicateMemory(f"this memory already exists in {scope_label(target, slug)}")
            self.store.require_room(repo, user_id, target, workspace_id, slug)
            now = self.deps.clock()
            repo.update_memory(
                memory_id, {"scope": target.value, "workspace_id": workspace_id, "updated_at": now}
            )
            after = self.store.owned(repo, user_id, memory_id)
            action = AuditAction.PROMOTE if target is Scope.GLOBAL else AuditAction.DEMOTE
            self.store.audit(repo, action, actor, before, after, now)
            return after
