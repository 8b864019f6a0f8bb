"""What a reading of the audit log may ask for, checked once for every surface.

The library (``memoryd.app.audit``), the REST API, the CLI and the client all pass their
filters and paging through ``audit_query``, so a bad value is refused with the same
``InvalidInput`` message everywhere and storage (``memoryd.storage.audit_rows``) only
ever sees values it can put in a query as they are.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time

from memoryd.domain.errors import InvalidInput
from memoryd.domain.models import AuditAction, Source
from memoryd.domain.rules import MAX_ROW_ID, in_utc, is_row_id, iso_time, quoted, validate_slug

DEFAULT_PAGE = 100  # entries in one page when no limit is given
MAX_PAGE = 1000  # the most one page holds (the REST API's limit too)
MAX_MEMORY_ID_CHARS = 64
MAX_ACTOR_CHARS = 100  # the audit_log.actor column

# what ``action=`` takes: one action or several, by value or as AuditAction
Actions = AuditAction | str | Iterable[AuditAction | str] | None

ACTIONS = ", ".join(a.value for a in AuditAction)
SOURCES = ", ".join(s.value for s in Source)


@dataclass(frozen=True)
class AuditQuery:
    """Which of one user's entries to read. Empty filters match everything.

    ``actor`` is a kind (``extraction``: every run's changes) or one exact label
    (``extraction:RUN``, ``admin:1``). ``workspace`` matches an entry whose memory was in
    that workspace before or after the change, and a chat deletion that deleted chats
    there. ``visible_in``: when given, an entry about a memory whose latest state (after
    its last change, or when it was deleted) is in a workspace not in this set is left
    out, with all that memory's other entries; global memories, chat deletions and
    setting changes are always kept."""

    user_id: int
    before: int | None = None
    limit: int | None = DEFAULT_PAGE
    memory_id: str | None = None
    actions: tuple[AuditAction, ...] = ()
    actor: str | None = None
    workspace: str | None = None
    since: datetime | None = None
    visible_in: frozenset[str] | None = None


def audit_query(
    user_id: int,
    *,
    before: object = None,
    limit: object = DEFAULT_PAGE,
    memory_id: object = None,
    action: object = None,
    actor: object = None,
    workspace: object = None,
    since: object = None,
    visible_in: Collection[str] | None = None,
) -> AuditQuery:
    """The query, or ``InvalidInput`` naming the first bad value and what would do.
    ``limit=None`` reads every matching entry (the library's ``audit_log``)."""
    cursor = before if isinstance(before, int) and is_row_id(before) else None
    if before is not None and cursor is None:
        raise InvalidInput(
            f"before {quoted(before)} is not an audit entry id: give the id of the last "
            f"entry of the page you have (a whole number from 1 to {MAX_ROW_ID})"
        )
    if limit is not None and (
        not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_PAGE
    ):
        raise InvalidInput(f"limit {quoted(limit)} is not a whole number from 1 to {MAX_PAGE}")
    if memory_id is not None and (
        not isinstance(memory_id, str) or not 0 < len(memory_id) <= MAX_MEMORY_ID_CHARS
    ):
        raise InvalidInput(f"memory id {quoted(memory_id)} is not a memory id")
    if isinstance(visible_in, str):
        raise InvalidInput("visible_in is a collection of workspace slugs, not one slug")
    return AuditQuery(
        user_id=user_id,
        before=cursor,
        limit=limit,
        memory_id=memory_id,
        actions=parse_actions(action),
        actor=parse_actor(actor),
        workspace=None if workspace is None else validate_slug(workspace),
        since=parse_since(since),
        visible_in=None if visible_in is None else frozenset(visible_in),
    )


def parse_actions(action: object) -> tuple[AuditAction, ...]:
    """One action or several (``"create"``, ``["update", "delete"]``); none for all."""
    if action is None:
        return ()
    given = [action] if isinstance(action, str | AuditAction) else action
    if not isinstance(given, Iterable):
        raise InvalidInput(f"action {quoted(action)} is not an action: use one of {ACTIONS}")
    found: list[AuditAction] = []
    for one in given:
        try:
            found.append(AuditAction(one))
        except ValueError:
            raise InvalidInput(f"unknown action {quoted(one)}: use one of {ACTIONS}") from None
    return tuple(dict.fromkeys(found))


def parse_actor(actor: object) -> str | None:
    """A kind of actor (``user``, ``admin``, ``extraction``, ``import``, ``system``) or
    one exact label such as ``extraction:RUN`` or ``user:3``."""
    if actor is None:
        return None
    if not isinstance(actor, str) or not 0 < len(actor) <= MAX_ACTOR_CHARS:
        raise InvalidInput(f"actor {quoted(actor)} is not an actor: use one of {SOURCES}")
    kind = actor.partition(":")[0]
    if kind not in {s.value for s in Source}:
        raise InvalidInput(
            f"unknown actor {quoted(actor)}: use one of {SOURCES}, or one exact actor "
            "as the log shows it (e.g. user:3, extraction:RUN_ID)"
        )
    return actor


def parse_since(value: object) -> datetime | None:
    """The start of a time range as an aware UTC time: a date (``2026-03-14``) means
    from that day's midnight, UTC; an ISO 8601 time is taken as it is (without a zone, as
    UTC). None or empty text: no start."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    given = value
    if isinstance(value, str):
        text = value.strip()
        try:
            value = date.fromisoformat(text) if len(text) == 10 else iso_time(text)
        except ValueError:
            value = None
    if isinstance(value, datetime):
        return in_utc(value, "since")
    if isinstance(value, date):
        return datetime.combine(value, time(0), tzinfo=UTC)
    raise InvalidInput(
        f"invalid since {quoted(given)}: use a date (YYYY-MM-DD) or an ISO 8601 time"
    )
