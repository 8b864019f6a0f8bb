"""Workspace membership in the database: which workspaces a default user may use.

Membership is core schema (``user_workspaces``), not the server's: the CLI and the
server must agree on it. ``memoryd.app.memberships`` decides and audits a change;
``memoryd.access.credentials.AuthStore`` caches on top. Admins use every workspace.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import and_, delete, func, insert, select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from memoryd.domain.errors import NotFound
from memoryd.domain.models import Role, User, Workspace
from memoryd.storage.database import Database
from memoryd.storage.repository import Repository, user_of
from memoryd.storage.tables import user_workspaces, users, workspaces


def workspace_id_of(conn: Connection, slug: str) -> int:
    found = Repository(conn).workspace_id(slug)
    if found is None:
        raise NotFound(f"no workspace {slug!r}")
    return int(found)


def has_membership(conn: Connection, user_id: int, slug: str) -> bool:
    """Whether a ``user_workspaces`` row joins this user to this workspace (roles aside)."""
    query = (
        select(user_workspaces.c.user_id)
        .select_from(user_workspaces.join(workspaces))
        .where(user_workspaces.c.user_id == user_id, workspaces.c.slug == slug)
    )
    return conn.execute(query).first() is not None


def membership_count(conn: Connection, user_id: int) -> int:
    """How many workspaces the user belongs to."""
    query = select(func.count()).where(user_workspaces.c.user_id == user_id)
    return int(conn.execute(query).scalar_one())


def _membership(user_id: int, workspace_id: int) -> Any:
    return and_(
        user_workspaces.c.user_id == user_id, user_workspaces.c.workspace_id == workspace_id
    )


def join(conn: Connection, user_id: int, workspace_id: int, at: datetime) -> bool:
    """Add the membership row inside the caller's transaction; False when it was there."""
    row = _membership(user_id, workspace_id)
    if conn.execute(select(user_workspaces.c.user_id).where(row)).first():
        return False
    with contextlib.suppress(IntegrityError):  # a concurrent add won the race
        conn.execute(
            insert(user_workspaces).values(user_id=user_id, workspace_id=workspace_id, added_at=at)
        )
    return True


def leave(conn: Connection, user_id: int, workspace_id: int) -> bool:
    """Delete the membership row inside the caller's transaction; False when there was none."""
    query = delete(user_workspaces).where(_membership(user_id, workspace_id))
    return bool(conn.execute(query).rowcount)


def member_ids(conn: Connection, workspace_id: int) -> list[int]:
    """The ids of the workspace's members, in order."""
    query = (
        select(user_workspaces.c.user_id)
        .where(user_workspaces.c.workspace_id == workspace_id)
        .order_by(user_workspaces.c.user_id)
    )
    return [int(user_id) for user_id in conn.execute(query).scalars()]


class Memberships:
    """List the members of workspaces (``memoryd.app.memberships`` adds and removes them,
    with their audit entries)."""

    def __init__(
        self, db: Database, *, clock: Callable[[], datetime] = lambda: datetime.now(UTC)
    ) -> None:
        self.db = db
        self.clock = clock

    def members(self, slug: str) -> list[User]:
        with self.db.read() as repo:
            workspace_id = workspace_id_of(repo.conn, slug)
            rows = repo.conn.execute(
                select(users)
                .select_from(user_workspaces.join(users))
                .where(user_workspaces.c.workspace_id == workspace_id)
                .order_by(users.c.id)
            )
            return [user_of(r) for r in rows]

    def workspaces_of(self, user: User) -> list[Workspace]:
        """The workspaces this user may use: all of them for an admin."""
        query = select(workspaces.c.slug, workspaces.c.name).order_by(workspaces.c.slug)
        if user.role is not Role.ADMIN:
            query = query.select_from(workspaces.join(user_workspaces)).where(
                user_workspaces.c.user_id == user.id
            )
        with self.db.read() as repo:
            return [Workspace(r.slug, r.name) for r in repo.conn.execute(query)]

    def is_member(self, user: User, slug: str) -> bool:
        """Whether the user may use the workspace: an admin, or a member (uncached)."""
        if user.role is Role.ADMIN:
            return True
        with self.db.read() as repo:
            return has_membership(repo.conn, user.id, slug)
