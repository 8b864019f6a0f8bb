"""Chats: an app that calls its LLM itself posts each finished exchange here (with the
memories it injected), and extraction learns from it later. Only workspaces the caller
belongs to are accepted. Each chat comes back with the memories that answered it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from fastapi import APIRouter, Path, Query

from memoryd.domain.errors import NotFound
from memoryd.domain.models import Chat, User
from memoryd.server.deps import CurrentUser, ServerState, State, require_workspace
from memoryd.server.schemas import ChatCreate, ChatOut

router = APIRouter(prefix="/api/v1/chats", tags=["chats"])
ChatId = Annotated[int, Path(ge=1, le=2**63 - 1)]


def chats_out(state: ServerState, user: User, chats: Sequence[Chat]) -> list[ChatOut]:
    """The chats with the memories injected into each (one query for all of them)."""
    used = state.md.chat_memories(user.id, [c.id for c in chats])
    return [ChatOut.of(c, used.get(c.id, ())) for c in chats]


@router.post("", response_model=ChatOut, status_code=201, summary="Record a finished exchange")
def record_chat(state: State, user: CurrentUser, body: ChatCreate) -> ChatOut:
    require_workspace(state, user, body.workspace)
    chat = state.md.record_chat(
        user.id, body.workspace, body.prompt, body.response, memory_ids=body.memory_ids
    )
    return chats_out(state, user, [chat])[0]


@router.get("", response_model=list[ChatOut], summary="My recorded exchanges")
def list_chats(
    state: State,
    user: CurrentUser,
    workspace: Annotated[str | None, Query(max_length=64)] = None,
    processed: bool | None = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> list[ChatOut]:
    if workspace is not None:
        require_workspace(state, user, workspace)
        chats = state.md.list_chats(user.id, workspace, processed=processed)
    else:
        allowed = {w.slug for w in state.auth.workspaces_of(user)}
        chats = [
            c for c in state.md.list_chats(user.id, processed=processed) if c.workspace in allowed
        ]
    return chats_out(state, user, chats[-limit:])


@router.get("/{chat_id}", response_model=ChatOut, summary="One recorded exchange")
def get_chat(state: State, user: CurrentUser, chat_id: ChatId) -> ChatOut:
    chat = state.md.get_chat(user.id, chat_id)
    if not state.auth.is_member(user, chat.workspace):
        raise NotFound(f"no chat {chat_id!r} for this user")
    return chats_out(state, user, [chat])[0]
