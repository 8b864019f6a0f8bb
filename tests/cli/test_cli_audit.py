"""``memoryd audit``: a user's audit log newest first, a page at a time (``--before``,
``--limit``), filtered, as a table or ``--json``, on SQLite and PostgreSQL; bad input is
one ``error:`` line and exit 2.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from typer.testing import CliRunner

from memoryd import Memoryd
from memoryd.models.embedding.minilm import MiniLMEmbedder
from support.audit import STORY, Story, tell_story
from support.cli import Cli


@pytest.fixture
def told(db_url: str, embedder: MiniLMEmbedder) -> Iterator[tuple[Cli, Story]]:
    with Memoryd(db_url, embedder=embedder) as md:
        for slug in ("alpha", "gamma"):
            md.create_workspace(slug)
        alice, bob, admin = (md.create_user(n).id for n in ("alice", "bob", "root"))
        story = tell_story(md, alice, bob, admin, kept="alpha", left="gamma")
    yield Cli(db_url, CliRunner()), story


def actions(story: Story, entries: list[dict[str, Any]]) -> list[tuple[str, str]]:
    names = story.names([e["memory_id"] for e in entries])
    return [(e["action"], n) for e, n in zip(entries, names, strict=True)]


def test_the_whole_log_newest_first_page_by_page(told: tuple[Cli, Story]) -> None:
    cli, story = told
    everything = cli.json("audit", "--user", "alice")
    assert actions(story, everything) == STORY[::-1]  # the CLI is the admin's view
    first = cli.json("audit", "-u", "alice", "--limit", "4")
    assert first == everything[:4]
    rest = cli.json("audit", "-u", "alice", "-n", "4", "--before", str(first[-1]["id"]))
    assert rest == everything[4:8]
    page = cli.ok("audit", "-u", "alice", "-n", "4")
    assert (
        page.stderr.strip()
        == f"older entries: add --before {first[-1]['id']} (with the same filters)"
    )
    assert "Audit log of alice: 4 entries, newest first" in page.stdout
    last = cli.ok("audit", "-u", "alice", "-n", "3", "--before", str(everything[7]["id"]))
    assert last.stderr == ""  # the oldest page: nothing to point to
    assert "[alpha] Phoenix ships in Q3" in last.stdout and "global Prefers tea" in last.stdout
    table = cli.ok("audit", "-u", "alice").stdout
    assert "2 chat(s) (alpha: 1, gamma: 1)" in table and f"admin:{story.admin}" in table
    assert "secret words" not in table


def test_filters(told: tuple[Cli, Story]) -> None:
    cli, story = told

    def listed(*filters: str) -> list[tuple[str, str]]:
        return actions(story, cli.json("audit", "-u", "alice", *filters))

    assert listed("--action", "delete", "-a", "delete_chats") == [
        ("delete", "tea"),
        ("delete_chats", ""),
        ("delete", "gone"),
    ]
    assert listed("--actor", "import") == [("create", "imported")]
    assert listed("--actor", f"admin:{story.admin}") == [("delete", "tea")]
    assert listed("--workspace", "gamma", "--action", "promote") == [("promote", "vim")]
    gone = story.ids["gone"]
    assert listed("--memory", gone[:8]) == [("delete", "gone"), ("create", "gone")]
    assert listed("--since", "2000-01-01") == STORY[::-1]
    assert listed("--since", "2999-01-01") == []
    empty = cli.ok("audit", "-u", "bob", "--actor", "extraction")
    assert "Audit log of bob: 0 entries" in empty.stdout and empty.stderr == ""


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (("--limit", "abc"), "error: --limit takes a whole number from 1 to 1000, not 'abc'"),
        (("--limit", "0"), "error: --limit takes a whole number from 1 to 1000, not '0'"),
        (("--before", "-1"), "error: --before takes a whole number from 1 to 2147483647"),
        (("--before", "99999999999"), "error: --before takes a whole number from 1 to"),
        (("--action", "erase"), "error: unknown action 'erase': use one of create, update,"),
        (("--actor", "robot"), "error: unknown actor 'robot': use one of user, admin,"),
        (("--since", "never"), "error: invalid since 'never': use a date (YYYY-MM-DD)"),
        (("--workspace", "Not A Slug"), "error: invalid workspace slug 'Not A Slug'"),
        (("--memory", "zz"), "error: memory id 'zz' is too short"),
        (("--memory", "ffffffff"), "error: no memory 'ffffffff' for user 'alice'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    told: tuple[Cli, Story], arguments: tuple[str, ...], said: str
) -> None:
    cli, _ = told
    assert cli.fails("audit", "--user", "alice", *arguments).startswith(said)


def test_an_unknown_user_is_one_line(told: tuple[Cli, Story]) -> None:
    cli, _ = told
    assert cli.fails("audit", "--user", "nobody") == "error: no user 'nobody'"


def test_setting_changes_made_on_the_command_line_are_in_the_log(cli: Cli) -> None:
    cli.ok("users", "add", "alice")
    cli.ok("users", "learning", "alice", "off")
    cli.ok("users", "learning", "alice", "off")  # no change, no entry
    cli.ok("users", "review", "alice", "updates")
    cli.ok("users", "role", "alice", "admin")
    entries = cli.json("audit", "-u", "alice", "--action", "change_setting")
    assert [
        (e["after"]["setting"], e["before"]["value"], e["after"]["value"], e["actor"])
        for e in entries
    ] == [
        ("role", "default", "admin", "admin"),
        ("memory_review", "default", "updates", "admin"),
        ("learn_from_chats", True, False, "admin"),
    ]
    assert {e["memory_id"] for e in entries} == {""}
    table = cli.ok("audit", "-u", "alice").stdout
    assert "learn_from_chats = true" in table and "learn_from_chats = false" in table
    assert "role = default" in table and "role = admin" in table


def test_membership_changes_are_in_the_members_log(db_url: str) -> None:
    cli = Cli(db_url, CliRunner())
    cli.ok("users", "add", "carol")
    for slug in ("kitchen", "pantry"):
        cli.ok("workspaces", "add", slug)
    cli.ok("workspaces", "members", "add", "kitchen", "carol")
    cli.ok("workspaces", "members", "add", "kitchen", "carol")  # already: no entry
    cli.ok("workspaces", "members", "rm", "kitchen", "carol")
    assert "not a member" in cli.fails("workspaces", "members", "rm", "kitchen", "carol")
    cli.ok("workspaces", "members", "add", "pantry", "carol")
    cli.ok("workspaces", "rm", "pantry")  # ends her membership there
    entries = cli.json("audit", "--user", "carol")
    told = [
        (e["action"], e["after"]["workspace"], e["before"]["value"], e["after"]["value"])
        for e in entries
    ]
    assert told == [
        ("change_setting", "pantry", "member", "not member"),
        ("change_setting", "pantry", "not member", "member"),
        ("change_setting", "kitchen", "member", "not member"),
        ("change_setting", "kitchen", "not member", "member"),
    ]
    assert {e["actor"] for e in entries} == {"admin"} and {e["memory_id"] for e in entries} == {""}
    assert cli.json("audit", "-u", "carol", "--workspace", "kitchen") == entries[2:]
    table = cli.ok("audit", "-u", "carol").stdout
    assert "[kitchen] membership = not member" in table
    assert "[kitchen] membership = member" in table
