"""Form posts of the admin panel: settings, extraction runs, users, workspaces and members,
through the same functions as the REST API (``memoryd.access.accounts`` and
``memoryd.access.extraction``), so the same rules hold (only admins; the last admin can be
neither demoted nor deleted).
"""

from __future__ import annotations

import contextvars
import logging
import threading

from fastapi import APIRouter, Request, Response
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData

from memoryd.access import accounts
from memoryd.access.callers import require_admin
from memoryd.access.extraction import is_running, run_now
from memoryd.domain.errors import InvalidInput, MemorydError
from memoryd.domain.models import Role, User
from memoryd.extraction.runs import Run
from memoryd.server.deps import Caller, ServerState, State
from memoryd.server.web.actions import back_to, confirmed, field_text, form_post, posted
from memoryd.server.web.i18n import _, ngettext
from memoryd.server.web.routes import redirect

log = logging.getLogger("memoryd.server")
router = APIRouter(prefix="/ui", include_in_schema=False)


def _user_of(state: ServerState, caller: Caller, raw: str) -> User:
    """The user a form names, for an admin only (asked first: others learn nothing)."""
    require_admin(caller.user)
    try:
        return state.md.get_user(int(raw))
    except ValueError:
        raise InvalidInput(_("user_id must be a number")) from None


# settings and extraction --------------------------------------------------------------------
@form_post(router, "/settings")
def save_settings(state: ServerState, caller: Caller, form: FormData) -> str:
    require_admin(caller.user)
    changes: dict[str, object] = {
        "memory_enabled": form.get("memory_enabled") is not None,
        "memory_auto_extraction": form.get("memory_auto_extraction") is not None,
    }
    for key in ("extraction_provider", "memory_review", "expired_grace_days", "run_retention_days"):
        if key in form:
            changes[key] = field_text(form, key)
    parsed = {k: state.md.parse_setting(k, v) for k, v in changes.items()}
    for key, value in parsed.items():
        state.md.set_setting(key, value)
    return _("Settings saved.")


@router.post("/extraction/run")
async def run_extraction(request: Request, state: State) -> Response:
    caller, form = await posted(request, state)
    return await _start_run(request, state, caller, form, None, None)


@router.post("/extraction/retry")
async def retry_extraction(request: Request, state: State) -> Response:
    caller, form = await posted(request, state)
    try:
        user_id = int(field_text(form, "user_id"))
    except ValueError:
        return redirect(request, back_to(form), _("user_id must be a number"), "error")
    return await _start_run(request, state, caller, form, user_id, field_text(form, "workspace"))


# How long the answer to "Run now" waits for the run to be stored as running (it looks up
# the due pairs first), so the page it comes back to lists it.
START_WAIT_SECONDS = 10.0


class _Starting:
    """What a run started from the panel has got to: stored (``run``), or refused before
    it could start (``error``); ``ready`` is set at either."""

    def __init__(self) -> None:
        self.ready = threading.Event()
        self.run: Run | None = None
        self.error: str | None = None

    def started(self, run: Run) -> None:
        self.run = run
        self.ready.set()

    def failed(self, exc: Exception) -> None:
        if isinstance(exc, MemorydError):
            self.error = str(exc)
        else:
            self.error = _(
                "an unexpected error (%(name)s); see the server log", name=type(exc).__name__
            )
        self.ready.set()


async def _start_run(
    request: Request,
    state: ServerState,
    caller: Caller,
    form: FormData,
    user_id: int | None,
    workspace: str | None,
) -> Response:
    """Start a run in the background (an LLM run can take minutes) and come back once it
    is stored as running, so the page lists it; a run that cannot start says why."""
    if not caller.is_admin:
        return redirect(request, back_to(form), _("only an admin can do this"), "error")
    if is_running():
        message = _("An extraction run is already running.")
        return redirect(request, back_to(form), message, "error")
    starting = _Starting()

    def run() -> None:
        try:
            force = user_id is not None
            run_now(state.md, caller.user, user_id, workspace, force, on_start=starting.started)
        except Exception as exc:  # after the start: in the run history, and logged here
            log.exception("extraction run from the UI failed")
            starting.failed(exc)

    # in a copy of this request's context, so a message the thread writes is in the
    # reader's language (a new thread would start with the default context: English)
    work = contextvars.copy_context()
    threading.Thread(
        target=work.run, args=(run,), name="memoryd-ui-extraction", daemon=True
    ).start()
    await run_in_threadpool(starting.ready.wait, START_WAIT_SECONDS)
    back = back_to(form)
    if starting.run is not None:
        return redirect(request, back, _("Extraction run %(id)s started.", id=starting.run.id[:8]))
    if starting.error is not None:
        refused = _("Extraction could not start: %(error)s", error=starting.error)
        return redirect(request, back, refused, "error")
    return redirect(request, back, _("Extraction is starting; it is listed here once it has."))


# users ----------------------------------------------------------------------------------------
@form_post(router, "/users")
def create_user(state: ServerState, caller: Caller, form: FormData) -> str:
    role = Role.ADMIN.value if form.get("admin") is not None else Role.DEFAULT.value
    workspace = field_text(form, "workspace")
    workspaces = [workspace] if workspace else []
    name, password = field_text(form, "name"), field_text(form, "password")
    user = accounts.add_user(state, caller.user, name, role, password, workspaces)
    return _("User %(name)s added.", name=user.name)


@form_post(router, "/users/{user_id}/role")
def set_role(state: ServerState, caller: Caller, form: FormData, user_id: str) -> str:
    target = _user_of(state, caller, user_id).id
    user = accounts.change_user(state, caller.user, target, role=field_text(form, "role"))
    if user.role is Role.ADMIN:
        return _("%(name)s is now an admin.", name=user.name)
    return _("%(name)s is now a default user.", name=user.name)


@form_post(router, "/users/{user_id}/password")
def reset_password(state: ServerState, caller: Caller, form: FormData, user_id: str) -> str:
    target = _user_of(state, caller, user_id).id
    password = field_text(form, "password")
    user = accounts.change_user(state, caller.user, target, password=password)
    return _("New password set for %(name)s; they are signed out everywhere.", name=user.name)


@form_post(router, "/users/{user_id}/delete")
def delete_user(state: ServerState, caller: Caller, form: FormData, user_id: str) -> str:
    doomed = _user_of(state, caller, user_id)
    n = len(state.md.list_memories(doomed.id))
    question = ngettext(
        "Delete the user %(name)s with their %(num)d memory and all their chats? "
        "This cannot be undone.",
        "Delete the user %(name)s with their %(num)d memories and all their chats? "
        "This cannot be undone.",
        n,
        name=doomed.name,
    )
    confirmed(form, question, _("Delete user"))
    user = accounts.remove_user(state, caller.user, doomed.id)
    return _("User %(name)s deleted, with their memories and chats.", name=user.name)


# workspaces and members -----------------------------------------------------------------------
@form_post(router, "/workspaces")
def create_workspace(state: ServerState, caller: Caller, form: FormData) -> str:
    slug, name = field_text(form, "slug"), field_text(form, "name") or None
    workspace = accounts.create_workspace(state, require_admin(caller.user), slug, name)
    return _("Workspace %(slug)s created.", slug=workspace.slug)


@form_post(router, "/workspaces/{slug}/delete")
def delete_workspace(state: ServerState, caller: Caller, form: FormData, slug: str) -> str:
    require_admin(caller.user)
    state.md.get_workspace(slug)  # an unknown one is refused before asking
    question = _(
        "Delete the workspace %(slug)s with every memory and chat in it? This cannot be undone.",
        slug=slug,
    )
    confirmed(form, question, _("Delete workspace"))
    accounts.delete_workspace(state, caller.user, slug)
    return _("Workspace %(slug)s deleted, with its memories and chats.", slug=slug)


@form_post(router, "/members")
def add_member(state: ServerState, caller: Caller, form: FormData) -> str:
    user = _user_of(state, caller, field_text(form, "user_id"))
    workspace = field_text(form, "workspace")
    if not accounts.add_member(state, caller.user, workspace, user.id):
        return _("%(name)s was already a member of %(slug)s.", name=user.name, slug=workspace)
    return _("%(name)s is now a member of %(slug)s.", name=user.name, slug=workspace)


@form_post(router, "/members/remove")
def remove_member(state: ServerState, caller: Caller, form: FormData) -> str:
    user = _user_of(state, caller, field_text(form, "user_id"))
    workspace = field_text(form, "workspace")
    accounts.remove_member(state, caller.user, workspace, user.id)
    return _("%(name)s is no longer a member of %(slug)s.", name=user.name, slug=workspace)
