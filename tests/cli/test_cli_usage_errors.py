"""Mistakes the option parser catches are one ``error:`` line and exit 2, like our own.

An unknown command or option, a missing argument, a value that is not a number, out of
range or not among the choices: typer would print a boxed usage panel over many lines.
Every command of the app is walked (a new command is covered without touching this file),
so none of them can print the panel again.
"""

from __future__ import annotations

import pytest
import typer
from typer.testing import CliRunner, Result

from memoryd.cli.app import app
from memoryd.cli.reference import walk

ENV = {"MEMORYD_DATABASE_URL": None, "MEMORYD_DEBUG": None, "COLUMNS": "80"}
COMMANDS = {
    " ".join(path[1:]): cmd for path, cmd in walk(typer.main.get_command(app), ("memoryd",))
}


def memoryd(*args: str) -> Result:
    return CliRunner().invoke(app, list(args), env=ENV)


def refused(result: Result) -> str:
    """The one ``error:`` line a refused command printed (exit 2, nothing on stdout)."""
    assert result.exit_code == 2, (result.stdout, result.stderr, result.exception)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


def test_the_walk_reaches_groups_and_nested_subcommands() -> None:
    assert {"", "users", "users add", "workspaces members add", "runs", "runs prune"} <= set(
        COMMANDS
    )


@pytest.mark.parametrize("command", sorted(COMMANDS), ids=lambda c: c or "memoryd")
def test_every_command_refuses_an_unknown_option_in_one_line(command: str) -> None:
    words = command.split()
    line = refused(memoryd(*words, "--xyzzy"))
    path = " ".join(["memoryd", *words])
    if COMMANDS[command].context_settings.get("ignore_unknown_options"):
        # `settings set` takes "--xyzzy" as its KEY (so that -5 can be a value); what is
        # missing then is still named in one line
        assert line.startswith(f"error: {path}: missing argument "), line
        assert line.endswith(f" (see {path} --help)"), line
    else:
        assert line == f"error: {path}: no such option: --xyzzy (see {path} --help)"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ["runs", "--limit", "abc"],
            "error: memoryd runs: invalid value for '--limit' / '-n': 'abc' should be a valid "
            "integer, unable to parse string as an integer (see memoryd runs --help)",
        ),
        (
            ["runs", "--limit", "0"],
            "error: memoryd runs: invalid value for '--limit' / '-n': '0' should be greater "
            "than or equal to 1 (see memoryd runs --help)",
        ),
        (
            ["serve", "--port", "70000"],
            "error: memoryd serve: invalid value for '--port': '70000' should be less than or "
            "equal to 65535 (see memoryd serve --help)",
        ),
        (
            ["users", "role", "alice", "superuser"],
            "error: memoryd users role: invalid value for 'ROLE': 'superuser' is not one of "
            "'admin', 'default' (see memoryd users role --help)",
        ),
        (
            ["users", "add"],
            "error: memoryd users add: missing argument 'NAME' (see memoryd users add --help)",
        ),
        (
            ["memories", "list"],
            "error: memoryd memories list: missing option '--user' / '-u' "
            "(see memoryd memories list --help)",
        ),
        (
            ["users", "add", "alice", "bob"],
            "error: memoryd users add: got unexpected extra argument(s) (bob) "
            "(see memoryd users add --help)",
        ),
        (
            ["no-such-command"],
            "error: memoryd: no such command 'no-such-command' (see memoryd --help)",
        ),
        (
            ["user", "list"],
            "error: memoryd: no such command 'user'. Did you mean 'users', 'serve'? "
            "(see memoryd --help)",
        ),
        (
            ["workspaces", "members", "nope"],
            "error: memoryd workspaces members: no such command 'nope' "
            "(see memoryd workspaces members --help)",
        ),
        (
            ["runs", "--limt", "5"],
            "error: memoryd runs: no such option: --limt. Did you mean --limit? "
            "(see memoryd runs --help)",
        ),
    ],
    ids=lambda case: " ".join(case) if isinstance(case, list) else "",
)
def test_a_bad_value_or_a_missing_part_is_named_in_one_line(args: list[str], said: str) -> None:
    assert refused(memoryd(*args)) == said


def test_help_and_a_group_without_its_subcommand_still_show_the_help() -> None:
    helped = memoryd("runs", "--help")
    assert helped.exit_code == 0 and "Usage: memoryd runs" in helped.stdout
    bare = memoryd("users")  # no subcommand: the group's help, as before
    assert bare.exit_code == 2 and "Usage: memoryd users" in bare.stdout
    assert "error" not in bare.output
