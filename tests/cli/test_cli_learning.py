"""``memoryd users learning`` and ``users review``: a user's own "don't learn from my chats"
switch and review mode."""

from __future__ import annotations

from support.cli import Cli


def test_learning_show_off_on(cli: Cli) -> None:
    cli.ok("users", "add", "alice")
    cli.ok("workspaces", "add", "lab")
    cli.ok("workspaces", "members", "add", "lab", "alice")
    assert "memoryd learns from alice's chats" in cli.ok("users", "learning", "alice").stdout
    cli.ok("chats", "add", "-u", "alice", "-w", "lab", "-p", "I moved to Lisbon.", "-r", "ok")
    off = cli.json("users", "learning", "alice", "off")
    assert (off["learn_from_chats"], off["chats_closed"]) == (False, 1)
    cli.ok("chats", "add", "-u", "alice", "-w", "lab", "-p", "I play the cello.", "-r", "ok")
    chats = cli.json("chats", "list", "-u", "alice")
    assert [c["memory_processed"] for c in chats] == [True, True]
    shown = cli.ok("users", "learning", "alice").stdout
    assert "does not learn from alice's chats; they are still recorded" in shown
    assert cli.json("users", "learning", "alice", "ON")["learn_from_chats"] is True


def test_learning_errors(cli: Cli) -> None:
    cli.ok("users", "add", "alice")
    assert "learning is 'on' or 'off', not 'maybe'" in cli.fails(
        "users", "learning", "alice", "maybe"
    )
    assert "bob" in cli.fails("users", "learning", "bob", "off")


def test_review_show_set_default(cli: Cli) -> None:
    cli.ok("users", "add", "alice")
    cli.ok("users", "add", "bob")
    shown = cli.ok("users", "review", "alice").stdout
    assert "alice follows the instance setting: memory_review = off" in shown
    chosen = cli.json("users", "review", "alice", "Everything")
    assert (chosen["memory_review"], chosen["memory_review_effective"]) == (
        "everything",
        "everything",
    )
    assert "alice reviews: everything" in cli.ok("users", "review", "alice").stdout
    cli.ok("settings", "set", "memory_review", "updates")
    assert cli.json("users", "review", "bob")["memory_review_effective"] == "updates"
    back = cli.json("users", "review", "alice", "default")
    assert (back["memory_review"], back["memory_review_effective"]) == ("default", "updates")


def test_review_errors(cli: Cli) -> None:
    cli.ok("users", "add", "alice")
    cli.ok("users", "review", "alice", "updates")
    assert "review is default, off, updates or everything, not 'sometimes'" in cli.fails(
        "users", "review", "alice", "sometimes"
    )
    assert "bob" in cli.fails("users", "review", "bob", "off")
    assert cli.json("users", "review", "alice")["memory_review"] == "updates"  # unchanged
