"""``memoryd chats rm`` and ``memoryd chats clear``: deleting a user's recorded chats from
the command line, all or nothing, ``clear`` only with ``--yes``; the memory's detail and
the audit log say what went, without the text."""

from __future__ import annotations

from typing import Any

from memoryd import Memoryd
from support.cli import Cli


def add_chat(cli: Cli, user: str, workspace: str, prompt: str) -> int:
    chat: dict[str, Any] = cli.json(
        "chats", "add", "-u", user, "-w", workspace, "-p", prompt, "-r", "ok"
    )
    return int(chat["id"])


def prompts(cli: Cli, user: str = "alice") -> list[str]:
    return [c["prompt"] for c in cli.json("chats", "list", "-u", user)]


def test_rm_deletes_the_users_chats_by_id(cli: Cli, alice: str) -> None:
    first = add_chat(cli, alice, "phoenix", "first")
    second = add_chat(cli, alice, "atlas", "second")
    add_chat(cli, alice, "phoenix", "third")

    out = cli.ok("chats", "rm", "-u", alice, str(second), str(first)).stdout
    assert out == f"deleted 2 chats of alice: {first}, {second}\n"
    assert prompts(cli) == ["third"]
    assert cli.json("chats", "rm", "-u", alice, str(first + 2)) == {
        "deleted": 1,
        "ids": [first + 2],
    }
    assert prompts(cli) == []


def test_rm_is_all_or_nothing_and_never_reaches_another_user(cli: Cli, alice: str) -> None:
    mine = add_chat(cli, alice, "phoenix", "mine")
    bobs = add_chat(cli, "bob", "phoenix", "Bob's")
    assert cli.fails("chats", "rm", "-u", alice, str(mine), str(bobs)) == (
        f"error: no chat {bobs} for this user"
    )
    assert prompts(cli) == ["mine"] and prompts(cli, "bob") == ["Bob's"]
    assert cli.fails("chats", "rm", "-u", alice, "abc") == (
        "error: chat id 'abc' is not a number: give the ids that 'chats list' shows"
    )
    assert "not a number" in cli.fails("chats", "rm", "-u", alice, "1.5")
    assert "no user 'carol'" in cli.fails("chats", "rm", "-u", "carol", str(mine))
    assert cli.run("chats", "rm", "-u", alice).exit_code == 2  # no id at all: usage error
    assert prompts(cli) == ["mine"]


def test_clear_needs_yes_and_says_how_many_it_would_delete(cli: Cli, alice: str) -> None:
    for n in range(2):
        add_chat(cli, alice, "phoenix", f"phoenix {n}")
    add_chat(cli, alice, "atlas", "atlas 0")
    add_chat(cli, "bob", "phoenix", "Bob's")

    assert cli.fails("chats", "clear", "-u", alice) == (
        "error: this would delete 3 chats of alice in every workspace; add --yes to delete them"
    )
    assert "2 chats of alice in workspace 'phoenix'" in cli.fails(
        "chats", "clear", "-u", alice, "-w", "phoenix"
    )
    assert len(prompts(cli)) == 3
    out = cli.ok("chats", "clear", "-u", alice, "-w", "phoenix", "--yes").stdout
    assert out == "deleted 2 chats of alice in workspace 'phoenix'\n"
    assert prompts(cli) == ["atlas 0"]
    assert cli.json("chats", "clear", "-u", alice, "--yes") == {"deleted": 1}
    assert prompts(cli) == [] and prompts(cli, "bob") == ["Bob's"]
    assert "no workspace 'nope'" in cli.fails("chats", "clear", "-u", alice, "-w", "nope", "--yes")


def test_the_memory_and_the_audit_log_say_what_went(cli: Cli, alice: str) -> None:
    said = add_chat(cli, alice, "phoenix", "I moved to Lisbon")
    memory = cli.json("memories", "add", "-u", alice, "--global", "Lives in Lisbon")["id"]
    with Memoryd(cli.url) as md, md.db.write() as repo:  # learned from it, as extraction would
        repo.update_memory(memory, {"source_chats": [said]})
    cli.ok("chats", "rm", "-u", alice, str(said))

    shown = cli.json("memories", "show", "-u", alice, memory)
    assert shown["source_chats"] == [] and shown["deleted_source_chat_ids"] == [said]
    assert f"from chat {said}: deleted" in cli.ok("memories", "show", "-u", alice, memory).stdout
    *_, entry = cli.json("memories", "history", "-u", alice)
    assert (entry["action"], entry["memory_id"], entry["actor"]) == ("delete_chats", "", "admin")
    assert entry["before"] == {"count": 1, "workspaces": {"phoenix": 1}, "chat_ids": [said]}
    assert "Lisbon" not in str(entry)
    table = cli.ok("memories", "history", "-u", alice).stdout
    assert "delete_chats" in table and "1 chat(s) (phoenix: 1)" in table
