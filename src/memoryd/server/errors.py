"""How the server says no: one JSON error shape with the right status for every failure.

Every error body is ``{"error": {"type": ..., "message": ..., "code": ...}}`` -- the shape
OpenAI clients already parse, so the REST API and the proxy agree. Domain exceptions map
to statuses here and nowhere else.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from memoryd.domain.errors import (
    AdminOnly,
    AlreadyExists,
    DuplicateMemory,
    InvalidContent,
    InvalidInput,
    InvalidScope,
    MemorydError,
    NotFound,
    PermissionDenied,
    ScopeFull,
)
from memoryd.models.llm.base import LLMError
from memoryd.storage.opening import DATABASE_DOWN

log = logging.getLogger("memoryd.server")
DATABASE_RETRY_AFTER_S = 2
# FastAPI's words when a JSON body cannot be decoded at all, and what memoryd says instead
FASTAPI_UNREADABLE_BODY = "There was an error parsing the body"
UNREADABLE_BODY = (
    "the body cannot be read as JSON: it is not UTF-8 text, is nested too deeply or holds "
    "a number of more than 4300 digits"
)

STATUS: tuple[tuple[type[MemorydError], int, str], ...] = (
    (NotFound, 404, "not_found"),
    (ScopeFull, 409, "scope_full"),
    (DuplicateMemory, 409, "duplicate_memory"),
    (AlreadyExists, 409, "already_exists"),
    (InvalidContent, 422, "invalid_content"),
    (InvalidScope, 422, "invalid_scope"),
    (InvalidInput, 422, "invalid_input"),
    (AdminOnly, 403, "forbidden"),
    (PermissionDenied, 403, "permission_denied"),
)

_HTTP_TYPES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    408: "request_timeout",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "invalid_input",
    429: "rate_limited",
    502: "upstream_error",
    504: "upstream_timeout",
}


class ApiError(Exception):
    """An HTTP error raised by the server itself (auth, CSRF, bad request framing)."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        type: str | None = None,
        code: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.type = type or _HTTP_TYPES.get(status, "error")
        self.code = code
        self.headers = headers


def error_body(type_: str, message: str, code: str | None = None, **extra: Any) -> dict[str, Any]:
    return {"error": {"type": type_, "message": message, "code": code, **extra}}


def error_response(
    status: int,
    type_: str,
    message: str,
    *,
    code: str | None = None,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> JSONResponse:
    return JSONResponse(error_body(type_, message, code, **extra), status, headers=headers)


def status_of(exc: MemorydError) -> tuple[int, str]:
    for kind, status, type_ in STATUS:
        if isinstance(exc, kind):
            return status, type_
    if isinstance(exc, LLMError):
        return 502, "upstream_error"
    return 400, "bad_request"


def _memoryd_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, MemorydError)
    status, type_ = status_of(exc)
    extra: dict[str, Any] = {}
    if isinstance(exc, ScopeFull):
        extra = {"scope": exc.scope, "limit": exc.limit}
    code = "admin_only" if isinstance(exc, AdminOnly) else None
    return error_response(status, type_, str(exc), code=code, **extra)


def api_error_response(exc: ApiError) -> JSONResponse:
    return error_response(exc.status, exc.type, exc.message, code=exc.code, headers=exc.headers)


def _api_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return api_error_response(exc)


def is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or media.endswith("+json")


def _body_problem(request: Request, errors: Sequence[Any]) -> ApiError | None:
    """What is wrong with the body as a whole (not JSON, not sent as JSON, absent), said
    plainly; None when the problem is in its fields."""
    for err in errors:
        loc, kind = tuple(err.get("loc", ())), err.get("type")
        if kind == "json_invalid":
            why = (err.get("ctx") or {}).get("error") or "it does not parse"
            at = f" (at character {loc[1]})" if len(loc) > 1 else ""
            return ApiError(400, f"the body is not valid JSON: {why}{at}", code="invalid_json")
        if loc != ("body",):
            continue
        content_type = request.headers.get("content-type", "")
        if kind == "missing":
            return ApiError(422, "this request needs a JSON body (Content-Type: application/json)")
        if not is_json(content_type):
            sent = f"not {content_type[:100]!r}" if content_type else "none was given"
            return ApiError(
                415,
                f"send the body as JSON with Content-Type: application/json ({sent})",
                code="unsupported_media_type",
            )
        return ApiError(422, "the body must be a JSON object")
    return None


def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    details = [
        {"loc": list(err.get("loc", ())), "msg": str(err.get("msg", ""))} for err in exc.errors()
    ]
    problem = _body_problem(request, exc.errors())
    if problem is not None:
        return error_response(
            problem.status, problem.type, problem.message, code=problem.code, details=details
        )
    first = details[0] if details else {"loc": [], "msg": "invalid request"}
    where = ".".join(str(p) for p in first["loc"] if p != "body") or "request"
    return error_response(422, "invalid_input", f"{where}: {first['msg']}", details=details)


def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    type_ = _HTTP_TYPES.get(exc.status_code, "error")
    headers = dict(exc.headers) if exc.headers else None
    if exc.status_code == 400 and exc.detail == FASTAPI_UNREADABLE_BODY:
        return error_response(400, type_, UNREADABLE_BODY, code="invalid_json")
    if exc.status_code == 404 and exc.detail == "Not Found":  # no route: say which path
        # (a client whose base URL already ends in /api/v1 lands here, and a bare
        # "Not Found" reads as "no such memory")
        path = request.url.path[:200]
        message = f"no endpoint {request.method} {path} on this memoryd server"
        return error_response(404, type_, message, code="no_endpoint", headers=headers)
    return error_response(exc.status_code, type_, str(exc.detail), headers=headers)


def database_unavailable(exc: Exception) -> JSONResponse:
    """503 for a failed database connection. The transaction was rolled back unless its
    commit was already on its way; retrying is the caller's move."""
    log.warning("database unavailable: %s", " ".join(str(exc).split())[:300])
    return error_response(
        503,
        "database_unavailable",
        "the database is unavailable; retry shortly",
        headers={"Retry-After": str(DATABASE_RETRY_AFTER_S)},
    )


def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    if isinstance(exc, RecursionError):
        return error_response(400, "bad_request", "the request is nested too deeply")
    # The exception's message and local values can hold what the user sent (a database
    # error quotes the prompt it refused): log where it happened, not what it said.
    where = "".join(traceback.format_tb(exc.__traceback__))
    name, path = type(exc).__name__, request.url.path
    log.error("unhandled %s on %s %s\n%s", name, request.method, path, where)
    return error_response(500, "internal_error", "internal server error; see the server log")


def install(app: FastAPI) -> None:
    app.add_exception_handler(MemorydError, _memoryd_error)
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    for kind in DATABASE_DOWN:
        app.add_exception_handler(kind, lambda _, exc: database_unavailable(exc))
    app.add_exception_handler(Exception, _unexpected)
