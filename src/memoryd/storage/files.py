"""Files and folders that hold users' data are private to the account running memoryd.

A SQLite database (and its copy by ``memoryd db copy``) and an export hold every memory
and chat of a user; created with the process's umask they were readable by every account
on the machine. What memoryd creates for them is 0700 (folders) and 0600 (files); what
exists already keeps its mode, since it was someone's choice.
"""

from __future__ import annotations

import os
from contextlib import suppress
from pathlib import Path

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600


def private_dirs(path: Path) -> None:
    """Create ``path`` and each missing folder above it with mode 0700."""
    missing: list[Path] = []
    while not path.exists() and path != path.parent:
        missing.append(path)
        path = path.parent
    for folder in reversed(missing):
        folder.mkdir(mode=PRIVATE_DIR, exist_ok=True)


def create_private(path: Path) -> None:
    """Create ``path`` empty with mode 0600, unless it exists."""
    with suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE))


def open_private(path: Path) -> int:
    """A file descriptor for writing ``path`` from its start; a missing file is created
    with mode 0600. OSError as ``os.open`` raises it."""
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE)
