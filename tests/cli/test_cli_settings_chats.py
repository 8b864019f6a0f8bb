"""``memoryd settings`` and ``memoryd chats`` through the CLI."""

from __future__ import annotations

from support.cli import Cli


def test_settings_get_set_roundtrip(cli: Cli) -> None:
    defaults = cli.json("settings", "get")
    assert defaults["memory_enabled"] is True and defaults["memory_auto_extraction"] is True
    assert cli.json("settings", "get", "memory_enabled") == {"memory_enabled": True}
    assert cli.ok("settings", "set", "memory_enabled", "off").stdout.strip() == (
        "memory_enabled = false"
    )
    assert cli.ok("settings", "get", "memory_enabled").stdout.strip() == "false"
    assert cli.json("settings", "set", "memory_auto_extraction", "no") == {
        "memory_auto_extraction": False
    }
    assert cli.json("settings", "get")["memory_auto_extraction"] is False
    cli.ok("settings", "set", "memory_enabled", "on")
    assert cli.json("settings", "get", "memory_enabled") == {"memory_enabled": True}
    assert "memory_enabled" in cli.ok("settings", "get").stdout


def test_unknown_setting_and_bad_value_exit_2(cli: Cli) -> None:
    assert "unknown setting 'nope'" in cli.fails("settings", "get", "nope")
    assert "unknown setting 'nope'" in cli.fails("settings", "set", "nope", "1")
    assert "expected on/off" in cli.fails("settings", "set", "memory_enabled", "maybe")
    assert cli.json("settings", "get", "memory_enabled") == {"memory_enabled": True}


def test_a_negative_number_is_refused_as_a_value_not_taken_for_an_option(cli: Cli) -> None:
    said = cli.fails("settings", "set", "run_retention_days", "-3")
    assert "run_retention_days: expected a number of days" in said and "'-3'" in said
    assert cli.json("settings", "get", "run_retention_days") == {"run_retention_days": 90}
    assert cli.json("settings", "set", "run_retention_days", "30") == {"run_retention_days": 30}


def test_chats_add_and_list(cli: Cli, alice: str) -> None:
    first = cli.json(
        "chats",
        "add",
        "--user",
        alice,
        "--workspace",
        "phoenix",
        "--prompt",
        "I moved to Lisbon",
        "--response",
        "Noted!",
    )
    assert first["prompt"] == "I moved to Lisbon" and first["memory_processed"] is False
    out = cli.ok(
        "chats", "add", "-u", alice, "-w", "atlas", "-p", "Atlas uses Go", "-r", "ok"
    ).stdout
    assert "1 unprocessed in atlas" in out
    listed = cli.json("chats", "list", "--user", alice)
    assert [c["workspace"] for c in listed] == ["phoenix", "atlas"]
    only = cli.json("chats", "list", "--user", alice, "--workspace", "atlas", "--unprocessed")
    assert [c["prompt"] for c in only] == ["Atlas uses Go"]
    assert "I moved to Lisbon" in cli.ok("chats", "list", "--user", alice).stdout
    assert cli.json("chats", "list", "--user", "bob") == []


def test_chats_keep_the_memories_injected_into_them(cli: Cli, alice: str) -> None:
    first = cli.json("memories", "add", "-u", alice, "-w", "phoenix", "Phoenix ships in Q3")
    second = cli.json("memories", "add", "-u", alice, "--global", "Prefers short answers")
    chat = cli.json(
        "chats", "add", "-u", alice, "-w", "phoenix", "-p", "When?", "-r", "Q3",
        "--memory", second["id"], "-m", first["id"][:8],
    )  # fmt: skip
    assert [m["id"] for m in chat["memories"]] == [second["id"], first["id"]]
    assert chat["memories"][1] == {
        "id": first["id"],
        "deleted": False,
        "content": "Phoenix ships in Q3",
        "scope": "workspace",
        "workspace": "phoenix",
    }
    cli.ok("memories", "rm", "-u", alice, first["id"])
    (listed,) = cli.json("chats", "list", "-u", alice)
    assert [(m["id"], m["deleted"], m["content"]) for m in listed["memories"]] == [
        (second["id"], False, "Prefers short answers"),
        (first["id"], True, None),
    ]
    assert "Memories" in cli.ok("chats", "list", "-u", alice).stdout
    assert "no memory 'nosuchid'" in cli.fails(
        "chats", "add", "-u", alice, "-w", "phoenix", "-p", "p", "-r", "r", "-m", "nosuchid"
    )
    in_atlas = cli.json("memories", "add", "-u", alice, "-w", "atlas", "Atlas uses Go")["id"]
    assert "a turn in phoenix injects only global memories" in cli.fails(
        "chats", "add", "-u", alice, "-w", "phoenix", "-p", "p", "-r", "r", "-m", in_atlas
    )
    assert len(cli.json("chats", "list", "-u", alice)) == 1  # the refused ones are not stored


def test_chat_errors(cli: Cli, alice: str) -> None:
    assert "no workspace 'nope'" in cli.fails(
        "chats", "add", "-u", alice, "-w", "nope", "-p", "hi", "-r", "x"
    )
    assert "no user 'carol'" in cli.fails("chats", "list", "--user", "carol")
    assert "prompt is empty" in cli.fails(
        "chats", "add", "-u", alice, "-w", "atlas", "-p", " ", "-r", "x"
    )
    assert "not valid UTF-8" in cli.fails(
        "chats", "add", "-u", alice, "-w", "atlas", "-p", "caf\udce9", "-r", "x"
    )
    assert cli.json("chats", "list", "--user", alice) == []
