"""The admin panel's pages: ``/admin`` (tabs: users, workspaces, a user's memories,
extraction runs, settings), ``/admin/runs/{id}`` (what one extraction run did) and
``/admin/extraction-runs``, the run list alone, which memoryd.js reads again while a run
is in progress. The pages only read; their forms post to ``admin_actions``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse

from memoryd.access.accounts import users_overview
from memoryd.access.callers import owner_for
from memoryd.access.extraction import is_running
from memoryd.app.i18n import N_
from memoryd.domain.errors import MemorydError
from memoryd.domain.models import Role, User, Workspace
from memoryd.extraction.runs import Run, calls_text
from memoryd.plugins import llm_provider_factories
from memoryd.server.deps import Caller, ServerState, State
from memoryd.server.web.i18n import _, speak_to
from memoryd.server.web.routes import (
    TEMPLATES,
    fragment,
    memory_view,
    page_context,
    redirect,
    render,
    to_login,
    web_caller,
)

router = APIRouter(include_in_schema=False)
TEMPLATES.env.globals["calls_text"] = calls_text
TABS = ("users", "workspaces", "memories", "extraction", "settings")
RUNS_LISTED = 10  # runs on the Extraction tab
RUN_ENTRY_KINDS = {  # msgids: the templates translate them
    "pair": N_("Batch failed"),
    "item": N_("Dropped"),
    "not_stored": N_("Not stored"),
    "planned": N_("Would change (dry run)"),
    "interrupted": N_("Stopped here"),
    "config": N_("LLM settings unusable"),
    "questions": N_("Asking questions stopped"),
    "suggested": N_("Waiting for review"),
}
RUN_WORDS = {  # a run's status and trigger, as stored -> msgid (the templates translate)
    "running": N_("running"),
    "ok": N_("ok"),
    "errors": N_("errors"),
    "interrupted": N_("interrupted"),
    "manual": N_("by hand"),
    "scheduler": N_("scheduled"),
    "worker": N_("queue worker"),
}
TEMPLATES.env.globals["run_words"] = RUN_WORDS


@dataclass
class WorkspaceRow:
    workspace: Workspace
    members: list[User]
    others: list[User]  # users who could be added


@dataclass
class PairEntries:
    """What a run reported for one (user, workspace) pair."""

    user: str
    workspace: str
    entries: list[dict[str, Any]] = field(default_factory=list)


def admin_caller(request: Request, state: ServerState) -> Caller | Response:
    caller = web_caller(request, state)
    if caller is None:
        return to_login(request)
    speak_to(request, state, caller.user)
    if not caller.is_admin:
        return redirect(request, "/?denied=1", _("The admin panel is for admins."), "error")
    return caller


def workspace_rows(state: ServerState, users: list[User]) -> list[WorkspaceRow]:
    rows = []
    for workspace in state.md.list_workspaces():
        members = state.auth.members(workspace.slug)
        ids = {u.id for u in members}
        others = [u for u in users if u.id not in ids and u.role is not Role.ADMIN]
        rows.append(WorkspaceRow(workspace, members, others))
    return rows


@router.get("/admin", response_class=HTMLResponse)
def admin_page(request: Request, state: State, user: int | None = None) -> Response:
    caller = admin_caller(request, state)
    if not isinstance(caller, Caller):
        return caller
    asked = request.query_params.get("tab")
    tab = asked if asked in TABS else ("memories" if user else "users")
    users = state.md.list_users()
    chosen = next((u for u in users if u.id == user), None) if user else None
    chosen = chosen or next((u for u in users if u.role is not Role.ADMIN), None) or users[0]
    owner = owner_for(caller.user, chosen)
    context = page_context(
        request,
        state,
        caller,
        page="admin",
        tab=tab,
        tabs=TABS,
        settings=state.md.get_settings(),
        providers=sorted(llm_provider_factories()),
        users=users,
        user_rows=users_overview(state, caller.user),
        workspace_rows=workspace_rows(state, users),
        chosen=chosen,
        chosen_view=memory_view(state, owner, "admin", f"/admin?tab=memories&user={chosen.id}"),
        runs=state.md.extraction_runs(RUNS_LISTED),
        parked=state.md.extraction_failures(parked_only=True),
        extraction_running=is_running(),
        all_workspaces=state.md.list_workspaces(),
    )
    return render(request, "admin.html", context)


@router.get("/admin/extraction-runs", response_class=HTMLResponse)
def runs_table(request: Request, state: State) -> Response:
    """The Extraction tab's run list alone (an HTML table), as it is now."""
    caller = web_caller(request, state)  # read by a script: a status, not a redirect
    speak_to(request, state, caller.user if caller is not None else None)
    if caller is None:
        return HTMLResponse(_("Sign in again to see the run list."), status_code=401)
    if not caller.is_admin:
        return HTMLResponse(_("The run list is for admins."), status_code=403)
    context = {
        "runs": state.md.extraction_runs(RUNS_LISTED),
        "extraction_running": is_running(),
    }
    return fragment(request, "runs_table.html", context)


def run_pairs(run: Run, names: dict[int, str]) -> list[PairEntries]:
    """The run's reported entries grouped by pair, in the order they were reported."""
    pairs: dict[tuple[Any, Any], PairEntries] = {}
    for entry in run.errors:
        key = (entry.get("user_id"), entry.get("workspace"))
        if key not in pairs:
            uid = entry.get("user_id")
            who = names.get(uid, _("user %(id)s", id=uid)) if isinstance(uid, int) else "?"
            if key == (None, None):  # about the run, not a pair (stopped between pairs)
                pairs[key] = PairEntries(_("The whole run"), "")
            else:
                pairs[key] = PairEntries(who, str(entry.get("workspace") or "?"))
        kind = str(entry.get("kind", ""))
        detail = entry.get("error") if "error" in entry else entry.get("change")
        pairs[key].entries.append(
            {
                "kind": kind,
                "label": RUN_ENTRY_KINDS.get(kind, kind or N_("Note")),
                "detail": detail if isinstance(detail, str) else repr(detail),
                "parked": bool(entry.get("parked")),
            }
        )
    return list(pairs.values())


@router.get("/admin/runs/{run_id}", response_class=HTMLResponse)
def run_page(request: Request, state: State, run_id: str) -> Response:
    caller = admin_caller(request, state)
    if not isinstance(caller, Caller):
        return caller
    try:
        run = state.md.extraction_run(run_id[:64])
    except MemorydError:
        missing = _("No extraction run %(id)r.", id=run_id)
        return redirect(request, "/admin?tab=extraction", missing, "error")
    names = {u.id: u.name for u in state.md.list_users()}
    kinds = [str(e.get("kind", "")) for e in run.errors]
    context = page_context(
        request,
        state,
        caller,
        page="admin",
        run=run,
        pairs=run_pairs(run, names),
        counts={k: kinds.count(k) for k in RUN_ENTRY_KINDS if k != "suggested"},  # see Memories
        labels=RUN_ENTRY_KINDS,
    )
    return render(request, "run.html", context)
