"""Writes taken off the reply path: ``last_used_at`` marks and proxied chat exchanges.

A chat turn marks the memories it injected, and the proxy stores each exchange once its
answer has been relayed. Neither has to hold a reply up, and on SQLite each would wait
for the single writer lock. So they are queued here and one thread writes them in
batches, one transaction per batch.

A queued chat is never dropped for a passing reason: a failed batch is retried (with a
growing pause), and ``close()`` (called when the server shuts down, e.g. on SIGTERM, and
at interpreter exit) writes whatever is still queued before it returns. Only a chat whose
user or workspace was deleted meanwhile is discarded, with a warning.
"""

from __future__ import annotations

import atexit
import logging
import threading
import weakref
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from memoryd.domain.errors import NotFound

if TYPE_CHECKING:
    from memoryd.service import Memoryd

log = logging.getLogger("memoryd")

BATCH_WAIT_S = 0.2  # how long marks gather before a write (chats go at once)
MAX_RETRY_WAIT_S = 5.0
CLOSE_ATTEMPTS = 5


@dataclass(frozen=True)
class PendingChat:
    user_id: int
    workspace: str
    prompt: str
    response: str
    at: datetime
    memory_ids: tuple[str, ...] = ()  # the memories injected into it, in prompt order


class BackgroundWriter:
    """A queue of marks and chats written by one daemon thread (see the module docstring)."""

    def __init__(self, md: Memoryd) -> None:
        self._md = md
        self._cond = threading.Condition()
        self._touches: dict[str, datetime] = {}
        self._chats: list[PendingChat] = []
        self._busy = False
        self._closed = False
        self._thread: threading.Thread | None = None
        ref = weakref.ref(self)

        def close_at_exit() -> None:
            writer = ref()
            if writer is not None:
                writer.close()

        self._atexit = close_at_exit
        atexit.register(close_at_exit)

    # queueing ------------------------------------------------------------------
    def touch(self, memory_ids: list[str], now: datetime) -> None:
        with self._cond:
            if self._closed:
                self._store_touches(dict.fromkeys(memory_ids, now))
                return
            for memory_id in memory_ids:
                seen = self._touches.get(memory_id)
                if seen is None or seen < now:
                    self._touches[memory_id] = now
            self._start()

    def add_chat(self, chat: PendingChat) -> None:
        with self._cond:
            if self._closed:  # after shutdown: write it now rather than lose it
                self._store_chats([chat])
                return
            self._chats.append(chat)
            self._start()
            self._cond.notify_all()

    def pending(self) -> int:
        with self._cond:
            return len(self._chats) + len(self._touches) + int(self._busy)

    def flush(self, timeout: float = 30.0) -> bool:
        """Wait until everything queued so far is written; False on timeout."""
        with self._cond:
            self._cond.notify_all()
            return self._cond.wait_for(
                lambda: not (self._chats or self._touches or self._busy), timeout
            )

    def close(self) -> None:
        """Stop the thread and write what is left, in the calling thread."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join()
        for attempt in range(CLOSE_ATTEMPTS):
            try:
                self._write_once()
                break
            except Exception as exc:
                log.warning("background write failed at shutdown (try %d): %s", attempt + 1, exc)
        atexit.unregister(self._atexit)

    # the writes ------------------------------------------------------------------
    def _store_chats(self, batch: list[PendingChat]) -> None:
        """Write queued exchanges in one transaction."""
        md = self._md
        with md.db.write() as repo:
            for chat in batch:
                try:
                    md.store.require_user(repo, chat.user_id)
                    workspace_id = md.store.require_workspace(repo, chat.workspace)
                except NotFound as exc:
                    log.warning("dropping a queued chat of user %s: %s", chat.user_id, exc)
                    continue
                md.store_chat(
                    repo,
                    chat.user_id,
                    workspace_id,
                    chat.prompt,
                    chat.response,
                    chat.at,
                    chat.memory_ids,
                )
        for chat in batch:
            md.warm_history(chat.prompt, chat.response)

    def _store_touches(self, marks: dict[str, datetime]) -> None:
        """Set ``last_used_at`` of queued memories, one UPDATE per distinct time."""
        by_time: dict[datetime, list[str]] = {}
        for memory_id, at in marks.items():
            by_time.setdefault(at, []).append(memory_id)
        with self._md.db.write() as repo:
            for at, ids in by_time.items():
                repo.touch_memories(ids, at)

    # the thread ------------------------------------------------------------------
    def _start(self) -> None:
        if self._thread is None and not self._closed:
            self._thread = threading.Thread(target=self._run, name="memoryd-writer", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        pause = 0.1
        while True:
            with self._cond:
                self._cond.wait_for(
                    lambda: self._closed or self._chats or self._touches, timeout=None
                )
                if self._closed:
                    return
                if not self._chats:  # let marks of a burst of turns gather
                    self._cond.wait_for(lambda: self._closed or self._chats, BATCH_WAIT_S)
                    if self._closed:
                        return
            try:
                self._write_once()
                pause = 0.1
            except Exception as exc:  # kept queued; retried after a pause
                log.warning("background write failed, retrying in %.1f s: %s", pause, exc)
                with self._cond:
                    self._cond.wait_for(lambda: self._closed, pause)
                pause = min(pause * 2, MAX_RETRY_WAIT_S)

    def _write_once(self) -> None:
        with self._cond:
            chats, self._chats = self._chats, []
            touches, self._touches = self._touches, {}
            self._busy = bool(chats or touches)
        try:
            if chats:
                try:
                    self._store_chats(chats)  # one transaction: all of them or none
                except Exception:
                    with self._cond:  # back in front, oldest first, for the retry
                        self._chats[:0] = chats
                    raise
            if touches:
                try:
                    self._store_touches(touches)
                except Exception:
                    with self._cond:
                        for memory_id, at in touches.items():
                            self._touches.setdefault(memory_id, at)
                    raise
        except Exception:
            if chats and touches:
                with self._cond:
                    for memory_id, at in touches.items():
                        self._touches.setdefault(memory_id, at)
            raise
        finally:
            with self._cond:
                self._busy = False
                self._cond.notify_all()
