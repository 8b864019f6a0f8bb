"""``memoryd users learning``, ``users review`` and ``users language``: a user's own "don't
learn from my chats" switch, review mode and language."""

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


def test_language_show_set_default(cli: Cli) -> None:
    cli.ok("users", "add", "alice")
    assert (
        "alice follows the server: MEMORYD_LANGUAGE = en"
        in cli.ok("users", "language", "alice").stdout
    )
    chosen = cli.json("users", "language", "alice", "FR")
    assert (chosen["language"], chosen["language_effective"]) == ("fr", "fr")
    assert (
        "alice's language: fr (instead of the server's)"
        in cli.ok("users", "language", "alice").stdout
    )
    assert "unknown language 'klingon': use default, auto, en, fr" in cli.fails(
        "users", "language", "alice", "klingon"
    )
    back = cli.json("users", "language", "alice", "default")
    assert (back["language"], back["language_effective"]) == ("default", "en")
