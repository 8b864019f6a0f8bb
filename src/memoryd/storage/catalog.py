"""Per-process caches of the lookups every request repeats, kept correct by one counter.

Users, workspace ids, settings, API keys and memberships change rarely, so each process
keeps them in memory, valid for one version of the ``cache_epoch`` row, which triggers
raise on every change to them (migration 0005). Whoever reads the version calls ``sync``:
a different version empties the caches. The version lives in the database, so this holds
across worker processes and hosts. Only facts found true are cached, and each cache is
bounded, so bad input cannot grow memory.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import Connection

from memoryd.storage.tables import cache_epoch

MAX_ENTRIES = 50_000
_VERSION = select(cache_epoch.c.version).where(cache_epoch.c.id == 1)


class Catalog:
    """The caches of one process (thread-safe); see the module docstring."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.version: int | None = None
        self._checked_at = float("-inf")
        self._maps: dict[str, dict[Any, Any]] = {
            "users": {},  # user id -> their own language, "" for the server's (exists)
            "workspaces": {},  # slug -> workspace id
            "keys": {},  # sha256 of an API key -> User
            "members": {},  # (user id, slug) -> True
            "settings": {},  # None -> the settings table as a dict
        }

    def sync(self, version: int) -> bool:
        """Adopt ``version`` (emptying the caches if it differs); True if it was current."""
        with self._lock:
            self._checked_at = time.monotonic()
            if version == self.version:
                return True
            for entries in self._maps.values():
                entries.clear()
            self.version = version
            return False

    def check(self, conn: Connection) -> int:
        """Read the version now and drop anything cached under an older one."""
        version = int(conn.execute(_VERSION).scalar_one())
        self.sync(version)
        return version

    def checked_within(self, seconds: float) -> bool:
        """Whether ``check`` ran this recently (the server checks once per request, at
        authentication, and lookups later in that request trust that check)."""
        return time.monotonic() - self._checked_at <= seconds

    def get(self, kind: str, key: Any) -> Any:
        return self._maps[kind].get(key)

    def put(self, kind: str, key: Any, value: Any, version: int | None) -> None:
        """Remember ``value`` if it was read at (or after reading) the current version."""
        with self._lock:
            if version is None or version != self.version:
                return
            entries = self._maps[kind]
            if len(entries) >= MAX_ENTRIES:
                entries.clear()
            entries[key] = value
