"""The audit log part of the library facade: reading a user's audit entries (R12).

What is logged and why is docs/lifecycle.md's. Entry ids only grow and entries never
change, so a page (``list_audit``'s ``before`` cursor) never shifts under a reader. Who
may read whose log is the caller's business; ``visible_in`` lets a caller that knows
workspace membership leave out the entries of memories last seen in a workspace the user
has left (``memoryd.access.audit``).
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import date, datetime
from typing import TYPE_CHECKING

from memoryd.domain.audit import DEFAULT_PAGE, Actions, AuditQuery, audit_query
from memoryd.domain.models import AuditEntry
from memoryd.storage import audit_rows

if TYPE_CHECKING:
    from memoryd.extraction.deps import ExtractionDeps


class AuditService:
    """Reading a user's audit log (see the module doc)."""

    def __init__(self, deps: ExtractionDeps) -> None:
        self.deps = deps

    def list_audit(
        self,
        user_id: int,
        *,
        before: int | None = None,
        limit: int = DEFAULT_PAGE,
        memory_id: str | None = None,
        action: Actions = None,
        actor: str | None = None,
        workspace: str | None = None,
        since: datetime | date | str | None = None,
        visible_in: Collection[str] | None = None,
    ) -> list[AuditEntry]:
        """One page of the user's audit log, newest first: at most ``limit`` (1 to 1000)
        entries older than the entry ``before``. Read further back with ``before`` set to
        the last entry's id; a page shorter than ``limit`` is the last one.

        Filters, all optional: ``memory_id`` (one memory, deleted ones too), ``action``
        (``"delete"``, ``"change_setting"``, or several), ``actor`` (a kind such as
        ``"extraction"``, or one exact actor such as ``"admin:1"``), ``workspace``
        (changes to memories in it, chat deletions there and changes of membership of
        it; never a setting of the whole account), ``since`` (a date or an aware time:
        entries from then on).
        ``visible_in``: see the module doc; setting changes, which name no memory, are
        always kept."""
        query = audit_query(
            user_id,
            before=before,
            limit=limit,
            memory_id=memory_id,
            action=action,
            actor=actor,
            workspace=workspace,
            since=since,
            visible_in=visible_in,
        )
        return self._read(query, newest_first=True)

    def audit_log(
        self,
        user_id: int,
        memory_id: str | None = None,
        *,
        action: Actions = None,
        actor: str | None = None,
        workspace: str | None = None,
        since: datetime | date | str | None = None,
    ) -> list[AuditEntry]:
        """Every entry of the user's audit log (of one memory with ``memory_id``), oldest
        first, with ``list_audit``'s filters. A memory with no entries gives []."""
        query = audit_query(
            user_id, limit=None, memory_id=memory_id, action=action, actor=actor,
            workspace=workspace, since=since,
        )  # fmt: skip
        return self._read(query, newest_first=False)

    def _read(self, query: AuditQuery, *, newest_first: bool) -> list[AuditEntry]:
        with self.deps.db.read() as repo:
            self.deps.store.require_user(repo, query.user_id)
            return audit_rows.list_entries(repo.conn, query, newest_first=newest_first)
