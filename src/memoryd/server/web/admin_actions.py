"""Form posts of the admin panel: settings, extraction runs, users (create, role,
password, delete), workspaces (create, delete) and their members (add, remove).

Same rules as the REST API, through the same functions (``memoryd.server.routers.users``
and the core): the last admin can be neither demoted nor deleted, nobody deletes
themselves. Each post checks the CSRF token and redirects back with a message. Membership
changes (and those a deleted workspace ends) are in the member's audit log, by the admin.
"""

from __future__ import annotations

import logging
import threading

from fastapi import APIRouter, Request, Response
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData

from memoryd.domain.errors import InvalidInput, MemorydError, PermissionDenied
from memoryd.domain.models import Actor, Role, Source, User
from memoryd.extraction.runs import Run
from memoryd.server.deps import Caller, ServerState, State
from memoryd.server.routers.extraction import is_running, run_now
from memoryd.server.routers.users import add_user, change_user, remove_user
from memoryd.server.web.actions import back_to, confirmed, field_text, perform, posted
from memoryd.server.web.i18n import _, ngettext
from memoryd.server.web.routes import redirect

log = logging.getLogger("memoryd.server")
router = APIRouter(prefix="/ui", include_in_schema=False)


def _admin(caller: Caller) -> None:
    if not caller.is_admin:
        raise PermissionDenied(_("only an admin can do this"))


def _by(caller: Caller) -> Actor:
    """The admin as the audit log names them."""
    return Actor(Source.ADMIN, caller.user.id)


def _user_of(state: ServerState, raw: str) -> User:
    try:
        return state.md.get_user(int(raw))
    except ValueError:
        raise InvalidInput(_("user_id must be a number")) from None


# settings and extraction --------------------------------------------------------------------
@router.post("/settings")
async def save_settings(request: Request, state: State) -> Response:
    caller, form = await posted(request, state)

    def work() -> str:
        _admin(caller)
        changes: dict[str, object] = {
            "memory_enabled": form.get("memory_enabled") is not None,
            "memory_auto_extraction": form.get("memory_auto_extraction") is not None,
        }
        for key in (
            "extraction_provider",
            "memory_review",
            "expired_grace_days",
            "run_retention_days",
        ):
            if key in form:
                changes[key] = field_text(form, key)
        parsed = {k: state.md.parse_setting(k, v) for k, v in changes.items()}
        for key, value in parsed.items():
            state.md.set_setting(key, value)
        return _("Settings saved.")

    return await perform(request, form, work)


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
            run_now(state, user_id, workspace, force=user_id is not None, on_start=starting.started)
        except Exception as exc:  # after the start: in the run history, and logged here
            log.exception("extraction run from the UI failed")
            starting.failed(exc)

    threading.Thread(target=run, name="memoryd-ui-extraction", daemon=True).start()
    await run_in_threadpool(starting.ready.wait, START_WAIT_SECONDS)
    back = back_to(form)
    if starting.run is not None:
        return redirect(request, back, _("Extraction run %(id)s started.", id=starting.run.id[:8]))
    if starting.error is not None:
        refused = _("Extraction could not start: %(error)s", error=starting.error)
        return redirect(request, back, refused, "error")
    return redirect(request, back, _("Extraction is starting; it is listed here once it has."))


# users ----------------------------------------------------------------------------------------
@router.post("/users")
async def create_user(request: Request, state: State) -> Response:
    caller, form = await posted(request, state)

    def work() -> str:
        _admin(caller)
        role = Role.ADMIN.value if form.get("admin") is not None else Role.DEFAULT.value
        workspace = field_text(form, "workspace")
        workspaces = [workspace] if workspace else []
        name, password = field_text(form, "name"), field_text(form, "password")
        user = add_user(state, caller.user, name, role, password, workspaces)
        return _("User %(name)s added.", name=user.name)

    return await perform(request, form, work)


@router.post("/users/{user_id}/role")
async def set_role(request: Request, state: State, user_id: str) -> Response:
    caller, form = await posted(request, state)

    def work() -> str:
        _admin(caller)
        target = _user_of(state, user_id).id
        user = change_user(state, caller.user, target, role=field_text(form, "role"))
        if user.role is Role.ADMIN:
            return _("%(name)s is now an admin.", name=user.name)
        return _("%(name)s is now a default user.", name=user.name)

    return await perform(request, form, work)


@router.post("/users/{user_id}/password")
async def reset_password(request: Request, state: State, user_id: str) -> Response:
    caller, form = await posted(request, state)

    def work() -> str:
        _admin(caller)
        user = change_user(
            state, caller.user, _user_of(state, user_id).id, password=field_text(form, "password")
        )
        return _("New password set for %(name)s; they are signed out everywhere.", name=user.name)

    return await perform(request, form, work)


@router.post("/users/{user_id}/delete")
async def delete_user(request: Request, state: State, user_id: str) -> Response:
    caller, form = await posted(request, state)

    def work() -> str:
        _admin(caller)
        doomed = _user_of(state, user_id)
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
        user = remove_user(state, caller.user, doomed.id)
        return _("User %(name)s deleted, with their memories and chats.", name=user.name)

    return await perform(request, form, work)


# workspaces and members -----------------------------------------------------------------------
@router.post("/workspaces")
async def create_workspace(request: Request, state: State) -> Response:
    caller, form = await posted(request, state)

    def work() -> str:
        _admin(caller)
        workspace = state.md.create_workspace(
            field_text(form, "slug"), field_text(form, "name") or None
        )
        return _("Workspace %(slug)s created.", slug=workspace.slug)

    return await perform(request, form, work)


@router.post("/workspaces/{slug}/delete")
async def delete_workspace(request: Request, state: State, slug: str) -> Response:
    caller, form = await posted(request, state)

    def work() -> str:
        _admin(caller)
        state.md.get_workspace(slug)  # an unknown one is refused before asking
        question = _(
            "Delete the workspace %(slug)s with every memory and chat in it? "
            "This cannot be undone.",
            slug=slug,
        )
        confirmed(form, question, _("Delete workspace"))
        state.md.delete_workspace(slug, actor=_by(caller))
        return _("Workspace %(slug)s deleted, with its memories and chats.", slug=slug)

    return await perform(request, form, work)


@router.post("/members")
async def add_member(request: Request, state: State) -> Response:
    caller, form = await posted(request, state)

    def work() -> str:
        _admin(caller)
        user = _user_of(state, field_text(form, "user_id"))
        workspace = field_text(form, "workspace")
        if not state.auth.add_member(workspace, user.id, _by(caller)):
            return _("%(name)s was already a member of %(slug)s.", name=user.name, slug=workspace)
        return _("%(name)s is now a member of %(slug)s.", name=user.name, slug=workspace)

    return await perform(request, form, work)


@router.post("/members/remove")
async def remove_member(request: Request, state: State) -> Response:
    caller, form = await posted(request, state)

    def work() -> str:
        _admin(caller)
        user = _user_of(state, field_text(form, "user_id"))
        workspace = field_text(form, "workspace")
        state.auth.remove_member(workspace, user.id, _by(caller))
        return _("%(name)s is no longer a member of %(slug)s.", name=user.name, slug=workspace)

    return await perform(request, form, work)
