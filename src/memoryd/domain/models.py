"""The things memoryd talks about: users, workspaces, memories, chats, audit entries.

Plain frozen dataclasses, so every layer can pass them around and tests can build them
in one line. Storage converts rows to these; nothing here knows about SQL.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

# A string, so that this module -- and the HTTP client, memoryd.client, which uses it --
# does not load numpy (~50 ms): Vector is only ever used in annotations.
Vector: TypeAlias = "npt.NDArray[np.float32]"


class Scope(enum.StrEnum):
    GLOBAL = "global"
    WORKSPACE = "workspace"


class Role(enum.StrEnum):
    ADMIN = "admin"
    DEFAULT = "default"


class Source(enum.StrEnum):
    """Who wrote a memory or a change to it."""

    USER = "user"
    ADMIN = "admin"
    EXTRACTION = "extraction"
    IMPORT = "import"
    SYSTEM = "system"  # memoryd itself, e.g. deleting memories expired past their grace

    @property
    def words(self) -> str:
        """Where a memory with this source came from, as the web UI and the CLI say it."""
        return SOURCE_WORDS[self]


SOURCE_WORDS = {
    Source.USER: "Added by hand",
    Source.ADMIN: "Added by an admin",
    Source.EXTRACTION: "Learned from chats",
    Source.IMPORT: "Imported from a file",
    Source.SYSTEM: "Added by memoryd",
}


class AuditAction(enum.StrEnum):
    CREATE = "create"
    UPDATE = "update"
    DELETE = "delete"
    PROMOTE = "promote"
    DEMOTE = "demote"
    # recorded chats were deleted: the entry names no memory (``memory_id`` is empty) and
    # ``before`` says how many, where and their ids -- never their text
    DELETE_CHATS = "delete_chats"
    # one of a user's settings changed (``UserSetting``): no memory either; ``before`` and
    # ``after`` name the setting, where it applies and its value (memoryd.app.user_settings)
    CHANGE_SETTING = "change_setting"


class UserSetting(enum.StrEnum):
    """A user's switches over what memoryd learns from them and does for them, whose
    changes the audit log records (``AuditAction.CHANGE_SETTING``)."""

    LEARN_FROM_CHATS = "learn_from_chats"  # on / off
    MEMORY_REVIEW = "memory_review"  # their own review mode, or "default"
    LANGUAGE = "language"  # of their injected heading and web UI, or "default"
    ROLE = "role"  # admin / default
    MEMBERSHIP = "membership"  # of one workspace: member / not member (memoryd.app.memberships)


@dataclass(frozen=True)
class User:
    id: int
    name: str
    role: Role = Role.DEFAULT


@dataclass(frozen=True)
class Workspace:
    slug: str
    name: str


@dataclass(frozen=True)
class UserSummary:
    """A user as an admin's overview lists them: memory counts, usable workspaces and
    their own choices."""

    user: User
    global_memories: int
    workspace_memories: int  # in all workspaces together
    workspaces: tuple[str, ...]  # the slugs they may use (every workspace, for an admin)
    learn_from_chats: bool
    memory_review: str | None  # their own review mode; None follows the instance setting


@dataclass(frozen=True)
class Actor:
    """Who is making a change, recorded in the audit log."""

    kind: Source
    user_id: int | None = None
    run_id: str | None = None

    @property
    def label(self) -> str:
        if self.run_id is not None:
            return f"{self.kind.value}:{self.run_id}"
        if self.user_id is not None:
            return f"{self.kind.value}:{self.user_id}"
        return self.kind.value


@dataclass(frozen=True)
class Memory:
    id: str
    user_id: int
    scope: Scope
    workspace: str | None
    content: str
    source: Source
    created_at: datetime
    updated_at: datetime
    last_used_at: datetime | None = None
    source_chat_ids: tuple[int, ...] = ()
    embedding: Vector | None = field(default=None, repr=False, compare=False)
    embedder: str | None = field(default=None, repr=False, compare=False)
    expires_at: datetime | None = None
    run_id: str | None = None  # the extraction run that created it
    # questions an LLM wrote that the memory answers; None until the background pass asks
    questions: tuple[str, ...] | None = None
    # their vectors (one row per question) and the embedder that made them
    question_vectors: Vector | None = field(default=None, repr=False, compare=False)
    question_embedder: str | None = field(default=None, repr=False, compare=False)

    def is_expired(self, now: datetime) -> bool:
        """Past its "remember until": never injected, shown as expired, later deleted."""
        return self.expires_at is not None and self.expires_at <= now

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view (no vector)."""
        return json_ready(
            self,
            "id user_id scope workspace content source created_at updated_at last_used_at "
            "source_chat_ids expires_at run_id questions",
        )


def json_ready(item: object, keys: str) -> dict[str, Any]:
    """The attributes of ``item`` named in ``keys`` (space-separated), in that order, for
    JSON: enums by value, times in ISO 8601, tuples as lists."""
    return {key: _json_value(getattr(item, key)) for key in keys.split()}


def _json_value(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, datetime):
        return value.isoformat()
    return list(value) if isinstance(value, tuple) else value


class SuggestionKind(enum.StrEnum):
    CREATE = "create"
    UPDATE = "update"


class SuggestionStatus(enum.StrEnum):
    PENDING = "pending"
    ACCEPTED = "accepted"
    REJECTED = "rejected"


@dataclass(frozen=True)
class Suggestion:
    """A change extraction proposes and the user decides on (``memory_review``)."""

    id: str
    user_id: int
    kind: SuggestionKind
    scope: Scope
    workspace: str | None
    content: str
    created_at: datetime
    status: SuggestionStatus = SuggestionStatus.PENDING
    target_id: str | None = None
    target_content: str | None = None  # the memory's text when this was suggested
    expires_at: datetime | None = None
    source_chat_ids: tuple[int, ...] = ()
    run_id: str | None = None
    decided_at: datetime | None = None
    memory_id: str | None = None
    # the workspace its chats were in: its own for a workspace suggestion; for a global
    # one, that of its source chats while one is still stored (else None)
    origin: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return json_ready(
            self,
            "id user_id kind scope workspace content status target_id target_content "
            "expires_at source_chat_ids run_id created_at decided_at memory_id origin",
        )


@dataclass(frozen=True)
class Chat:
    id: int
    user_id: int
    workspace: str
    prompt: str
    response: str
    created_at: datetime
    memory_processed: bool = False


@dataclass(frozen=True)
class UsedMemory:
    """A memory injected into a recorded chat. ``memory`` is None once it was deleted
    (the chat keeps its id as a tombstone)."""

    id: str
    memory: Memory | None

    @property
    def deleted(self) -> bool:
        return self.memory is None


@dataclass(frozen=True)
class AuditEntry:
    id: int
    memory_id: str
    user_id: int
    action: AuditAction
    actor: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    at: datetime


@dataclass(frozen=True)
class ScoredMemory:
    memory: Memory
    score: float | None
