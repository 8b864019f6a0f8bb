"""memoryd: persistent per-user memory for LLM chat.

Global facts about a person and facts per workspace, injected into the system prompt at
every turn and learned from past chats. Start with :class:`Memoryd`.

``Memoryd`` is loaded on first use (PEP 562 ``__getattr__``), so ``import memoryd.client``
-- a remote server's HTTP client, which needs only the domain -- does not load the
library, its storage and SQLAlchemy. (``ImportResult`` is a plain domain dataclass,
``memoryd.domain.results``, so it is imported at once.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memoryd.domain.errors import (
    AlreadyExists,
    DuplicateMemory,
    InvalidContent,
    InvalidInput,
    InvalidScope,
    MemorydError,
    NotFound,
    PermissionDenied,
    ScopeFull,
)
from memoryd.domain.injection import SECTION_HEADING, Query, Turn
from memoryd.domain.models import (
    Actor,
    AuditAction,
    AuditEntry,
    Chat,
    Memory,
    Role,
    Scope,
    ScoredMemory,
    Source,
    User,
    Workspace,
)
from memoryd.domain.results import ImportResult
from memoryd.domain.rules import Limits
from memoryd.plugins.hookspecs import hookimpl

if TYPE_CHECKING:
    from memoryd.app.service import Memoryd

__version__ = "0.1.0"

__all__ = [
    "SECTION_HEADING",
    "Actor",
    "AlreadyExists",
    "AuditAction",
    "AuditEntry",
    "Chat",
    "DuplicateMemory",
    "ImportResult",
    "InvalidContent",
    "InvalidInput",
    "InvalidScope",
    "Limits",
    "Memory",
    "Memoryd",
    "MemorydError",
    "NotFound",
    "PermissionDenied",
    "Query",
    "Role",
    "Scope",
    "ScopeFull",
    "ScoredMemory",
    "Source",
    "Turn",
    "User",
    "Workspace",
    "__version__",
    "hookimpl",
]


# Hidden from mypy: a module-level __getattr__ would make it accept any name as memoryd's.
if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        """``Memoryd``, imported (with the whole library) the first time it is asked for."""
        if name == "Memoryd":
            from memoryd.app.service import Memoryd

            globals()[name] = Memoryd
            return Memoryd
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted({*globals(), *__all__})
