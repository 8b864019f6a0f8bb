"""Streamable HTTP MCP inside ``memoryd serve``, at ``/mcp``, behind memoryd's API keys.

The transport is stateless with JSON responses: a request carries everything it needs
(its API key and its JSON-RPC message), so any replica behind a load balancer can answer
it and no session lives in one process. Authentication reuses the REST API's
``identify`` (an ``mdk_`` key, or the local person in ``--single-user`` mode; a browser
session cookie is not accepted here) and its cross-site check. A refusal keeps the
REST API's status, headers and message, in a JSON-RPC error body: an MCP client (the
SDK's included) reads a JSON-RPC error out of a 4xx answer and shows its message, where
memoryd's usual error body would come out as a bare "Server returned an error response".
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import INVALID_REQUEST
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from memoryd.mcp.server import SCOPE_USER_KEY, build_server
from memoryd.server.deps import ServerState, check_origin, identify
from memoryd.server.errors import ApiError

PATH = "/mcp"


class ApiKeyGate:
    """ASGI wrapper: only a caller with a valid API key (or the single user) gets through."""

    def __init__(self, app: ASGIApp, state: ServerState) -> None:
        self.app = app
        self.state = state

    async def refusal(self, scope: Scope) -> JSONResponse | None:
        """The answer to a caller without a valid API key, None for one with it (then
        named in the scope); the edge guard asks it before the body is read."""
        request = Request(scope)
        try:
            check_origin(request)
            caller = await anyio.to_thread.run_sync(identify, request, self.state)
            if caller is None or caller.via == "session":
                raise ApiError(
                    401,
                    "send an API key (Authorization: Bearer mdk_...); "
                    "create one with: memoryd apikey create --user NAME",
                    code="not_authenticated",
                    headers={"WWW-Authenticate": "Bearer"},
                )
        except ApiError as exc:
            return refusal(exc)
        scope[SCOPE_USER_KEY] = caller.user
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        answer = await self.refusal(scope)
        if answer is not None:
            await answer(scope, receive, send)
            return
        await self.app(scope, receive, send)


def refusal(exc: ApiError) -> JSONResponse:
    """A refusal of the gate as a JSON-RPC error (``id`` null: the request was not read)
    whose message is the REST API's; ``data`` has memoryd's error ``type`` and ``code``."""
    error = {
        "code": INVALID_REQUEST,
        "message": exc.message,
        "data": {"type": exc.type, "code": exc.code},
    }
    body = {"jsonrpc": "2.0", "id": None, "error": error}
    headers = dict(exc.headers or {})
    if exc.status == 401:
        headers.setdefault("WWW-Authenticate", "Bearer")  # what an MCP host looks for
    return JSONResponse(body, status_code=exc.status, headers=headers)


@dataclass
class McpEndpoint:
    """The ``/mcp`` route, and what must run while the app serves it."""

    server: MCPServer
    route: Route
    app: StreamableHTTPASGIApp
    gate: ApiKeyGate

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The transport's task group, for one run of the app's lifespan (a session
        manager runs once, so each run gets a new one: an app can be started again)."""
        self.app.session_manager = _session_manager(self.server)
        async with self.app.session_manager.run():
            yield


def _session_manager(server: MCPServer) -> StreamableHTTPSessionManager:
    # memoryd's own Origin check and API keys guard the route; the SDK's DNS-rebinding
    # allow-list would pin the server to localhost names, so it is left to those.
    server.streamable_http_app(
        stateless_http=True,
        json_response=True,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    return server.session_manager


def mcp_endpoint(state: ServerState) -> McpEndpoint:
    server = build_server(state)
    app = StreamableHTTPASGIApp(_session_manager(server))
    gate = ApiKeyGate(app, state)
    return McpEndpoint(server, Route(PATH, endpoint=gate), app, gate)
