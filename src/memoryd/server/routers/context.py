"""Context: the memory section for one chat turn, for apps that build their own prompts.

The route an app calls on every turn, so it takes one trip to the threadpool: an API key
is answered from the per-process cache (``deps.turn_caller``) and confirmed by the turn's
own statement, and the answer is serialised straight from the turn.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request, Response
from pydantic_core import to_json
from starlette.concurrency import run_in_threadpool

from memoryd.access import chats
from memoryd.access.wire import ContextOut
from memoryd.domain.injection import Turn
from memoryd.domain.models import User
from memoryd.server.deps import ServerState, State, TurnCaller, answer_turn
from memoryd.server.schemas import ContextRequest

router = APIRouter(prefix="/api/v1/context", tags=["context"])


def choose(
    state: ServerState,
    user: User,
    body: ContextRequest,
    confirm: Callable[[], None] | None = None,
) -> Turn:
    """The turn for one request (``confirm``: see ``Memoryd.context``)."""
    history = [m.model_dump() for m in body.history]
    return chats.turn(
        state,
        user,
        body.workspace,
        body.message,
        history,
        record=not body.incognito,
        confirm=confirm,
    )


def answer_json(turn: Turn, system_prompt: str | None) -> bytes:
    """``ContextOut(...).model_dump_json(by_alias=True)`` of a turn, built directly."""
    memories: list[dict[str, Any]] = []
    for scored in (*turn.global_memories, *turn.workspace_memories):
        item = scored.memory.to_dict()
        item["expired"] = False  # a turn never holds an expired memory
        item["run_id"] = item.pop("run_id")  # after ``expired``, in the schema's order
        item["questions"] = item.pop("questions")
        item["score"] = scored.score
        memories.append(item)
    return to_json(
        {
            "enabled": turn.enabled,
            "section": turn.section,
            "system_prompt": turn.system_prompt(system_prompt),
            "memories": memories,
            "reranker": turn.reranker,
            "fallback_reason": turn.fallback_reason,
        }
    )


@router.post("", response_model=ContextOut, summary="Memories for this chat turn", name="context")
async def post_context(
    request: Request, state: State, caller: TurnCaller, body: ContextRequest
) -> Response:
    def answer() -> bytes:  # in one trip to the threadpool
        turn = answer_turn(
            request, state, caller, lambda c: choose(state, c.user, body, c.confirmation)
        )
        return answer_json(turn, body.system_prompt)

    return Response(await run_in_threadpool(answer), media_type="application/json")
