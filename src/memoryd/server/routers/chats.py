"""Chats: an app that calls its LLM itself posts each finished exchange here (with the
memories it injected) for extraction to learn from, and a user deletes their own chats.

Who may is ``memoryd.access.chats``'; a bare DELETE of the collection is refused, so
nothing is cleared by a missing parameter.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Response

from memoryd.access import chats
from memoryd.access.wire import ChatOut
from memoryd.server.deps import CurrentUser, State
from memoryd.server.errors import ApiError
from memoryd.server.schemas import ChatCreate, ChatsDeleted, ErrorOut

router = APIRouter(prefix="/api/v1/chats", tags=["chats"])
ChatId = Annotated[int, Path(ge=1, le=2**63 - 1)]


@router.post("", response_model=ChatOut, status_code=201, summary="Record a finished exchange")
def record_chat(state: State, user: CurrentUser, body: ChatCreate) -> ChatOut:
    return ChatOut.of(
        *chats.record_chat(state, user, body.workspace, body.prompt, body.response, body.memory_ids)
    )


@router.get("", response_model=list[ChatOut], summary="My recorded exchanges")
def list_chats(
    state: State,
    user: CurrentUser,
    workspace: Annotated[str | None, Query(max_length=64)] = None,
    processed: bool | None = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    before: Annotated[
        int | None,
        Query(
            ge=1,
            le=2**63 - 1,
            description="A chat id from an earlier page: only the chats listed before it.",
        ),
    ] = None,
) -> list[ChatOut]:
    """Your chats, oldest first: the newest ``limit`` of them. To read further back, ask
    again with ``before`` set to the first chat's id of the page you have (the same
    filters); an empty page means there is nothing older. A ``before`` chat that was
    deleted meanwhile is a 404: start again from the newest page."""
    listed = chats.list_chats(
        state, user, workspace, processed=processed, before=before, limit=limit
    )
    return [ChatOut.of(c, used) for c, used in listed]


@router.delete(
    "",
    response_model=ChatsDeleted,
    summary="Delete my recorded exchanges: one workspace's, or all of them",
    responses={400: {"model": ErrorOut, "description": "Neither workspace nor all=true"}},
)
def clear_chats(
    state: State,
    user: CurrentUser,
    workspace: Annotated[
        str | None, Query(max_length=64, description="Only this workspace's chats.")
    ] = None,
    everything: Annotated[
        bool,
        Query(alias="all", description="Confirm deleting every chat of yours, everywhere."),
    ] = False,
) -> ChatsDeleted:
    """``?workspace=SLUG`` deletes your chats in that workspace; ``?all=true`` deletes
    all your chats (in workspaces you have left too). Without either it is a 400. The
    chats' text is erased and extraction never reads them; memories learned from them
    stay. Returns how many were deleted (0 when there were none)."""
    if workspace is not None and everything:
        raise ApiError(400, "give either workspace=SLUG or all=true, not both", code="ambiguous")
    if workspace is None and not everything:
        raise ApiError(
            400,
            "say which chats to delete: workspace=SLUG for one workspace's, or all=true for"
            " all of yours",
            code="confirmation_required",
        )
    return ChatsDeleted(deleted=chats.clear_chats(state, user, workspace))


@router.get("/{chat_id}", response_model=ChatOut, summary="One recorded exchange")
def get_chat(state: State, user: CurrentUser, chat_id: ChatId) -> ChatOut:
    return ChatOut.of(
        *chats.with_memories(state, user, [chats.visible_chat(state, user, chat_id)])[0]
    )


@router.delete(
    "/{chat_id}", status_code=204, response_class=Response, summary="Delete one recorded exchange"
)
def delete_chat(state: State, user: CurrentUser, chat_id: ChatId) -> None:
    """Its text is erased and extraction never reads it; memories learned from it stay
    (their detail lists it under ``deleted_source_chat_ids``). 404 for a chat that is not
    yours."""
    chats.delete_chat(state, user, chat_id)
