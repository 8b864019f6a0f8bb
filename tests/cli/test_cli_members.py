"""``memoryd workspaces members`` and the membership rule of ``memories add`` (issue 12, item 3)."""

from __future__ import annotations

from support.cli import Cli


def setup(cli: Cli) -> None:
    cli.ok("users", "add", "carol")
    cli.ok("users", "add", "root", "--admin")
    cli.ok("workspaces", "add", "kitchen")


def test_members_add_list_remove(cli: Cli) -> None:
    setup(cli)
    assert cli.json("workspaces", "members", "list", "kitchen") == []
    out = cli.ok("workspaces", "members", "add", "kitchen", "carol").stdout
    assert out == "carol is now a member of kitchen\n"
    again = cli.ok("workspaces", "members", "add", "kitchen", "carol").stdout
    assert again == "carol was already a member of kitchen\n"
    members = cli.json("workspaces", "members", "list", "kitchen")
    assert [(m["name"], m["role"]) for m in members] == [("carol", "default")]
    table = cli.ok("workspaces", "members", "list", "kitchen").stdout
    assert "Members of kitchen (1)" in table and "carol" in table
    removed = cli.ok("workspaces", "members", "rm", "kitchen", "carol").stdout
    assert removed == "carol is no longer a member of kitchen\n"
    assert cli.json("workspaces", "members", "list", "kitchen") == []


def test_member_commands_refuse_unknown_names(cli: Cli) -> None:
    setup(cli)
    assert "no workspace 'nope'" in cli.fails("workspaces", "members", "add", "nope", "carol")
    assert "no user" in cli.fails("workspaces", "members", "add", "kitchen", "nobody")
    assert "no workspace 'nope'" in cli.fails("workspaces", "members", "list", "nope")
    line = cli.fails("workspaces", "members", "rm", "kitchen", "carol")
    assert line == "error: user 'carol' is not a member of workspace 'kitchen'"


def test_workspace_memory_needs_membership(cli: Cli) -> None:
    setup(cli)
    line = cli.fails("memories", "add", "-u", "carol", "-w", "kitchen", "The oven runs hot")
    assert "carol is not a member of workspace 'kitchen'" in line
    assert "memoryd workspaces members add kitchen carol" in line
    assert cli.contents("carol") == []
    assert "no workspace 'nope'" in cli.fails("memories", "add", "-u", "carol", "-w", "nope", "x")
    cli.ok("workspaces", "members", "add", "kitchen", "carol")
    cli.ok("memories", "add", "-u", "carol", "-w", "kitchen", "The oven runs hot")
    assert cli.contents("carol") == ["The oven runs hot"]
    # an admin uses every workspace without being a member
    cli.ok("memories", "add", "-u", "root", "-w", "kitchen", "Root fact")


def test_recording_a_chat_needs_membership_too(cli: Cli) -> None:
    setup(cli)
    args = ("chats", "add", "-u", "carol", "-w", "kitchen", "-p", "I bake bread", "-r", "ok")
    assert "carol is not a member of workspace 'kitchen'" in cli.fails(*args)
    assert cli.json("chats", "list", "--user", "carol") == []
    cli.ok("workspaces", "members", "add", "kitchen", "carol")
    cli.ok(*args)
    assert len(cli.json("chats", "list", "--user", "carol")) == 1


def test_demote_needs_membership_too(cli: Cli) -> None:
    setup(cli)
    made = cli.json("memories", "add", "-u", "carol", "--global", "Carol bakes bread")
    line = cli.fails("memories", "demote", "-u", "carol", made["id"], "-w", "kitchen")
    assert "not a member of workspace 'kitchen'" in line
    assert cli.memories("carol")[0]["scope"] == "global"


def test_global_and_workspace_are_exclusive(cli: Cli) -> None:
    setup(cli)
    line = cli.fails("memories", "add", "-u", "carol", "--global", "-w", "kitchen", "x")
    assert "--global and --workspace are exclusive" in line
