"""Memories as a caller may reach them (R1, R2, R8, R12): a default user their own, in
global and their workspaces (one in a workspace they left is not found, as another
user's is); an admin acting for a user all of that user's, writing into any workspace.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal

from memoryd.access.callers import Owner, Site, is_admin, require_workspace
from memoryd.access.chats import used_memories
from memoryd.domain.errors import NotFound
from memoryd.domain.models import AuditEntry, Chat, Memory, Scope, UsedMemory
from memoryd.domain.rules import KEEP, Keep

if TYPE_CHECKING:
    from memoryd.domain.results import MemoryDetail


@dataclass(frozen=True)  # how full a scope is (no docstring: it would be in the OpenAPI)
class ScopeUsage:
    scope: Literal["global", "workspace"]
    workspace: str | None
    count: int
    limit: int
    full: bool


@dataclass(frozen=True)
class Overview:  # the memories the caller may see, and how full each scope is
    memories: list[Memory]
    scopes: list[ScopeUsage]


def visible_memory(site: Site, owner: Owner, memory_id: str) -> Memory:
    memory = site.md.get_memory(owner.user.id, memory_id)
    if not owner.may_use(site, memory.workspace):
        raise NotFound(f"no memory {memory_id!r} for this user")
    return memory


def overview(site: Site, owner: Owner, scope: Scope | None, workspace: str | None) -> Overview:
    md = site.md
    if workspace is not None and not is_admin(owner.acting):
        require_workspace(site, owner.user, workspace)
    memories = md.list_memories(owner.user.id, scope, workspace)
    memories = [m for m in memories if owner.may_use(site, m.workspace)]
    if workspace is not None:
        slugs = [workspace]
    else:
        slugs = [w.slug for w in site.auth.workspaces_of(owner.user)]
        if is_admin(owner.user) or is_admin(owner.acting):
            slugs = sorted({*slugs, *(m.workspace for m in memories if m.workspace)})
    every = memories if scope is None and workspace is None else md.list_memories(owner.user.id)
    now = datetime.now(UTC)
    live = [m for m in every if not m.is_expired(now)]  # only live ones hold a slot

    def usage(kind: Literal["global", "workspace"], slug: str | None, limit: int) -> ScopeUsage:
        count = sum(1 for m in live if (m.workspace == slug if slug else m.scope is Scope.GLOBAL))
        return ScopeUsage(kind, slug, count, limit, count >= limit)

    scopes: list[ScopeUsage] = []
    if scope in (None, Scope.GLOBAL) and workspace is None:
        scopes.append(usage("global", None, md.limits.global_per_user))
    if scope in (None, Scope.WORKSPACE):
        scopes += [usage("workspace", slug, md.limits.workspace_per_pair) for slug in slugs]
    return Overview(memories, scopes)


def memory_detail(site: Site, owner: Owner, memory_id: str) -> MemoryDetail:
    """One memory with its source chats and history; a source chat in a workspace the
    caller may not use is only counted (``hidden_source_chats``)."""
    visible_memory(site, owner, memory_id)
    detail = site.md.memory_detail(owner.user.id, memory_id)
    allowed = {c.workspace: owner.may_use(site, c.workspace) for c in detail.source_chats}
    shown = tuple(c for c in detail.source_chats if allowed[c.workspace])
    hidden = len(detail.source_chats) - len(shown)
    return replace(detail, source_chats=shown, hidden_source_chats=hidden)


def chats_using(
    site: Site, owner: Owner, memory_id: str, limit: int
) -> list[tuple[Chat, list[UsedMemory]]]:
    """The chats a memory was injected into that the caller may see, newest first."""
    visible_memory(site, owner, memory_id)
    chats = site.md.chats_using(owner.user.id, memory_id, limit=limit)
    chats = [c for c in chats if owner.may_use(site, c.workspace)]
    used = used_memories(site, owner, [c.id for c in chats])
    return [(c, used.get(c.id, [])) for c in chats]


def history(site: Site, owner: Owner, memory_id: str) -> list[AuditEntry]:
    """Every change to one memory (deleted ones too) unless it is, or was when deleted,
    in a workspace the caller may not use."""
    entries = site.md.audit_log(owner.user.id, memory_id)
    latest: dict[str, Any] = (entries[-1].after or entries[-1].before or {}) if entries else {}
    if not entries or not owner.may_use(site, latest.get("workspace")):
        raise NotFound(f"no memory {memory_id!r} for this user")
    return entries


def add_memory(
    site: Site,
    owner: Owner,
    content: str,
    scope: Scope | str | None,
    workspace: str | None,
    expires_at: str | None = None,
) -> Memory:
    if workspace is not None:
        require_workspace(site, owner.acting, workspace)
    return site.md.add_memory(
        owner.user.id, content, scope, workspace, actor=owner.actor, expires_at=expires_at
    )


def edit_memory(
    site: Site,
    owner: Owner,
    memory_id: str,
    content: str | None,
    expires_at: str | Keep | None = KEEP,
) -> Memory:
    visible_memory(site, owner, memory_id)
    return site.md.edit_memory(
        owner.user.id, memory_id, content, actor=owner.actor, expires_at=expires_at
    )


def delete_memory(site: Site, owner: Owner, memory_id: str, reason: str | None = None) -> Memory:
    memory = visible_memory(site, owner, memory_id)
    site.md.delete_memory(owner.user.id, memory_id, reason=reason, actor=owner.actor)
    return memory


def promote(site: Site, owner: Owner, memory_id: str) -> Memory:
    visible_memory(site, owner, memory_id)
    return site.md.promote(owner.user.id, memory_id, actor=owner.actor)


def demote(site: Site, owner: Owner, memory_id: str, workspace: str) -> Memory:
    visible_memory(site, owner, memory_id)
    require_workspace(site, owner.acting, workspace)
    return site.md.demote(owner.user.id, memory_id, workspace, actor=owner.actor)
