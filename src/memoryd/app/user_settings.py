"""A user's settings, each change written with its audit entry in one transaction (R12).

Every way of changing ``learn_from_chats``, ``memory_review``, ``language`` or ``role``
ends here, inside the caller's write transaction with the user's row locked, so a change
and its ``change_setting`` entry (docs/lifecycle.md, "Setting changes") are committed
together or not at all; setting a value the user already has writes nothing.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from memoryd.domain.models import Actor, AuditAction, Role, UserSetting

if TYPE_CHECKING:
    from memoryd.storage.repository import Repository

FOLLOW_INSTANCE = "default"  # memory_review: no choice of one's own


def change_learning(repo: Repository, user_id: int, on: bool, actor: Actor, now: datetime) -> int:
    """Turn learning from the user's chats on or off. Off also closes the chats still
    waiting for extraction (even when it was off already); returns how many."""
    was = repo.learns_from_chats(user_id)
    if was is not on:
        repo.set_learning(user_id, on)
        record_change(repo, user_id, UserSetting.LEARN_FROM_CHATS, was, on, actor, now)
    return 0 if on else repo.close_pending_chats(user_id)


def change_review(
    repo: Repository, user_id: int, mode: str | None, actor: Actor, now: datetime
) -> None:
    """Set the user's own review mode (a checked mode), or None to follow the instance."""
    was = repo.review_preference(user_id)
    if was != mode:
        repo.set_review_preference(user_id, mode)
        old, new = was or FOLLOW_INSTANCE, mode or FOLLOW_INSTANCE
        record_change(repo, user_id, UserSetting.MEMORY_REVIEW, old, new, actor, now)


def change_language(
    repo: Repository, user_id: int, language: str | None, actor: Actor, now: datetime
) -> None:
    """Set the user's own language (a checked choice), or None to follow the server's."""
    _, was = repo.user_language(user_id)
    if was != language:
        repo.set_user_language(user_id, language)
        old, new = was or FOLLOW_INSTANCE, language or FOLLOW_INSTANCE
        record_change(repo, user_id, UserSetting.LANGUAGE, old, new, actor, now)


def change_role(repo: Repository, user_id: int, role: Role, actor: Actor, now: datetime) -> None:
    user = repo.get_user(user_id)
    assert user is not None, "the caller checks that the user exists"
    if user.role is not role:
        repo.set_user_role(user_id, role)
        record_change(repo, user_id, UserSetting.ROLE, user.role.value, role.value, actor, now)


def record_change(
    repo: Repository,
    user_id: int,
    setting: UserSetting,
    old: Any,
    new: Any,
    actor: Actor,
    now: datetime,
    *,
    workspace: str | None = None,
) -> None:
    """The audit entry of one setting's change (see the module doc)."""
    repo.add_audit(
        memory_id="",
        user_id=user_id,
        action=AuditAction.CHANGE_SETTING,
        actor=actor.label,
        before=setting_view(setting, old, workspace),
        after=setting_view(setting, new, workspace),
        now=now,
    )


def setting_view(setting: UserSetting, value: Any, workspace: str | None) -> dict[str, Any]:
    return {"setting": setting.value, "workspace": workspace, "value": value}
