"""Who acts on whose memories (``Owner``), what the checks read (``Site``), and the rules
the other access modules build on: workspace membership and admins.

A default user reaches their own memories, and only in workspaces they belong to; an
admin reaches every user's, in every workspace (R8). ``Owner`` carries both sides: whose
memories (``user``), who acts (``acting``) and how the audit log names them (``actor``).
A ``Site`` is the facade plus who belongs to which workspace: the server's
``AuthStore`` (cached per process), or storage's ``Memberships`` where there is no
server (``Local``). The command line is the local operator, an admin who is no user
(``OPERATOR``, recorded as ``admin``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from memoryd.domain.errors import AdminOnly, NotFound
from memoryd.domain.models import Actor, Role, Source, User, Workspace

if TYPE_CHECKING:
    from memoryd.app.service import Memoryd


class Members(Protocol):
    """Who belongs to which workspace; an admin uses every one."""

    def is_member(self, user: User, slug: str) -> bool: ...

    def workspaces_of(self, user: User) -> list[Workspace]: ...


class Site(Protocol):
    """What the checks read: the facade, and the memberships (the server's state is one)."""

    @property
    def md(self) -> Memoryd: ...

    @property
    def auth(self) -> Members: ...


@dataclass(frozen=True)
class Local:
    """A ``Site`` without a server: the command line's, MCP's on stdio."""

    md: Memoryd
    auth: Members


def is_admin(user: User) -> bool:
    return user.role is Role.ADMIN


def require_admin(user: User, message: str = "only an admin can do this") -> User:
    """``user`` if an admin; AdminOnly otherwise."""
    if not is_admin(user):
        raise AdminOnly(message)
    return user


def require_workspace(site: Site, user: User, slug: str) -> str:
    """The slug if the workspace exists and the user may use it; NotFound otherwise (one
    they may not use looks like one that does not exist)."""
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
        return Owner(user, Actor(Source.USER, acting.id), acting)
    require_admin(acting, NOT_YOURS)
    return Owner(user, Actor(Source.ADMIN, acting.id), acting)


# The person at the terminal administers the database: an admin who is no user, whom
# the audit log names ``admin``.
OPERATOR = User(0, "admin", Role.ADMIN)


def operator_owner(user: User) -> Owner:
    """``user``'s memories as the command line works on them."""
    return Owner(user, Actor(Source.ADMIN), OPERATOR)


def operator_site(md: Memoryd) -> Local:
    """The command line's ``Site``: memberships read from the database, uncached."""
    from memoryd.storage.membership import Memberships  # SQLAlchemy: once a command runs

    return Local(md, Memberships(md.db, clock=md.clock))
