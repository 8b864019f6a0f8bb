"""``memoryd --help`` answers at once: no command module imports the library at load time.

Issue 38: ``memoryd --help`` took about two seconds, most of it importing SQLAlchemy,
numpy, onnxruntime and FastAPI that printing help never uses. typer builds every command
to print the root help, so every command module and ``memoryd.cli.common`` import them
only inside the functions that need them.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from support.processes import memoryd_env

HEAVY = ("sqlalchemy", "numpy", "onnxruntime", "fastapi", "pydantic_settings", "alembic", "mcp")
PROBE = """
import sys
from pathlib import Path
from memoryd.cli.app import main
sys.argv = ["memoryd", *sys.argv[1:]]
try:
    main()
except SystemExit as exc:
    assert exc.code in (0, None), exc.code
print(" ".join(sorted(m for m in {heavy!r} if m in sys.modules)), file=sys.stderr)
"""


@pytest.mark.parametrize(
    "args", [["--help"], ["--version"], ["runs", "--help"], ["memories", "add", "--help"]]
)
def test_help_imports_nothing_heavy(args: list[str]) -> None:
    probe = PROBE.format(heavy=HEAVY)
    done = subprocess.run(
        [sys.executable, "-c", probe, *args], capture_output=True, env=memoryd_env(), timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()  # the help (or the version) was printed
    assert done.stderr.decode().strip() == ""  # none of HEAVY was imported


def test_the_probe_sees_a_command_that_opens_the_database(tmp_path: Path) -> None:
    """The check can fail: a command that runs imports SQLAlchemy, and the probe says so."""
    probe = PROBE.format(heavy=HEAVY)
    url = f"sqlite:///{tmp_path}/x.db"
    done = subprocess.run(
        [sys.executable, "-c", probe, "users", "list", "--db", url],
        capture_output=True,
        env=memoryd_env(),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "sqlalchemy" in done.stderr.decode().split()
