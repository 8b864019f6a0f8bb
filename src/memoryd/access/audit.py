"""The audit log (R12) as a caller may read it.

A memory counts as being where its latest entry left it; a default user sees none of
the entries of a memory that is, or was when deleted, in a workspace they no longer
belong to (its text stays out of reach, as in every listing), but always their chat
deletions (counts, never text) and setting changes. An admin sees every entry.
"""

from __future__ import annotations

from memoryd.access.callers import Owner, Site, is_admin
from memoryd.domain.audit import DEFAULT_PAGE, Actions
from memoryd.domain.errors import NotFound
from memoryd.domain.models import AuditEntry
from memoryd.domain.rules import validate_slug


def visible_workspaces(site: Site, owner: Owner) -> set[str] | None:
    """The workspaces whose memories' entries the caller may read; None for all."""
    if is_admin(owner.acting) or is_admin(owner.user):
        return None
    return {w.slug for w in site.auth.workspaces_of(owner.user)}


def read_audit(
    site: Site,
    owner: Owner,
    *,
    before: int | None = None,
    limit: int = DEFAULT_PAGE,
    memory_id: str | None = None,
    action: Actions = None,
    actor: str | None = None,
    workspace: str | None = None,
    since: str | None = None,
) -> list[AuditEntry]:
    """One page of ``owner.user``'s log as the caller may see it; a workspace filter the
    caller may not use is NotFound."""
    visible_in = visible_workspaces(site, owner)
    if workspace is not None:
        validate_slug(workspace)
        if visible_in is not None and workspace not in visible_in:
            raise NotFound(f"no workspace {workspace!r} for this user")
    return site.md.list_audit(
        owner.user.id,
        before=before,
        limit=limit,
        memory_id=memory_id,
        action=action,
        actor=actor,
        workspace=workspace,
        since=since,
        visible_in=visible_in,
    )
