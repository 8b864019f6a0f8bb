"""Bad input a new user tries first: every refusal is one ``error:`` line and exit 2.

Each case here once ended otherwise: a traceback-like "unexpected" exit 1, a prompt that
could not be answered, a result that looked fine but meant nothing (a context preview
for a workspace the proxy would refuse, an evaluation of zero conversations), or an
error line quoting a 5000-character value in full.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memoryd import __version__
from memoryd.cli.app import app
from support.cli import Cli


def test_python_dash_m_memoryd_runs_the_cli() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "memoryd", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "MEMORYD_DATABASE_URL": ""},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"memoryd {__version__}"


def test_a_chat_id_too_large_for_the_database_is_not_found(cli: Cli, alice: str) -> None:
    cli.ok("chats", "add", "-u", alice, "-w", "phoenix", "-p", "I moved to Lisbon", "-r", "ok")
    said = cli.fails("chats", "rm", "--user", alice, "1", "99999999999999999999999")
    assert said == "error: no chat 99999999999999999999999 for this user"
    assert [c["id"] for c in cli.json("chats", "list", "--user", alice)] == [1]


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("mysql://u:secret@127.0.0.1/x", "cannot open database mysql://u:***@127.0.0.1/x: "),
        ("nonsense://x", "cannot open database nonsense://x: "),
    ],
)
def test_a_database_url_without_a_driver_is_refused_in_one_line(
    cli: Cli, url: str, said: str
) -> None:
    line = cli.fails("users", "list", db=url)
    assert line.startswith(f"error: {said}") and "secret" not in line


def test_worker_on_an_unreachable_database_exits_2_in_one_line(cli: Cli) -> None:
    pytest.importorskip("procrastinate")
    url = "postgresql+psycopg://postgres:secret@127.0.0.1:1/x"
    line = cli.fails("worker", db=url)
    assert line.startswith("error: cannot open database postgresql+psycopg://postgres:***@")
    assert "secret" not in line


def test_passwd_without_a_terminal_asks_for_password_stdin(cli: Cli, alice: str) -> None:
    # CliRunner's stdin is not a terminal, as under cron, ssh without -t or a pipe
    said = cli.fails("users", "passwd", alice)
    assert said == (
        "error: no terminal to ask for the password on; pipe it in with --password-stdin"
    )
    # an unknown user is refused before any password is read
    assert cli.fails("users", "passwd", "nobody", "--password-stdin", input="long-enough-pw\n") == (
        "error: no user 'nobody'"
    )


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("[]", "error: the dataset holds no conversations"),
        ('{"conversations": 5}', "error: the dataset must be a list of conversations"),
        ('{"talks": []}', "error: the dataset must be a list of conversations"),
    ],
)
def test_eval_refuses_a_dataset_without_conversations(
    cli: Cli, tmp_path: Path, content: str, said: str
) -> None:
    dataset = tmp_path / "set.json"
    dataset.write_text(content)
    # eval takes no --db (it works on temporary databases), so no cli.fails here
    result = cli.runner.invoke(app, ["eval", "extraction", "--dataset", str(dataset)])
    assert result.exit_code == 2, result.output
    [line] = result.stderr.splitlines()
    assert line.startswith(said)


def test_context_refuses_a_workspace_the_user_is_not_a_member_of(cli: Cli, alice: str) -> None:
    cli.ok("memories", "add", "-u", alice, "-w", "atlas", "Atlas uses Go")
    cli.ok("workspaces", "members", "rm", "atlas", alice)  # her memory there stays stored
    said = cli.fails("context", "-u", alice, "-w", "atlas", "-m", "Which language?")
    assert said == (
        "error: alice is not a member of workspace 'atlas', so the proxy and the API refuse "
        "their chats there; add them first: memoryd workspaces members add atlas alice"
    )
    [memory] = cli.memories(alice)
    assert memory["last_used_at"] is None  # not marked used by a turn that cannot happen


def test_context_says_when_a_workspace_has_no_memories_yet(cli: Cli, alice: str) -> None:
    out = cli.ok("context", "-u", alice, "-w", "phoenix", "-m", "hi").stdout
    assert out.rstrip().endswith(
        "no workspace memories in 'phoenix' yet; only global memories are injected"
    )


def test_chats_add_for_a_non_member_says_why_in_terms_of_chats(cli: Cli, alice: str) -> None:
    cli.ok("workspaces", "add", "kitchen")
    said = cli.fails("chats", "add", "-u", alice, "-w", "kitchen", "-p", "hi", "-r", "ok")
    assert "so extraction would learn memories they never get" in said
    assert "these memories" not in said


def test_a_suggestion_id_error_names_a_suggestion(cli: Cli, alice: str) -> None:
    said = cli.fails("memories", "suggestions", "accept", "--user", alice, "ab")
    assert said.startswith("error: suggestion id 'ab' is too short")


def test_an_error_quoting_a_huge_value_stays_short(cli: Cli) -> None:
    said = cli.fails("workspaces", "add", "kitchen", "--name", "n" * 5000)
    assert len(said) < 200
    assert said.startswith("error: invalid workspace name 'nnn")
    assert said.endswith("(5002 characters): 1-200 printable characters")
    assert cli.json("workspaces", "list") == []


def test_an_error_message_that_is_long_anyway_keeps_its_start_and_end(cli: Cli) -> None:
    from memoryd.cli.common import one_line

    long = "start " + "word " * 500 + "the end"
    shown = one_line(long)
    assert len(shown) < 420
    assert shown.startswith("start word") and shown.endswith("word the end")
    assert "characters left out" in shown


def test_apikey_list_says_when_there_are_none(cli: Cli, alice: str) -> None:
    out = cli.ok("apikey", "list", "--user", alice).stdout
    assert out == ("alice has no API keys; create one with: memoryd apikey create --user alice\n")
    assert json.loads(cli.ok("apikey", "list", "--user", alice, "--json").stdout) == []


@pytest.mark.parametrize(
    ("variable", "value", "said"),
    [
        (
            "MEMORY_EXTRACTION_INTERVAL",
            "soon",
            "error: invalid environment: MEMORY_EXTRACTION_INTERVAL='soon' is not a valid "
            "interval: use a number and a unit, e.g. 90s, 30min, 1hr, 6hr, 1d (at least 1 second)",
        ),
        (
            "MEMORYD_LLM_TIMEOUT",
            "abc",
            "error: invalid environment: MEMORYD_LLM_TIMEOUT='abc': Input should be a valid "
            "number, unable to parse string as a number",
        ),
        (
            "MEMORY_IDLE_THRESHOLD_MS",
            "-5",
            "error: invalid environment: MEMORY_IDLE_THRESHOLD_MS='-5': Input should be greater "
            "than or equal to 0",
        ),
    ],
)
def test_an_invalid_environment_variable_is_named_in_one_line(
    cli: Cli, variable: str, value: str, said: str
) -> None:
    for command in (["users", "list"], ["worker", "--setup-only"]):
        result = cli.runner.invoke(
            app, [*command, "--db", cli.url], env={variable: value, "MEMORYD_DEBUG": None}
        )
        assert result.exit_code == 2, (command, result.output)
        assert result.stderr.splitlines() == [said], command


def test_worker_names_the_database_it_was_given_when_not_postgresql(cli: Cli) -> None:
    pytest.importorskip("procrastinate")
    assert cli.fails("worker", db="mysql://u:secret@127.0.0.1/x") == (
        "error: memoryd worker needs PostgreSQL (MEMORYD_DATABASE_URL=postgresql+psycopg://...); "
        "mysql://u:***@127.0.0.1/x is mysql"
    )
    assert cli.fails("worker").endswith(
        "with SQLite, `memoryd serve` runs extraction in its own process"
    )
