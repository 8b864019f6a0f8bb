"""The web UI's Activity page: a user's whole audit log, newest first, a page at a time.

``/activity`` is the signed-in user's own log; ``/admin/users/{id}/activity`` any user's,
for admins. Both read through ``memoryd.access.audit.read_audit``, as the REST API does,
so the page shows a default user exactly what the API gives them. Everything is a plain
GET (filters in a form, an "Older" link carrying the ``before`` cursor), so the page needs
no script; ``.../activity/history/{memory_id}`` is one memory's History table alone, which
memoryd.js fetches into a memory's detail dialog. How an entry reads is
``memoryd.server.web.audit_words``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse, PlainTextResponse

from memoryd.access.audit import read_audit, visible_workspaces
from memoryd.access.callers import Owner, owner_for, self_owner
from memoryd.app.i18n import N_
from memoryd.domain.audit import MAX_MEMORY_ID_CHARS
from memoryd.domain.errors import InvalidInput, MemorydError
from memoryd.domain.models import AuditAction, AuditEntry, Source, Workspace
from memoryd.domain.rules import MAX_ROW_ID, quoted
from memoryd.server.deps import Caller, ServerState, State
from memoryd.server.errors import status_of
from memoryd.server.web.admin_pages import admin_caller
from memoryd.server.web.audit_words import Reader, by_day, describe
from memoryd.server.web.i18n import _, speak_to
from memoryd.server.web.memory_focus import MemoryView, all_changes, history_of
from memoryd.server.web.routes import (
    fragment,
    here_of,
    memory_view,
    page_context,
    redirect,
    render,
    to_login,
    web_caller,
)

router = APIRouter(include_in_schema=False)
PAGE_SIZE = 50  # entries on a page when the address names no limit
MAX_PAGE_SIZE = 200
MAX_FIELD = 100  # characters of a field read (a slug is at most 64)

# the "Change" filter: value -> (label's msgid, the actions it stands for)
CHANGES: dict[str, tuple[str, tuple[AuditAction, ...]]] = {
    "created": (N_("Created"), (AuditAction.CREATE,)),
    "edited": (N_("Edited"), (AuditAction.UPDATE,)),
    "deleted": (N_("Deleted (expired ones too)"), (AuditAction.DELETE,)),
    "moved": (
        N_("Made global or moved to a workspace"),
        (AuditAction.PROMOTE, AuditAction.DEMOTE),
    ),
    "chats": (N_("Chats deleted"), (AuditAction.DELETE_CHATS,)),
    "settings": (
        N_("Settings changed (learning, review, language, role, workspaces)"),
        (AuditAction.CHANGE_SETTING,),
    ),
}
# the "By" filter: the kinds of actor the log names (the label depends on the reader)
BY = tuple(s.value for s in Source)


@dataclass(frozen=True)
class Filters:
    """What the address asks for; empty text is no filter."""

    workspace: str = ""
    change: str = ""
    by: str = ""
    memory: str = ""
    before: int | None = None
    limit: int = PAGE_SIZE

    @property
    def narrowed(self) -> bool:
        return bool(self.workspace or self.change or self.by or self.memory)

    def address(self, base: str, **changes: Any) -> str:
        """``base`` with these filters (and ``changes`` to them) as its query."""
        chosen = replace(self, **changes)
        named = ("workspace", "change", "by", "memory")
        params = [(k, getattr(chosen, k)) for k in named if getattr(chosen, k)]
        if chosen.limit != PAGE_SIZE:
            params.append(("limit", str(chosen.limit)))
        if chosen.before is not None:
            params.append(("before", str(chosen.before)))
        return base + (f"?{urlencode(params)}" if params else "")


def _field(request: Request, name: str) -> str:
    return (request.query_params.get(name) or "").strip()[:MAX_FIELD]


def _whole(text: str, name: str, top: int, meaning: str) -> int | None:
    if not text:
        return None
    if not text.isascii() or not text.isdigit() or not 1 <= int(text) <= top:
        raise InvalidInput(
            _(
                "%(name)s %(text)s is not %(meaning)s (a whole number, 1 to %(top)d)",
                name=name,
                text=quoted(text),
                meaning=meaning,
                top=top,
            )
        )
    return int(text)


def filters_of(request: Request) -> Filters:
    """The filters the address gives, or InvalidInput saying which one is wrong."""
    change, by = _field(request, "change"), _field(request, "by")
    for value, known, unknown in (
        (change, CHANGES, N_("unknown change %(value)s: use one of %(choices)s")),
        (by, BY, N_("unknown by %(value)s: use one of %(choices)s")),
    ):
        if value and value not in known:
            raise InvalidInput(_(unknown, value=quoted(value), choices=", ".join(known)))
    memory = (request.query_params.get("memory") or "").strip()
    if len(memory) > MAX_MEMORY_ID_CHARS:
        raise InvalidInput(
            _("memory id is too long (at most %(top)d characters)", top=MAX_MEMORY_ID_CHARS)
        )
    entry = _("an entry number: use the Older link")
    return Filters(
        workspace=_field(request, "workspace"),
        change=change,
        by=by,
        memory=memory,
        before=_whole(_field(request, "before"), "before", MAX_ROW_ID, entry),
        limit=_whole(_field(request, "limit"), "limit", MAX_PAGE_SIZE, _("a page size"))
        or PAGE_SIZE,
    )


def read_page(state: ServerState, owner: Owner, filters: Filters) -> tuple[list[AuditEntry], bool]:
    """A page of entries, and whether older ones match too."""
    entries = read_audit(
        state,
        owner,
        before=filters.before,
        limit=filters.limit + 1,  # one more: is there an older page?
        action=CHANGES[filters.change][1] if filters.change else None,
        actor=filters.by or None,
        workspace=filters.workspace or None,
        memory_id=filters.memory or None,
    )
    return entries[: filters.limit], len(entries) > filters.limit


def by_options(own: bool, name: str) -> list[tuple[str, str]]:
    who = {
        Source.USER.value: _("You") if own else name,
        Source.ADMIN.value: _("An admin"),
        Source.EXTRACTION.value: _("Extraction (learned from chats)"),
        Source.IMPORT.value: _("An import"),
        Source.SYSTEM.value: _("memoryd (expired memories)"),
    }
    return [(kind, who[kind]) for kind in BY]


def show(
    request: Request, state: ServerState, caller: Caller, owner: Owner, *, base: str
) -> Response:
    """The page for ``owner.user``'s log, read as ``caller``."""
    here = here_of(request)
    speak_to(request, state, caller.user)  # before the filters' errors are worded
    filters, more, problem = Filters(), False, None
    entries: list[AuditEntry] = []
    try:
        filters = filters_of(request)
        entries, more = read_page(state, owner, filters)
    except MemorydError as exc:
        problem = exc
    own = owner.user.id == caller.user.id
    extra: dict[str, Any] = {}
    if not own:  # an admin's view: the user's memories open from here (``detail=``)
        extra["chosen_view"] = memory_view(state, owner, "admin", here)
    context = page_context(
        request, state, caller, page="activity" if own else "admin", here=here, **extra
    )
    view: MemoryView = extra.get("chosen_view") or context["my_memories"]
    listed = frozenset(m.id for group in view.groups for m in group.memories)
    reader = Reader.of(owner, listed)
    if problem is not None:
        context["flashes"] = [*context["flashes"], {"level": "error", "text": str(problem)}]
        context["status"] = status_of(problem)[0]
    if context["focus"].detail is not None:  # its Close comes back here, not to a list
        context["focus"].detail.close = here
    visible = visible_workspaces(state, owner)
    workspaces: list[Workspace] = (
        state.md.list_workspaces() if visible is None else state.auth.workspaces_of(owner.user)
    )
    context.update(
        subject=owner.user,
        own=own,
        base=base,
        filters=filters,
        days=by_day([describe(e, reader) for e in entries]),
        failed=problem is not None,
        older=filters.address(base, before=entries[-1].id) if more and entries else None,
        newest=filters.address(base, before=None) if filters.before is not None else None,
        workspace_options=workspaces,
        change_options=[(k, _(label)) for k, (label, _actions) in CHANGES.items()],
        by_options=by_options(own, owner.user.name),
        api_base=view.api_base,
        page_size=PAGE_SIZE,
    )
    return render(request, "activity.html", context)


@router.get("/activity", response_class=HTMLResponse)
def my_activity(request: Request, state: State) -> Response:
    caller = web_caller(request, state)
    if caller is None:
        return to_login(request)
    return show(request, state, caller, self_owner(caller.user), base="/activity")


@router.get("/admin/users/{user_id}/activity", response_class=HTMLResponse)
def user_activity(request: Request, state: State, user_id: str) -> Response:
    caller = admin_caller(request, state)
    if not isinstance(caller, Caller):
        return caller
    subject = next((u for u in state.md.list_users() if str(u.id) == user_id), None)
    if subject is None:
        return redirect(
            request, "/admin?tab=users", _("No user %(id)s.", id=quoted(user_id)), "error"
        )
    base = f"/admin/users/{subject.id}/activity"
    return show(request, state, caller, owner_for(caller.user, subject), base=base)


def history(
    request: Request, state: ServerState, owner: Owner, memory_id: str, *, base: str
) -> Response:
    """One memory's History table alone (``memory_history.html``), or a 404 saying so."""
    speak_to(request, state, owner.acting)
    try:
        items = history_of(state, owner, memory_id)
    except (LookupError, MemorydError):
        missing = _("No memory %(id)s for this user.", id=quoted(memory_id[:100]))
        return PlainTextResponse(missing, 404)
    context = {"history": items, "all_changes": all_changes(base, memory_id)}
    return fragment(request, "memory_history.html", context)


@router.get("/activity/history/{memory_id}", response_class=HTMLResponse)
def my_memory_history(request: Request, state: State, memory_id: str) -> Response:
    caller = web_caller(request, state)
    if caller is None:
        speak_to(request, state, None)
        return PlainTextResponse(_("You are signed out: sign in again."), 401)
    return history(request, state, self_owner(caller.user), memory_id, base="/activity")


@router.get("/admin/users/{user_id}/activity/history/{memory_id}", response_class=HTMLResponse)
def user_memory_history(request: Request, state: State, user_id: str, memory_id: str) -> Response:
    caller = web_caller(request, state)
    speak_to(request, state, caller.user if caller is not None else None)
    if caller is None:
        return PlainTextResponse(_("You are signed out: sign in again."), 401)
    if not caller.is_admin:
        return PlainTextResponse(_("The admin panel is for admins."), 403)
    subject = next((u for u in state.md.list_users() if str(u.id) == user_id), None)
    if subject is None:
        return PlainTextResponse(_("No user %(id)s.", id=quoted(user_id[:100])), 404)
    base = f"/admin/users/{subject.id}/activity"
    return history(request, state, owner_for(caller.user, subject), memory_id, base=base)
