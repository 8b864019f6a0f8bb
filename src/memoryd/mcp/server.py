"""The memoryd MCP server: memory tools and the current memory section for agent hosts.

Every tool is a thin call into ``memoryd.access``, as the REST API's are, so the same
rules hold, a refusal is an MCP tool error with the API's message, and the answers have
the API's JSON forms (``memoryd.access.wire``). The caller is the user
``memoryd.mcp.http`` put on the request, or over stdio the one the server was started for.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any, Literal, ParamSpec, TypeVar, cast

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError, UnexpectedToolError
from mcp.types import CallToolResult, InputRequiredResult, TextContent
from pydantic import BaseModel, Field, ValidationError

import memoryd
from memoryd.access import chats, memories
from memoryd.access.callers import Owner, Site, self_owner
from memoryd.access.wire import ChatOut, ContextOut, MemoryList, MemoryOut
from memoryd.domain.errors import MemorydError, PermissionDenied
from memoryd.domain.injection import SECTION_TITLE
from memoryd.domain.models import User
from memoryd.domain.rules import KEEP, Keep, parse_scope
from memoryd.storage.opening import DATABASE_DOWN

# The key under which ``memoryd.mcp.http`` leaves the authenticated user in the ASGI scope.
SCOPE_USER_KEY = "memoryd.user"
SECTION_URI = "memoryd://section{?workspace}"
DATABASE_UNAVAILABLE = "the database is unavailable; retry shortly"

INSTRUCTIONS = (
    "memoryd keeps facts about the user: a few global ones and some per workspace (project). "
    "Call `recall` with the user's message (and the workspace, if any) at the start of a task "
    "to get what you should know; `remember` a durable fact the user states; "
    "`record_exchange` a finished prompt/response so memoryd can learn from it later; "
    "`delete_exchange` one the user wants gone."
)

P = ParamSpec("P")
R = TypeVar("R")

ScopeArg = Annotated[
    Literal["global", "workspace"] | None,
    Field(description="'global' or 'workspace'; default: workspace when one is given"),
]
WorkspaceArg = Annotated[
    str | None, Field(max_length=64, description="The workspace (project) slug.")
]
UntilArg = Annotated[
    str | None,
    Field(
        max_length=64,
        description="Remember until this date (YYYY-MM-DD, to the end of that day, UTC); "
        "after it the memory is no longer used.",
    ),
]
MemoryId = Annotated[str, Field(min_length=1, max_length=64, description="The memory's id.")]
Content = Annotated[
    str, Field(max_length=10_000, description="One line of plain text, at most 500 characters.")
]


class Forgotten(BaseModel):
    id: str
    deleted: bool


class ExchangeDeleted(BaseModel):
    id: int
    deleted: bool


class Where(BaseModel):
    """The section's ``?workspace=``, checked as the REST API checks a workspace."""

    workspace: str | None = Field(default=None, max_length=64)


def field_errors(exc: ValidationError, whole: str) -> list[str]:
    """Each bad field in the REST API's wording, ``where: what`` (``whole`` when it is no
    one field), not pydantic's report (which repeats the values and links to its docs)."""
    return [f"{'.'.join(str(p) for p in e['loc']) or whole}: {e['msg']}" for e in exc.errors()]


class McpServer(MCPServer):
    """The SDK's server, with a tool's bad arguments reported as the REST API reports a
    bad field (the SDK checks them before ``tool_errors`` can see them)."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(exc, UnexpectedToolError) or not isinstance(cause, ValidationError):
                raise
            wrong = "; ".join(field_errors(cause, "arguments")) or "invalid arguments"
            raise ToolError(f"invalid arguments for {name}: {wrong}") from cause


def refusal_message(exc: Exception) -> str | None:
    """The REST API's message for a refusal; None for anything else (a crash)."""
    if isinstance(exc, MemorydError):
        return str(exc)
    if isinstance(exc, ValidationError):
        return (field_errors(exc, "request") or ["request: invalid request"])[0]
    if isinstance(exc, DATABASE_DOWN):
        return DATABASE_UNAVAILABLE
    return None


def tool_errors(fn: Callable[P, R]) -> Callable[P, R]:
    """A refusal becomes an MCP tool error whose text is exactly the API's message."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            message = refusal_message(exc)
            if message is None:
                raise
            error = CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)
            return cast(R, error)  # the SDK passes a CallToolResult through as is

    return wrapper


@contextmanager
def _root_logging_kept() -> Iterator[None]:
    """``MCPServer()`` configures the root logger; memoryd leaves logging to its host."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        yield
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


def build_server(site: Site, local_user_id: int | None = None) -> MCPServer:
    """The MCP server over ``site.md``.

    ``local_user_id``: the one user a stdio server acts for. Without it, every call must
    come through ``memoryd.mcp.http``, which puts the authenticated user on the request.
    """
    md = site.md
    with _root_logging_kept():
        server = McpServer(
            "memoryd", title="memoryd", instructions=INSTRUCTIONS, version=memoryd.__version__
        )

    def caller(ctx: Context[Any, Any]) -> User:
        request = ctx.request_context.request
        if request is None:
            if local_user_id is None:
                raise PermissionDenied("this MCP server has no user; start it with --user")
            return md.get_user(local_user_id)  # re-read: a role change applies at once
        user: User | None = request.scope.get(SCOPE_USER_KEY)
        if user is None:  # only reachable if mounted without memoryd.mcp.http
            raise PermissionDenied("send an API key (Authorization: Bearer mdk_...)")
        return user

    def owner(ctx: Context[Any, Any]) -> Owner:
        return self_owner(caller(ctx))

    def tool(title: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
        """Registers a tool whose refusals are tool errors (``tool_errors``)."""
        return lambda fn: server.tool(title=title)(tool_errors(fn))

    @tool("Remember a fact about the user")
    def remember(
        content: Content,
        ctx: Context[Any, Any],
        scope: ScopeArg = None,
        workspace: WorkspaceArg = None,
        until: UntilArg = None,
    ) -> MemoryOut:
        """Store a new memory: one short fact the user stated that stays true.

        Write it about the user ("User prefers dark mode.", "User's sister lives in
        Oslo."), not as "I ...": the chat model reads memories as facts about its user.
        A global memory is about the person (at most 5); a workspace memory belongs to
        one project (at most 20 per workspace). A full scope or an exact duplicate is refused.
        A fact true only until a date ("the demo is on Friday") takes `until`.
        """
        return MemoryOut.of(memories.add_memory(site, owner(ctx), content, scope, workspace, until))

    @tool("Recall what is known for this message")
    def recall(
        query: Annotated[
            str, Field(max_length=200_000, description="The user's message or the topic.")
        ],
        ctx: Context[Any, Any],
        workspace: WorkspaceArg = None,
    ) -> ContextOut:
        """The memories a chat turn with this message would get, ranked, with scores:
        all global memories, then the top 5 workspace memories. `section` is the text to
        put in a system prompt."""
        return ContextOut.of(chats.turn(site, caller(ctx), workspace, query))

    @tool("List memories")
    def list_memories(
        ctx: Context[Any, Any],
        scope: ScopeArg = None,
        workspace: WorkspaceArg = None,
    ) -> MemoryList:
        """The user's memories (globals first) and how full each scope is."""
        chosen = None if scope is None else parse_scope(scope)
        return MemoryList.of(memories.overview(site, owner(ctx), chosen, workspace))

    @tool("Get one memory")
    def get_memory(memory_id: MemoryId, ctx: Context[Any, Any]) -> MemoryOut:
        """One memory by id."""
        return MemoryOut.of(memories.visible_memory(site, owner(ctx), memory_id))

    @tool("Rewrite a memory")
    def update_memory(
        memory_id: MemoryId,
        ctx: Context[Any, Any],
        content: Annotated[
            str | None,
            Field(max_length=10_000, description="The new text (same rules as a new memory)."),
        ] = None,
        until: Annotated[
            str | None,
            Field(
                max_length=64,
                description='A new "remember until" date (YYYY-MM-DD), or "never" to keep '
                "the memory for good.",
            ),
        ] = None,
    ) -> MemoryOut:
        """Rewrite a memory's text, change until when it is remembered, or both.
        At least one of `content` and `until` is needed."""
        expiry: str | Keep | None = KEEP
        if until is not None:
            expiry = None if until.strip().lower() == "never" else until
        return MemoryOut.of(memories.edit_memory(site, owner(ctx), memory_id, content, expiry))

    @tool("Forget a memory")
    def forget(memory_id: MemoryId, ctx: Context[Any, Any]) -> Forgotten:
        """Delete one memory by id."""
        memories.delete_memory(site, owner(ctx), memory_id)
        return Forgotten(id=memory_id, deleted=True)

    @tool("Make a workspace memory global")
    def promote(memory_id: MemoryId, ctx: Context[Any, Any]) -> MemoryOut:
        """Move a workspace memory to the user's global memories (refused when full)."""
        return MemoryOut.of(memories.promote(site, owner(ctx), memory_id))

    @tool("Move a global memory into a workspace")
    def demote(
        memory_id: MemoryId,
        workspace: Annotated[str, Field(min_length=1, max_length=64)],
        ctx: Context[Any, Any],
    ) -> MemoryOut:
        """Move a global memory into one workspace (refused when that workspace is full)."""
        return MemoryOut.of(memories.demote(site, owner(ctx), memory_id, workspace))

    @tool("Record a finished exchange")
    def record_exchange(
        prompt: str,
        response: str,
        workspace: Annotated[str, Field(min_length=1, max_length=64)],
        ctx: Context[Any, Any],
        memory_ids: Annotated[
            list[Annotated[str, Field(max_length=32)]],
            Field(
                max_length=100,
                description="The memories recall gave you for this exchange, in order.",
            ),
        ] = [],  # noqa: B006 - the tool's JSON schema default; never mutated
    ) -> ChatOut:
        """Store the user's prompt and the reply, with the memories recall gave you for it;
        memoryd learns memories from recorded exchanges later, in the background."""
        recorded = chats.record_chat(site, caller(ctx), workspace, prompt, response, memory_ids)
        return ChatOut.of(*recorded)

    @tool("Delete a recorded exchange")
    def delete_exchange(
        chat_id: Annotated[
            int, Field(ge=1, le=2**63 - 1, description="The id record_exchange returned.")
        ],
        ctx: Context[Any, Any],
    ) -> ExchangeDeleted:
        """Delete one of the user's recorded exchanges: its text is erased and memoryd
        never learns from it; memories already learned from it stay."""
        chats.delete_chat(site, caller(ctx), chat_id)
        return ExchangeDeleted(id=chat_id, deleted=True)

    @server.resource(
        SECTION_URI,
        name="memory-section",
        title=SECTION_TITLE,  # the resource's name; the section's own heading is translated
        description="The user's current memory section (globals; add ?workspace=SLUG for a "
        "workspace's memories too), as it would be appended to a system prompt, headed in "
        "the user's language.",
        mime_type="text/markdown",
    )
    def section(ctx: Context[Any, Any], workspace: str | None = None) -> str:
        try:
            return chats.turn(site, caller(ctx), Where(workspace=workspace).workspace, "").section
        except Exception as exc:  # a refusal: a ResourceError with the API's message
            message = refusal_message(exc)
            if message is None:
                raise
            raise ResourceError(message) from None

    return server
