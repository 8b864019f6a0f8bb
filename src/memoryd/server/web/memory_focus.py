"""What a memories list opens on the server, so editing and reading a memory's detail work
without JavaScript: ``?edit=<id>`` renders that memory's edit form open and filled in,
``?detail=<id>`` its detail dialog, built as the REST API builds ``GET .../memories/{id}``.

Also ``MemoryView`` (the memories list itself) and the filters that word the detail the
way memoryd.js does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from fastapi import Request

from memoryd.access.callers import Owner
from memoryd.access.memories import ScopeUsage, chats_using, memory_detail, visible_memory
from memoryd.access.wire import ChatOut, MemoryDetail, MemoryOut
from memoryd.domain.errors import MemorydError
from memoryd.domain.models import Source, User
from memoryd.extraction.questions import in_words as questions_in_words
from memoryd.server.deps import ServerState
from memoryd.server.web.audit_words import ActivityItem, Reader, describe, until_day
from memoryd.server.web.i18n import _
from memoryd.server.web.review_items import ReviewItem

USED_IN_LIMIT = 50  # as many as the script asks for (the API's default)
MAX_ID = 100


@dataclass
class ScopeGroup:
    title: str
    dom_id: str
    usage: ScopeUsage
    memories: list[MemoryOut]


@dataclass
class MemoryView:
    """A user's memories grouped by scope, with how full each scope is; ``back`` is the
    page showing them (where their forms return and their edit and detail links add to)."""

    owner: User
    access: Owner
    prefix: str
    back: str
    groups: list[ScopeGroup]
    workspaces: list[tuple[str, str]]  # (slug, name) of each workspace the list shows
    global_full: bool
    limits: Any = field(repr=False)
    api_base: str = "/api/v1/memories"  # where the detail view reads one memory
    activity_base: str = "/activity"  # the owner's Activity page (and its History tables)
    review: list[ReviewItem] = field(default_factory=list)  # suggestions waiting for review

    def holds(self, memory_id: str) -> bool:
        return any(m.id == memory_id for g in self.groups for m in g.memories)

    def row_id(self, memory_id: str) -> str:
        """The id of the memory's row in the page (what links back to it jump to)."""
        return f"{self.prefix}-memory-{memory_id}"


@dataclass
class DetailView:
    """A memory's detail as the dialog shows it, where its Close link goes, and the
    Activity page of its changes alone (``all_changes``)."""

    memory: MemoryDetail
    used_in: list[ChatOut]
    close: str
    history: list[ActivityItem]
    all_changes: str


@dataclass
class Focus:
    """The memory whose edit form and detail are open, and an id that was asked for but
    is not one of the listed memories (another user's, or gone)."""

    edit: str | None = None
    detail: DetailView | None = None
    missing: str | None = None


def focus_of(request: Request, state: ServerState, views: Sequence[MemoryView | None]) -> Focus:
    focus = Focus()
    listed = [v for v in views if v is not None]
    edit = _param(request, "edit")
    if edit is not None:
        if any(v.holds(edit) for v in listed):
            focus.edit = edit
        else:
            focus.missing = edit
    wanted = _param(request, "detail")
    if wanted is not None:
        view = next((v for v in listed if v.holds(wanted)), None)
        try:
            if view is None:
                raise LookupError(wanted)
            detail = MemoryDetail.of_detail(memory_detail(state, view.access, wanted))
            used_in = chats_using(state, view.access, wanted, USED_IN_LIMIT)
            focus.detail = DetailView(
                detail,
                [ChatOut.of(c, used) for c, used in used_in],
                close=f"{view.back}#{view.row_id(wanted)}",
                history=history_of(state, view.access, wanted),
                all_changes=all_changes(view.activity_base, wanted),
            )
        except (LookupError, MemorydError):  # deleted between the list and the detail
            focus.missing = wanted
    return focus


def history_of(state: ServerState, owner: Owner, memory_id: str) -> list[ActivityItem]:
    """Every change to one of ``owner.user``'s memories, oldest first, in the Activity
    page's words; NotFound for a memory the caller cannot see."""
    visible_memory(state, owner, memory_id)
    reader = Reader.of(owner, frozenset({memory_id}))
    return [describe(e, reader) for e in state.md.audit_log(owner.user.id, memory_id)]


def all_changes(activity_base: str, memory_id: str) -> str:
    """The Activity page (``activity_base``) narrowed to one memory."""
    return f"{activity_base}?memory={quote(memory_id, safe='')}"


def _param(request: Request, name: str) -> str | None:
    value = request.query_params.get(name)
    return value[:MAX_ID] if value else None


# the detail's wording (memoryd.js writes the same for the dialog it fills) -----------------
def _moment(iso: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(iso)
    except ValueError:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def utc_time(iso: str | None) -> str:
    """``2026-03-02 09:30 UTC``; ``never`` for no time."""
    if not iso:
        return _("never")
    moment = _moment(iso)
    return iso if moment is None else moment.strftime("%Y-%m-%d %H:%M UTC")


def until_text(iso: str) -> str:
    """An expiry in words: a date-only one is the day the user chose (``until_day``)."""
    moment = _moment(iso)
    if moment is None:
        return iso
    if (moment.hour, moment.minute, moment.second, moment.microsecond) != (0, 0, 0, 0):
        return utc_time(iso)
    return _("%(day)s (to the end of the day, UTC)", day=until_day(iso))


def source_text(memory: MemoryDetail) -> str:
    """Where a memory came from, in words; who acted is the History table's "By"."""
    by = memory.created_by or ""
    if memory.source == "extraction":
        run = (memory.run_id or (by.split(":")[1] if ":" in by else ""))[:8] or "?"
        if by.startswith(("user:", "admin:")):
            return _(
                "%(source)s (extraction run %(id)s), accepted in review",
                source=Source.EXTRACTION.words,
                id=run,
            )
        return _("%(source)s (extraction run %(id)s)", source=Source.EXTRACTION.words, id=run)
    return Source(memory.source).words


def shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


FILTERS = {
    "until_day": until_day,
    "utc_time": utc_time,
    "until_text": until_text,
    "source_text": source_text,
    "shorten": shorten,
    "questions_text": questions_in_words,
}
