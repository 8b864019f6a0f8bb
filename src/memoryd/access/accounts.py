"""Users and workspaces: who may create, change and delete them, and who joins which.

Admins create users, change roles and passwords, delete users and workspaces, and let
people into workspaces; the last admin can be neither demoted nor deleted, and nobody
deletes themselves, so the service can always be administered. Anyone signed in may
create a workspace and becomes its first member (so a chat app using a user's key can
set itself up), within the ``max_workspaces_per_user`` setting; a default user sees
only the workspaces they belong to. Every membership change is an entry in the member's
audit log (``memoryd.app.memberships``). The REST API's users and workspaces routes and
the web UI's admin panel call these; the command line is the operator, who administers
the database directly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from memoryd.access.callers import is_admin, require_admin, require_workspace
from memoryd.access.credentials import validate_password
from memoryd.domain import runtime_settings
from memoryd.domain.errors import AlreadyExists
from memoryd.domain.models import Actor, Source, User, UserSummary, Workspace

if TYPE_CHECKING:
    from memoryd.access.credentials import AuthStore
    from memoryd.app.service import Memoryd


class Accounts(Protocol):
    """A ``Site`` whose memberships are the credentials store (the server's state)."""

    @property
    def md(self) -> Memoryd: ...

    @property
    def auth(self) -> AuthStore: ...


def by_admin(admin: User) -> Actor:
    """The admin as the audit log names them."""
    return Actor(Source.ADMIN, require_admin(admin).id)


def add_user(
    site: Accounts,
    admin: User,
    name: str,
    role: str,
    password: str | None,
    workspaces: list[str],
) -> User:
    """Create a user (by ``admin``), with a password and memberships (each in the new
    user's audit log); checks all before writing."""
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
    """A user's role and/or password, by ``admin``. The last admin cannot be demoted; a
    new role is in the user's audit log (by ``admin:ID``, or ``user:ID`` for their own);
    a new password signs the user out of every browser."""
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
    """Delete a user with their memories and chats (admin); not yourself, not the last admin."""
    require_admin(admin)
    user = site.md.get_user(user_id)
    if user.id == admin.id:
        raise AlreadyExists("you cannot delete yourself; ask another admin")
    site.md.delete_user(user_id, keep_an_admin=True)
    return user


def users_overview(site: Accounts, admin: User) -> list[UserSummary]:
    """Every user with their role, memory counts, workspaces and own choices (admin)."""
    require_admin(admin)
    return site.md.user_summaries()


def create_workspace(site: Accounts, user: User, slug: str, name: str | None) -> Workspace:
    """A new workspace; a default user joins it, within their quota of workspaces."""
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


def get_workspace(site: Accounts, user: User, slug: str) -> Workspace:
    return site.md.get_workspace(require_workspace(site, user, slug))


def delete_workspace(site: Accounts, admin: User, slug: str) -> None:
    site.md.delete_workspace(slug, actor=by_admin(admin))


def members(site: Accounts, admin: User, slug: str) -> list[User]:
    require_admin(admin)
    return site.auth.members(slug)


def add_member(site: Accounts, admin: User, slug: str, user_id: int) -> bool:
    """Let a user into a workspace; False when they already were a member."""
    return site.auth.add_member(slug, user_id, by_admin(admin))


def remove_member(site: Accounts, admin: User, slug: str, user_id: int) -> None:
    site.auth.remove_member(slug, user_id, by_admin(admin))


def workspaces_of(site: Accounts, admin: User, user_id: int) -> list[Workspace]:
    """The workspaces a user may use (admin)."""
    require_admin(admin)
    return site.auth.workspaces_of(site.md.get_user(user_id))
