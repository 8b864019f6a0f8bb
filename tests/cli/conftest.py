"""Fixtures for the CLI tests: a runner bound to a fresh SQLite file, and seeded users.

Commands run in-process through typer's CliRunner (test_cli_executable.py runs the
installed ``memoryd`` executable instead). Every call passes ``--db`` explicitly and
``MEMORYD_DATABASE_URL`` is cleared, so nothing touches the real user data directory.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from support.cli import Cli
from support.databases import at_head


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    return Cli(f"sqlite:///{tmp_path / 'x.db'}", CliRunner())


@pytest.fixture
def alice(cli: Cli) -> str:
    """Users alice and bob, both members of workspaces phoenix and atlas; returns 'alice'."""
    at_head(cli.url)  # the database the first command would create, as a migrated copy
    cli.ok("users", "add", "alice")
    cli.ok("users", "add", "bob")
    cli.ok("workspaces", "add", "phoenix", "--name", "Project Phoenix")
    cli.ok("workspaces", "add", "atlas")
    for slug in ("phoenix", "atlas"):
        for name in ("alice", "bob"):
            cli.ok("workspaces", "members", "add", slug, name)
    return "alice"
