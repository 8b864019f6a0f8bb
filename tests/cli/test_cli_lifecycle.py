"""``memoryd memories``: --until on add and edit, ``show``, ``purge-expired`` and the
review queue (``memories suggestions list / accept / reject``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memoryd import Memoryd
from memoryd.cli.app import app
from support.cli import Cli
from support.lifecycle import file_suggestion as file_for


def later(days: int = 10) -> str:
    return (datetime.now(UTC) + timedelta(days=days)).date().isoformat()


def file_suggestion(cli: Cli, user: str, text: str, target_id: str | None = None) -> str:
    with Memoryd(cli.url) as md:
        return file_for(md, md.get_user(user).id, text, target_id, run_id="run-cli")


def expire(cli: Cli, memory_id: str, when: datetime) -> None:
    with Memoryd(cli.url) as md, md.db.write() as repo:
        repo.update_memory(memory_id, {"expires_at": when})


def test_add_and_edit_with_until(cli: Cli, alice: str) -> None:
    day = later()
    made = cli.json("memories", "add", "-u", alice, "--global", "--until", day, "Demo on Friday")
    assert made["expires_at"].startswith(
        (datetime.fromisoformat(day) + timedelta(days=1)).date().isoformat()
    )
    table = cli.ok("memories", "list", "-u", alice).stdout
    assert "Expires" in table and day[:4] in table
    edited = cli.json("memories", "edit", "-u", alice, made["id"], "--until", later(20))
    assert edited["content"] == "Demo on Friday" and edited["expires_at"] != made["expires_at"]
    cleared = cli.json("memories", "edit", "-u", alice, made["id"], "--no-expiry")
    assert cleared["expires_at"] is None
    assert "YYYY-MM-DD" in cli.fails(
        "memories", "add", "-u", alice, "--global", "--until", "fri", "x"
    )
    # the day typed, not the midnight after it that is stored (issue 38)
    assert cli.fails("memories", "edit", "-u", alice, made["id"], "--until", "2020-01-01") == (
        "error: the expiry 2020-01-01 (the end of that day, UTC) has already passed; give a "
        "later date (or none to keep the memory)"
    )
    assert "the expiry 2020-01-01T09:30:00+00:00 has already passed" in cli.fails(
        "memories", "edit", "-u", alice, made["id"], "--until", "2020-01-01T09:30"
    )
    said = cli.ok("memories", "edit", "-u", alice, made["id"], "--until", day).stdout
    assert said.splitlines()[1] == f"remembered until {day} (to the end of that day, UTC)"
    shown = cli.ok("memories", "show", "-u", alice, made["id"]).stdout
    assert f"expires: {day} (to the end of that day, UTC)" in shown
    wide = cli.ok("memories", "list", "-u", alice).stdout  # 250 columns: times shown
    assert day in wide and f"{later(11)} 00:00" not in wide
    assert "not both" in cli.fails(
        "memories", "edit", "-u", alice, made["id"], "--until", later(), "--no-expiry"
    )
    assert "nothing to change" in cli.fails("memories", "edit", "-u", alice, made["id"])


def test_list_marks_expired_and_purge_deletes_past_the_grace(cli: Cli, alice: str) -> None:
    made = cli.json("memories", "add", "-u", alice, "--global", "--until", later(), "Demo Friday")
    kept = cli.json("memories", "add", "-u", alice, "--global", "Likes tea")
    expire(cli, made["id"], datetime.now(UTC) - timedelta(days=1))
    table = cli.ok("memories", "list", "-u", alice).stdout
    assert "(expired)" in table and "Global (1/5)" in table
    assert cli.json("memories", "purge-expired") == {"deleted": 0}  # inside the grace period
    expire(cli, made["id"], datetime.now(UTC) - timedelta(days=31))
    assert "deleted 1 expired memory" in cli.ok("memories", "purge-expired").stdout
    assert [m["id"] for m in cli.memories()] == [kept["id"]]


def test_show_gives_source_history_and_expiry(cli: Cli, alice: str) -> None:
    made = cli.json("memories", "add", "-u", alice, "-w", "atlas", "Atlas is in Go")
    cli.ok("memories", "edit", "-u", alice, made["id"][:8], "Atlas is written in Go")
    shown = cli.json("memories", "show", "-u", alice, made["id"][:8])
    assert shown["created_by"] == "admin" and shown["expired"] is False
    assert [h["action"] for h in shown["history"]] == ["create", "update"]
    text = cli.ok("memories", "show", "-u", alice, made["id"]).stdout
    # the web UI's words (issue 38): "admin" is the actor, in the By column
    assert "source: Added by an admin; created by admin" in text
    assert "expires: never" in text and "History (2 changes)" in text
    table = cli.ok("memories", "list", "-u", alice).stdout
    assert "Added by an admin" in table
    assert "no memory" in cli.fails("memories", "show", "-u", "bob", made["id"])


def test_suggestions_list_accept_and_reject(cli: Cli, alice: str) -> None:
    porto = cli.json("memories", "add", "-u", alice, "--global", "Lives in Porto")
    update_id = file_suggestion(cli, alice, "Moved to Lisbon", porto["id"])
    create_id = file_suggestion(cli, alice, "Plays chess")
    table = cli.ok("memories", "suggestions", "list", "-u", alice).stdout
    assert "Lives in Porto" in table and "Moved to Lisbon" in table and "update" in table
    assert "no pending suggestions" in cli.ok("memories", "suggestions", "list", "-u", "bob").stdout
    assert "no suggestion" in cli.fails("memories", "suggestions", "accept", "-u", "bob", update_id)
    accepted = cli.json(
        "memories", "suggestions", "accept", "-u", alice, update_id[:8], "--text", "Lives in Lisbon"
    )
    assert accepted["id"] == porto["id"] and accepted["content"] == "Lives in Lisbon"
    out = cli.ok("memories", "suggestions", "reject", "-u", alice, create_id).stdout
    assert "rejected: Plays chess" in out
    assert "already rejected" in cli.fails(
        "memories", "suggestions", "accept", "-u", alice, create_id
    )
    statuses = cli.json("memories", "suggestions", "list", "-u", alice, "--status", "all")
    assert {s["status"] for s in statuses} == {"accepted", "rejected"}
    assert "unknown suggestion status" in cli.fails(
        "memories", "suggestions", "list", "-u", alice, "--status", "maybe"
    )


def test_the_suggestions_group_without_a_command_lists(cli: Cli, alice: str) -> None:
    """Issue 38: `memories suggestions --user alice` lists, as `suggestions list` does."""
    file_suggestion(cli, alice, "Plays chess")
    table = cli.ok("memories", "suggestions", "--user", alice).stdout
    assert table == cli.ok("memories", "suggestions", "list", "--user", alice).stdout
    assert "Plays chess" in table and "Suggestions (1)" in table
    [listed] = cli.json("memories", "suggestions", "-u", alice, "--status", "all")
    assert listed["content"] == "Plays chess" and listed["status"] == "pending"
    assert cli.fails("memories", "suggestions") == (
        "error: give --user NAME to list a user's suggestions, or a command"
    )  # --db alone, from the helper: nothing says whose
    assert cli.fails("memories", "suggestions", "-u", alice, "list") == (
        "error: give the options after `list`"
    )
    alone = cli.runner.invoke(app, ["memories", "suggestions"])
    assert alone.exit_code == 2 and "accept" in alone.stdout  # no word at all: the help


def test_accepting_into_a_full_scope_fails_with_one_line(cli: Cli, alice: str) -> None:
    for n in range(5):
        cli.ok("memories", "add", "-u", alice, "--global", f"Global fact {n}")
    waiting = file_suggestion(cli, alice, "Plays chess")
    assert "is full" in cli.fails("memories", "suggestions", "accept", "-u", alice, waiting)


def test_a_full_global_scope_is_avoided_with_scope_workspace(cli: Cli, alice: str) -> None:
    """--scope workspace puts a new memory in the workspace its chats were in."""
    for n in range(5):
        cli.ok("memories", "add", "-u", alice, "--global", f"Global fact {n}")
    with Memoryd(cli.url) as md:
        user = md.get_user(alice).id
        chat = md.record_chat(user, "phoenix", "I play chess on Sundays", "Nice").id
        waiting = file_for(md, user, "Plays chess on Sundays", chats=[chat], run_id="run-cli")
    made = cli.json(
        "memories", "suggestions", "accept", "-u", alice, waiting, "--scope", "workspace"
    )
    assert (made["scope"], made["workspace"]) == ("workspace", "phoenix")
    bad = cli.fails("memories", "suggestions", "accept", "-u", alice, waiting, "--scope", "x")
    assert "--scope" in bad


@pytest.mark.parametrize("columns", [80, 100, 250])
def test_list_table_fits_the_terminal_without_splitting_a_header(
    cli: Cli, alice: str, columns: int
) -> None:
    cli.ok("memories", "add", "-u", alice, "--global", "--until", later(), "A fairly long fact")
    env = {"MEMORYD_DATABASE_URL": None, "COLUMNS": str(columns), "MEMORYD_DEBUG": None}
    result = cli.runner.invoke(app, ["memories", "list", "-u", alice, "--db", cli.url], env=env)
    assert result.exit_code == 0, result.stdout
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= columns
    header = next(line for line in lines if "Memory" in line and "Source" in line).split()
    created = ["Created"] if columns >= 100 else []  # narrow: fewer columns, whole words
    assert header == ["ID", "Memory", "Source", *created, "Last", "used", "Expires"]
    assert "A fairly long fact" in result.stdout
