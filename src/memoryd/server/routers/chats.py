"""Chats: an app that calls its LLM itself posts each finished exchange here, and
extraction learns from it later. Only workspaces the caller belongs to are accepted.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from memoryd.server.deps import CurrentUser, State, require_workspace
from memoryd.server.schemas import ChatCreate, ChatOut

router = APIRouter(prefix="/api/v1/chats", tags=["chats"])


@router.post("", response_model=ChatOut, status_code=201, summary="Record a finished exchange")
def record_chat(state: State, user: CurrentUser, body: ChatCreate) -> ChatOut:
    require_workspace(state, user, body.workspace)
    return ChatOut.of(state.md.record_chat(user.id, body.workspace, body.prompt, body.response))


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
    return [ChatOut.of(c) for c in chats[-limit:]]
