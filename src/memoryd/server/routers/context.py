"""Context: the memory section for one chat turn, for apps that build their own prompts.

Post the user's message (and the recent history); get back the section to append to your
system prompt, the memories chosen (with reranker scores) and the full system prompt.
"""

from __future__ import annotations

from fastapi import APIRouter, Response

from memoryd.domain.models import ScoredMemory, User
from memoryd.server.deps import CurrentUser, ServerState, State, require_workspace
from memoryd.server.schemas import ChosenMemory, ContextOut, ContextRequest

router = APIRouter(prefix="/api/v1/context", tags=["context"])


def _chosen(scored: ScoredMemory) -> ChosenMemory:
    return ChosenMemory(**scored.memory.to_dict(), score=scored.score)


def context(state: ServerState, user: User, body: ContextRequest) -> ContextOut:
    """The answer for one turn (the route below and the MCP ``recall`` tool)."""
    if body.workspace is not None:
        require_workspace(state, user, body.workspace)
    history = [m.model_dump() for m in body.history]
    turn = state.md.context(
        user.id, body.workspace, body.message, history, record=not body.incognito
    )
    return ContextOut(
        enabled=turn.enabled,
        section=turn.section,
        system_prompt=turn.system_prompt(body.system_prompt),
        memories=[_chosen(s) for s in (*turn.global_memories, *turn.workspace_memories)],
        reranker=turn.reranker,
        fallback_reason=turn.fallback_reason,
    )


@router.post("", response_model=ContextOut, summary="Memories for this chat turn", name="context")
def post_context(state: State, user: CurrentUser, body: ContextRequest) -> Response:
    out = context(state, user, body)
    # already validated: serialise once instead of FastAPI validating it a second time
    return Response(out.model_dump_json(by_alias=True), media_type="application/json")
