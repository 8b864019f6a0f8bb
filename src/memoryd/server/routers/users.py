"""Users (admin), the caller's own profile, password and API keys, by the rules of
``memoryd.access.accounts``. A key's secret is returned once, at creation, and stored only
hashed.
"""

from __future__ import annotations

from typing import Annotated, cast

from fastapi import APIRouter, Path, Request, Response
from starlette.concurrency import run_in_threadpool

from memoryd.access import accounts
from memoryd.access.credentials import validate_password
from memoryd.domain.errors import InvalidInput
from memoryd.server.deps import (
    AdminUser,
    CurrentCaller,
    CurrentUser,
    State,
    check_password_throttled,
)
from memoryd.server.schemas import (
    ApiKeyCreate,
    ApiKeyOut,
    Language,
    LanguageChoice,
    Me,
    MePatch,
    NewApiKeyOut,
    PasswordChange,
    ReviewChoice,
    ReviewMode,
    UserCreate,
    UserEdit,
    UserOut,
    UserOverview,
    WorkspaceOut,
)
from memoryd.storage.credentials import ApiKey

router = APIRouter(prefix="/api/v1", tags=["users"])
UserId = Annotated[int, Path(ge=1, le=2**31 - 1)]
KeyId = Annotated[str, Path(min_length=1, max_length=32)]


def key_out(key: ApiKey) -> ApiKeyOut:
    return ApiKeyOut(**key.to_dict())  # type: ignore[arg-type]


@router.get("/me", response_model=Me, summary="Who am I")
def me(state: State, caller: CurrentCaller) -> Me:
    workspaces = [WorkspaceOut.of(w) for w in state.auth.workspaces_of(caller.user)]
    user = UserOut.of(caller.user)
    learns = state.md.learns_from_chats(caller.user.id)
    own = state.md.review_preference(caller.user.id)
    return Me(
        **user.model_dump(),
        workspaces=workspaces,
        auth=caller.via,
        learn_from_chats=learns,
        memory_review=cast(ReviewChoice, own or "default"),
        memory_review_effective=cast(ReviewMode, state.md.review_mode(caller.user.id)),
        language=cast(LanguageChoice, state.md.language_preference(caller.user.id) or "default"),
        language_effective=cast(Language, state.md.language(caller.user.id)),
    )


@router.patch(
    "/me",
    response_model=Me,
    summary="My preferences: learning from my chats, reviewing changes, my language",
)
def edit_me(state: State, caller: CurrentCaller, body: MePatch) -> Me:
    """``learn_from_chats: false``: chats are still recorded, but extraction never reads
    them (nor the ones still waiting); ``true`` learns from chats recorded from now on.
    ``memory_review``: which of extraction's changes wait for your review (``off``,
    ``updates``, ``everything``), whatever the instance's setting; ``default`` follows the
    instance's setting again. ``language``: the language of your injected heading and of
    the web UI (``en``, ``fr``, ...), ``auto`` for the language of each message, or
    ``default`` for the server's ``MEMORYD_LANGUAGE``."""
    if body.learn_from_chats is not None:
        state.md.set_learning(caller.user.id, body.learn_from_chats)
    if body.memory_review is not None:
        choice = None if body.memory_review == "default" else body.memory_review
        state.md.set_review_preference(caller.user.id, choice)
    if body.language is not None:
        state.md.set_language_preference(caller.user.id, body.language)
    return me(state, caller)


@router.post("/me/password", status_code=204, response_class=Response, summary="New password")
async def change_password(
    request: Request, state: State, user: CurrentUser, body: PasswordChange
) -> None:
    """Every browser session ends; with ``revoke_api_keys`` every API key is revoked too.
    Wrong current passwords count towards the sign-in throttle."""
    validate_password(body.new_password)
    if await run_in_threadpool(state.auth.has_password, user.id) and (
        await check_password_throttled(request, state, user.name, body.current_password) is None
    ):
        raise InvalidInput("the current password is wrong")
    await run_in_threadpool(state.auth.set_password, user.id, body.new_password)
    if body.revoke_api_keys:
        await run_in_threadpool(state.auth.revoke_all_api_keys, user.id)


@router.get("/api-keys", response_model=list[ApiKeyOut], summary="My API keys")
def list_keys(state: State, user: CurrentUser) -> list[ApiKeyOut]:
    return [key_out(k) for k in state.auth.list_api_keys(user.id)]


@router.post("/api-keys", response_model=NewApiKeyOut, status_code=201, summary="Create an API key")
def create_key(state: State, user: CurrentUser, body: ApiKeyCreate) -> NewApiKeyOut:
    created = state.auth.create_api_key(user.id, body.name)
    return NewApiKeyOut(**key_out(created.key).model_dump(), key=created.secret)


@router.delete("/api-keys/{key_id}", response_model=ApiKeyOut, summary="Revoke an API key")
def revoke_key(state: State, user: CurrentUser, key_id: KeyId) -> ApiKeyOut:
    return key_out(state.auth.revoke_api_key(user.id, key_id))


@router.get("/users", response_model=list[UserOut], summary="All users (admin)")
def list_users(state: State, _: AdminUser) -> list[UserOut]:
    return [UserOut.of(u) for u in state.md.list_users()]


@router.get(
    "/users/overview",
    response_model=list[UserOverview],
    summary="All users with memory counts and workspaces (admin)",
)
def overview(state: State, admin: AdminUser) -> list[UserOverview]:
    return [
        UserOverview(
            **UserOut.of(row.user).model_dump(),
            global_memories=row.global_memories,
            workspace_memories=row.workspace_memories,
            workspaces=list(row.workspaces),
            learn_from_chats=row.learn_from_chats,
            memory_review=cast(ReviewChoice, row.memory_review or "default"),
        )
        for row in accounts.users_overview(state, admin)
    ]


@router.post("/users", response_model=UserOut, status_code=201, summary="Add a user (admin)")
def create_user(state: State, admin: AdminUser, body: UserCreate) -> UserOut:
    user = accounts.add_user(state, admin, body.name, body.role, body.password, body.workspaces)
    return UserOut.of(user)


@router.get("/users/{user_id}", response_model=UserOut, summary="One user (admin)")
def get_user(state: State, _: AdminUser, user_id: UserId) -> UserOut:
    return UserOut.of(state.md.get_user(user_id))


@router.patch("/users/{user_id}", response_model=UserOut, summary="Role or password (admin)")
def edit_user(state: State, admin: AdminUser, user_id: UserId, body: UserEdit) -> UserOut:
    """A new role is recorded in the user's audit log (``change_setting``)."""
    user = accounts.change_user(state, admin, user_id, role=body.role, password=body.password)
    return UserOut.of(user)


@router.delete(
    "/users/{user_id}", status_code=204, response_class=Response, summary="Delete (admin)"
)
def delete_user(state: State, admin: AdminUser, user_id: UserId) -> None:
    accounts.remove_user(state, admin, user_id)


@router.get("/users/{user_id}/workspaces", response_model=list[WorkspaceOut], summary="(admin)")
def user_workspaces(state: State, _: AdminUser, user_id: UserId) -> list[WorkspaceOut]:
    return [WorkspaceOut.of(w) for w in state.auth.workspaces_of(state.md.get_user(user_id))]
