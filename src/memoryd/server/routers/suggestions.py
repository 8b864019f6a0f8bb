"""The review queue: extraction's suggested changes, listed and accepted, edited or rejected
through ``memoryd.access.suggestions``, for the caller's own and, for admins, any user's.

Extraction files its changes as suggestions instead of writing them when the setting
``memory_review`` asks for it (``memoryd.extraction.review``).
"""

# No "from __future__ import annotations": FastAPI must resolve the local OwnerDep alias.
from collections.abc import Callable
from typing import Annotated, Literal

from fastapi import APIRouter, Body, Depends, Query

from memoryd.access import suggestions
from memoryd.access.callers import Owner
from memoryd.access.wire import MemoryOut, SuggestionOut
from memoryd.server.deps import State
from memoryd.server.schemas import SuggestionAccept
from memoryd.storage.write_rules import KEEP


def build_router(owner_dependency: Callable[..., Owner], *, prefix: str, tag: str) -> APIRouter:
    router = APIRouter(prefix=prefix, tags=[tag])
    OwnerDep = Annotated[Owner, Depends(owner_dependency)]

    @router.get(
        "/suggestions",
        response_model=list[SuggestionOut],
        summary="Extraction's suggested changes waiting for review",
    )
    def list_suggestions(
        state: State,
        owner: OwnerDep,
        status: Annotated[
            Literal["pending", "accepted", "rejected", "all"],
            Query(description="Which ones; pending (waiting for you) by default."),
        ] = "pending",
    ) -> list[SuggestionOut]:
        return [SuggestionOut.of(s) for s in suggestions.visible_suggestions(state, owner, status)]

    @router.post(
        "/suggestions/{suggestion_id}/accept",
        response_model=MemoryOut,
        summary="Accept a suggestion, optionally with your own text, expiry or scope",
    )
    def accept(
        state: State,
        owner: OwnerDep,
        suggestion_id: str,
        body: Annotated[SuggestionAccept | None, Body()] = None,
    ) -> MemoryOut:
        edits = body or SuggestionAccept()
        memory = suggestions.accept(
            state,
            owner,
            suggestion_id,
            content=edits.content,
            expires_at=edits.expires_at if "expires_at" in edits.model_fields_set else KEEP,
            scope=edits.scope,
        )
        return MemoryOut.of(memory)

    @router.post(
        "/suggestions/{suggestion_id}/reject",
        response_model=SuggestionOut,
        summary="Reject a suggestion (the same text is not suggested again)",
    )
    def reject(state: State, owner: OwnerDep, suggestion_id: str) -> SuggestionOut:
        return SuggestionOut.of(suggestions.reject(state, owner, suggestion_id))

    return router
