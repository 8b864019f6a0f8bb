"""Sending a chat request to the upstream and relaying its answer to the client.

An OpenAI-compatible upstream's bytes are streamed back untouched; any other provider's
text is wrapped as OpenAI objects (``server/chat_messages.py``). The exchange is handed to
``record`` only once the whole answer reached the client. Upstream failures become
OpenAI-style error bodies with the upstream's status (502 unreachable, 504 timed out).
"""

from __future__ import annotations

import json
import logging
import socket
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx
from fastapi import Request, Response
from fastapi.responses import JSONResponse, StreamingResponse
from starlette.background import BackgroundTask
from starlette.concurrency import iterate_in_threadpool, run_in_threadpool

from memoryd.models.llm.base import LLMError
from memoryd.server.chat_messages import (
    StreamCollector,
    chunk_events,
    completion_object,
    completion_text,
    plain_messages,
)
from memoryd.server.deps import ServerState
from memoryd.server.errors import error_body, error_response
from memoryd.server.upstream import OpenAIUpstream, ProviderUpstream, Upstream

log = logging.getLogger("memoryd.proxy")
Record = Callable[[str], None]


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


# the answer -----------------------------------------------------------------------------
def sendable(status: int, fallback: int) -> int:
    """The upstream's status if the server can send it, else ``fallback`` (HTTP has
    three digits, but uvicorn sends only 100 to 599)."""
    return status if 100 <= status <= 599 else fallback


def upstream_error(status: int, content: bytes) -> JSONResponse:
    """The upstream's error with its status, in OpenAI's shape whatever it sent.

    Only a 4xx or 5xx is relayed as it is; any other status that is not an answer (a
    redirect: the upstream URL is wrong) is a 502 saying so."""
    if status < 400:
        message = (
            f"the upstream LLM answered {status} instead of a completion; check the "
            "upstream URL (MEMORYD_PROXY_UPSTREAM_URL)"
        )
        return error_response(502, "upstream_error", message)
    status = sendable(status, 502)
    data = json_object(content)
    if data is not None and isinstance(data.get("error"), dict):
        return JSONResponse(data, status)
    text = content.decode("utf-8", "replace").strip()[:500] or f"upstream answered {status}"
    return error_response(status, "upstream_error", text)


def json_object(content: bytes) -> dict[str, Any] | None:
    try:
        data = json.loads(content)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def not_json(what: str) -> JSONResponse:
    message = (
        f"the upstream LLM's {what} is not a JSON object: it does not answer as an "
        "OpenAI-compatible server"
    )
    return error_response(502, "upstream_error", message)


def error_event(message: str) -> bytes:
    """An error event ending a stream (OpenAI clients raise it)."""
    return f"data: {json.dumps(error_body('upstream_error', message))}\n\n".encode()


def llm_error(exc: LLMError) -> JSONResponse:
    status = exc.status if exc.status and 400 <= exc.status <= 599 else 502
    return error_response(status, "upstream_error", str(exc))


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
    record: Record,
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
    if not 200 <= response.status_code < 300:
        try:
            content = await response.aread()
        except httpx.HTTPError:
            content = b""
        finally:
            await response.aclose()
        return upstream_error(response.status_code, content)
    status = sendable(response.status_code, 200)
    media_type = response.headers.get("content-type", "application/json")
    if body.get("stream") is not True:
        try:
            content = await response.aread()
        except httpx.TimeoutException:
            message = "the upstream LLM did not finish its answer in time"
            return error_response(504, "upstream_timeout", message)
        except httpx.HTTPError as exc:
            return error_response(502, "upstream_error", f"the upstream LLM broke off: {exc}")
        finally:
            await response.aclose()
        answer = json_object(content)
        if answer is None:  # nothing a client could read, nothing to record
            return not_json("answer")
        text = completion_text(answer)
        if await client_gone(request):  # it waited for the upstream and gave up
            return Response(content, status, extra, media_type)

        async def after_reply() -> None:  # async: queueing needs no threadpool trip
            record(text)

        task = BackgroundTask(after_reply)
        return Response(content, status, extra, media_type, background=task)

    collector = StreamCollector()
    relayed = False
    # an error event only fits into an event stream (an upstream ignoring "stream" sends JSON)
    events = media_type.startswith("text/event-stream")

    def broken(message: str) -> bytes:
        log.warning("a streamed answer from the upstream LLM is incomplete: %s", message)
        # the blank line first ends any event the upstream left open
        return b"\n" + error_event(message) if events else b""

    async def relay() -> AsyncIterator[bytes]:
        # A hang-up while the upstream was thinking shows here; one mid-stream cancels
        # this generator (Starlette listens for the disconnect), so ``relayed`` stays
        # False. Not checked after the last chunk: a client may close as soon as it has
        # read [DONE], and that answer did reach it. An upstream that breaks off (or
        # ends before the answer did) gets the client an error event, and no record.
        nonlocal relayed
        try:
            if await client_gone(request):
                return
            try:
                async for chunk in response.aiter_raw():
                    ready = collector.feed(chunk)
                    if ready:
                        yield ready
            except httpx.TimeoutException:
                yield broken("the upstream LLM stopped sending the answer: timed out")
                return
            except httpx.HTTPError as exc:
                why = str(exc) or type(exc).__name__
                yield broken(f"the upstream LLM broke off the answer: {why}")
                return
            yield collector.rest()
            if events and not (collector.done or collector.finished):
                yield broken("the upstream LLM's stream ended before the answer did")
                return
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
    record: Record,
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
            yield error_event(str(exc))

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


async def upstream_models(state: ServerState, upstream: Upstream) -> Response:
    """``GET /v1/models``: the upstream's list, or the provider's one model."""
    if isinstance(upstream, OpenAIUpstream):
        client = http_client(state)
        try:
            response = await client.get(upstream.url("models"), headers=upstream.headers())
        except httpx.TimeoutException:
            return error_response(504, "upstream_timeout", "the upstream LLM did not answer")
        except httpx.HTTPError as exc:
            return error_response(502, "upstream_error", f"cannot reach the upstream LLM: {exc}")
        if not 200 <= response.status_code < 300:
            return upstream_error(response.status_code, response.content)
        if json_object(response.content) is None:
            return not_json("model list")
        return Response(response.content, 200, media_type="application/json")
    try:
        provider = await run_in_threadpool(upstream.provider, state.settings.proxy_model)
    except Exception as exc:
        return error_response(502, "upstream_error", f"cannot start the LLM provider: {exc}")
    model = {"id": provider.model, "object": "model", "created": 0, "owned_by": provider.name}
    return JSONResponse({"object": "list", "data": [model]})


async def send_chat(
    request: Request,
    state: ServerState,
    upstream: Upstream,
    body: dict[str, Any],
    record: Record,
    extra: dict[str, str],
) -> Response:
    if isinstance(upstream, OpenAIUpstream):
        return await forward_openai(request, state, upstream, body, record, extra)
    return await via_provider(request, upstream, body, record, extra)
