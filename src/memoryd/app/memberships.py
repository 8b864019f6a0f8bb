"""Workspace membership changes, each written with its audit entry in one transaction (R12).

Who may use a workspace decides whose memories reach whom, so a membership change is a
``change_setting`` entry of the setting ``membership`` in the user's log, its
``workspace`` set so the log's workspace filter finds it. Every surface ends in
``change_membership``, with the user's row locked, so two concurrent adds cannot both
write an entry.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from memoryd.app.user_settings import record_change
from memoryd.domain.errors import NotFound, PermissionDenied
from memoryd.domain.models import Actor, Source, UserSetting
from memoryd.storage.membership import (
    has_membership,
    join,
    leave,
    member_ids,
    membership_count,
    workspace_id_of,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from memoryd.storage.database import Database
    from memoryd.storage.repository import Repository

MEMBER = "member"
NOT_MEMBER = "not member"
BY_ADMIN = Actor(Source.ADMIN)  # the command line's and the library's actor


def change_membership(
    repo: Repository,
    slug: str,
    user_id: int,
    member: bool,
    actor: Actor,
    now: datetime,
    *,
    quota: int | None = None,
) -> bool:
    """Make the user a member of the workspace (``member``) or not, inside the caller's
    write transaction; True when that changed something (and was recorded). With
    ``quota``, joining is refused (PermissionDenied) when the user would then belong to
    more workspaces: counted after the user's row is locked, so concurrent joins cannot
    all pass."""
    workspace_id = workspace_id_of(repo.conn, slug)
    if not repo.lock_user(user_id):
        raise NotFound(f"no user with id {user_id!r}")
    if member and quota is not None and not has_membership(repo.conn, user_id, slug):
        require_room(repo, user_id, 1, quota)
    if member:
        changed = join(repo.conn, user_id, workspace_id, now)
    else:
        changed = leave(repo.conn, user_id, workspace_id)
    if not changed and not member:
        user = repo.get_user(user_id)
        who = repr(user.name) if user is not None else str(user_id)
        raise NotFound(f"user {who} is not a member of workspace {slug!r}")
    if changed:
        record_membership(repo, user_id, slug, member, actor, now)
    return changed


def require_room(repo: Repository, user_id: int, adding: int, quota: int) -> None:
    """PermissionDenied if joining ``adding`` more workspaces takes the user past
    ``quota`` (the run-time setting ``max_workspaces_per_user``)."""
    have = membership_count(repo.conn, user_id)
    if have + adding > quota:
        raise PermissionDenied(
            f"a user may belong to at most {quota} workspaces (you have {have}); "
            "ask an admin to raise max_workspaces_per_user or remove one"
        )


def end_memberships(
    repo: Repository, workspace_id: int, slug: str, actor: Actor, now: datetime
) -> None:
    """Record in each member's log that they are no longer a member of a workspace about
    to be deleted (its rows go with it)."""
    for user_id in member_ids(repo.conn, workspace_id):
        record_membership(repo, user_id, slug, False, actor, now)


def record_membership(
    repo: Repository, user_id: int, slug: str, member: bool, actor: Actor, now: datetime
) -> None:
    old, new = (NOT_MEMBER, MEMBER) if member else (MEMBER, NOT_MEMBER)
    record_change(repo, user_id, UserSetting.MEMBERSHIP, old, new, actor, now, workspace=slug)


def set_membership(
    db: Database,
    clock: Callable[[], datetime],
    slug: str,
    user_id: int,
    member: bool,
    actor: Actor | None = None,
) -> bool:
    """``change_membership`` in a transaction of its own (``actor`` default: ``admin``)."""
    with db.write() as repo:
        return change_membership(repo, slug, user_id, member, actor or BY_ADMIN, clock())
