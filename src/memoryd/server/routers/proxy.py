"""The OpenAI-compatible proxy: ``POST /v1/chat/completions`` and ``GET /v1/models``.

Point any OpenAI client at ``http://HOST:PORT/v1`` with a memoryd API key: the memory
section is put into the system message, the request goes to the configured upstream
(``server/relay.py``) and, once the whole answer has been relayed, the exchange is
recorded for extraction (not when the client hung up first, nor for an incognito chat).
docs/server.md describes the headers (``X-Memoryd-Workspace``, ``X-Memoryd-Incognito``,
``X-Memoryd-Memories``, ``X-Memoryd-Memory-Ids``) and the ``slug/model`` prefix.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from fastapi import APIRouter, Request, Response
from starlette.concurrency import run_in_threadpool

from memoryd.access.callers import require_workspace
from memoryd.domain.errors import InvalidInput, NotFound
from memoryd.domain.injection import Turn
from memoryd.domain.models import User
from memoryd.server.chat_messages import inject, split_turn
from memoryd.server.deps import (
    Caller,
    CurrentCaller,
    ServerState,
    State,
    TurnCaller,
    answer_turn,
    current_caller,
)
from memoryd.server.errors import ApiError
from memoryd.server.relay import send_chat, upstream_models
from memoryd.server.upstream import Upstream, resolve_upstream

log = logging.getLogger("memoryd.proxy")
router = APIRouter(prefix="/v1", tags=["openai-compatible proxy"])

WORKSPACE_HEADER = "X-Memoryd-Workspace"
INCOGNITO_HEADER = "X-Memoryd-Incognito"
MEMORY_IDS_HEADER = "X-Memoryd-Memory-Ids"
TRUE_WORDS = ("true", "1", "yes", "on")
FALSE_WORDS = ("false", "0", "no", "off", "")
MAX_BODY_BYTES = 20_000_000


def upstream_of(state: ServerState) -> Upstream:
    if state.upstream is None:
        state.upstream = resolve_upstream(state.settings)
    return state.upstream


# the request ----------------------------------------------------------------------------
def bad_request(message: str, status: int = 400, code: str | None = None) -> ApiError:
    """A refusal in the words OpenAI's API uses for a request it cannot take."""
    return ApiError(status, message, type="invalid_request_error", code=code)


async def read_request(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if len(raw) > MAX_BODY_BYTES:
        raise bad_request(f"request body over {MAX_BODY_BYTES} bytes", 413)
    try:
        body = json.loads(raw)
    except ValueError:
        raise bad_request("request body is not JSON") from None
    except RecursionError:
        raise bad_request("request body is nested too deeply") from None
    if not isinstance(body, dict):
        raise bad_request("request body must be a JSON object")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise bad_request("'messages' must be a non-empty list")
    for message in messages:
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise bad_request("each message must be an object with a 'role'")
    if not isinstance(body.get("model"), str) or not body["model"]:
        raise bad_request("'model' must be a model name")
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
    raise bad_request(f"{INCOGNITO_HEADER} must be true or false, not {raw[:40]!r}")


def _usable_workspace(state: ServerState, user: User, slug: str) -> str:
    try:
        return require_workspace(state, user, slug)
    except NotFound:
        raise bad_request(
            f"no workspace {slug!r} for this user: it does not exist or the user is not a "
            f"member (an admin adds members in the admin panel or with `memoryd workspaces "
            f"members add {slug} USER`)",
            404,
            "workspace_not_found",
        ) from None


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


# routes ---------------------------------------------------------------------------------
@router.post("/chat/completions", summary="Chat completion with memory (OpenAI-compatible)")
async def chat_completions(request: Request, state: State, caller: TurnCaller) -> Response:
    try:
        body = await read_request(request)
        private = is_incognito(request)
    except ApiError:
        if caller.confirm is not None:  # from the cache: a revoked key gets its 401 first
            await run_in_threadpool(current_caller, request, state)
        raise
    prompt, history = split_turn(body["messages"])

    def choose(who: Caller) -> tuple[User, str | None, str, Turn]:
        workspace, model = pick_workspace(request, state, who.user, body["model"])
        turn = state.md.context(
            who.user.id,
            workspace,
            prompt,
            history,
            record=not private,
            confirm=who.confirmation,
        )
        return who.user, workspace, model, turn

    try:  # in one trip to the threadpool
        user, workspace, body["model"], turn = await run_in_threadpool(
            answer_turn, request, state, caller, choose
        )
    except InvalidInput as exc:
        raise bad_request(str(exc)) from None
    body["messages"] = inject(body["messages"], turn)
    extra = {
        "X-Memoryd-Memories": str(len(turn.memories)),
        MEMORY_IDS_HEADER: ",".join(turn.memory_ids),
    }
    if workspace:
        extra[WORKSPACE_HEADER] = workspace
    if private:
        extra[INCOGNITO_HEADER] = "true"
    record = _recorder(state, user, workspace, prompt, turn)
    return await send_chat(request, state, upstream_of(state), body, record, extra)


@router.get("/models", summary="Models of the upstream (OpenAI-compatible)")
async def models(state: State, _: CurrentCaller) -> Response:
    return await upstream_models(state, upstream_of(state))
