"""Writes taken off the reply path: ``last_used_at`` marks and proxied chat exchanges.

Neither has to hold a reply up, and on SQLite each would wait for the single writer
lock, so one thread writes them in batches (what arrives within ``BATCH_WAIT_S`` goes in
one transaction). A queued chat is never dropped for a passing reason: a failed batch is
retried and ``close()`` writes what is left. A stored exchange is then pre-embedded for
the turns that will quote it, by a lower-priority thread that waits for no turn to be in
progress (``QuietGate``), with a bounded backlog.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
import weakref
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

log = logging.getLogger("memoryd")

BATCH_WAIT_S = 0.2  # how long marks and chats gather before a write (flush() skips it)
MAX_RETRY_WAIT_S = 5.0
CLOSE_ATTEMPTS = 5
WARM_NICENESS = 10  # how much lower the pre-embedding thread's priority is
WARM_MAX_DEFER_S = 0.25  # longest a pre-embedding waits for no turn to be in progress
MAX_WARM_BACKLOG = 256  # texts waiting to be pre-embedded


class QuietGate:
    """Counts chat turns in progress, so idle-time work can wait for a moment with none."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._active = 0

    def enter(self) -> None:
        with self._cond:
            self._active += 1

    def leave(self) -> None:
        with self._cond:
            self._active -= 1
            if not self._active:
                self._cond.notify_all()

    def wait_quiet(self, timeout: float) -> bool:
        """Wait until no turn is in progress; False if ``timeout`` passed first."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._active, timeout)


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

    def __init__(
        self,
        write_chats: Callable[[list[PendingChat]], None],
        write_marks: Callable[[dict[str, datetime]], None],
        warm: Callable[[str], None],
        quiet: QuietGate,
    ) -> None:
        """``write_chats`` stores a batch of chats in one transaction
        (``memoryd.app.chat_log.ChatService.store_pending``), ``write_marks`` sets
        ``last_used_at`` (``memoryd.app.turns.TurnService.mark_used``); ``warm`` pre-embeds one
        text once ``quiet`` says no turn is in progress."""
        self._write_chats, self._write_marks = write_chats, write_marks
        self._warm, self._quiet = warm, quiet
        self._cond = threading.Condition()
        self._touches: dict[str, datetime] = {}
        self._chats: list[PendingChat] = []
        self._busy = False
        self._hurry = False  # flush() asked: write without gathering
        self._closed = False
        self._thread: threading.Thread | None = None
        self._warm_texts: deque[str] = deque(maxlen=MAX_WARM_BACKLOG)  # full: the oldest go
        self._warm_thread: threading.Thread | None = None
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
                self._write_marks(dict.fromkeys(memory_ids, now))
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
            self._hurry = True
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
        if self._warm_thread is not None:
            self._warm_thread.join(timeout=5)
        for attempt in range(CLOSE_ATTEMPTS):
            try:
                self._write_once()
                break
            except Exception as exc:
                log.warning("background write failed at shutdown (try %d): %s", attempt + 1, exc)
        atexit.unregister(self._atexit)

    # the writes ------------------------------------------------------------------
    def _store_chats(self, batch: list[PendingChat]) -> None:
        """Write queued exchanges in one transaction, then queue them for pre-embedding."""
        self._write_chats(batch)
        with self._cond:
            if self._closed:  # shutting down: nobody will quote these any more
                return
            self._warm_texts.extend(t for chat in batch for t in (chat.prompt, chat.response))
            if self._warm_thread is None:
                self._warm_thread = threading.Thread(
                    target=self._warm_run, name="memoryd-warm", daemon=True
                )
                self._warm_thread.start()
            self._cond.notify_all()

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
                # let a burst's marks and chats gather: one transaction for all of them
                self._cond.wait_for(lambda: self._closed or self._hurry, BATCH_WAIT_S)
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

    def _warm_run(self) -> None:
        lower_thread_priority(WARM_NICENESS)
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._closed or self._warm_texts, timeout=None)
                if self._closed:
                    return
                text = self._warm_texts.popleft()
            self._quiet.wait_quiet(WARM_MAX_DEFER_S)
            self._warm(text)

    def _write_once(self) -> None:
        with self._cond:
            chats, self._chats = self._chats, []
            touches, self._touches = self._touches, {}
            self._busy = bool(chats or touches)
        try:
            if chats:
                self._store_chats(chats)  # one transaction: all of them or none
                chats = []
            if touches:
                self._write_marks(touches)
        except Exception:
            with self._cond:  # what was not written goes back (chats in front) for the retry
                self._chats[:0] = chats
                for memory_id, at in touches.items():
                    self._touches.setdefault(memory_id, at)
            raise
        finally:
            with self._cond:
                self._busy = False
                self._hurry = bool(self._hurry and (self._chats or self._touches))
                self._cond.notify_all()


def lower_thread_priority(by: int) -> None:
    """Raise the calling thread's niceness (Linux: per thread); a no-op where unsupported."""
    try:
        thread = threading.get_native_id()
        current = os.getpriority(os.PRIO_PROCESS, thread)
        os.setpriority(os.PRIO_PROCESS, thread, min(current + by, 19))
    except (AttributeError, OSError) as exc:
        log.debug("cannot lower the pre-embedding thread's priority: %s", exc)
