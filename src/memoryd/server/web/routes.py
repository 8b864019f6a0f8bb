"""Web pages: sign-in and the home page, and what every page shows (``page_context``: the
profile panel with the user's memories, API keys and account). Pages read the core
through the same access rules as the REST API (``memoryd.access``).
"""

from __future__ import annotations

import base64
import json
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from typing import Any
from urllib.parse import quote, unquote

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.templating import Jinja2Templates
from starlette.concurrency import run_in_threadpool

from memoryd.access.callers import Owner, self_owner
from memoryd.access.memories import overview
from memoryd.access.suggestions import visible_suggestions
from memoryd.access.wire import MemoryOut, SuggestionOut
from memoryd.domain import runtime_settings
from memoryd.domain.models import Role
from memoryd.server.deps import (
    SESSION_COOKIE,
    Caller,
    ServerState,
    State,
    check_password_throttled,
    identify,
)
from memoryd.server.errors import ApiError
from memoryd.server.web.i18n import _, install, speak_to
from memoryd.server.web.memory_focus import FILTERS, MemoryView, ScopeGroup, focus_of
from memoryd.server.web.review_items import review_items

router = APIRouter(include_in_schema=False)
TEMPLATES = Jinja2Templates(directory=str(resources.files("memoryd.server.web") / "templates"))
TEMPLATES.env.filters.update(FILTERS)
install(TEMPLATES.env)

STATIC_DIR = str(resources.files("memoryd.server.web") / "static")
FLASH_COOKIE = "memoryd_flash"
LOGIN_CSRF_COOKIE = "memoryd_login_csrf"
PANELS = ("memories", "keys", "account")
MAX_DRAFT = 600  # characters of refused text carried back (a memory is at most 500)
OPENERS = ("panel", "edit", "detail")  # what a page has open: never part of where to go back


# who and where ---------------------------------------------------------------------------
def web_caller(request: Request, state: ServerState) -> Caller | None:
    try:
        return identify(request, state)
    except ApiError:
        return None


def signed_in(request: Request, state: ServerState) -> Caller:
    """The caller of a form post or of a script's request, or 401."""
    caller = web_caller(request, state)
    if caller is None:
        raise ApiError(401, "sign in first", code="not_authenticated")
    return caller


def safe_next(value: object, default: str = "/") -> str:
    """A local path to go back to; anything else (another site) becomes ``default``."""
    if not isinstance(value, str) or not value.startswith("/") or value.startswith("//"):
        return default
    return default if "\\" in value or any(ord(ch) < 32 for ch in value) else value


def here_of(request: Request) -> str:
    """This page's path and query, without what it has open (the profile panel, a
    memory's edit form or detail)."""
    query = "&".join(
        f"{quote(k)}={quote(v)}" for k, v in request.query_params.items() if k not in OPENERS
    )
    return request.url.path + (f"?{query}" if query else "")


def with_query(path: str, query: str) -> str:
    """``path`` with ``query`` (``name=value``) added to its query string."""
    return f"{path}{'&' if '?' in path else '?'}{query}"


def capitalize(text: str) -> str:
    """``text`` with its first letter upper-case and the rest as written (Jinja's own
    ``capitalize`` lower-cases the rest: "Ask me before changing a memory i have")."""
    return text[:1].upper() + text[1:]


TEMPLATES.env.filters.update(with_query=with_query, capitalize=capitalize)


def set_cookie(
    response: Response, request: Request, name: str, value: str, path: str = "/", **more: Any
) -> None:
    """An HttpOnly, SameSite=Lax cookie, Secure as configured (else over https)."""
    secure = request.app.state.memoryd.settings.cookie_secure
    if secure is None:
        secure = request.url.scheme == "https"
    response.set_cookie(
        name, value, httponly=True, samesite="lax", secure=secure, path=path, **more
    )


def redirect(
    request: Request,
    to: str,
    text: str | None = None,
    level: str = "ok",
    draft: Draft | None = None,
) -> Response:
    """A 303 back to ``to`` with a one-time message; ``draft`` (what was typed in a form
    that was refused) comes back in its field so nothing typed is lost."""
    response = RedirectResponse(to, status_code=303)
    if text:
        item: dict[str, str] = {"level": level, "text": text[:500]}
        if draft is not None:
            # base64: any script's text stays small enough for a cookie (4 kB)
            packed = base64.urlsafe_b64encode(draft.text[:MAX_DRAFT].encode()).decode()
            item.update(field=draft.field[:100], draft=packed)
            if draft.until is not None:
                item["until"] = draft.until[:32]
        flash = json.dumps([item])
        if len(quote(flash)) > 3800 and "draft" in item:  # too big for a cookie: message only
            del item["draft"]
            flash = json.dumps([item])
        set_cookie(response, request, FLASH_COOKIE, quote(flash), max_age=60)
    return response


@dataclass(frozen=True)
class Draft:
    """Text typed into the form field with this id (``edit:<memory id>`` for a memory's
    edit form), the date typed beside it (None: not carried) and, read back, the reason
    it was refused."""

    field: str
    text: str
    until: str | None = None
    message: str = ""


def to_login(request: Request) -> Response:
    return RedirectResponse(f"/login?next={quote(here_of(request))}", status_code=303)


# what every page shows ---------------------------------------------------------------------
def workspace_names(state: ServerState) -> dict[str, str]:
    """Each workspace's name by its slug: what the pages call a workspace."""
    return {w.slug: w.name for w in state.md.list_workspaces()}


def memory_view(state: ServerState, owner: Owner, prefix: str, back: str) -> MemoryView:
    listing = overview(state, owner, None, None)
    names = workspace_names(state)
    groups = []
    now = datetime.now(UTC)
    for usage in listing.scopes:
        memories = [
            MemoryOut.of(m, now)
            for m in listing.memories
            if m.scope == usage.scope and m.workspace == usage.workspace
        ]
        title = (
            _("Global") if usage.workspace is None else names.get(usage.workspace, usage.workspace)
        )
        dom_id = f"{prefix}-scope-{usage.workspace or 'global'}"
        groups.append(ScopeGroup(title, dom_id, usage, memories))
    global_full = any(g.usage.full for g in groups if g.usage.scope == "global")
    spaces = [(g.usage.workspace, g.title) for g in groups if g.usage.workspace]
    own = owner.user.id == owner.acting.id
    waiting = [SuggestionOut.of(s) for s in visible_suggestions(state, owner)]
    return MemoryView(
        owner.user,
        owner,
        prefix,
        back,
        groups,
        spaces,
        global_full,
        state.md.limits,
        api_base="/api/v1/memories" if own else f"/api/v1/users/{owner.user.id}/memories",
        activity_base="/activity" if own else f"/admin/users/{owner.user.id}/activity",
        review=review_items(waiting, listing.scopes, names),
    )


def _flash_items(request: Request) -> list[dict[str, Any]]:
    raw = request.cookies.get(FLASH_COOKIE)
    if not raw:
        return []
    try:
        items = json.loads(unquote(raw))
    except ValueError:
        return []
    if not isinstance(items, list):
        return []
    return [i for i in items if isinstance(i, dict) and i.get("level") in ("ok", "error")]


def flashes_of(request: Request) -> list[dict[str, str]]:
    return [
        {"level": str(i["level"]), "text": str(i.get("text", ""))} for i in _flash_items(request)
    ]


def draft_of(request: Request) -> Draft | None:
    """The refused text to put back in its field, if the last form was refused."""
    for item in _flash_items(request):
        if item["level"] == "error" and isinstance(item.get("draft"), str):
            try:
                text = base64.urlsafe_b64decode(item["draft"].encode()).decode()
            except ValueError:
                return None
            until = item.get("until")
            return Draft(
                str(item.get("field", "")),
                text[:MAX_DRAFT],
                until[:32] if isinstance(until, str) else None,
                str(item.get("text", "")),
            )
    return None


def page_context(
    request: Request, state: ServerState, caller: Caller, **extra: Any
) -> dict[str, Any]:
    """What every page shows. ``status`` in it is the page's HTTP status: 404 when the
    address opens (``edit=``, ``detail=``) a memory the caller cannot see."""
    user = caller.user
    own = self_owner(user)
    own_language = speak_to(request, state, user)
    panel = request.query_params.get("panel")
    here = extra.pop("here", None) or here_of(request)
    context = {
        "me": user,
        "is_admin": user.role is Role.ADMIN,
        "csrf": caller.csrf_token or "",
        "my_workspaces": state.auth.workspaces_of(user),
        "my_memories": memory_view(state, own, "me", with_query(here, "panel=memories")),
        "my_keys": state.auth.list_api_keys(user.id),
        "learning": state.md.learns_from_chats(user.id),
        "review_own": state.md.review_preference(user.id),
        "review_instance": state.md.get_settings()[runtime_settings.MEMORY_REVIEW.key],
        "language_own": own_language,
        "language_server": state.settings.language,
        "panel": panel if panel in PANELS else None,
        "here": here,
        "flashes": flashes_of(request),
        "draft": draft_of(request),
        "single_user": state.settings.single_user,
        "base_url": str(request.base_url).rstrip("/"),
        "new_key": None,
        "current_workspace": None,
        "page": None,
        "status": 200,
        **extra,
    }
    focus = focus_of(request, state, [context["my_memories"], context.get("chosen_view")])
    context["focus"] = focus
    if focus.missing is not None:
        context["flashes"] = [
            *context["flashes"],
            {"level": "error", "text": _("No memory %(id)r for this user.", id=focus.missing)},
        ]
        context["status"] = 404
    return context


def fragment(request: Request, name: str, context: dict[str, Any]) -> Response:
    """A piece of a page a script asks for, rendered alone (a message waiting for the
    next page is left for that page)."""
    response = TEMPLATES.TemplateResponse(request, name, context)
    response.headers["Cache-Control"] = "no-store"
    return response


def render(request: Request, name: str, context: dict[str, Any], status: int = 200) -> Response:
    status = context.get("status", status) if status == 200 else status
    response = TEMPLATES.TemplateResponse(request, name, context, status_code=status)
    if request.cookies.get(FLASH_COOKIE):
        response.delete_cookie(FLASH_COOKIE, path="/")
    response.headers["Cache-Control"] = "no-store"
    return response


# sign-in ------------------------------------------------------------------------------------
@router.get("/login", response_class=HTMLResponse)
def login_page(request: Request, state: State, next: str = "/") -> Response:
    if web_caller(request, state) is not None:
        return RedirectResponse(safe_next(next), status_code=303)
    return login_form(request, next=safe_next(next))


def login_form(request: Request, *, next: str, name: str = "", error: str = "") -> Response:
    speak_to(request, request.app.state.memoryd, None)
    token = secrets.token_urlsafe(24)
    response = TEMPLATES.TemplateResponse(
        request,
        "login.html",
        {"csrf": token, "next": next, "name": name, "error": error},
        status_code=401 if error else 200,
    )
    set_cookie(response, request, LOGIN_CSRF_COOKIE, token, path="/login")
    response.headers["Cache-Control"] = "no-store"
    return response


@router.post("/login")
async def login(request: Request, state: State) -> Response:
    form = await request.form()
    speak_to(request, state, None)  # of its refusals
    name, password = str(form.get("name", "")), str(form.get("password", ""))
    target = safe_next(form.get("next"))
    sent = form.get("csrf_token")
    if not sent or sent != request.cookies.get(LOGIN_CSRF_COOKIE):
        return login_form(request, next=target, name=name, error=_("The form expired; try again."))
    try:
        user = await check_password_throttled(request, state, name, password)
    except ApiError as exc:
        response = login_form(request, next=target, name=name, error=exc.message)
        response.status_code = exc.status
        response.headers.update(exc.headers or {})
        return response
    if user is None:
        return login_form(request, next=target, name=name, error=_("Wrong user name or password."))
    session = await run_in_threadpool(
        state.auth.create_session, user.id, state.settings.session_days
    )
    response = RedirectResponse(target, status_code=303)
    max_age = state.settings.session_days * 86400
    set_cookie(response, request, SESSION_COOKIE, session.token, max_age=max_age)
    response.delete_cookie(LOGIN_CSRF_COOKIE, path="/login")
    return response


@router.post("/logout")
async def logout(request: Request, state: State) -> Response:
    # The session named by the cookie ends whatever the form says: a sign-out that left
    # it valid on the server would leave a copied cookie working. (A cross-site page
    # cannot send the cookie: it is SameSite=Lax.)
    token = request.cookies.get(SESSION_COOKIE)
    if token:
        await run_in_threadpool(state.auth.end_session, token)
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


# pages --------------------------------------------------------------------------------------
@router.get("/", response_class=HTMLResponse)
def home(request: Request, state: State) -> Response:
    caller = web_caller(request, state)
    if caller is None:
        return to_login(request)
    context = page_context(request, state, caller, page="home")
    if context["my_workspaces"] and not request.query_params:
        return RedirectResponse(f"/chat/{context['my_workspaces'][0].slug}", status_code=303)
    return render(request, "home.html", context)
