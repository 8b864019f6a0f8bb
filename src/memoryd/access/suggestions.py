"""The review queue as a caller may reach it: extraction's suggested changes to the
owner's memories, listed, accepted (as they are, edited or into another scope) or
rejected.

A suggestion is where its memory would be: one in a workspace the caller may not use is
not found, as such a memory is; accepting into the workspace its chats were in
(``origin``) needs that workspace. Accepting is a memory write like any other (a full
scope or a duplicate is refused). The REST API's ``/suggestions`` routes, the web UI's
review queue and ``memoryd memories suggestions`` call these.
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
    """Accept one of the owner's suggestions that the caller may see, into ``scope``
    (``memoryd.app.lifecycle.accept_target``)."""
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
    """Turn a suggestion down; the same text is not suggested again."""
    visible_suggestion(site, owner, suggestion_id)
    return site.md.reject_suggestion(owner.user.id, suggestion_id)
