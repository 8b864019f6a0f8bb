"""Results the library returns and the HTTP client rebuilds, as plain dataclasses.

``MemoryDetail`` (``Memoryd.memory_detail``), ``ImportResult`` (``Memoryd.import_memories``)
and the ``Preferences`` an import set are what both the library and ``memoryd.client``
hand back. They live in the domain, not beside the code that makes them
(``memoryd.app.lifecycle``, ``memoryd.app.transfer``, ``memoryd.app.transfer_preferences``, which
re-export them), so the client can build them without importing storage or SQLAlchemy.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from memoryd.domain.models import AuditEntry, Chat, Memory

# the names of the user's own choices in an export's preferences line (and in GET /me)
LEARN = "learn_from_chats"
REVIEW = "memory_review"
LANGUAGE = "language"


@dataclass(frozen=True)
class MemoryDetail:
    """One memory with its provenance: who made it, the chats it came from, history."""

    memory: Memory
    expired: bool
    created_by: str | None  # the actor of its first audit entry, e.g. "user:3"
    source_chats: tuple[Chat, ...]
    history: tuple[AuditEntry, ...]
    # the ids in ``memory.source_chat_ids`` no longer stored: chats deleted since, or
    # recorded on another server before an import
    deleted_source_chat_ids: tuple[int, ...] = ()
    # source chats left out of ``source_chats`` because the caller may not open their
    # workspace: always 0 from the library, which shows every chat; a server's count
    hidden_source_chats: int = 0


@dataclass(frozen=True)
class Preferences:
    """What a preferences line says; None: the line leaves that choice as it is."""

    learn_from_chats: bool | None = None
    memory_review: str | None = None  # "default" or one of REVIEW_MODES
    language: str | None = None  # "default", "auto" or a language code (memoryd.app.i18n)

    def to_dict(self) -> dict[str, bool | str]:
        """The choices the line makes, by their names in the file."""
        said: dict[str, bool | str | None] = {
            LEARN: self.learn_from_chats,
            REVIEW: self.memory_review,
            LANGUAGE: self.language,
        }
        return {key: value for key, value in said.items() if value is not None}


@dataclass
class ImportResult:
    """What an import did: counts of memories and chats, workspaces it made, choices set."""

    created: int = 0
    updated: int = 0
    skipped_duplicates: int = 0
    unchanged: int = 0  # lines updating a memory of the user to exactly what it is
    workspaces_created: list[str] = field(default_factory=list)
    preferences: Preferences | None = None  # the choices this import set, if any
    chats_created: int = 0
    chats_skipped: int = 0  # already on the target (same workspace, time and text)
