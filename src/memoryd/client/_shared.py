"""What the sync and async clients share and never do twice: turning a JSON answer of the
REST API into the library's types, and an error answer into the library's exceptions.
No I/O here: the clients send the requests, these functions read the answers.

An enum value this client does not know yet (a newer server's) is kept as the plain
string (``known``), so an older client keeps working: docs/clients.md, "A newer server".
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, TypeVar, cast

import httpx

from memoryd.domain.audit import AuditQuery
from memoryd.domain.errors import (
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
from memoryd.domain.injection import (
    SECTION_HEADING,
    SECTION_TITLE,
    Turn,
    build_query,
    used_ids,
)
from memoryd.domain.models import (
    AuditAction,
    AuditEntry,
    Chat,
    Memory,
    Role,
    Scope,
    ScoredMemory,
    Source,
    Suggestion,
    SuggestionKind,
    SuggestionStatus,
    User,
    Workspace,
)
from memoryd.domain.results import ImportResult, MemoryDetail, Preferences
from memoryd.domain.rules import Keep, parse_scope

API = "/api/v1"
E = TypeVar("E", bound=enum.Enum)


def known(kind: type[E], value: str) -> E | str:
    """The member of ``kind`` spelled ``value``, or ``value`` itself when this client does
    not know it (a newer server's)."""
    try:
        return kind(value)
    except ValueError:
        return str(value)


def lenient(kind: type[E], value: str) -> E:
    """``known`` for a field of the library's dataclasses, declared as the enum: an
    unknown value is the plain string, which a ``StrEnum`` member compares equal to."""
    return cast(E, known(kind, value))


class ServerError(MemorydError):
    """The server could not answer (5xx, unreachable, or an answer that is not memoryd's)."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class NotAuthenticated(PermissionDenied):
    """The API key is missing, wrong or revoked (HTTP 401)."""


# The REST API's error types (memoryd.server.errors) back to the library's exceptions.
ERROR_TYPES: dict[str, type[MemorydError]] = {
    "not_found": NotFound,
    "duplicate_memory": DuplicateMemory,
    "already_exists": AlreadyExists,
    "invalid_content": InvalidContent,
    "invalid_scope": InvalidScope,
    "invalid_input": InvalidInput,
    "permission_denied": PermissionDenied,
    "forbidden": PermissionDenied,
    "unauthorized": NotAuthenticated,
    "payload_too_large": InvalidInput,
}


def error_of(response: httpx.Response) -> MemorydError:
    """The library exception an error answer stands for."""
    try:
        error = response.json()["error"]
        kind, message = str(error["type"]), str(error["message"])
    except (ValueError, KeyError, TypeError):
        return ServerError(
            f"HTTP {response.status_code} from {response.request.url}: {response.text[:200]}",
            status=response.status_code,
        )
    if kind == "scope_full":
        return ScopeFull(message, scope=str(error.get("scope")), limit=int(error.get("limit", 0)))
    if response.status_code >= 500:
        return ServerError(message, status=response.status_code)
    return ERROR_TYPES.get(kind, InvalidInput)(message)


def checked(response: httpx.Response) -> httpx.Response:
    if response.is_error:
        raise error_of(response)
    return response


def answer_of(response: httpx.Response) -> Any:
    """The JSON of a successful answer; ServerError when it is not JSON (a proxy's page,
    a base URL that points at another server)."""
    try:
        return response.json()
    except ValueError:
        raise ServerError(
            f"the answer from {response.request.url} is not memoryd's (HTTP"
            f" {response.status_code}, {response.headers.get('content-type', 'no type')}):"
            f" {response.text[:200]!r}",
            status=response.status_code,
        ) from None


def ndjson(lines: Iterable[str] | str) -> bytes:
    """An import's body: the lines, or a file's whole text, one JSON value a line."""
    if isinstance(lines, str):
        text = lines if lines.endswith("\n") or not lines else lines + "\n"
    else:
        text = "".join(f"{line}\n" for line in lines)
    return text.encode("utf-8")


def ndjson_lines(text: str) -> list[str]:
    """An export's lines, split at LF only: a JSON string may hold U+2028, U+0085 or a
    form feed, at which ``str.splitlines`` would cut a line in two."""
    return text.removesuffix("\n").split("\n") if text else []


def owner_prefix(user_id: int, me: User) -> str:
    """Your own memories live at /api/v1/memories; an admin reaches anyone's by id."""
    return API if user_id == me.id else f"{API}/users/{user_id}"


def require_self(user_id: int, me: User, what: str) -> None:
    if user_id != me.id:
        raise PermissionDenied(
            f"{what} acts for the API key's own user (id {me.id}), not user {user_id}; "
            "use that user's API key"
        )


def _when(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def memory_of(data: Mapping[str, Any]) -> Memory:
    return Memory(
        id=data["id"],
        user_id=data["user_id"],
        scope=Scope(data["scope"]),
        workspace=data["workspace"],
        content=data["content"],
        source=lenient(Source, data["source"]),
        created_at=datetime.fromisoformat(data["created_at"]),
        updated_at=datetime.fromisoformat(data["updated_at"]),
        last_used_at=_when(data.get("last_used_at")),
        source_chat_ids=tuple(data.get("source_chat_ids", ())),
        expires_at=_when(data.get("expires_at")),
        run_id=data.get("run_id"),
        questions=None if data.get("questions") is None else tuple(data["questions"]),
    )


def memories_of(data: Mapping[str, Any]) -> list[Memory]:
    return [memory_of(m) for m in data["memories"]]


def user_of(data: Mapping[str, Any]) -> User:
    return User(id=data["id"], name=data["name"], role=lenient(Role, data["role"]))


def workspace_of(data: Mapping[str, Any]) -> Workspace:
    return Workspace(slug=data["slug"], name=data["name"])


def chat_of(data: Mapping[str, Any]) -> Chat:
    return Chat(
        id=data["id"],
        user_id=data["user_id"],
        workspace=data["workspace"],
        prompt=data["prompt"],
        response=data["response"],
        created_at=datetime.fromisoformat(data["created_at"]),
        memory_processed=data["memory_processed"],
    )


def audit_params(query: AuditQuery) -> dict[str, Any]:
    """The query string of ``GET /api/v1/audit`` for a query the library has checked."""
    chosen: dict[str, Any] = {
        "before": query.before,
        "limit": query.limit,
        "memory_id": query.memory_id,
        "action": [a.value for a in query.actions] or None,
        "actor": query.actor,
        "workspace": query.workspace,
        "since": query.since.isoformat() if query.since else None,
    }
    return {k: v for k, v in chosen.items() if v is not None}


def audit_of(user_id: int, data: Mapping[str, Any]) -> AuditEntry:
    return AuditEntry(
        id=data["id"],
        memory_id=data["memory_id"],
        user_id=user_id,
        action=lenient(AuditAction, data["action"]),
        actor=data["actor"],
        before=data["before"],
        after=data["after"],
        at=datetime.fromisoformat(data["at"]),
    )


def turn_of(
    data: Mapping[str, Any],
    message: str,
    history: Sequence[Mapping[str, Any]],
    record: bool = True,
) -> Turn:
    """The ``Turn`` the library would have returned for this context answer."""
    chosen = [ScoredMemory(memory_of(m), m["score"]) for m in data["memories"]]
    section = str(data.get("section") or "")  # servers before issue 35 send none
    heading = section.split("\n", 1)[0] if section else SECTION_HEADING
    return Turn(
        global_memories=tuple(s for s in chosen if s.memory.scope is Scope.GLOBAL),
        workspace_memories=tuple(s for s in chosen if s.memory.scope is Scope.WORKSPACE),
        enabled=data["enabled"],
        reranker=data["reranker"],
        fallback_reason=data["fallback_reason"],
        query=build_query(message, history),
        record=record,
        heading=heading,
        titles=lambda: (SECTION_TITLE, heading.lstrip("# ")),
    )


def context_body(
    workspace: str | None,
    message: str,
    history: Sequence[Mapping[str, Any]],
    record: bool = True,
) -> dict[str, Any]:
    body = {"message": message, "workspace": workspace, "history": [dict(h) for h in history]}
    return body if record else {**body, "incognito": True}


def chat_body(
    workspace: str, prompt: str, response: str, turn: Turn | None, memory_ids: Sequence[str]
) -> dict[str, Any]:
    """``POST /chats``; an incognito turn is refused here, as the library refuses it."""
    body: dict[str, Any] = {"workspace": workspace, "prompt": prompt, "response": response}
    ids = used_ids(turn, memory_ids)
    return {**body, "memory_ids": ids} if ids else body


def scope_value(scope: Scope | str | None) -> str | None:
    """The scope as the API takes it; a bad one is the library's InvalidScope, raised here
    with the library's message (the server would call it a bad field)."""
    return None if scope is None else parse_scope(scope).value


def memory_body(
    content: str,
    scope: Scope | str | None,
    workspace: str | None,
    expires_at: datetime | str | None = None,
) -> dict[str, Any]:
    body = {"content": content, "scope": scope_value(scope), "workspace": workspace}
    return body if expires_at is None else {**body, "expires_at": expiry_text(expires_at)}


def expiry_text(expires_at: datetime | str | None) -> str | None:
    """An expiry as the API takes it (a date or an ISO time), None to remove it."""
    return expires_at.isoformat() if isinstance(expires_at, datetime) else expires_at


def edit_body(content: str | None, expires_at: datetime | str | Keep | None) -> dict[str, Any]:
    """A PATCH body: only what changes (a left-out expiry is kept, null removes it)."""
    body: dict[str, Any] = {}
    if content is not None:
        body["content"] = content
    if not isinstance(expires_at, Keep):
        body["expires_at"] = expiry_text(expires_at)
    return body


def accept_body(
    content: str | None, expires_at: datetime | str | Keep | None, scope: Scope | str | None
) -> dict[str, Any]:
    """``POST .../suggestions/{id}/accept``: only what the user changes."""
    body = edit_body(content, expires_at)
    return body if scope is None else {**body, "scope": scope}  # a Scope is sent as its value


def suggestion_of(data: Mapping[str, Any]) -> Suggestion:
    return Suggestion(
        id=data["id"],
        user_id=data["user_id"],
        kind=lenient(SuggestionKind, data["kind"]),
        scope=Scope(data["scope"]),
        workspace=data["workspace"],
        content=data["content"],
        created_at=datetime.fromisoformat(data["created_at"]),
        status=lenient(SuggestionStatus, data["status"]),
        target_id=data.get("target_id"),
        target_content=data.get("target_content"),
        expires_at=_when(data.get("expires_at")),
        source_chat_ids=tuple(data.get("source_chat_ids", ())),
        run_id=data.get("run_id"),
        decided_at=_when(data.get("decided_at")),
        memory_id=data.get("memory_id"),
        origin=data.get("origin"),
    )


def detail_of(user_id: int, data: Mapping[str, Any]) -> MemoryDetail:
    """``GET .../memories/{id}``: the memory with its provenance, as ``memory_detail``."""
    return MemoryDetail(
        memory=memory_of(data),
        expired=bool(data.get("expired", False)),
        created_by=data.get("created_by"),
        source_chats=tuple(chat_of(c) for c in data.get("source_chats", ())),
        history=tuple(audit_of(user_id, e) for e in data.get("history", ())),
        deleted_source_chat_ids=tuple(data.get("deleted_source_chat_ids", ())),
        hidden_source_chats=int(data.get("hidden_source_chats", 0)),
    )


def import_result_of(data: Mapping[str, Any]) -> ImportResult:
    return ImportResult(
        created=data["created"],
        updated=data["updated"],
        skipped_duplicates=data["skipped_duplicates"],
        unchanged=data.get("unchanged", 0),  # absent from servers before issue 38
        workspaces_created=list(data["workspaces_created"]),
        preferences=preferences_of(data.get("preferences")),
        chats_created=data.get("chats_created", 0),  # absent from servers before chats moved
        chats_skipped=data.get("chats_skipped", 0),
    )


def preferences_of(data: Mapping[str, Any] | None) -> Preferences | None:
    if data is None:
        return None
    return Preferences(
        learn_from_chats=data.get("learn_from_chats"),
        memory_review=data.get("memory_review"),
        language=data.get("language"),  # absent from servers before issue 35
    )
