"""Attack class: reading another account's files on the same machine (issue 37 item 12).

What memoryd creates to hold users' data is private to the account running it: the data
directory and its SQLite database (with the WAL files SQLite adds), a database copy and
an export are 0700 folders and 0600 files, whatever the umask allows.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memoryd import Memoryd
from memoryd.domain.models import Scope
from memoryd.models.embedding.minilm import MiniLMEmbedder
from support.cli import Cli
from support.server import make_settings


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture(autouse=True)
def permissive_umask() -> Iterator[None]:
    """The common umask, under which files were created 0644 and folders 0755."""
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_a_new_data_directory_and_its_database_are_private(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    data_dir = tmp_path / "home" / "memoryd"
    md = Memoryd(settings=make_settings(tmp_path, data_dir=data_dir, database_url=None),
                 embedder=embedder)  # fmt: skip
    md.add_memory(md.create_user("alice").id, "Likes tea", Scope.GLOBAL)
    files = sorted(data_dir.iterdir())
    assert data_dir / "memoryd.db" in files
    assert {p.name: mode(p) for p in files} == {p.name: 0o600 for p in files}
    assert mode(data_dir) == mode(data_dir.parent) == 0o700
    md.close()


def test_an_export_and_a_database_copy_are_private(tmp_path: Path) -> None:
    cli = Cli(f"sqlite:///{tmp_path / 'source.db'}", CliRunner())
    cli.ok("users", "add", "alice")
    exported = tmp_path / "alice.jsonl"
    cli.ok("export", "--user", "alice", "-o", str(exported))
    assert mode(exported) == 0o600
    copy = tmp_path / "copies" / "copy.db"
    cli.ok("db", "copy", "--to", f"sqlite:///{copy}")
    assert mode(copy) == 0o600 and mode(copy.parent) == 0o700
