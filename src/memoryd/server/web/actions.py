"""Form posts of the web UI for everyone: memories, API keys, password, the account
panel's own choices (as ``PATCH /api/v1/me`` sets them) and the chat page's history (delete
one exchange, or the user's own chats in the workspace); the admin's are
``memoryd.server.web.admin_actions``.

Each post checks the session's CSRF token, does one thing through ``memoryd.access`` and
redirects back (303) with a message. A deletion goes ahead only with ``confirmed=yes``,
which memoryd.js adds once its dialog is answered; without JavaScript the server asks on
a page of its own first.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection
from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Path, Request, Response
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData

from memoryd.access import chats, memories
from memoryd.access.callers import (
    NOT_YOURS,
    Owner,
    owner_for,
    require_admin,
    require_workspace,
    self_owner,
)
from memoryd.access.credentials import validate_password
from memoryd.app.i18n import N_
from memoryd.domain.errors import AdminOnly, InvalidInput, MemorydError, NotFound
from memoryd.domain.language import FOLLOW_SERVER, PREFERENCE_CHOICES
from memoryd.server.deps import (
    Caller,
    ServerState,
    State,
    check_origin,
    check_password_throttled,
)
from memoryd.server.errors import ApiError
from memoryd.server.web.i18n import _, ngettext, page_language, use_language
from memoryd.server.web.routes import (
    PANELS,
    Draft,
    page_context,
    redirect,
    render,
    safe_next,
    signed_in,
    with_query,
)
from memoryd.storage.write_rules import KEEP, Keep

log = logging.getLogger("memoryd.server")
REASON_CHARS = 160  # of what the user says is wrong (the audit entry keeps 200)
router = APIRouter(prefix="/ui", include_in_schema=False)
Work = Callable[..., str]  # a form's work: the message to redirect back with


async def posted(request: Request, state: ServerState) -> tuple[Caller, FormData]:
    check_origin(request)
    caller = signed_in(request, state)
    form = await request.form()
    if form.get("csrf_token") != caller.csrf_token:
        raise ApiError(403, "the form expired or came from elsewhere; reload the page", code="csrf")
    # the language of the message it redirects with (set here: a worker thread's is lost)
    own = await run_in_threadpool(state.md.language_preference, caller.user.id)
    use_language(page_language(request, state, own))
    return caller, form


class Unconfirmed(Exception):
    """A deletion sent without ``confirmed=yes``: ask ``question`` first."""

    def __init__(self, question: str, button: str) -> None:
        super().__init__(question)
        self.question, self.button = question, button


def confirmed(form: FormData, question: str, button: str) -> None:
    """Go on only if the person said yes to ``question`` (``button`` is the yes)."""
    if form.get("confirmed") != "yes":
        raise Unconfirmed(question, button)


async def ask(request: Request, form: FormData, asked: Unconfirmed) -> Response:
    """The question on a page of its own, with the same form to send again, confirmed."""
    state: ServerState = request.app.state.memoryd
    caller = signed_in(request, state)  # posted() let it through: unless it just ended
    fields = [
        (name, value)
        for name, value in form.multi_items()
        if isinstance(value, str) and name not in ("csrf_token", "confirmed")
    ]
    context = await run_in_threadpool(
        page_context,
        request,
        state,
        caller,
        page="confirm",
        here=back_to(form),
        question=asked.question,
        button=asked.button,
        action=request.url.path,
        fields=fields,
    )
    return render(request, "confirm_page.html", context)


def owner_of(state: ServerState, caller: Caller, form: FormData) -> Owner:
    """Whose memories a form works on: the caller's own, or (admins) the named user's."""
    raw = form.get("user_id")
    if raw in (None, "", str(caller.user.id)):
        return self_owner(caller.user)
    require_admin(caller.user, NOT_YOURS)  # before the number is read
    try:
        target = state.md.get_user(int(str(raw)))
    except ValueError:
        raise InvalidInput("user_id must be a number") from None
    return owner_for(caller.user, target)


def back_to(form: FormData, panel: str | None = None) -> str:
    """The page the form came from; with ``panel``, that panel of it open."""
    back = safe_next(form.get("next"))
    return with_query(back, f"panel={panel}") if panel in PANELS else back


async def perform(
    request: Request,
    form: FormData,
    work: Callable[[], str],
    *,
    keep: str | None = None,
    field: str | None = None,
    reopen: str | None = None,
    panel: str | None = None,
) -> Response:
    """Run ``work`` (which returns the success message) and redirect back with it (to
    ``panel`` open, if given).

    When it is refused, the text of the field ``keep`` (and the "until" date, if the form
    has one) goes back into the form: the field ``field``, else the one whose id the form
    names in ``draft_field``; ``reopen`` (``name=value``) is added to the way back so the
    page opens that form again, unless what it changes is gone."""
    try:
        message = await run_in_threadpool(work)
    except Unconfirmed as asked:
        return await ask(request, form, asked)
    except MemorydError as exc:
        draft = None
        name = field or field_text(form, "draft_field")
        if keep is not None and name:
            until = field_text(form, "expires_at") if "expires_at" in form else None
            draft = Draft(name, field_text(form, keep), until)
        back = back_to(form, panel)
        if reopen is not None and not isinstance(exc, NotFound):
            back = with_query(back, reopen)
        said = _(str(exc)) if isinstance(exc, AdminOnly) else str(exc)  # in the page's words
        return redirect(request, back, said, "error", draft)
    return redirect(request, back_to(form, panel), message)


def form_post(router: APIRouter, path: str, **options: str) -> Callable[[Work], Work]:
    """Register ``work(state, caller, form, **path_params)`` as the form post at ``path``:
    ``posted`` lets it in, ``perform`` (with ``options``) runs it and redirects back."""

    def register(work: Work) -> Work:
        async def endpoint(request: Request, state: State) -> Response:
            caller, form = await posted(request, state)
            params = request.path_params
            return await perform(
                request, form, lambda: work(state, caller, form, **params), **options
            )

        router.post(path, name=work.__name__)(endpoint)
        return work

    return register


def field_text(form: FormData, name: str) -> str:
    value = form.get(name)
    return value if isinstance(value, str) else ""


def expiry_field(form: FormData) -> str | Keep | None:
    """The "remember until" date field, only when it was changed: the form shows the day
    (``expires_was``), so saving the text alone never rewrites an exact expiry time."""
    if "expires_at" not in form:
        return KEEP
    chosen = field_text(form, "expires_at").strip()
    if chosen == field_text(form, "expires_was").strip():
        return KEEP
    return chosen or None


# memories -----------------------------------------------------------------------------------
@form_post(router, "/memories", keep="content")
def add_memory(state: ServerState, caller: Caller, form: FormData) -> str:
    memories.add_memory(
        state,
        owner_of(state, caller, form),
        field_text(form, "content"),
        field_text(form, "scope") or None,
        field_text(form, "workspace") or None,
        field_text(form, "expires_at") or None,
    )
    return _("Memory added.")


@router.post("/memories/{memory_id}/{operation}")
async def change_memory(request: Request, state: State, memory_id: str, operation: str) -> Response:
    caller, form = await posted(request, state)

    def work() -> str:
        owner = owner_of(state, caller, form)
        memory = memories.visible_memory(state, owner, memory_id)
        if operation == "delete":
            question = _("Delete this memory? “%(text)s”", text=memory.content[:80])
            confirmed(form, question, _("Delete"))
            memories.delete_memory(state, owner, memory_id)
            return _("Memory deleted.")
        if operation == "edit":
            content, expiry = field_text(form, "content"), expiry_field(form)
            memories.edit_memory(state, owner, memory_id, content, expiry)
            return _("Memory saved.")
        if operation == "report":  # "this is wrong": deleted, and why is in the audit log
            question = _(
                "Delete this memory as wrong? “%(text)s” memoryd stops using it;"
                " your Activity page keeps the reason.",
                text=memory.content[:80],
            )
            confirmed(form, question, _("Delete as wrong"))
            why = field_text(form, "reason").strip()[:REASON_CHARS]
            reason = f"Reported as wrong: {why}" if why else "Reported as wrong"
            memories.delete_memory(state, owner, memory_id, reason)
            return _("Memory deleted as wrong; the reason is on your Activity page.")
        if operation == "promote":
            memories.promote(state, owner, memory_id)
            return _("Memory moved to Global.")
        if operation == "demote":
            workspace = field_text(form, "workspace")
            memories.demote(state, owner, memory_id, workspace)
            name = state.md.get_workspace(workspace).name
            return _("Memory moved to %(name)s.", name=name)
        raise InvalidInput(_("unknown operation %(name)r", name=operation))

    if operation == "edit":  # refused: the form opens again with what was typed
        reopen = f"edit={quote(memory_id, safe='')}"
        return await perform(
            request, form, work, keep="content", field=f"edit:{memory_id}", reopen=reopen
        )
    return await perform(request, form, work)


# API keys and password ------------------------------------------------------------------------
@router.post("/api-keys")
async def create_key(request: Request, state: State) -> Response:
    caller, form = await posted(request, state)
    try:
        created = await run_in_threadpool(
            state.auth.create_api_key, caller.user.id, field_text(form, "name")
        )
    except MemorydError as exc:
        typed = Draft("key-name", field_text(form, "name"))
        return redirect(request, back_to(form, "keys"), str(exc), "error", typed)
    # The secret goes in this page only, never in a cookie or a URL.
    context = await run_in_threadpool(
        page_context,
        request,
        state,
        caller,
        page="home",
        panel="keys",
        here=back_to(form),
        new_key=created.secret,
        address=back_to(form, "keys"),  # memoryd.js puts it in the address bar: a reload is a GET
    )
    return render(request, "home.html", context)


@form_post(router, "/api-keys/{key_id}/revoke", panel="keys")
def revoke_key(state: ServerState, caller: Caller, form: FormData, key_id: str) -> str:
    keys = state.auth.list_api_keys(caller.user.id)
    key = next((k for k in keys if k.id == key_id and k.revoked_at is None), None)
    if key is not None:
        question = _("Revoke the key “%(name)s”? Programs using it stop working.", name=key.name)
        confirmed(form, question, _("Revoke"))
    state.auth.revoke_api_key(caller.user.id, key_id)
    return _("API key revoked.")


@router.post("/password")
async def change_password(request: Request, state: State) -> Response:
    caller, form = await posted(request, state)

    user = caller.user
    field = "new-password"  # the field the refusal is shown under (its text never comes back)
    try:
        new = validate_password(field_text(form, "new_password"))
        field = "current-password"
        current = field_text(form, "current_password")
        if await run_in_threadpool(state.auth.has_password, user.id) and (
            await check_password_throttled(request, state, user.name, current) is None
        ):
            raise InvalidInput(_("the current password is wrong"))
        await run_in_threadpool(state.auth.set_password, user.id, new)
        message = _("Password changed; sign in again.")
        if form.get("revoke_api_keys") is not None:
            revoked = await run_in_threadpool(state.auth.revoke_all_api_keys, user.id)
            message = ngettext(
                "Password changed and %(num)d API key revoked; sign in again.",
                "Password changed and %(num)d API keys revoked; sign in again.",
                revoked,
            )
    except (ApiError, MemorydError) as exc:
        return redirect(request, back_to(form, "account"), str(exc), "error", Draft(field, ""))
    return redirect(request, "/login", message)


# the account panel's choices ---------------------------------------------------------------
CHOICES = {"on": True, "off": False}
REVIEW_CHOICES = {
    "default": (None, N_("Extraction's changes follow the instance setting again.")),
    "off": ("off", N_("Extraction's changes to your memories apply at once.")),
    "updates": ("updates", N_("Changes to memories you have now wait for your review.")),
    "everything": ("everything", N_("Every new or changed memory now waits for your review.")),
}


def chosen(form: FormData, field: str, choices: Collection[str], refusal: str) -> str:
    """The posted choice, or InvalidInput(``refusal``) when it is not one of ``choices``."""
    choice = form.get(field)
    if not isinstance(choice, str) or choice not in choices:
        raise InvalidInput(refusal)
    return choice


@form_post(router, "/learning", panel="account")
def set_learning(state: ServerState, caller: Caller, form: FormData) -> str:
    learn = CHOICES[chosen(form, "learn", CHOICES, _("Choose on or off."))]
    closed = state.md.set_learning(caller.user.id, learn)
    if learn:
        return _("memoryd learns from your chats again, from now on.")
    if closed:
        return ngettext(
            "memoryd no longer learns from your chats (%(num)d waiting chat will not be read).",
            "memoryd no longer learns from your chats (%(num)d waiting chats will not be read).",
            closed,
        )
    return _("memoryd no longer learns from your chats.")


@form_post(router, "/review", panel="account")
def set_review(state: ServerState, caller: Caller, form: FormData) -> str:
    refusal = _("Choose default, off, updates or everything.")
    mode, done = REVIEW_CHOICES[chosen(form, "mode", REVIEW_CHOICES, refusal)]
    state.md.set_review_preference(caller.user.id, mode)
    return _(done)


@router.post("/language")
async def set_language(request: Request, state: State) -> Response:
    caller, form = await posted(request, state)

    def work() -> str:
        choice = chosen(form, "language", PREFERENCE_CHOICES, _("Choose a language from the list."))
        state.md.set_language_preference(caller.user.id, choice)
        own = None if choice == FOLLOW_SERVER else choice
        use_language(page_language(request, state, own))  # the answer is in the new language
        return _("Language saved.")

    return await perform(request, form, work, panel="account")


# the chat page's history -------------------------------------------------------------------
def _clear_question(state: ServerState, user_id: int, slug: str) -> str:
    count = len(state.md.list_chats(user_id, slug))
    name = state.md.get_workspace(slug).name
    return ngettext(
        "Delete your %(num)d exchange in %(name)s? Its text is erased and memoryd will not "
        "learn from it; memories it already learned stay.",
        "Delete all %(num)d of your exchanges in %(name)s? Their text is erased and memoryd "
        "will not learn from them; memories it already learned stay.",
        count,
        name=name,
    )


@router.post("/chats/clear")
async def clear_history(request: Request, state: State) -> Response:
    caller, form = await posted(request, state)
    slug = field_text(form, "workspace")
    user = caller.user
    try:
        await run_in_threadpool(require_workspace, state, user, slug)
        if field_text(form, "confirmed") != "yes":  # the question is read only to be asked
            question = await run_in_threadpool(_clear_question, state, user.id, slug)
            raise Unconfirmed(question, _("Delete all"))
        deleted = await run_in_threadpool(chats.clear_chats, state, user, slug)
    except Unconfirmed as asked:
        return await ask(request, form, asked)
    except MemorydError as exc:
        return redirect(request, "/", str(exc), "error")
    done = ngettext(
        "Deleted %(num)d exchange from this history.",
        "Deleted %(num)d exchanges from this history.",
        deleted,
    )
    return redirect(request, f"/chat/{slug}", done)


@router.post("/chats/{chat_id}/delete")
async def delete_exchange(
    request: Request, state: State, chat_id: Annotated[int, Path(ge=1, le=2**63 - 1)]
) -> Response:
    caller, form = await posted(request, state)
    user = caller.user
    slug = field_text(form, "workspace")
    back = f"/chat/{slug}" if slug else "/"
    try:
        chat = await run_in_threadpool(chats.visible_chat, state, user, chat_id)
        confirmed(
            form,
            _(
                "Delete this exchange? \u201c%(text)s\u201d Its text is erased and memoryd will "
                "not learn from it; memories it already learned stay.",
                text=chat.prompt[:80],
            ),
            _("Delete"),
        )
        await run_in_threadpool(chats.delete_chat, state, user, chat.id)
    except Unconfirmed as asked:
        return await ask(request, form, asked)
    except MemorydError as exc:
        return redirect(request, back, str(exc), "error")
    return redirect(request, f"/chat/{chat.workspace}", _("Exchange deleted."))
