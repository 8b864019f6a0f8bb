"""Slowing down password guessing (sign-in and password change) without locking out the
account's owner: docs/security.md (*Sign-in throttle*) says how and what remains.

Failures count per account and address together and per address alone, and lock them
for a doubling delay past the free attempts; a locked attempt is refused (429) without
checking the password. Password checks (Argon2, deliberately slow) run in a bounded
number of worker threads, one per address, the address with the fewest failures first,
so a flood cannot take the threads other requests need. The counts live in the process.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from starlette.concurrency import run_in_threadpool

MAX_DELAY_S = 900.0
ADDRESS_FACTOR = 4
MAX_TRACKED = 100_000  # entries kept before the oldest are forgotten
MAX_WAITING = 1_000  # checks that may wait: one per address
T = TypeVar("T")


class Throttled(Exception):
    """Refused without checking: try again after ``retry_after`` seconds."""

    def __init__(self, retry_after: int, message: str) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def _too_many() -> Throttled:
    return Throttled(1, "too many sign-ins at once; try again in a second")


@dataclass
class _Count:
    failures: int = 0
    locked_until: float = 0.0


@dataclass(order=True)
class _Turn:
    """A password check waiting to run: the more failures its address has, the later."""

    failures: int
    seq: int
    ready: asyncio.Future[None] = field(compare=False)


class LoginThrottle:
    def __init__(
        self,
        *,
        free_attempts: int = 5,
        concurrency: int = 1,
        max_waiting: int = MAX_WAITING,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.free = free_attempts
        self.concurrency = concurrency
        self.clock = clock
        self._counts: dict[tuple[str, ...], _Count] = {}
        self._lock = threading.Lock()
        self._running = 0
        self.max_waiting = max_waiting
        self._waiting: list[_Turn] = []  # a heap
        self._checking: set[str] = set()  # addresses with a check waiting or running
        self._seq = itertools.count()

    def _keys(self, name: str, address: str | None) -> list[tuple[tuple[str, ...], int]]:
        account = name.casefold()
        if not address:
            return [(("user", account), self.free)]
        return [
            (("pair", account, address), self.free),
            (("addr", address), self.free * ADDRESS_FACTOR),
        ]

    def check(self, name: str, address: str | None) -> None:
        """Raise Throttled if this account from this address, or the address, is locked."""
        now = self.clock()
        with self._lock:
            waits = [
                count.locked_until - now
                for key, _ in self._keys(name, address)
                if (count := self._counts.get(key)) and count.locked_until > now
            ]
        if waits:
            wait = math.ceil(max(waits))
            raise Throttled(wait, f"too many failed sign-ins; try again in {wait} s")

    def record(self, name: str, address: str | None, *, ok: bool) -> None:
        now = self.clock()
        account = ("user", name.casefold())
        with self._lock:
            if len(self._counts) > MAX_TRACKED:
                self._counts.clear()
            if ok:  # the owner is in: their account and address start again
                self._counts.pop(account, None)
                self._counts.pop(("pair", name.casefold(), address or ""), None)
                return
            keys = self._keys(name, address)
            if address:  # counted per account too, for callers whose address is unknown
                keys.append((account, self.free))
            for key, free in keys:
                count = self._counts.setdefault(key, _Count())
                count.failures += 1
                over = count.failures - free
                if over > 0:
                    count.locked_until = now + min(2.0 ** (over - 1), MAX_DELAY_S)

    async def verify(
        self,
        check: Callable[[], T],
        recheck: Callable[[], None] | None = None,
        *,
        address: str | None = None,
    ) -> T:
        """Run the password check ``check`` in a thread, a bounded number at a time, the
        address with the fewest failures first; ``recheck`` (raising Throttled) runs
        again once it is this one's turn. One check per address waits or runs at a time.
        Runs on the event loop, so the queue needs no lock."""
        if address in self._checking:
            raise Throttled(1, "a sign-in from this address is being checked; try again")
        with self._lock:
            count = self._counts.get(("addr", address)) if address else None
        loop = asyncio.get_running_loop()
        turn = _Turn(count.failures if count else 0, next(self._seq), loop.create_future())
        if address:
            self._checking.add(address)
        try:
            if self._running < self.concurrency and not self._waiting:
                self._running += 1
            else:
                await self._wait(turn)
            try:
                if recheck is not None:
                    recheck()  # failures while this one waited may have locked it
                return await run_in_threadpool(check)
            finally:
                self._release()
        finally:
            self._checking.discard(address or "")

    async def _wait(self, turn: _Turn) -> None:
        """Queue ``turn`` until ``_release`` hands it a slot. When the queue is full, the
        waiting check from the address with the most failures is refused, or this one
        if its address has more."""
        if len(self._waiting) >= self.max_waiting:
            worst = max(self._waiting)
            if worst < turn:
                raise _too_many()
            self._waiting.remove(worst)
            heapq.heapify(self._waiting)
            worst.ready.set_exception(_too_many())
        heapq.heappush(self._waiting, turn)
        try:
            await turn.ready
        except asyncio.CancelledError:  # the client went away
            if turn.ready.done() and not turn.ready.cancelled():
                self._release()  # it was handed a slot: pass it on
            elif turn in self._waiting:
                self._waiting.remove(turn)
                heapq.heapify(self._waiting)
            raise

    def _release(self) -> None:
        self._running -= 1
        while self._waiting and self._running < self.concurrency:
            turn = heapq.heappop(self._waiting)
            if not turn.ready.done():
                turn.ready.set_result(None)
                self._running += 1
