"""The FastAPI application: ``create_app(md, settings)`` wires every router to one core.

Nothing happens at import time; ``app_from_env`` is the factory uvicorn workers call
(``memoryd serve`` uses it), reading ``MEMORYD_*`` settings. ``first_start`` makes sure an
admin exists and returns what to tell the person starting the server.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, nullcontext
from typing import TYPE_CHECKING

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Scope

import memoryd
from memoryd.access.credentials import AuthStore
from memoryd.app import i18n
from memoryd.app.service import Memoryd
from memoryd.config import MemorydSettings
from memoryd.domain.models import Role, User
from memoryd.server import errors
from memoryd.server.deps import (
    ServerState,
    State,
    admin_owner,
    self_owner,
    unknown_caller_refusal,
)
from memoryd.server.guard import EdgeGuard
from memoryd.server.routers import (
    audit,
    chats,
    context,
    extraction,
    history,
    memories,
    proxy,
    suggestions,
    transfer,
    users,
    workspaces,
)
from memoryd.server.routers import settings as settings_router
from memoryd.server.schemas import ERROR_RESPONSES, Health
from memoryd.server.throttle import LoginThrottle
from memoryd.server.web import actions as web_actions
from memoryd.server.web import activity as web_activity
from memoryd.server.web import admin_actions as web_admin_actions
from memoryd.server.web import admin_pages as web_admin_pages
from memoryd.server.web import chat_page as web_chat_page
from memoryd.server.web import history_import as web_history_import
from memoryd.server.web import review as web_review
from memoryd.server.web import routes as web_routes

if TYPE_CHECKING:
    from memoryd.mcp.http import McpEndpoint

log = logging.getLogger("memoryd")
FIRST_ADMIN = "admin"


def first_admin(md: Memoryd) -> User | None:
    return next((u for u in md.list_users() if u.role is Role.ADMIN), None)


def first_start(md: Memoryd, auth: AuthStore, settings: MemorydSettings) -> str | None:
    """Create the first admin if there is none; the message to print, once, if so (with
    a random password unless ``MEMORYD_ADMIN_PASSWORD`` gives one)."""
    if first_admin(md) is not None:
        return None
    taken = {u.name for u in md.list_users()}
    # never take over an existing account: its owner would lose it to whoever reads this
    name = next(
        n for n in (FIRST_ADMIN, *(f"{FIRST_ADMIN}{i}" for i in range(2, 100))) if n not in taken
    )
    user = md.create_user(name, Role.ADMIN)
    if settings.single_user:
        return f"single-user mode: you are {user.name!r}; no sign-in needed"
    password = settings.admin_password or secrets.token_urlsafe(12)
    auth.set_password(user.id, password)
    if settings.admin_password:
        return f"created admin {user.name!r} with the password from MEMORYD_ADMIN_PASSWORD"
    return (
        f"created admin {user.name!r} with password {password}\n"
        "sign in on the web page with these (shown only now), then change the password "
        "in the profile panel, or run: memoryd users passwd admin"
    )


def warm_embedder(md: Memoryd) -> None:
    try:
        md.embedder.embed(["warm up"])
    except Exception as exc:  # turns still work: the reranker falls back to recency
        log.warning("could not load the embedding model: %s", exc)


def create_app(
    md: Memoryd,
    settings: MemorydSettings | None = None,
    *,
    auth: AuthStore | None = None,
) -> FastAPI:
    settings = settings or md.settings
    state = ServerState(
        md=md,
        settings=settings,
        auth=auth or AuthStore(md.db, clock=md.clock, catalog=md.catalog),
        throttle=LoginThrottle(
            free_attempts=settings.login_attempts, concurrency=settings.login_concurrency
        ),
    )
    if settings.single_user:
        first_start(md, state.auth, settings)
        admin = first_admin(md)
        assert admin is not None
        state.single_user_id = admin.id
        state.single_user_csrf = secrets.token_urlsafe(32)

    mcp = _mcp_endpoint(state)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        # load (and on first start quantise) the embedder now, not in the first request
        await run_in_threadpool(warm_embedder, md)
        await run_in_threadpool(i18n.warm)  # the message catalogues, compiled in memory
        async with mcp.running() if mcp else nullcontext():
            yield
        client, state.http = state.http, None
        if client is not None:
            await client.aclose()
        # chats queued by the proxy are written before the process exits (SIGTERM too)
        await run_in_threadpool(md.finish_writes)

    app = FastAPIOffline(  # /docs and /redoc from files in the package, not a CDN
        title="memoryd",
        version=memoryd.__version__,
        summary="Persistent per-user memory for LLM chat.",
        description=(
            "REST API (`/api/v1`), OpenAI-compatible proxy with memory (`/v1`) and web UI. "
            "Authenticate with `Authorization: Bearer mdk_...` (an API key) or the "
            "browser's session cookie plus the `X-CSRF-Token` header on writes."
        ),
        lifespan=lifespan,
        responses=ERROR_RESPONSES,
    )
    app.state.memoryd = state
    errors.install(app)

    @app.get("/health", response_model=Health, tags=["health"], summary="Liveness and database")
    def health(state: State) -> Health:
        state.md.db.ping()
        return Health(status="ok", database=state.md.db.dialect, version=memoryd.__version__)

    # the routes every chat turn takes come first: routing tries the routers in order
    app.include_router(context.router)
    app.include_router(proxy.router)
    owned = (
        (memories, "memories"),
        (suggestions, "memories"),
        (transfer, "transfer"),
        (audit, "audit"),
    )
    for module, tag in owned:  # the caller's own, then (admins) any user's
        app.include_router(module.build_router(self_owner, prefix="/api/v1", tag=tag))
        admin = module.build_router(admin_owner, prefix="/api/v1/users/{user_id}", tag="admin")
        app.include_router(admin)
    api = (users, workspaces, settings_router, chats, history, extraction)
    web = (web_routes, web_admin_pages, web_activity, web_chat_page, web_review, web_actions)
    more_web = (web_history_import, web_admin_actions)
    for module in (*api, *web, *more_web):  # web_review before web_actions: accept-all
        app.include_router(module.router)
    app.mount("/static", StaticFiles(directory=web_routes.STATIC_DIR), name="static")
    app.router.routes.append(mcp.route if mcp else Route("/mcp", mcp_missing, methods=MCP_METHODS))

    async def refusal(scope: Scope) -> ASGIApp | None:
        if mcp and scope.get("path") == mcp.route.path:  # MCP clients read JSON-RPC errors
            return await mcp.gate.refusal(scope)
        return await unknown_caller_refusal(scope, state)

    app.add_middleware(
        EdgeGuard,
        max_bytes=settings.max_request_bytes,
        refusal=refusal,
        max_import_bytes=settings.max_import_bytes,
        body_timeout_s=settings.body_timeout_s,
    )
    return app


MCP_METHODS = ["GET", "POST", "DELETE"]  # those of streamable HTTP
MCP_MISSING = (
    "MCP over HTTP needs the 'mcp' extra, which is not installed here: pip install "
    "'memoryd[mcp]', then restart memoryd serve"
)


async def mcp_missing(_: Request) -> JSONResponse:
    """``/mcp`` without the ``mcp`` extra: 501 saying what to install, as a JSON-RPC error
    like the endpoint's own refusals, so an MCP host shows the message."""
    data = {"type": "not_implemented", "code": "mcp_not_installed"}
    error = {"code": -32600, "message": MCP_MISSING, "data": data}  # JSON-RPC invalid request
    return JSONResponse({"jsonrpc": "2.0", "id": None, "error": error}, status_code=501)


def _mcp_endpoint(state: ServerState) -> McpEndpoint | None:
    """Streamable HTTP MCP at /mcp when the ``mcp`` extra is installed."""
    try:
        import mcp.server  # noqa: F401
    except ModuleNotFoundError:
        return None
    from memoryd.mcp.http import mcp_endpoint

    return mcp_endpoint(state)


def app_from_env() -> FastAPI:
    """The factory ``memoryd serve`` gives uvicorn (each worker builds its own app)."""
    config = MemorydSettings()
    return create_app(Memoryd(settings=config), config)
