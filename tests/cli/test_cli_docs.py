"""docs/cli.md is the full reference and cannot drift; ``--help`` shows flags as flags."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
import typer
from typer.core import TyperGroup
from typer.testing import CliRunner

from memoryd.cli.app import app
from memoryd.cli.reference import BEGIN, END, update, walk

DOC = Path(__file__).resolve().parents[2] / "docs" / "cli.md"
COMMANDS = [" ".join(path) for path, _ in walk(typer.main.get_command(app), ("memoryd",))]


def test_cli_md_holds_the_generated_reference() -> None:
    current = DOC.read_text(encoding="utf-8")
    assert current.count(BEGIN) == 1 and current.count(END) == 1
    assert update(current, app) == current, (
        "docs/cli.md is stale: run python scripts/gen_cli_docs.py"
    )


def test_every_command_has_a_section() -> None:
    current = DOC.read_text(encoding="utf-8")
    for command in COMMANDS[1:]:
        assert f"\n### {command}\n" in current, command
    for once_missing in ("apikey create", "extract", "runs", "serve", "worker", "users passwd"):
        assert f"### memoryd {once_missing}\n" in current
    assert "workspaces members add" in current


def test_an_edited_reference_is_stale() -> None:
    """The check can fail: a reference that says something the app does not differs."""
    current = DOC.read_text(encoding="utf-8")
    stale = current.replace("Make the user an admin.", "Make the user a superuser.")
    assert stale != current
    assert update(stale, app) == current


@pytest.mark.parametrize("command", COMMANDS)
def test_help_shows_no_bool_placeholder(command: str) -> None:
    args = [*command.split()[1:], "--help"]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "<bool>" not in result.stdout
    if "--json" in result.stdout:
        line = next(ln for ln in result.stdout.splitlines() if "--json" in ln)
        assert "Print JSON instead of text." in line


TREE = list(walk(typer.main.get_command(app), ("memoryd",)))
GROUPS = [path for path, command in TREE if isinstance(command, TyperGroup)]


@pytest.mark.parametrize("group", GROUPS, ids=" ".join)
def test_command_lists_show_each_summary_on_its_own_lines(group: tuple[str, ...]) -> None:
    """A group's command list prints each command's first docstring paragraph as is: a
    hard line break there shows as a broken sentence at any terminal width."""
    listed = [(path, command) for path, command in TREE if path[:-1] == group]
    assert listed, group
    for path, command in listed:
        summary = (command.help or "").strip().split("\n\n")[0]
        assert "\n" not in summary, f"{' '.join(path)}: {summary!r}"


@pytest.mark.parametrize("command", COMMANDS)
def test_help_loses_no_text_to_rich_markup(command: str) -> None:
    """--help renders docstrings and option help as rich markup, where "[indexes]" is a
    tag that vanishes from the page (it once cut the pool format out of eval retrieval)."""
    from rich.text import Text

    found = dict(walk(typer.main.get_command(app), ("memoryd",)))[tuple(command.split())]
    texts = [found.help or ""] + [getattr(p, "help", None) or "" for p in found.params]
    for text in texts:
        assert Text.from_markup(text).plain == text, text


@pytest.mark.parametrize("command", COMMANDS)
def test_help_text_wraps_only_where_the_line_is_full(command: str) -> None:
    """Issue 38: at 80 columns typer wrapped each docstring line on its own, leaving a word
    alone on a line ("... Then\\n the\\n run asks"). A line of flowing text now breaks only
    where the next word would not fit; indented lines (examples) keep their own breaks."""
    result = CliRunner().invoke(app, [*command.split()[1:], "--help"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if "Usage:" in line) + 1
    end = next((i for i, line in enumerate(lines) if line.startswith("╭")), len(lines))
    text = [line.rstrip() for line in lines[start:end]]
    for line, after in itertools.pairwise(text):
        if line and after and not after.startswith("   "):
            room = 80 - 2 - len(line)  # rich keeps a margin of one space each side
            assert len(after.split()[0]) >= room, f"{command}: {line!r} / {after!r}"
