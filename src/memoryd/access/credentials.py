"""Who is calling: passwords, browser sessions, API keys and workspace membership.

A credential becomes a user here, whatever carried it (the server reads it from a
request's headers or cookie, ``memoryd.server.deps``; ``memoryd mcp`` is given a user).
Passwords are hashed with Argon2id (argon2-cffi's defaults, rehashed on login when those
change). Session tokens and API keys are long random strings, so the database keeps only
their SHA-256: a leaked table does not let anyone in, and a lookup stays one indexed read.
Workspace membership decides which workspaces a default user may use; admins use all.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cached_property

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from memoryd.app.memberships import require_room, set_membership
from memoryd.domain.errors import InvalidInput, NotFound
from memoryd.domain.models import Actor, Role, User, Workspace
from memoryd.storage import credentials as rows
from memoryd.storage.catalog import Catalog
from memoryd.storage.credentials import ApiKey
from memoryd.storage.database import Database
from memoryd.storage.membership import Memberships, has_membership

API_KEY_PREFIX = "mdk_"
MIN_PASSWORD_CHARS = 8
MAX_PASSWORD_CHARS = 1024
MAX_KEY_NAME_CHARS = 100
log = logging.getLogger("memoryd.auth")

KEY_USE_PRECISION = timedelta(minutes=1)  # how stale api_keys.last_used_at may be
# how long after the request's own cache check a cached membership is trusted unchecked
CACHE_TRUST_S = 0.25


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def validate_password(password: object) -> str:
    if not isinstance(password, str):
        raise InvalidInput("password must be text")
    if len(password) < MIN_PASSWORD_CHARS:
        raise InvalidInput(f"password must be at least {MIN_PASSWORD_CHARS} characters")
    if len(password) > MAX_PASSWORD_CHARS:
        raise InvalidInput(f"password must be at most {MAX_PASSWORD_CHARS} characters")
    return password


def validate_key_name(name: object) -> str:
    if not isinstance(name, str) or not name.strip():
        raise InvalidInput("an API key needs a name (what it is for)")
    if len(name) > MAX_KEY_NAME_CHARS or any(ord(ch) < 32 for ch in name):
        raise InvalidInput(f"API key name must be one line of at most {MAX_KEY_NAME_CHARS} chars")
    return name.strip()


@dataclass(frozen=True)
class NewApiKey:
    """A just-created key: ``secret`` is shown once and never stored."""

    key: ApiKey
    secret: str


@dataclass(frozen=True)
class Session:
    token: str
    user: User
    csrf_token: str
    expires_at: datetime


class AuthStore:
    """Credentials, sessions, API keys and memberships in memoryd's database."""

    def __init__(
        self,
        db: Database,
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        hasher: PasswordHasher | None = None,
        catalog: Catalog | None = None,
    ) -> None:
        self.db = db
        self.catalog = catalog
        self.clock = clock
        self.hasher = hasher or PasswordHasher()  # Argon2id, RFC 9106 low-memory profile
        self._key_used: dict[str, datetime] = {}  # when this process last wrote last_used_at
        self._key_writes = ThreadPoolExecutor(1, thread_name_prefix="memoryd-key-use")
        self.memberships = Memberships(db, clock=clock)

    @cached_property
    def _dummy(self) -> str:
        """Verified when the user does not exist, so a wrong name costs as much as a
        wrong password."""
        return self.hasher.hash(secrets.token_urlsafe(16))

    # passwords ------------------------------------------------------------------
    def set_password(self, user_id: int, password: str) -> None:
        hashed = self.hasher.hash(validate_password(password))
        now = self.clock()
        with self.db.write() as repo:
            if repo.get_user(user_id) is None:
                raise NotFound(f"no user with id {user_id!r}")
            rows.set_password_hash(repo.conn, user_id, hashed, now)  # signs browsers out

    def has_password(self, user_id: int) -> bool:
        with self.db.read() as repo:
            return rows.password_hash(repo.conn, user_id) is not None

    def authenticate(self, name: str, password: str) -> User | None:
        """The user if name and password match, else None (same cost either way)."""
        with self.db.read() as repo:
            found = rows.user_and_hash(repo.conn, name)
        stored = found[1] if found is not None else None
        try:
            self.hasher.verify(stored or self._dummy, password)
        except (VerificationError, InvalidHashError):
            return None
        if found is None or stored is None:
            return None
        if self.hasher.check_needs_rehash(stored):
            self.set_password(found[0].id, password)
        return found[0]

    # sessions -------------------------------------------------------------------
    def create_session(self, user_id: int, days: int) -> Session:
        token = secrets.token_urlsafe(32)
        csrf = secrets.token_urlsafe(32)
        now = self.clock()
        expires = now + timedelta(days=days)
        with self.db.write() as repo:
            user = repo.get_user(user_id)
            if user is None:
                raise NotFound(f"no user with id {user_id!r}")
            rows.insert_session(repo.conn, sha256(token), user_id, csrf, now, expires)
        return Session(token, user, csrf, expires)

    def session(self, token: str) -> Session | None:
        with self.db.read() as repo:
            found = rows.session_of(repo.conn, sha256(token))
        if found is None or found[2] <= self.clock():
            return None
        return Session(token, *found)

    def end_session(self, token: str) -> None:
        with self.db.write() as repo:
            rows.delete_session(repo.conn, sha256(token))

    # API keys -------------------------------------------------------------------
    def create_api_key(self, user_id: int, name: str) -> NewApiKey:
        name = validate_key_name(name)
        secret = API_KEY_PREFIX + secrets.token_urlsafe(32)
        now = self.clock()
        key = ApiKey(uuid.uuid4().hex[:12], user_id, name, secret[:12], now, None, None)
        with self.db.write() as repo:
            if repo.get_user(user_id) is None:
                raise NotFound(f"no user with id {user_id!r}")
            rows.insert_api_key(repo.conn, key, sha256(secret))
        return NewApiKey(key, secret)

    def list_api_keys(self, user_id: int) -> list[ApiKey]:
        with self.db.read() as repo:
            return rows.api_keys_of(repo.conn, user_id)

    def revoke_api_key(self, user_id: int, key_id: str) -> ApiKey:
        """Revoke one of this user's keys; another user's key is simply not found."""
        with self.db.write() as repo:
            revoked = rows.revoke_api_key(repo.conn, user_id, key_id, self.clock())
        if revoked is None:
            raise NotFound(f"no API key {key_id!r} for this user")
        return revoked

    def revoke_all_api_keys(self, user_id: int) -> int:
        """Revoke every key of this user; how many were still active."""
        with self.db.write() as repo:
            return rows.revoke_api_keys(repo.conn, user_id, self.clock())

    def user_for_api_key(self, secret: str) -> User | None:
        """The key's user, or None if unknown or revoked. With a catalog, known keys are
        cached, but the cache version is read every time: a revocation (or a change of
        the user) applies to the very next request, in every process."""
        if not secret.startswith(API_KEY_PREFIX):
            return None
        digest = sha256(secret)
        with self.db.read() as repo:
            version = self.catalog.check(repo.conn) if self.catalog else None
            cached = self.catalog.get("keys", digest) if self.catalog is not None else None
            if cached is None:
                cached = rows.key_user(repo.conn, digest)
                if cached is None:
                    return None
                if self.catalog is not None:
                    self.catalog.put("keys", digest, cached, version)
        user, key_id, last_used = cached
        self._note_key_use(key_id, last_used)
        return user

    def cached_key_user(self, secret: str) -> tuple[User, Callable[[], bool]] | None:
        """The key's user from this process's cache alone (no database read), with a
        ``confirm`` to call once something in the same request has read the cache
        version (a chat turn's statement does): True if nothing changed since the key
        was cached, i.e. the key was still valid at that read. None when the key is not
        cached; ``user_for_api_key`` answers then."""
        catalog = self.catalog
        if catalog is None or not secret.startswith(API_KEY_PREFIX):
            return None
        digest = sha256(secret)
        entry = catalog.get("keys", digest)
        if entry is None:
            return None
        user, key_id, last_used = entry

        def confirm() -> bool:
            # any change empties the cache (Catalog.sync), so the same entry object
            # means the version that validated the key is the one read since
            if catalog.get("keys", digest) is not entry:
                return False
            self._note_key_use(key_id, last_used)
            return True

        return user, confirm

    def _note_key_use(self, key_id: str, stored: datetime | None) -> None:
        """Set ``api_keys.last_used_at``, at most once a minute per key, off the request's
        path (a write can wait for the database's write lock)."""
        now = self.clock()
        seen = self._key_used.get(key_id, stored)
        if seen is not None and now - seen < KEY_USE_PRECISION:
            return
        self._key_used[key_id] = now
        self._key_writes.submit(self._write_key_use, key_id, now)

    def _write_key_use(self, key_id: str, now: datetime) -> None:
        try:
            with self.db.write() as repo:
                rows.note_key_use(repo.conn, key_id, now)
        except Exception as exc:  # only a usage timestamp: never worth failing over
            log.warning("could not record when API key %s was used: %s", key_id, exc)

    # workspace membership (stored by memoryd.storage.membership; cached here) -------
    def add_member(self, slug: str, user_id: int, actor: Actor | None = None) -> bool:
        """Let a user into a workspace (False, and nothing recorded, when already a
        member); see ``memoryd.app.memberships`` for the audit entry and ``actor``."""
        return set_membership(self.db, self.clock, slug, user_id, True, actor)

    def remove_member(self, slug: str, user_id: int, actor: Actor | None = None) -> None:
        set_membership(self.db, self.clock, slug, user_id, False, actor)

    def members(self, slug: str) -> list[User]:
        return self.memberships.members(slug)

    def workspaces_of(self, user: User) -> list[Workspace]:
        """The workspaces this user may use: all of them for an admin."""
        return self.memberships.workspaces_of(user)

    def is_member(self, user: User, slug: str) -> bool:
        if user.role is Role.ADMIN:
            return True
        catalog = self.catalog
        fresh = catalog is not None and catalog.checked_within(CACHE_TRUST_S)
        if fresh and catalog is not None and catalog.get("members", (user.id, slug)):
            return True
        with self.db.read() as repo:
            version = catalog.check(repo.conn) if catalog is not None else None
            member = has_membership(repo.conn, user.id, slug)
        if member and catalog is not None:
            catalog.put("members", (user.id, slug), True, version)
        return member

    def check_workspace_quota(self, user: User, adding: int, limit: int) -> None:
        """Refuse a default user joining ``adding`` more workspaces beyond ``limit``
        (early, to refuse before any work; the join counts again in its transaction)."""
        if user.role is Role.ADMIN or adding <= 0:
            return
        with self.db.read() as repo:
            require_room(repo, user.id, adding, limit)

    def count_admins(self) -> int:
        with self.db.read() as repo:
            return rows.count_admins(repo.conn)
