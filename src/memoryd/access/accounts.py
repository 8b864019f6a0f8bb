"""Users and workspaces: admins create, change and delete users and workspaces and let
people in (the last admin can be neither demoted nor deleted, nobody deletes themselves);
anyone may create a workspace and join it, within ``max_workspaces_per_user``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from memoryd.access.callers import is_admin, require_admin
from memoryd.access.credentials import validate_password
from memoryd.domain import runtime_settings
from memoryd.domain.errors import AlreadyExists
from memoryd.domain.models import Actor, Source, User, UserSummary, Workspace

if TYPE_CHECKING:
    from memoryd.access.credentials import AuthStore
    from memoryd.app.service import Memoryd


class Accounts(Protocol):  # a Site with the credentials store: the server's state
    @property
    def md(self) -> Memoryd: ...

    @property
    def auth(self) -> AuthStore: ...


def by_admin(admin: User) -> Actor:
    return Actor(Source.ADMIN, require_admin(admin).id)


def add_user(
    site: Accounts,
    admin: User,
    name: str,
    role: str,
    password: str | None,
    workspaces: list[str],
) -> User:
    """A new user with a password and memberships; all is checked before writing."""
    actor = by_admin(admin)
    if password is not None:
        validate_password(password)
    for slug in workspaces:
        site.md.get_workspace(slug)
    user = site.md.create_user(name, role)
    if password is not None:
        site.auth.set_password(user.id, password)
    for slug in workspaces:
        site.auth.add_member(slug, user.id, actor)
    return user


def change_user(
    site: Accounts,
    admin: User,
    user_id: int,
    *,
    role: str | None = None,
    password: str | None = None,
) -> User:
    """A user's role (in their audit log) and/or password (signing them out)."""
    require_admin(admin)
    user = site.md.get_user(user_id)
    if password is not None:
        validate_password(password)
    if role is not None and role != user.role.value:
        source = Source.USER if user_id == admin.id else Source.ADMIN
        actor = Actor(source, admin.id)
        user = site.md.set_role(user_id, role, keep_an_admin=True, actor=actor)
    if password is not None:
        site.auth.set_password(user_id, password)
    return user


def remove_user(site: Accounts, admin: User, user_id: int) -> User:
    require_admin(admin)
    user = site.md.get_user(user_id)
    if user.id == admin.id:
        raise AlreadyExists("you cannot delete yourself; ask another admin")
    site.md.delete_user(user_id, keep_an_admin=True)
    return user


def users_overview(site: Accounts, admin: User) -> list[UserSummary]:
    require_admin(admin)
    return site.md.user_summaries()


def create_workspace(site: Accounts, user: User, slug: str, name: str | None) -> Workspace:
    limit = site.md.get_settings()[runtime_settings.MAX_WORKSPACES_PER_USER.key]
    try:
        return site.md.create_workspace(
            slug,
            name,
            member=None if is_admin(user) else user.id,
            actor=Actor(Source.USER, user.id),
            quota=limit,
        )
    except AlreadyExists:
        if is_admin(user) or site.auth.is_member(user, slug):
            raise
        # the same words whether or not the caller could know it exists (slugs are one
        # namespace for everyone, so a taken slug cannot be given out twice)
        raise AlreadyExists(f"the slug {slug!r} is not available; choose another") from None


def delete_workspace(site: Accounts, admin: User, slug: str) -> None:
    site.md.delete_workspace(slug, actor=by_admin(admin))


def add_member(site: Accounts, admin: User, slug: str, user_id: int) -> bool:
    return site.auth.add_member(slug, user_id, by_admin(admin))


def remove_member(site: Accounts, admin: User, slug: str, user_id: int) -> None:
    site.auth.remove_member(slug, user_id, by_admin(admin))
