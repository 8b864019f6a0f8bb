"""The OpenAI-compatible proxy: ``POST /v1/chat/completions`` and ``GET /v1/models``.

Point any OpenAI client at ``http://HOST:PORT/v1`` with a memoryd API key. Each request:
the key says who the user is; the ``X-Memoryd-Workspace`` header, or a ``slug/model``
model-name prefix naming one of the user's workspaces, says which workspace; the memory
section is appended to the system message (one is added if absent); the request goes to
the configured upstream and the answer comes back as the upstream sent it, streamed or
not; once the whole answer has been relayed, the exchange is recorded for extraction,
with the ids of the memories it was given. A client that hung up before the answer
reached it gets nothing recorded; nor does a chat sent with ``X-Memoryd-Incognito: true``
(its memories are injected, but nothing is kept or learned from, and their last-used
times stay as they were). The reply says what was injected: ``X-Memoryd-Memories`` (how
many) and ``X-Memoryd-Memory-Ids`` (which, comma-separated, in prompt order).
Upstream errors come back with the upstream's status and an OpenAI-style error body.
"""

from __future__ import annotations

import json
import logging
import socket
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse, StreamingResponse
from starlette.background import BackgroundTask
from starlette.concurrency import iterate_in_threadpool, run_in_threadpool

from memoryd.domain.errors import InvalidInput, NotFound
from memoryd.domain.injection import Turn, compose_system_prompt
from memoryd.domain.models import User
from memoryd.llm.base import LLMError
from memoryd.server.deps import CurrentCaller, ServerState, State, require_workspace
from memoryd.server.errors import ApiError, error_response
from memoryd.server.upstream import (
    OpenAIUpstream,
    ProviderUpstream,
    StreamCollector,
    Upstream,
    chunk_events,
    completion_object,
    completion_text,
    message_text,
    plain_messages,
    resolve_upstream,
)

log = logging.getLogger("memoryd.proxy")
router = APIRouter(prefix="/v1", tags=["openai-compatible proxy"])

WORKSPACE_HEADER = "X-Memoryd-Workspace"
INCOGNITO_HEADER = "X-Memoryd-Incognito"
MEMORY_IDS_HEADER = "X-Memoryd-Memory-Ids"
TRUE_WORDS = ("true", "1", "yes", "on")
FALSE_WORDS = ("false", "0", "no", "off", "")
MAX_BODY_BYTES = 20_000_000
SYSTEM_ROLES = ("system", "developer")


def upstream_of(state: ServerState) -> Upstream:
    if state.upstream is None:
        state.upstream = resolve_upstream(state.settings)
    return state.upstream


def http_client(state: ServerState) -> httpx.AsyncClient:
    if state.http is None:
        timeout = httpx.Timeout(state.settings.proxy_timeout_s, connect=10.0)
        limits = httpx.Limits(max_connections=200, max_keepalive_connections=50)
        # no Nagle: a request's headers and body go out as separate writes, and waiting
        # for the upstream's delayed ACK in between costs up to 40 ms per request
        nodelay = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]
        transport = httpx.AsyncHTTPTransport(limits=limits, socket_options=nodelay)
        state.http = httpx.AsyncClient(timeout=timeout, transport=transport)
    return state.http


# the request ----------------------------------------------------------------------------
async def read_request(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if len(raw) > MAX_BODY_BYTES:
        raise ApiError(
            413, f"request body over {MAX_BODY_BYTES} bytes", type="invalid_request_error"
        )
    try:
        body = json.loads(raw)
    except ValueError:
        raise ApiError(400, "request body is not JSON", type="invalid_request_error") from None
    except RecursionError:
        message = "request body is nested too deeply"
        raise ApiError(400, message, type="invalid_request_error") from None
    if not isinstance(body, dict):
        raise ApiError(400, "request body must be a JSON object", type="invalid_request_error")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise ApiError(400, "'messages' must be a non-empty list", type="invalid_request_error")
    for message in messages:
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise ApiError(
                400, "each message must be an object with a 'role'", type="invalid_request_error"
            )
    if not isinstance(body.get("model"), str) or not body["model"]:
        raise ApiError(400, "'model' must be a model name", type="invalid_request_error")
    return body


def pick_workspace(
    request: Request, state: ServerState, user: User, model: str
) -> tuple[str | None, str]:
    """The workspace (header first, then a ``slug/`` model prefix) and the upstream model.

    A prefix that is no workspace is part of the model name (``meta-llama/...``); one that
    names a workspace the user may not use is refused, never forwarded as a model name.
    """
    header = request.headers.get(WORKSPACE_HEADER)
    if header:
        return _usable_workspace(state, user, header.strip()), model
    prefix, slash, rest = model.partition("/")
    if slash and rest and state.md.has_workspace(prefix):
        return _usable_workspace(state, user, prefix), rest
    return None, model


def is_incognito(request: Request) -> bool:
    """``X-Memoryd-Incognito``: true (never record this chat) or false (the default)."""
    raw = request.headers.get(INCOGNITO_HEADER)
    if raw is None:
        return False
    value = raw.strip().lower()
    if value in TRUE_WORDS:
        return True
    if value in FALSE_WORDS:
        return False
    message = f"{INCOGNITO_HEADER} must be true or false, not {raw[:40]!r}"
    raise ApiError(400, message, type="invalid_request_error")
def _usable_workspace(state: ServerState, user: User, slug: str) -> str:
    try:
        return require_workspace(state, user, slug)
    except NotFound:
        raise ApiError(
            404,
            f"no workspace {slug!r} for this user: it does not exist or the user is not a "
            f"member (an admin adds members in the admin panel or with `memoryd workspaces "
            f"members add {slug} USER`)",
            type="invalid_request_error",
            code="workspace_not_found",
        ) from None


def split_turn(messages: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """The last user message's text and the messages before it (without system ones)."""
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].get("role") == "user":
            history = [m for m in messages[:index] if m.get("role") not in SYSTEM_ROLES]
            return message_text(messages[index].get("content")), history
    return "", [m for m in messages if m.get("role") not in SYSTEM_ROLES]


def inject(messages: list[dict[str, Any]], section: str) -> list[dict[str, Any]]:
    """Append the memory section to the first system message, or add one in front."""
    if not section:
        return messages
    for index, message in enumerate(messages):
        if message.get("role") not in SYSTEM_ROLES:
            continue
        content = message.get("content")
        updated = dict(message)
        if isinstance(content, list):
            updated["content"] = [*content, {"type": "text", "text": f"\n\n{section}"}]
        else:
            updated["content"] = compose_system_prompt(message_text(content), section)
        return [*messages[:index], updated, *messages[index + 1 :]]
    return [{"role": "system", "content": section}, *messages]


# the answer -----------------------------------------------------------------------------
def upstream_error(status: int, content: bytes) -> JSONResponse:
    """The upstream's error with its status, in OpenAI's shape whatever it sent."""
    try:
        data = json.loads(content)
    except ValueError:
        data = None
    if isinstance(data, dict) and isinstance(data.get("error"), dict):
        return JSONResponse(data, status)
    text = content.decode("utf-8", "replace").strip()[:500] or f"upstream answered {status}"
    return error_response(status, "upstream_error", text)


def llm_error(exc: LLMError) -> JSONResponse:
    status = exc.status if exc.status and exc.status >= 400 else 502
    return error_response(status, "upstream_error", str(exc))


def _recorder(
    state: ServerState, user: User, workspace: str | None, prompt: str, turn: Turn
) -> Any:
    """Queues the exchange for the background writer: no database work on this path."""

    def record(answer: str) -> None:
        if workspace is None or not prompt.strip() or not turn.record:
            return
        try:
            state.md.record_chat_later(user.id, workspace, prompt, answer, turn=turn)
        except Exception as exc:  # the answer was delivered; a failed record must not hide that
            # the type only: the error's text may quote the prompt
            log.error(
                "could not record the exchange of user %s in %s: %s",
                user.id,
                workspace,
                type(exc).__name__,
            )

    return record


async def client_gone(request: Request) -> bool:
    """Whether the client hung up (only meaningful before the reply is complete)."""
    if await request.is_disconnected():
        log.info("the client hung up before the answer reached it: not recorded")
        return True
    return False


async def forward_openai(
    request: Request,
    state: ServerState,
    upstream: OpenAIUpstream,
    body: dict[str, Any],
    record: Any,
    extra: dict[str, str],
) -> Response:
    client = http_client(state)
    outgoing = client.build_request(
        "POST", upstream.url("chat/completions"), json=body, headers=upstream.headers()
    )
    try:
        response = await client.send(outgoing, stream=True)
    except httpx.TimeoutException:
        return error_response(504, "upstream_timeout", "the upstream LLM did not answer in time")
    except httpx.HTTPError as exc:
        return error_response(502, "upstream_error", f"cannot reach the upstream LLM: {exc}")
    if response.status_code >= 400:
        try:
            content = await response.aread()
        except httpx.HTTPError:
            content = b""
        finally:
            await response.aclose()
        return upstream_error(response.status_code, content)
    media_type = response.headers.get("content-type", "application/json")
    if body.get("stream") is not True:
        try:
            content = await response.aread()
        except httpx.HTTPError as exc:
            return error_response(502, "upstream_error", f"the upstream LLM broke off: {exc}")
        finally:
            await response.aclose()
        text = completion_text(content)
        if await client_gone(request):  # it waited for the upstream and gave up
            return Response(content, response.status_code, extra, media_type)

        async def after_reply() -> None:  # async: queueing needs no threadpool trip
            record(text)

        task = BackgroundTask(after_reply)
        return Response(content, response.status_code, extra, media_type, background=task)

    collector = StreamCollector()
    relayed = False

    async def relay() -> AsyncIterator[bytes]:
        # A hang-up while the upstream was thinking shows here; one mid-stream cancels
        # this generator (Starlette listens for the disconnect), so ``relayed`` stays
        # False. Not checked after the last chunk: a client may close as soon as it has
        # read [DONE], and that answer did reach it.
        nonlocal relayed
        try:
            if await client_gone(request):
                return
            async for chunk in response.aiter_raw():
                collector.feed(chunk)
                yield chunk
            relayed = True
        finally:
            await response.aclose()

    async def after() -> None:
        if collector.done and relayed:
            record(collector.text)

    return StreamingResponse(
        relay(), response.status_code, extra, media_type, background=BackgroundTask(after)
    )


async def via_provider(
    request: Request,
    upstream: ProviderUpstream,
    body: dict[str, Any],
    record: Any,
    extra: dict[str, str],
) -> Response:
    messages = plain_messages(body["messages"])
    max_tokens = body.get("max_tokens") or body.get("max_completion_tokens")
    temperature = body.get("temperature")
    options: dict[str, Any] = {
        "max_tokens": max_tokens if isinstance(max_tokens, int) else None,
        "temperature": float(temperature) if isinstance(temperature, int | float) else None,
    }
    try:
        provider = await run_in_threadpool(upstream.provider, body["model"])
    except Exception as exc:
        return error_response(502, "upstream_error", f"cannot start the LLM provider: {exc}")
    if body.get("stream") is not True:
        try:
            done = await run_in_threadpool(lambda: provider.complete(messages, **options))
        except LLMError as exc:
            return llm_error(exc)
        if not await client_gone(request):
            record(done.text)
        usage = (done.prompt_tokens, done.completion_tokens)
        return JSONResponse(completion_object(done.text, done.model, usage), headers=extra)

    pieces = provider.stream(messages, **options)
    sentinel = object()
    try:  # the first piece decides between an error status and a 200 stream
        first = await run_in_threadpool(next, pieces, sentinel)
    except LLMError as exc:
        return llm_error(exc)
    collected: list[str] = [] if first is sentinel else [str(first)]
    finished = False

    def rest() -> Iterator[str]:
        nonlocal finished
        for piece in pieces:
            collected.append(piece)
            yield piece
        finished = True

    def events() -> Iterator[bytes]:
        try:
            opening = None if first is sentinel else str(first)
            yield from chunk_events(opening, rest(), provider.model)
        except LLMError as exc:
            error = {"error": {"type": "upstream_error", "message": str(exc), "code": None}}
            yield f"data: {json.dumps(error)}\n\n".encode()

    relayed = False

    async def relay() -> AsyncIterator[bytes]:  # as in forward_openai
        nonlocal relayed
        if await client_gone(request):
            return
        async for event in iterate_in_threadpool(events()):
            yield event
        relayed = True

    async def after() -> None:
        if finished and relayed:
            record("".join(collected))

    return StreamingResponse(
        relay(),
        headers=extra,
        media_type="text/event-stream",
        background=BackgroundTask(after),
    )


# routes ---------------------------------------------------------------------------------
@router.post("/chat/completions", summary="Chat completion with memory (OpenAI-compatible)")
async def chat_completions(request: Request, state: State, caller: CurrentCaller) -> Response:
    body = await read_request(request)
    user = caller.user
    prompt, history = split_turn(body["messages"])
    private = is_incognito(request)

    def choose() -> tuple[str | None, str, Turn]:  # one trip to the threadpool for both
        workspace, model = pick_workspace(request, state, user, body["model"])
        turn = state.md.context(user.id, workspace, prompt, history, record=not private)
        return workspace, model, turn

    try:
        workspace, body["model"], turn = await run_in_threadpool(choose)
    except InvalidInput as exc:
        raise ApiError(400, str(exc), type="invalid_request_error") from None
    body["messages"] = inject(body["messages"], turn.section)
    extra = {
        "X-Memoryd-Memories": str(len(turn.memories)),
        MEMORY_IDS_HEADER: ",".join(turn.memory_ids),
    }
    if workspace:
        extra[WORKSPACE_HEADER] = workspace
    if private:
        extra[INCOGNITO_HEADER] = "true"
    record = _recorder(state, user, workspace, prompt, turn)
    upstream = upstream_of(state)
    if isinstance(upstream, OpenAIUpstream):
        return await forward_openai(request, state, upstream, body, record, extra)
    return await via_provider(request, upstream, body, record, extra)


@router.get("/models", summary="Models of the upstream (OpenAI-compatible)")
async def models(state: State, _: CurrentCaller) -> Response:
    upstream = upstream_of(state)
    if isinstance(upstream, OpenAIUpstream):
        client = http_client(state)
        try:
            response = await client.get(upstream.url("models"), headers=upstream.headers())
        except httpx.TimeoutException:
            return error_response(504, "upstream_timeout", "the upstream LLM did not answer")
        except httpx.HTTPError as exc:
            return error_response(502, "upstream_error", f"cannot reach the upstream LLM: {exc}")
        if response.status_code >= 400:
            return upstream_error(response.status_code, response.content)
        return Response(response.content, 200, media_type="application/json")
    try:
        provider = await run_in_threadpool(upstream.provider, state.settings.proxy_model)
    except Exception as exc:
        return error_response(502, "upstream_error", f"cannot start the LLM provider: {exc}")
    model = {"id": provider.model, "object": "model", "created": 0, "owned_by": provider.name}
    return JSONResponse({"object": "list", "data": [model]})
