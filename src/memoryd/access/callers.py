"""The rules the other access modules build on: who acts on whose memories (``Owner``),
workspace membership and admins, read from a ``Site``: the facade plus the server's
cached ``AuthStore``, or storage's ``Memberships`` without a server (``Local``). The
command line is the operator: an admin who is no user, ``admin`` in the audit log.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from memoryd.domain.errors import AdminOnly, NotFound
from memoryd.domain.models import Actor, Role, Source, User, Workspace

if TYPE_CHECKING:
    from memoryd.app.service import Memoryd


class Members(Protocol):
    def is_member(self, user: User, slug: str) -> bool: ...

    def workspaces_of(self, user: User) -> list[Workspace]: ...


class Site(Protocol):
    @property
    def md(self) -> Memoryd: ...

    @property
    def auth(self) -> Members: ...


@dataclass(frozen=True)
class Local:  # a Site without a server: the command line's, MCP's on stdio
    md: Memoryd
    auth: Members


def is_admin(user: User) -> bool:
    return user.role is Role.ADMIN


def require_admin(user: User, message: str = "only an admin can do this") -> User:
    if not is_admin(user):
        raise AdminOnly(message)
    return user


def require_workspace(site: Site, user: User, slug: str) -> str:
    """The slug if the workspace exists and the user may use it, else NotFound."""
    if not site.auth.is_member(user, slug) or not site.md.has_workspace(slug):
        raise NotFound(f"no workspace {slug!r} for this user")
    return slug


@dataclass(frozen=True)
class Owner:
    """Whose memories a request works on, and who is acting (for the audit log)."""

    user: User
    actor: Actor
    acting: User

    def may_use(self, site: Site, workspace: str | None) -> bool:
        """Whether the owner's memories in this workspace are visible to the caller."""
        if workspace is None or is_admin(self.acting):
            return True
        return site.auth.is_member(self.user, workspace)


def self_owner(user: User) -> Owner:
    return Owner(user, Actor(Source.USER, user.id), user)


NOT_YOURS = "only an admin can change another user's memories"


def owner_for(acting: User, user: User) -> Owner:
    """``user``'s memories as ``acting`` works on them: their own, or (admins) anyone's."""
    if user.id == acting.id:
        return self_owner(user)
    require_admin(acting, NOT_YOURS)
    return Owner(user, Actor(Source.ADMIN, acting.id), acting)


OPERATOR = User(0, "admin", Role.ADMIN)  # the person at the terminal


def operator_owner(user: User) -> Owner:
    return Owner(user, Actor(Source.ADMIN), OPERATOR)


def operator_site(md: Memoryd) -> Local:
    from memoryd.storage.membership import Memberships  # SQLAlchemy: once a command runs

    return Local(md, Memberships(md.db, clock=md.clock))
