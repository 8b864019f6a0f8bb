"""Recorded chats and a chat turn's memories, as their user may reach them: only their
own, in workspaces they belong to (another's is not found; there is no admin view), each
chat with the memories it was given that the caller may still see.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from memoryd.access.callers import Owner, Site, require_workspace, self_owner
from memoryd.domain.errors import NotFound
from memoryd.domain.models import Chat, UsedMemory, User

if TYPE_CHECKING:
    from memoryd.domain.injection import Turn

WithMemories = list[tuple[Chat, list[UsedMemory]]]


def used_memories(site: Site, owner: Owner, chat_ids: Iterable[int]) -> dict[int, list[UsedMemory]]:
    """The memories injected into each chat, without those in workspaces the caller may no
    longer use (a memory moved, or a workspace left): its content stays out of reach."""
    used = site.md.chat_memories(owner.user.id, chat_ids)
    may_use = cache(lambda workspace: owner.may_use(site, workspace))  # once per workspace
    return {
        chat: [u for u in ids if u.memory is None or may_use(u.memory.workspace)]
        for chat, ids in used.items()
    }


def with_memories(site: Site, user: User, chats: Sequence[Chat]) -> WithMemories:
    used = used_memories(site, self_owner(user), [c.id for c in chats])
    return [(c, used.get(c.id, [])) for c in chats]


def visible_chat(site: Site, user: User, chat_id: int) -> Chat:
    chat = site.md.get_chat(user.id, chat_id)
    if not site.auth.is_member(user, chat.workspace):
        raise NotFound(f"no chat {chat_id!r} for this user")
    return chat


def record_chat(
    site: Site,
    user: User,
    workspace: str,
    prompt: str,
    response: str,
    memory_ids: Sequence[str] = (),
) -> tuple[Chat, list[UsedMemory]]:
    require_workspace(site, user, workspace)
    chat = site.md.record_chat(user.id, workspace, prompt, response, memory_ids=memory_ids)
    return with_memories(site, user, [chat])[0]


def list_chats(
    site: Site,
    user: User,
    workspace: str | None = None,
    *,
    processed: bool | None = None,
    before: int | None = None,
    limit: int = 100,
) -> WithMemories:
    """The newest ``limit`` of the user's chats (in the workspaces they may use, or in
    ``workspace``), oldest first; ``before``: only those listed before that chat."""
    if workspace is not None:
        require_workspace(site, user, workspace)
        chats = site.md.list_chats(user.id, workspace, processed=processed)
    else:
        allowed = {w.slug for w in site.auth.workspaces_of(user)}
        chats = [
            c for c in site.md.list_chats(user.id, processed=processed) if c.workspace in allowed
        ]
    if before is not None:
        at = next((n for n, c in enumerate(chats) if c.id == before), None)
        if at is None:
            raise NotFound(f"no chat {before} for this user in this listing")
        chats = chats[:at]
    return with_memories(site, user, chats[-limit:])


def clear_chats(site: Site, user: User, workspace: str | None) -> int:
    """Delete the user's chats in ``workspace``, or (None) all of theirs."""
    if workspace is not None:
        require_workspace(site, user, workspace)
    return site.md.clear_chats(user.id, workspace)


def delete_chat(site: Site, user: User, chat_id: int) -> Chat:
    chat = visible_chat(site, user, chat_id)
    site.md.delete_chat(user.id, chat_id)
    return chat


def turn(
    site: Site,
    user: User,
    workspace: str | None,
    message: str,
    history: Sequence[Mapping[str, Any]] = (),
    *,
    record: bool = True,
    confirm: Callable[[], None] | None = None,
) -> Turn:
    """The memories for one chat turn (``record``, ``confirm``: ``Memoryd.context``)."""
    if workspace is not None:
        require_workspace(site, user, workspace)
    return site.md.context(user.id, workspace, message, history, record=record, confirm=confirm)
