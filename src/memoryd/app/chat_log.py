"""The chat part of the library facade: recording exchanges, what each one was told,
deleting them, and the user's "don't learn from my chats" switch.

Its rules are docs/lifecycle.md's ("Deleting recorded chats"): an incognito turn is never
recorded; a chat keeps the ids of the memories injected into it, in prompt order; with
learning off a chat is stored already processed; a deleted chat's id is never given
again. Deletions and the switch are audited in the same transaction.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import astuple
from datetime import datetime
from typing import TYPE_CHECKING

from memoryd.app.user_settings import change_learning
from memoryd.app.writeback import PendingChat
from memoryd.domain.errors import InvalidInput, NotFound
from memoryd.domain.injection import Turn, history_part, injectable_into, used_ids
from memoryd.domain.models import Actor, AuditAction, Chat, Source, UsedMemory
from memoryd.domain.rules import is_row_id
from memoryd.models.rerank.base import Warmable
from memoryd.storage import chat_erasure

if TYPE_CHECKING:
    from memoryd.app.backends import Backends
    from memoryd.storage.repository import Repository

log = logging.getLogger("memoryd")

MAX_CHAT_TEXT = 200_000
MAX_AUDITED_IDS = 1000  # chat ids named in one deletion's audit entry


class ChatService:
    """Recorded chats (see the module doc)."""

    def __init__(self, backends: Backends) -> None:
        self.backends = backends
        self.store = backends.store

    # recording -----------------------------------------------------------------
    def record_chat(
        self,
        user_id: int,
        workspace: str,
        prompt: str,
        response: str,
        *,
        turn: Turn | None = None,
        memory_ids: Sequence[str] = (),
    ) -> Chat:
        """Store a finished exchange; extraction reads it later (unless the user turned
        learning off). ``turn`` (from ``context``) or ``memory_ids`` say which memories
        were injected; an incognito turn (``context(record=False)``) is refused."""
        ids = used_ids(turn, memory_ids)
        check_chat(prompt, response)
        now = self.backends.clock()
        with self.backends.db.write() as repo:
            self.store.require_user(repo, user_id)
            chat_id, processed = self.store_chat(
                repo, user_id, workspace, prompt, response, now, ids
            )
        self.warm_history(prompt, response)
        return Chat(chat_id, user_id, workspace, prompt, response, now, processed)

    def record_chat_later(
        self,
        user_id: int,
        workspace: str,
        prompt: str,
        response: str,
        *,
        turn: Turn | None = None,
        memory_ids: Sequence[str] = (),
    ) -> None:
        """``record_chat`` off the caller's path: checked now, written by the background
        writer (batched, retried, flushed by ``close()``)."""
        ids = used_ids(turn, memory_ids)
        check_chat(prompt, response)
        chat = PendingChat(user_id, workspace, prompt, response, self.backends.clock(), tuple(ids))
        self.backends.writer.add_chat(chat)

    def store_chat(
        self,
        repo: Repository,
        user_id: int,
        workspace: str,
        prompt: str,
        response: str,
        at: datetime,
        memory_ids: Sequence[str] = (),
    ) -> tuple[int, bool]:
        """Insert one checked exchange with its memory links, inside the caller's write
        transaction; returns its id and whether it is closed to extraction. NotFound when
        the workspace does not exist."""
        workspace_id = self.store.require_workspace(repo, workspace)
        # locked: a "learning off" committed meanwhile waits, then closes this chat too
        processed = repo.learns_from_chats(user_id, lock=True) is False
        chat_id = repo.insert_chat(user_id, workspace_id, prompt, response, at, processed=processed)
        if memory_ids:  # only the user's own memories a turn here can have injected
            owned = repo.memories_by_id(user_id, memory_ids)
            links = [i for i in memory_ids if i in owned and injectable_into(owned[i], workspace)]
            repo.link_many_chats([(chat_id, links)])
        return chat_id, processed

    def store_pending(self, batch: Sequence[PendingChat]) -> None:
        """Write exchanges the background writer queued, in one transaction; one whose
        user or workspace was deleted meanwhile is dropped, with a warning."""
        with self.backends.db.write() as repo:
            for chat in batch:
                try:
                    self.store.require_user(repo, chat.user_id)
                    self.store_chat(repo, *astuple(chat))  # its fields are store_chat's arguments
                except NotFound as exc:
                    log.warning("dropping a queued chat of user %s: %s", chat.user_id, exc)

    def warm_history(self, *texts: str) -> None:
        """The next turns quote this exchange as history: embed it now, not on their path.

        One text per embedding call: a batch pads every text to the longest one, and a
        short prompt batched with a long reply cost about twice the CPU of the two
        embedded alone (BENCHMARKS.md, issue 11)."""
        reranker = self.backends.reranker
        if isinstance(reranker, Warmable):
            try:
                for text in texts:
                    reranker.warm([history_part(text)])
            except Exception as exc:  # a cold cache only costs the next turn time
                log.warning("could not pre-embed chat history: %s", exc)

    # reading -------------------------------------------------------------------
    def list_chats(
        self, user_id: int, workspace: str | None = None, *, processed: bool | None = None
    ) -> list[Chat]:
        with self.backends.db.read() as repo:
            self.store.require_user(repo, user_id)
            workspace_id = self.store.require_workspace(repo, workspace) if workspace else None
            return repo.list_chats(user_id, workspace_id, processed=processed)

    def get_chat(self, user_id: int, chat_id: int) -> Chat:
        with self.backends.db.read() as repo:
            self.store.require_user(repo, user_id)
            found = repo.list_chats(user_id, ids=[chat_id]) if is_row_id(chat_id) else []
        if not found:
            raise NotFound(f"no chat {chat_id!r} for this user")
        return found[0]

    def chat_memories(self, user_id: int, chat_ids: Iterable[int]) -> dict[int, list[UsedMemory]]:
        """The memories injected into each of the user's chats, in prompt order; a deleted
        memory appears with ``memory=None``. Chats without any are left out."""
        with self.backends.db.read() as repo:
            links = repo.chat_memory_ids([i for i in chat_ids if is_row_id(i)])
            alive = repo.memories_by_id(user_id, (i for ids in links.values() for i in ids))
        return {
            chat_id: [UsedMemory(i, alive.get(i)) for i in ids] for chat_id, ids in links.items()
        }

    def chats_using(self, user_id: int, memory_id: str, *, limit: int = 100) -> list[Chat]:
        """The user's recorded chats this memory was injected into, newest first."""
        with self.backends.db.read() as repo:
            self.store.owned(repo, user_id, memory_id)
            found = repo.list_chats(user_id, using_memory=memory_id)
        return found[::-1][:limit]

    # deleting ------------------------------------------------------------------
    def delete_chat(self, user_id: int, chat_id: int, *, actor: Actor | None = None) -> int:
        """Delete one of the user's recorded chats (see the module doc); returns 1.
        Another user's chat is NotFound, like one that does not exist."""
        return self.delete_chats(user_id, [chat_id], actor=actor)

    def delete_chats(
        self, user_id: int, chat_ids: Iterable[int], *, actor: Actor | None = None
    ) -> int:
        """Delete several of the user's chats, all or nothing: when one id is not one of
        theirs, nothing is deleted (NotFound names it). Returns how many were deleted."""
        ids = _chat_ids(chat_ids)
        if not ids:
            return 0
        with self.backends.db.write() as repo:
            self.store.require_user(repo, user_id, lock=True)
            owned = chat_erasure.owned_chat_ids(
                repo.conn, user_id, [i for i in ids if is_row_id(i)]
            )
            missing = next((i for i in ids if i not in owned), None)
            if missing is not None:
                raise NotFound(f"no chat {missing!r} for this user")
            deleted = chat_erasure.delete_chats(repo.conn, user_id, ids=ids)
            self._audit_deletion(repo, user_id, deleted, actor)
        return len(deleted)

    def clear_chats(
        self, user_id: int, workspace: str | None = None, *, actor: Actor | None = None
    ) -> int:
        """Delete all the user's chats in ``workspace``, or in every workspace when None;
        returns how many (0 when there were none). Exchanges this process still holds
        for the background writer are written first, so none appears after the clear."""
        self.backends.flush_writes()
        with self.backends.db.write() as repo:
            self.store.require_user(repo, user_id, lock=True)
            workspace_id = None
            if workspace is not None:
                workspace_id = self.store.require_workspace(repo, workspace)
            deleted = chat_erasure.delete_chats(repo.conn, user_id, workspace_id=workspace_id)
            self._audit_deletion(repo, user_id, deleted, actor)
        return len(deleted)

    def _audit_deletion(
        self, repo: Repository, user_id: int, deleted: dict[int, str], actor: Actor | None
    ) -> None:
        """One audit entry for the chats just deleted: how many, where, which -- no text."""
        if not deleted:
            return
        ids = list(deleted)
        record: dict[str, object] = {
            "count": len(ids),
            "workspaces": dict(sorted(Counter(deleted.values()).items())),
            "chat_ids": ids[:MAX_AUDITED_IDS],
        }
        if len(ids) > MAX_AUDITED_IDS:
            record["chat_ids_left_out"] = len(ids) - MAX_AUDITED_IDS
        repo.add_audit(
            memory_id="",
            user_id=user_id,
            action=AuditAction.DELETE_CHATS,
            actor=(actor or Actor(Source.USER, user_id)).label,
            before=record,
            after=None,
            now=self.backends.clock(),
        )

    # the learning switch -------------------------------------------------------
    def learns_from_chats(self, user_id: int) -> bool:
        """Whether extraction may learn from this user's chats."""
        with self.backends.db.read() as repo:
            value = repo.learns_from_chats(user_id) if is_row_id(user_id) else None
        if value is None:
            raise NotFound(f"no user {user_id!r}")
        return value

    def set_learning(self, user_id: int, on: bool, *, actor: Actor | None = None) -> int:
        """Turn learning from this user's chats on or off. Off also closes the chats still
        waiting for extraction; returns how many were closed. A real change is one
        ``change_setting`` entry in the audit log, by ``actor`` (default: the user)."""
        if not isinstance(on, bool):
            raise InvalidInput("learning is on (true) or off (false)")
        actor = actor or Actor(Source.USER, user_id)
        with self.backends.db.write() as repo:
            self.store.require_user(repo, user_id, lock=True)
            return change_learning(repo, user_id, on, actor, self.backends.clock())


def _chat_ids(chat_ids: Iterable[int]) -> list[int]:
    if isinstance(chat_ids, str | bytes):
        raise InvalidInput("chat ids are a list of whole numbers")
    ids = list(dict.fromkeys(chat_ids))
    if not all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
        raise InvalidInput("chat ids are whole numbers")
    return ids


def check_chat(prompt: object, response: object, what: str = "") -> None:
    """InvalidInput unless both are text within ``MAX_CHAT_TEXT`` and the prompt is not
    blank; ``what`` starts each message (an import's "chat ")."""
    for label, value in (("prompt", prompt), ("response", response)):
        if not isinstance(value, str):
            raise InvalidInput(f"{what}{label} must be text")
        if len(value) > MAX_CHAT_TEXT:
            raise InvalidInput(f"{what}{label} is longer than {MAX_CHAT_TEXT} characters")
    if not str(prompt).strip():
        raise InvalidInput(f"{what}prompt is empty")
