"""The ``Cli`` helper the CLI tests drive ``memoryd`` with (imported by conftest and tests)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from typer.testing import CliRunner, Result

from memoryd.cli.app import app


@dataclass
class Cli:
    url: str
    runner: CliRunner

    def run(self, *args: str, input: str | bytes | None = None, db: str | None = None) -> Result:
        """Run ``memoryd ARGS --db URL``; exceptions are captured, never raised."""
        return self.runner.invoke(
            app,
            [*args, "--db", db or self.url],
            input=input,
            env={"MEMORYD_DATABASE_URL": None, "COLUMNS": "250", "MEMORYD_DEBUG": None},
        )

    def ok(self, *args: str, input: str | bytes | None = None, db: str | None = None) -> Result:
        result = self.run(*args, input=input, db=db)
        assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
        return result

    def json(self, *args: str, db: str | None = None) -> Any:
        return json.loads(self.ok(*args, "--json", db=db).stdout)

    def fails(self, *args: str, input: str | bytes | None = None, db: str | None = None) -> str:
        """Run a command that must be refused: exit 2 and one ``error:`` line on stderr."""
        result = self.run(*args, input=input, db=db)
        assert result.exit_code == 2, (result.stdout, result.stderr, result.exception)
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
        assert "Traceback" not in result.output
        return lines[0]

    def memories(self, user: str = "alice", *args: str) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = self.json("memories", "list", "--user", user, *args)
        return found

    def contents(self, user: str = "alice", *args: str) -> list[str]:
        return [m["content"] for m in self.memories(user, *args)]


def memory_line(memory_id: str, content: str) -> str:
    """One line in the export format, for importing memories with chosen ids."""
    return json.dumps(
        {
            "id": memory_id,
            "scope": "global",
            "workspace": None,
            "content": content,
            "source": "user",
            "created_at": "2026-01-01T00:00:00+00:00",
            "updated_at": "2026-01-01T00:00:00+00:00",
            "last_used_at": None,
            "source_chat_ids": [],
        }
    )
