"""Workspaces and who belongs to them.

Anyone signed in may create a workspace and becomes its first member (so a chat app using
a user's key can set itself up); only admins delete workspaces and manage members. A
default user sees only the workspaces they belong to; for them any other is not found.
Every membership change, and each membership a deleted workspace ends, is an entry in the
member's audit log (``memoryd.app.memberships``).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Response

from memoryd.domain import runtime_settings
from memoryd.domain.errors import AlreadyExists
from memoryd.domain.models import Actor, Role, Source
from memoryd.server.deps import AdminUser, CurrentUser, State, require_workspace
from memoryd.server.schemas import UserOut, WorkspaceCreate, WorkspaceOut

router = APIRouter(prefix="/api/v1/workspaces", tags=["workspaces"])
Slug = Annotated[str, Path(min_length=1, max_length=64)]
UserId = Annotated[int, Path(ge=1, le=2**31 - 1)]


@router.get("", response_model=list[WorkspaceOut], summary="Workspaces I can use")
def list_workspaces(state: State, user: CurrentUser) -> list[WorkspaceOut]:
    return [WorkspaceOut.of(w) for w in state.auth.workspaces_of(user)]


@router.post("", response_model=WorkspaceOut, status_code=201, summary="Create a workspace")
def create_workspace(state: State, user: CurrentUser, body: WorkspaceCreate) -> WorkspaceOut:
    admin = user.role is Role.ADMIN
    limit = state.md.get_settings()[runtime_settings.MAX_WORKSPACES_PER_USER.key]
    try:
        workspace = state.md.create_workspace(
            body.slug,
            body.name,
            member=None if admin else user.id,  # a default user joins it, within quota
            actor=Actor(Source.USER, user.id),
            quota=limit,
        )
    except AlreadyExists:
        if admin or state.auth.is_member(user, body.slug):
            raise
        # the same words whether or not the caller could know it exists (slugs are one
        # namespace for everyone, so a taken slug cannot be given out twice)
        raise AlreadyExists(f"the slug {body.slug!r} is not available; choose another") from None
    return WorkspaceOut.of(workspace)


@router.get("/{slug}", response_model=WorkspaceOut, summary="One workspace")
def get_workspace(state: State, user: CurrentUser, slug: Slug) -> WorkspaceOut:
    require_workspace(state, user, slug)
    return WorkspaceOut.of(state.md.get_workspace(slug))


@router.delete("/{slug}", status_code=204, response_class=Response, summary="Delete (admin)")
def delete_workspace(state: State, admin: AdminUser, slug: Slug) -> Response:
    state.md.delete_workspace(slug, actor=Actor(Source.ADMIN, admin.id))
    return Response(status_code=204)


@router.get("/{slug}/members", response_model=list[UserOut], summary="Members (admin)")
def members(state: State, _: AdminUser, slug: Slug) -> list[UserOut]:
    return [UserOut.of(u) for u in state.auth.members(slug)]


@router.put(
    "/{slug}/members/{user_id}", status_code=204, response_class=Response, summary="Add member"
)
def add_member(state: State, admin: AdminUser, slug: Slug, user_id: UserId) -> Response:
    state.auth.add_member(slug, user_id, Actor(Source.ADMIN, admin.id))
    return Response(status_code=204)


@router.delete(
    "/{slug}/members/{user_id}", status_code=204, response_class=Response, summary="Remove"
)
def remove_member(state: State, admin: AdminUser, slug: Slug, user_id: UserId) -> Response:
    state.auth.remove_member(slug, user_id, Actor(Source.ADMIN, admin.id))
    return Response(status_code=204)
