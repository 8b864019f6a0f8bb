"""The review queue as a caller may reach it: a suggestion is where its memory would be
(one in a workspace the caller may not use is not found), and accepting it into the
workspace its chats were in (``origin``) needs that workspace.
"""

from __future__ import annotations

from memoryd.access.callers import Owner, Site
from memoryd.domain.errors import NotFound, PermissionDenied
from memoryd.domain.models import Memory, Suggestion
from memoryd.domain.rules import KEEP, Keep


def visible_suggestion(site: Site, owner: Owner, suggestion_id: str) -> Suggestion:
    found = site.md.get_suggestion(owner.user.id, suggestion_id)
    if not owner.may_use(site, found.workspace):
        raise NotFound(f"no suggestion {suggestion_id!r} for this user")
    return found


def visible_suggestions(site: Site, owner: Owner, status: str = "pending") -> list[Suggestion]:
    found = site.md.list_suggestions(owner.user.id, status)
    return [s for s in found if owner.may_use(site, s.workspace)]


def accept(
    site: Site,
    owner: Owner,
    suggestion_id: str,
    *,
    content: str | None = None,
    expires_at: str | Keep | None = KEEP,
    scope: str | None = None,
) -> Memory:
    """Accept a suggestion into ``scope`` (``memoryd.app.lifecycle.accept_target``)."""
    found = visible_suggestion(site, owner, suggestion_id)
    if scope == "workspace" and not owner.may_use(site, found.origin):
        raise PermissionDenied(f"you are not a member of workspace {found.origin}")
    return site.md.accept_suggestion(
        owner.user.id,
        suggestion_id,
        content=content,
        expires_at=expires_at,
        scope=scope,
        actor=owner.actor,
    )


def reject(site: Site, owner: Owner, suggestion_id: str) -> Suggestion:
    visible_suggestion(site, owner, suggestion_id)
    return site.md.reject_suggestion(owner.user.id, suggestion_id)
