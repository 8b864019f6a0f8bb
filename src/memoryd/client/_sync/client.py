# Generated from memoryd/client/_async/client.py by scripts/generate_sync_client.py;
# do not edit: change the async client and run that command.
"""``AsyncMemorydClient``: the library's API over a memoryd server's REST API.

The one implementation of every client method: the sync ``MemorydClient`` is generated
from it (``scripts/generate_sync_client.py``, unasync). Names, arguments, return types and
exceptions are ``memoryd.Memoryd``'s, so moving an app to a server changes one line.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime
from typing import Any

import httpx

from memoryd.client._shared import (
    API,
    ServerError,
    accept_body,
    answer_of,
    audit_of,
    audit_params,
    chat_body,
    chat_of,
    checked,
    context_body,
    detail_of,
    edit_body,
    import_result_of,
    memories_of,
    memory_body,
    memory_of,
    ndjson,
    ndjson_lines,
    owner_prefix,
    require_self,
    scope_value,
    suggestion_of,
    turn_of,
    user_of,
    workspace_of,
)
from memoryd.domain.audit import DEFAULT_PAGE, MAX_PAGE, Actions, audit_query
from memoryd.domain.errors import NotFound
from memoryd.domain.injection import Turn
from memoryd.domain.models import (
    AuditEntry,
    Chat,
    Memory,
    Scope,
    Suggestion,
    SuggestionStatus,
    User,
    Workspace,
)
from memoryd.domain.results import ImportResult, MemoryDetail
from memoryd.domain.rules import KEEP, Keep

DEFAULT_TIMEOUT_S = 30.0
CHAT_PAGE = 1000  # the most GET /api/v1/chats gives at once


class MemorydClient:
    """``AsyncMemorydClient("http://127.0.0.1:8765", "mdk_...")``; use it as a context
    manager or call ``aclose()``. ``http`` lets you pass your own configured httpx client."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float = DEFAULT_TIMEOUT_S,
        http: httpx.Client | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._http = http or httpx.Client(timeout=timeout)
        self._headers = {"Authorization": f"Bearer {api_key}"}
        self._me: User | None = None

    def __enter__(self) -> MemorydClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def _call(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        headers = {**self._headers, **kwargs.pop("headers", {})}
        try:
            response = self._http.request(method, self.base_url + path, headers=headers, **kwargs)
        except httpx.TimeoutException as exc:
            raise ServerError(
                f"memoryd at {self.base_url} did not answer {method} {path} in time"
                f" ({type(exc).__name__}); a change may still have been made. Retry, or"
                " give the client a longer timeout="
            ) from exc
        except httpx.HTTPError as exc:
            raise ServerError(f"cannot reach memoryd at {self.base_url}: {exc}") from exc
        return checked(response)

    def _json(self, method: str, path: str, **kwargs: Any) -> Any:
        return answer_of(self._call(method, path, **kwargs))

    def _owner(self, user_id: int, *rest: str) -> str:
        """The path of this user's ``rest`` (yours, or anyone's for an admin)."""
        return "/".join((owner_prefix(user_id, self.whoami()), *rest))

    def _memories(self, user_id: int, *rest: str) -> str:
        return self._owner(user_id, "memories", *rest)

    # who --------------------------------------------------------------------------------
    def whoami(self) -> User:
        """The user this API key acts for (asked once, then remembered)."""
        if self._me is None:
            self._me = user_of(self._json("GET", f"{API}/me"))
        return self._me

    def get_user(self, user: int | str) -> User:
        """A user by id, or by name when given a string (others: admins only)."""
        me = self.whoami()
        if user in (me.id, me.name):
            return me
        if isinstance(user, int):
            return user_of(self._json("GET", f"{API}/users/{user}"))
        found = [u for u in self.list_users() if u.name == user]
        if not found:
            raise NotFound(f"no user {user!r}")
        return found[0]

    def list_users(self) -> list[User]:
        return [user_of(u) for u in self._json("GET", f"{API}/users")]

    def create_user(self, name: str, role: str = "default") -> User:
        body = {"name": name, "role": role}
        return user_of(self._json("POST", f"{API}/users", json=body))

    # workspaces -------------------------------------------------------------------------
    def list_workspaces(self) -> list[Workspace]:
        return [workspace_of(w) for w in self._json("GET", f"{API}/workspaces")]

    def get_workspace(self, slug: str) -> Workspace:
        return workspace_of(self._json("GET", f"{API}/workspaces/{slug}"))

    def create_workspace(self, slug: str, name: str | None = None) -> Workspace:
        body = {"slug": slug, "name": name}
        return workspace_of(self._json("POST", f"{API}/workspaces", json=body))

    # memories ---------------------------------------------------------------------------
    def add_memory(
        self,
        user_id: int,
        content: str,
        scope: Scope | str | None = None,
        workspace: str | None = None,
        expires_at: datetime | str | None = None,
    ) -> Memory:
        """Store a new memory (hidden once ``expires_at``, a date or an ISO time, has
        passed); raises ScopeFull, DuplicateMemory or InvalidContent."""
        body = memory_body(content, scope, workspace, expires_at)
        return memory_of(self._json("POST", self._memories(user_id), json=body))

    def get_memory(self, user_id: int, memory_id: str) -> Memory:
        return memory_of(self._json("GET", self._memories(user_id, memory_id)))

    def list_memories(
        self, user_id: int, scope: Scope | str | None = None, workspace: str | None = None
    ) -> list[Memory]:
        """A user's memories, globals first, then by workspace and age."""
        chosen = (("scope", scope_value(scope)), ("workspace", workspace))
        params = {k: v for k, v in chosen if v}
        path = self._memories(user_id)
        return memories_of(self._json("GET", path, params=params))

    def edit_memory(
        self,
        user_id: int,
        memory_id: str,
        content: str | None = None,
        *,
        expires_at: datetime | str | Keep | None = KEEP,
    ) -> Memory:
        """Change the text, the expiry (None removes it), or both."""
        path = self._memories(user_id, memory_id)
        body = edit_body(content, expires_at)
        return memory_of(self._json("PATCH", path, json=body))

    def delete_memory(self, user_id: int, memory_id: str, *, reason: str | None = None) -> None:
        """Delete a memory; ``reason`` (why) goes into the audit log."""
        params = {"reason": reason} if reason else None
        self._call("DELETE", self._memories(user_id, memory_id), params=params)

    def promote(self, user_id: int, memory_id: str) -> Memory:
        """Move a workspace memory to the user's global scope (R2)."""
        path = self._memories(user_id, memory_id, "promote")
        return memory_of(self._json("POST", path))

    def demote(self, user_id: int, memory_id: str, workspace: str) -> Memory:
        """Move a global memory into a workspace (R2)."""
        path = self._memories(user_id, memory_id, "demote")
        return memory_of(self._json("POST", path, json={"workspace": workspace}))

    # the audit log ----------------------------------------------------------------------
    def list_audit(
        self,
        user_id: int,
        *,
        before: int | None = None,
        limit: int = DEFAULT_PAGE,
        memory_id: str | None = None,
        action: Actions = None,
        actor: str | None = None,
        workspace: str | None = None,
        since: datetime | date | str | None = None,
    ) -> list[AuditEntry]:
        """One page of the user's audit log, newest first (``before``: the last entry's
        id of the page you have), with the library's filters; an admin's key reads anyone's."""
        query = audit_query(
            user_id,
            before=before,
            limit=limit,
            memory_id=memory_id,
            action=action,
            actor=actor,
            workspace=workspace,
            since=since,
        )
        path = self._owner(user_id, "audit")
        found = self._json("GET", path, params=audit_params(query))
        return [audit_of(user_id, e) for e in found]

    def audit_log(
        self,
        user_id: int,
        memory_id: str | None = None,
        *,
        action: Actions = None,
        actor: str | None = None,
        workspace: str | None = None,
        since: datetime | date | str | None = None,
    ) -> list[AuditEntry]:
        """Every entry of the user's audit log (of one memory with ``memory_id``), oldest
        first, as the library returns it: read 1,000 at a time from the newest."""
        found: list[AuditEntry] = []
        before: int | None = None
        filters: dict[str, Any] = dict(action=action, actor=actor, workspace=workspace, since=since)
        while True:
            page = self.list_audit(
                user_id, before=before, limit=MAX_PAGE, memory_id=memory_id, **filters
            )
            found += page
            if len(page) < MAX_PAGE:
                return found[::-1]
            before = page[-1].id

    def memory_detail(self, user_id: int, memory_id: str) -> MemoryDetail:
        """One memory with who made it, the chats it came from and its history."""
        return detail_of(user_id, self._json("GET", self._memories(user_id, memory_id)))

    # the review queue (memory_review on: extraction's changes wait for the user) ---------
    def list_suggestions(
        self, user_id: int, status: SuggestionStatus | str | None = SuggestionStatus.PENDING
    ) -> list[Suggestion]:
        """A user's suggestions (pending ones by default; None or "all" for every one),
        oldest first."""
        wanted = "all" if status is None else str(status)
        path = self._owner(user_id, "suggestions")
        found = self._json("GET", path, params={"status": wanted})
        return [suggestion_of(s) for s in found]

    def get_suggestion(self, user_id: int, suggestion_id: str) -> Suggestion:
        for found in self.list_suggestions(user_id, None):
            if found.id == suggestion_id:
                return found
        raise NotFound(f"no suggestion {suggestion_id!r} for this user")

    def accept_suggestion(
        self,
        user_id: int,
        suggestion_id: str,
        *,
        content: str | None = None,
        expires_at: datetime | str | Keep | None = KEEP,
        scope: Scope | str | None = None,
    ) -> Memory:
        """Apply a pending suggestion, optionally with your own text, expiry or ``scope``;
        raises ScopeFull or DuplicateMemory like any new memory."""
        path = self._owner(user_id, "suggestions", suggestion_id, "accept")
        body = accept_body(content, expires_at, scope)
        return memory_of(self._json("POST", path, json=body))

    def reject_suggestion(self, user_id: int, suggestion_id: str) -> Suggestion:
        """Turn a suggestion down; the same text is not suggested again in that scope."""
        path = self._owner(user_id, "suggestions", suggestion_id, "reject")
        return suggestion_of(self._json("POST", path))

    # chat turns -------------------------------------------------------------------------
    def context(
        self,
        user_id: int,
        workspace: str | None = None,
        message: str = "",
        history: Sequence[Mapping[str, Any]] = (),
        *,
        record: bool = True,
    ) -> Turn:
        """Choose the memories for one chat turn (R3, R4), exactly as the library does;
        ``record=False`` is an incognito turn."""
        require_self(user_id, self.whoami(), "context")
        body = context_body(workspace, message, history, record)
        data = self._json("POST", f"{API}/context", json=body)
        return turn_of(data, message, history, record)

    def record_chat(
        self,
        user_id: int,
        workspace: str,
        prompt: str,
        response: str,
        *,
        turn: Turn | None = None,
        memory_ids: Sequence[str] = (),
    ) -> Chat:
        """Store a finished exchange (with the memories ``turn`` injected); extraction
        reads it later. An incognito turn is refused."""
        body = chat_body(workspace, prompt, response, turn, memory_ids)
        require_self(user_id, self.whoami(), "record_chat")
        return chat_of(self._json("POST", f"{API}/chats", json=body))

    def list_chats(
        self, user_id: int, workspace: str | None = None, *, processed: bool | None = None
    ) -> list[Chat]:
        """All your recorded chats, oldest first, read 1,000 at a time from the newest
        (``before`` paging); a page's first chat deleted meanwhile starts the reading over."""
        require_self(user_id, self.whoami(), "list_chats")
        params = {"limit": CHAT_PAGE, "workspace": workspace, "processed": processed}
        first: dict[str, Any] = {k: v for k, v in params.items() if v is not None}
        for _ in range(3):
            found: list[Chat] = []
            sent = dict(first)
            try:
                while True:
                    got = self._json("GET", f"{API}/chats", params=sent)
                    page = [chat_of(c) for c in got]
                    found[:0] = page
                    if len(page) < CHAT_PAGE:
                        return found
                    sent["before"] = page[0].id
            except NotFound:
                if "before" not in sent:
                    raise
        raise ServerError("the chats kept changing while they were read; try again")

    def get_chat(self, user_id: int, chat_id: int) -> Chat:
        """One of your recorded chats (NotFound if it is not yours)."""
        require_self(user_id, self.whoami(), "get_chat")
        return chat_of(self._json("GET", f"{API}/chats/{chat_id}"))

    def delete_chat(self, user_id: int, chat_id: int) -> int:
        """Delete one of your recorded chats: its text is erased and it is never learned
        from; memories learned from it stay. Returns 1 (NotFound if it is not yours)."""
        require_self(user_id, self.whoami(), "delete_chat")
        self._call("DELETE", f"{API}/chats/{chat_id}")
        return 1

    def clear_chats(self, user_id: int, workspace: str | None = None) -> int:
        """Delete your recorded chats in ``workspace``, or all of them when None; returns
        how many were deleted."""
        require_self(user_id, self.whoami(), "clear_chats")
        params = {"all": True} if workspace is None else {"workspace": workspace}
        return int((self._json("DELETE", f"{API}/chats", params=params))["deleted"])

    # the user's own choices (GET / PATCH /api/v1/me) -------------------------------------
    def _my_choices(self, user_id: int, what: str, **changes: object) -> dict[str, Any]:
        require_self(user_id, self.whoami(), what)
        method = "PATCH" if changes else "GET"
        return dict(self._json(method, f"{API}/me", json=changes or None))

    def learns_from_chats(self, user_id: int) -> bool:
        """Whether extraction may learn from this user's chats."""
        return bool((self._my_choices(user_id, "learns_from_chats"))["learn_from_chats"])

    def set_learning(self, user_id: int, on: bool) -> int:
        """Turn learning from this user's chats on or off. Off also closes the chats still
        waiting for extraction; returns how many were waiting just before."""
        waiting = 0 if on else len(self.list_chats(user_id, processed=False))
        self._my_choices(user_id, "set_learning", learn_from_chats=on)
        return waiting

    def review_preference(self, user_id: int) -> str | None:
        """The user's own review mode, or None when they follow the instance setting."""
        own = (self._my_choices(user_id, "review_preference"))["memory_review"]
        return None if own == "default" else str(own)

    def review_mode(self, user_id: int) -> str:
        """The review mode extraction uses for this user's memories."""
        return str((self._my_choices(user_id, "review_mode"))["memory_review_effective"])

    def set_review_preference(self, user_id: int, mode: str | None) -> None:
        """Set the user's own review mode (off | updates | everything), or None to follow
        the instance setting again."""
        chosen = "default" if mode is None else mode
        self._my_choices(user_id, "set_review_preference", memory_review=chosen)

    def language_preference(self, user_id: int) -> str | None:
        """The user's own language (a code or ``auto``), or None when they follow the
        server's ``MEMORYD_LANGUAGE``."""
        own = (self._my_choices(user_id, "language_preference"))["language"]
        return None if own == "default" else str(own)

    def language(self, user_id: int) -> str:
        """The language choice in force for the user: their own, else the server's."""
        return str((self._my_choices(user_id, "language"))["language_effective"])

    def set_language_preference(self, user_id: int, language: str | None) -> None:
        """Set the user's own language (a code or ``auto``), or None (or ``default``) to
        follow the server's again."""
        chosen = "default" if language is None else language
        self._my_choices(user_id, "set_language_preference", language=chosen)

    # settings, export / import ----------------------------------------------------------
    def get_settings(self) -> dict[str, Any]:
        return dict(self._json("GET", f"{API}/settings"))

    def set_setting(self, key: str, value: object) -> Any:
        return (self._json("PATCH", f"{API}/settings", json={key: value}))[key]

    def export_memories(self, user_id: int, *, chats: bool = True) -> list[str]:
        """The user's own choices (first line), memories and recorded chats as JSON lines
        (see ``memoryd.app.transfer``); ``chats=False`` leaves the chats out."""
        path = self._owner(user_id, "export")
        response = self._call("GET", path, params={"chats": chats})
        return ndjson_lines(response.text)

    def import_memories(
        self,
        user_id: int,
        lines: Iterable[str] | str,
        *,
        preferences: bool = True,
        chats: bool = True,
    ) -> ImportResult:
        """Load JSON lines made by ``export_memories`` (a list of lines, or the file's whole
        text), all or nothing, with or without their ``preferences`` and ``chats`` lines."""
        path = self._owner(user_id, "import")
        headers = {"Content-Type": "application/x-ndjson"}
        params = {"preferences": preferences, "chats": chats}
        answer = self._json("POST", path, content=ndjson(lines), headers=headers, params=params)
        return import_result_of(answer)
