"""The rows behind signing in: password hashes, browser sessions and API keys.

``memoryd.access.credentials`` decides (hashing, tokens, caching); tokens and keys arrive
here already hashed: their secrets are never stored.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Row, delete, func, insert, select, update
from sqlalchemy.engine import Connection

from memoryd.domain.models import Role, User, json_ready
from memoryd.storage.repository import user_of
from memoryd.storage.tables import api_keys, sessions, user_credentials, users


@dataclass(frozen=True)
class ApiKey:
    id: str
    user_id: int
    name: str
    prefix: str
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None

    def to_dict(self) -> dict[str, object]:
        shown = json_ready(self, "id user_id name prefix created_at last_used_at")
        return {**shown, "revoked": self.revoked_at is not None}


def _api_key(r: Row[Any]) -> ApiKey:
    return ApiKey(r.id, r.user_id, r.name, r.prefix, r.created_at, r.last_used_at, r.revoked_at)


# passwords ------------------------------------------------------------------------
def set_password_hash(conn: Connection, user_id: int, hashed: str, now: datetime) -> None:
    """Store the user's password hash and sign every browser of theirs out."""
    changed = conn.execute(
        update(user_credentials)
        .where(user_credentials.c.user_id == user_id)
        .values(password_hash=hashed, updated_at=now)
    ).rowcount
    if not changed:
        conn.execute(
            insert(user_credentials).values(user_id=user_id, password_hash=hashed, updated_at=now)
        )
    conn.execute(delete(sessions).where(sessions.c.user_id == user_id))


def password_hash(conn: Connection, user_id: int) -> str | None:
    query = select(user_credentials.c.password_hash).where(user_credentials.c.user_id == user_id)
    found = conn.execute(query).scalar_one_or_none()
    return None if found is None else str(found)


def user_and_hash(conn: Connection, name: str) -> tuple[User, str | None] | None:
    """The user of this name and their password hash (None: no password), or None."""
    row = conn.execute(
        select(users, user_credentials.c.password_hash)
        .select_from(users.outerjoin(user_credentials))
        .where(users.c.name == name)
    ).first()
    return None if row is None else (user_of(row), row.password_hash)


def count_admins(conn: Connection) -> int:
    query = select(func.count()).where(users.c.role == Role.ADMIN.value)
    return int(conn.execute(query).scalar_one())


# sessions -------------------------------------------------------------------------
def insert_session(
    conn: Connection, token_hash: str, user_id: int, csrf: str, now: datetime, expires: datetime
) -> None:
    """Store a session, dropping every session expired by ``now`` on the way."""
    conn.execute(delete(sessions).where(sessions.c.expires_at < now))
    conn.execute(
        insert(sessions).values(
            token_hash=token_hash,
            user_id=user_id,
            csrf_token=csrf,
            created_at=now,
            expires_at=expires,
        )
    )


def session_of(conn: Connection, token_hash: str) -> tuple[User, str, datetime] | None:
    """The session's user, CSRF token and expiry (expired or not), or None."""
    row = conn.execute(
        select(users, sessions.c.csrf_token, sessions.c.expires_at)
        .select_from(sessions.join(users))
        .where(sessions.c.token_hash == token_hash)
    ).first()
    return None if row is None else (user_of(row), row.csrf_token, row.expires_at)


def delete_session(conn: Connection, token_hash: str) -> None:
    conn.execute(delete(sessions).where(sessions.c.token_hash == token_hash))


# API keys -------------------------------------------------------------------------
def insert_api_key(conn: Connection, key: ApiKey, key_hash: str) -> None:
    conn.execute(
        insert(api_keys).values(
            id=key.id,
            user_id=key.user_id,
            name=key.name,
            prefix=key.prefix,
            key_hash=key_hash,
            created_at=key.created_at,
        )
    )


def api_keys_of(conn: Connection, user_id: int) -> list[ApiKey]:
    query = (
        select(api_keys)
        .where(api_keys.c.user_id == user_id)
        .order_by(api_keys.c.created_at, api_keys.c.id)
    )
    return [_api_key(r) for r in conn.execute(query)]


def revoke_api_key(conn: Connection, user_id: int, key_id: str, now: datetime) -> ApiKey | None:
    """Revoke this user's key (kept as it was when already revoked); None when the user
    has no such key."""
    mine = (api_keys.c.id == key_id, api_keys.c.user_id == user_id)
    conn.execute(
        update(api_keys).where(*mine, api_keys.c.revoked_at.is_(None)).values(revoked_at=now)
    )
    row = conn.execute(select(api_keys).where(*mine)).first()
    return None if row is None else _api_key(row)


def revoke_api_keys(conn: Connection, user_id: int, now: datetime) -> int:
    """Revoke every active key of this user; how many there were."""
    query = update(api_keys).where(api_keys.c.user_id == user_id, api_keys.c.revoked_at.is_(None))
    return int(conn.execute(query.values(revoked_at=now)).rowcount)


def key_user(conn: Connection, key_hash: str) -> tuple[User, str, datetime | None] | None:
    """An active key's user, the key's id and when it was last used; None when the key
    is unknown or revoked."""
    row = conn.execute(
        select(users, api_keys.c.id.label("key_id"), api_keys.c.last_used_at)
        .select_from(api_keys.join(users))
        .where(api_keys.c.key_hash == key_hash, api_keys.c.revoked_at.is_(None))
    ).first()
    return None if row is None else (user_of(row), row.key_id, row.last_used_at)


def note_key_use(conn: Connection, key_id: str, now: datetime) -> None:
    conn.execute(update(api_keys).where(api_keys.c.id == key_id).values(last_used_at=now))
