"""Export and import (R12) as a caller may do them: an export leaves out the memories and
chats of workspaces the caller may not use; a default user imports only into workspaces
they belong to or new ones (within their quota), never as ``source: "admin"``, and their
memories in workspaces they left stay out of reach (a line naming one creates another).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from memoryd.access.callers import Owner, Site, is_admin, require_workspace
from memoryd.app.transfer_chats import CHAT, is_chat
from memoryd.app.transfer_preferences import is_preferences
from memoryd.domain import runtime_settings
from memoryd.domain.errors import InvalidInput
from memoryd.domain.models import Source

if TYPE_CHECKING:
    from memoryd.access.accounts import Accounts
    from memoryd.app.transfer import ImportFile
    from memoryd.domain.results import ImportResult


def _shown(site: Site, owner: Owner, data: dict[str, Any]) -> bool:
    if is_chat(data):
        return owner.may_use(site, data[CHAT]["workspace"])
    return is_preferences(data) or owner.may_use(site, data["workspace"])


def export_lines(site: Site, owner: Owner, *, chats: bool = True) -> list[str]:
    lines = site.md.export_memories(owner.user.id, chats=chats)
    return [line for line in lines if _shown(site, owner, json.loads(line))]


def import_file(
    site: Accounts, owner: Owner, parsed: ImportFile, *, preferences: bool, chats: bool
) -> ImportResult:
    restricted = not is_admin(owner.acting)
    protected: set[str] = set()
    limit = site.md.get_settings()[runtime_settings.MAX_WORKSPACES_PER_USER.key]
    if restricted:
        claimed = next((r.line for r in parsed.records if r.source is Source.ADMIN), None)
        if claimed is not None:
            raise InvalidInput(f"line {claimed}: only an admin can import source 'admin'")
        existing = {w.slug for w in site.md.list_workspaces()}
        named = sorted(parsed.workspaces(chats=chats))
        for slug in named:
            if slug in existing:
                require_workspace(site, owner.user, slug)
        site.auth.check_workspace_quota(
            owner.user, sum(slug not in existing for slug in named), limit
        )
        protected = {
            m.id
            for m in site.md.list_memories(owner.user.id)
            if not owner.may_use(site, m.workspace)
        }
    return site.md.import_memories(
        owner.user.id,
        parsed,
        actor=owner.actor,
        protected_ids=protected,
        preferences=preferences,
        chats=chats,
        workspace_quota=limit if restricted else None,
    )
