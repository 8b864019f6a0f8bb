"""Workspaces and who belongs to them: anyone creates one and joins it, only admins delete
workspaces and manage members (``memoryd.access.accounts``); a default user sees only
the workspaces they belong to, any other is not found.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Response

from memoryd.access import accounts
from memoryd.access.callers import require_workspace
from memoryd.server.deps import AdminUser, CurrentUser, State
from memoryd.server.schemas import UserOut, WorkspaceCreate, WorkspaceOut

router = APIRouter(prefix="/api/v1/workspaces", tags=["workspaces"])
Slug = Annotated[str, Path(min_length=1, max_length=64)]
UserId = Annotated[int, Path(ge=1, le=2**31 - 1)]


@router.get("", response_model=list[WorkspaceOut], summary="Workspaces I can use")
def list_workspaces(state: State, user: CurrentUser) -> list[WorkspaceOut]:
    return [WorkspaceOut.of(w) for w in state.auth.workspaces_of(user)]


@router.post("", response_model=WorkspaceOut, status_code=201, summary="Create a workspace")
def create_workspace(state: State, user: CurrentUser, body: WorkspaceCreate) -> WorkspaceOut:
    return WorkspaceOut.of(accounts.create_workspace(state, user, body.slug, body.name))


@router.get("/{slug}", response_model=WorkspaceOut, summary="One workspace")
def get_workspace(state: State, user: CurrentUser, slug: Slug) -> WorkspaceOut:
    return WorkspaceOut.of(state.md.get_workspace(require_workspace(state, user, slug)))


@router.delete("/{slug}", status_code=204, response_class=Response, summary="Delete (admin)")
def delete_workspace(state: State, admin: AdminUser, slug: Slug) -> None:
    accounts.delete_workspace(state, admin, slug)


@router.get("/{slug}/members", response_model=list[UserOut], summary="Members (admin)")
def members(state: State, _: AdminUser, slug: Slug) -> list[UserOut]:
    return [UserOut.of(u) for u in state.auth.members(slug)]


@router.put(
    "/{slug}/members/{user_id}", status_code=204, response_class=Response, summary="Add member"
)
def add_member(state: State, admin: AdminUser, slug: Slug, user_id: UserId) -> None:
    accounts.add_member(state, admin, slug, user_id)


@router.delete(
    "/{slug}/members/{user_id}", status_code=204, response_class=Response, summary="Remove"
)
def remove_member(state: State, admin: AdminUser, slug: Slug, user_id: UserId) -> None:
    accounts.remove_member(state, admin, slug, user_id)
