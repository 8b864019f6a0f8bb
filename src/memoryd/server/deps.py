"""Typed FastAPI dependencies: the server's state and who is calling.

A caller is identified, in this order, by single-user mode (everyone is the local admin),
an API key (``Authorization: Bearer mdk_...`` or ``X-API-Key``) or the browser's session
cookie. Session-authenticated writes must carry the session's CSRF token, and any write
whose ``Origin`` is another site is refused. What a caller may then reach is
``memoryd.access``'s to decide (``admin_owner`` and ``require_admin`` ask it).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Literal, TypeVar
from urllib.parse import urlsplit

import httpx
from fastapi import Depends, Path, Request, Response
from starlette.concurrency import run_in_threadpool
from starlette.types import Scope

from memoryd.access import callers
from memoryd.access.callers import Owner
from memoryd.access.credentials import AuthStore
from memoryd.access.history_imports import HistoryJobs
from memoryd.app.service import Memoryd
from memoryd.config import MemorydSettings
from memoryd.domain.models import User
from memoryd.server.errors import ApiError, api_error_response, database_unavailable
from memoryd.server.throttle import LoginThrottle, Throttled
from memoryd.server.upstream import Upstream
from memoryd.storage.opening import DATABASE_DOWN

SESSION_COOKIE = "memoryd_session"
CSRF_HEADER = "x-csrf-token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
T = TypeVar("T")


@dataclass
class ServerState:
    """Everything a request handler needs, built once by ``create_app``."""

    md: Memoryd
    settings: MemorydSettings
    auth: AuthStore
    single_user_csrf: str = ""
    single_user_id: int | None = None
    http: httpx.AsyncClient | None = field(default=None, repr=False)
    upstream: Upstream | None = None  # the proxy's; resolved from settings on first use
    throttle: LoginThrottle = field(default_factory=LoginThrottle)
    history_jobs: HistoryJobs = field(default_factory=HistoryJobs)  # imports running here


class StaleCaller(Exception):
    """A caller taken from the cache turned out stale: redo the request, checked anew."""


@dataclass(frozen=True)
class Caller:
    user: User
    via: Literal["single_user", "api_key", "session"]
    csrf_token: str | None = None
    # set when the API key came from the cache unchecked (``turn_caller``): True once a
    # later read of the cache version in this request shows nothing changed
    confirm: Callable[[], bool] | None = field(default=None, compare=False, repr=False)

    def check(self) -> None:
        if self.confirm is not None and not self.confirm():
            raise StaleCaller

    @property
    def confirmation(self) -> Callable[[], None] | None:
        """What a turn calls once it has read the cache version (see ``turn_caller``)."""
        return self.check if self.confirm else None

    @property
    def is_admin(self) -> bool:
        return callers.is_admin(self.user)


async def get_state(request: Request) -> ServerState:
    state: ServerState = request.app.state.memoryd
    return state


State = Annotated[ServerState, Depends(get_state)]


def is_loopback_host(host: str) -> bool:
    name = host.strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def host_name(host: str) -> str:
    """The name in a Host header: ``[::1]:8080`` -> ``::1``, ``localhost:80`` ->
    ``localhost``, ``[::1]`` -> ``::1``."""
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def check_origin(request: Request) -> None:
    """Refuse a write sent by a page of another site (CSRF defence in depth)."""
    origin = request.headers.get("origin")
    if request.method in SAFE_METHODS or not origin or origin == "null":
        return
    if urlsplit(origin).netloc.lower() != request.headers.get("host", "").lower():
        raise ApiError(403, "cross-site request refused", code="bad_origin")


def api_key_of(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return request.headers.get("x-api-key") or None


def identify(request: Request, state: ServerState) -> Caller | None:
    """Who sent this request, or None for an anonymous one."""
    key = api_key_of(request)
    if state.settings.single_user:
        if not is_loopback_host(host_name(request.headers.get("host", ""))):
            # DNS rebinding: a remote name pointing at us
            raise ApiError(403, "single-user mode answers only to localhost", code="bad_host")
        if not is_loopback_host(client_address(request) or ""):  # on a public address
            raise ApiError(403, "single-user mode answers only to this machine", code="bad_peer")
        assert state.single_user_id is not None
        if key is not None:
            # An OpenAI client sends some key: a header a web page of another site cannot
            # set without CORS, which memoryd never allows, so no CSRF token is needed.
            found = state.auth.user_for_api_key(key)
            return Caller(found or state.md.get_user(state.single_user_id), "api_key")
        user = state.md.get_user(state.single_user_id)
        return Caller(user, "single_user", state.single_user_csrf)
    if key is not None:
        found = state.auth.user_for_api_key(key)
        if found is None:
            raise ApiError(401, "invalid or revoked API key", code="invalid_api_key")
        return Caller(found, "api_key")
    token = request.cookies.get(SESSION_COOKIE)
    if token:
        session = state.auth.session(token)
        if session is not None:
            return Caller(session.user, "session", session.csrf_token)
    return None


def client_address(request: Request) -> str | None:
    return request.client.host if request.client else None


async def check_password_throttled(
    request: Request, state: ServerState, name: str, password: str
) -> User | None:
    """``AuthStore.authenticate`` behind the login throttle (see ``server.throttle``):
    429 with Retry-After when this account from this address, or the address, must wait."""
    address = client_address(request)
    throttle = state.throttle
    try:
        throttle.check(name, address)
        user = await throttle.verify(
            lambda: state.auth.authenticate(name, password),
            recheck=lambda: throttle.check(name, address),
            address=address,
        )
    except Throttled as exc:
        raise ApiError(
            429, str(exc), code="rate_limited", headers={"Retry-After": str(exc.retry_after)}
        ) from None
    throttle.record(name, address, ok=user is not None)
    return user


def not_authenticated() -> ApiError:
    return ApiError(
        401,
        "sign in or send an API key (Authorization: Bearer mdk_...)",
        code="not_authenticated",
        headers={"WWW-Authenticate": "Bearer"},
    )


def cached_caller(request: Request, state: ServerState) -> Caller | None:
    """The caller of an API key in the per-process cache, taken without a database read
    (None: no such key there, or single-user mode); see ``turn_caller``."""
    key = api_key_of(request)
    if key is None or state.settings.single_user:
        return None
    found = state.auth.cached_key_user(key)
    return None if found is None else Caller(found[0], "api_key", confirm=found[1])


async def unknown_caller_refusal(scope: Scope, state: ServerState) -> Response | None:
    """The edge's answer to a write whose caller is not known, given before its body is
    read; None for a known caller. A cached API key is known without a database read:
    the route checks it again in its own transaction (``turn_caller``)."""
    if cached_caller(Request(scope), state) is not None:
        return None
    try:
        caller = await run_in_threadpool(identify, Request(scope), state)
    except ApiError as exc:
        return api_error_response(exc)
    except DATABASE_DOWN as exc:  # answered as the routes answer it, not a reset
        return database_unavailable(exc)
    if caller is not None:
        return None
    return api_error_response(not_authenticated())


def current_caller(request: Request, state: State) -> Caller:
    check_origin(request)
    caller = identify(request, state)
    if caller is None:
        raise not_authenticated()
    if caller.via != "api_key" and request.method not in SAFE_METHODS:
        sent = request.headers.get(CSRF_HEADER)
        if sent != caller.csrf_token:
            raise ApiError(403, "missing or wrong X-CSRF-Token header", code="csrf")
    return caller


CurrentCaller = Annotated[Caller, Depends(current_caller)]


async def turn_caller(request: Request, state: State) -> Caller:
    """``current_caller`` for routes that read a chat turn next (context, proxy): an API
    key in the per-process cache is taken without a database read, and the route calls
    ``Caller.check`` once the turn's statement has read the cache version, so a revoked
    key still applies to the very next request (``StaleCaller``: answered again)."""
    caller = cached_caller(request, state)
    if caller is None:
        return await run_in_threadpool(current_caller, request, state)
    check_origin(request)
    return caller


TurnCaller = Annotated[Caller, Depends(turn_caller)]


def answer_turn(
    request: Request, state: ServerState, caller: Caller, turn: Callable[[Caller], T]
) -> T:
    """``turn(caller)`` in the threadpool. A caller taken from the cache is confirmed by
    the turn's statement; if it was stale, or anything failed, the request is answered
    again with the caller checked against the database (a revoked key gets its 401)."""
    try:
        return turn(caller)
    except Exception:
        if caller.confirm is None:
            raise
        return turn(current_caller(request, state))


async def current_user(caller: CurrentCaller) -> User:
    return caller.user


CurrentUser = Annotated[User, Depends(current_user)]


def self_owner(user: CurrentUser) -> Owner:
    """The caller's own memories (``admin_owner``: any user's, for an admin)."""
    return callers.self_owner(user)


async def require_admin(caller: CurrentCaller) -> User:
    return callers.require_admin(caller.user)


AdminUser = Annotated[User, Depends(require_admin)]


def admin_owner(
    admin: AdminUser,
    state: State,
    user_id: Annotated[int, Path(ge=1, le=2**31 - 1, description="The user's id.")],
) -> Owner:
    return callers.owner_for(admin, state.md.get_user(user_id))
