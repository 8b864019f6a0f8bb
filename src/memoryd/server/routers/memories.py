"""Memories (R1, R2, R8, R12): the caller's own at ``/api/v1/memories`` and, for admins, any
user's at ``/api/v1/users/{user_id}/memories``: ``build_router`` is called with each way of
deciding the owner. Who may reach what is ``memoryd.access.memories``'s.
"""

# No "from __future__ import annotations": FastAPI must resolve the local OwnerDep alias.
from collections.abc import Callable
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Response

from memoryd.access import memories
from memoryd.access.callers import Owner
from memoryd.access.wire import AuditOut, ChatOut, MemoryDetail, MemoryList, MemoryOut
from memoryd.domain.models import Scope
from memoryd.domain.rules import KEEP
from memoryd.server.deps import State
from memoryd.server.schemas import Demote, MemoryCreate, MemoryEdit


def build_router(owner_dependency: Callable[..., Owner], *, prefix: str, tag: str) -> APIRouter:
    router = APIRouter(prefix=prefix, tags=[tag])
    OwnerDep = Annotated[Owner, Depends(owner_dependency)]

    @router.get("/memories", response_model=MemoryList, summary="List memories")
    def list_memories(
        state: State,
        owner: OwnerDep,
        scope: Annotated[Scope | None, Query(description="global or workspace")] = None,
        workspace: Annotated[str | None, Query(max_length=64)] = None,
    ) -> MemoryList:
        return MemoryList.of(memories.overview(state, owner, scope, workspace))

    @router.post("/memories", response_model=MemoryOut, status_code=201, summary="Add a memory")
    def create_memory(state: State, owner: OwnerDep, body: MemoryCreate) -> MemoryOut:
        return MemoryOut.of(
            memories.add_memory(
                state, owner, body.content, body.scope, body.workspace, body.expires_at
            )
        )

    @router.get(
        "/memories/{memory_id}",
        response_model=MemoryDetail,
        summary="One memory with its source, source chats and history",
    )
    def get_memory(state: State, owner: OwnerDep, memory_id: str) -> MemoryDetail:
        return MemoryDetail.of_detail(memories.memory_detail(state, owner, memory_id))

    @router.patch(
        "/memories/{memory_id}", response_model=MemoryOut, summary="Edit a memory or its expiry"
    )
    def edit_memory(state: State, owner: OwnerDep, memory_id: str, body: MemoryEdit) -> MemoryOut:
        expiry = body.expires_at if "expires_at" in body.model_fields_set else KEEP
        return MemoryOut.of(memories.edit_memory(state, owner, memory_id, body.content, expiry))

    @router.delete(
        "/memories/{memory_id}", status_code=204, response_class=Response, summary="Delete"
    )
    def delete_memory(
        state: State,
        owner: OwnerDep,
        memory_id: str,
        reason: Annotated[
            str | None,
            Query(max_length=200, description="Why (e.g. it is wrong): kept in the audit log."),
        ] = None,
    ) -> None:
        memories.delete_memory(state, owner, memory_id, reason)

    @router.post(
        "/memories/{memory_id}/promote", response_model=MemoryOut, summary="Make it global"
    )
    def promote(state: State, owner: OwnerDep, memory_id: str) -> MemoryOut:
        return MemoryOut.of(memories.promote(state, owner, memory_id))

    @router.post(
        "/memories/{memory_id}/demote",
        response_model=MemoryOut,
        summary="Move a global memory into a workspace",
    )
    def demote(state: State, owner: OwnerDep, memory_id: str, body: Demote) -> MemoryOut:
        return MemoryOut.of(memories.demote(state, owner, memory_id, body.workspace))

    @router.get(
        "/memories/{memory_id}/history",
        response_model=list[AuditOut],
        summary="Every change to a memory (audit log)",
    )
    def history(state: State, owner: OwnerDep, memory_id: str) -> list[AuditOut]:
        return [AuditOut.of(e) for e in memories.history(state, owner, memory_id)]

    @router.get(
        "/memories/{memory_id}/chats",
        response_model=list[ChatOut],
        summary="The recorded chats this memory was injected into, newest first",
    )
    def memory_chats(
        state: State,
        owner: OwnerDep,
        memory_id: str,
        limit: Annotated[int, Query(ge=1, le=1000)] = 50,
    ) -> list[ChatOut]:
        used = memories.chats_using(state, owner, memory_id, limit)
        return [ChatOut.of(c, m) for c, m in used]

    return router
