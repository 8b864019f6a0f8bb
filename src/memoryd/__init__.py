"""memoryd: persistent per-user memory for LLM chat.

Global facts about a person and facts per workspace, injected into the system prompt at
every turn and learned from past chats. Start with :class:`Memoryd`.
"""

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
from memoryd.domain.rules import Limits
from memoryd.hookspecs import hookimpl
from memoryd.service import Memoryd
from memoryd.transfer import ImportResult

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
