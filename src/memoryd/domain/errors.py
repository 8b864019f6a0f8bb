"""The exceptions memoryd raises, one type per broken rule.

Every layer (library, REST API, CLI) maps these to its own way of saying no:
an HTTP status, an exit code. Messages are written for the person who hit them.
"""

from __future__ import annotations


class MemorydError(Exception):
    """Base class of every error memoryd raises on purpose."""


class NotFound(MemorydError):
    """A user, workspace or memory does not exist (or is not yours to see)."""


class InvalidContent(MemorydError):
    """Memory text breaks the content rules (empty, too long, control characters...)."""


class DuplicateMemory(MemorydError):
    """The same text already exists in the same scope."""


class ScopeFull(MemorydError):
    """The target scope has reached its limit; delete a memory first."""

    def __init__(self, message: str, *, scope: str, limit: int) -> None:
        super().__init__(message)
        self.scope = scope
        self.limit = limit


class InvalidScope(MemorydError):
    """A scope/workspace combination that makes no sense (e.g. workspace scope, no workspace)."""


class AlreadyExists(MemorydError):
    """A user or workspace with that name already exists."""


class InvalidInput(MemorydError):
    """Any other bad argument: a malformed export line, an unknown setting."""


class PermissionDenied(MemorydError):
    """The actor may not do this (e.g. a default user acting on another user)."""


class AdminOnly(PermissionDenied):
    """Only an admin may do this (manage users and workspaces, run extraction, act on
    another user's memories)."""
