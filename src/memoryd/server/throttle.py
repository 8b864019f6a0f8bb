"""Slowing down password guessing (sign-in and password change).

Failures are counted per account name and per client address. The first
``MEMORYD_LOGIN_ATTEMPTS`` failures are free (four times that for an address, which many
people may share); after that each further failure locks the account or address for a
delay that doubles, from 1 second up to 15 minutes. A locked attempt is answered 429
with ``Retry-After`` without checking the password at all, so a flood costs the server
nothing; a success clears the account's count. Password checks (Argon2, deliberately
slow) run in worker threads, at most ``MEMORYD_LOGIN_CONCURRENCY`` at a time, so a flood
cannot take the threads every other request needs; when too many wait, the rest get 429.

The counts live in the process: each server worker counts on its own (so with N
workers an attacker gets N times the free attempts) and a restart forgets them.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from starlette.concurrency import run_in_threadpool

MAX_DELAY_S = 900.0
ADDRESS_FACTOR = 4
MAX_TRACKED = 100_000  # entries kept before the oldest are forgotten
T = TypeVar("T")


class Throttled(Exception):
    """Refused without checking: try again after ``retry_after`` seconds."""

    def __init__(self, retry_after: int, message: str) -> None:
        super().__init__(message)
        self.retry_after = retry_after


@dataclass
class _Count:
    failures: int = 0
    locked_until: float = 0.0


class LoginThrottle:
    def __init__(
        self,
        *,
        free_attempts: int = 5,
        concurrency: int = 1,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.free = free_attempts
        self.concurrency = concurrency
        self.clock = clock
        self._counts: dict[str, _Count] = {}
        self._lock = threading.Lock()
        self._semaphore: asyncio.Semaphore | None = None
        self._waiting = 0

    def _keys(self, name: str, address: str | None) -> list[tuple[str, int]]:
        keys = [(f"user:{name.casefold()}", self.free)]
        if address:
            keys.append((f"addr:{address}", self.free * ADDRESS_FACTOR))
        return keys

    def check(self, name: str, address: str | None) -> None:
        """Raise Throttled if this account or address is locked now."""
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
        with self._lock:
            if len(self._counts) > MAX_TRACKED:
                self._counts.clear()
            for key, free in self._keys(name, address):
                if ok and key.startswith("user:"):
                    self._counts.pop(key, None)
                    continue
                if ok:
                    continue
                count = self._counts.setdefault(key, _Count())
                count.failures += 1
                over = count.failures - free
                if over > 0:
                    count.locked_until = now + min(2.0 ** (over - 1), MAX_DELAY_S)

    async def verify(self, check: Callable[[], T], recheck: Callable[[], None] | None = None) -> T:
        """Run the password check ``check`` in a thread, a bounded number at a time;
        ``recheck`` (raising Throttled) runs again once it is this one's turn."""
        if self._semaphore is None:
            self._semaphore = asyncio.Semaphore(self.concurrency)
        if self._waiting >= self.concurrency * 8:
            raise Throttled(1, "too many sign-ins at once; try again in a second")
        self._waiting += 1
        try:
            async with self._semaphore:
                if recheck is not None:
                    recheck()  # failures while this one waited may have locked it
                return await run_in_threadpool(check)
        finally:
            self._waiting -= 1
