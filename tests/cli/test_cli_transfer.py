"""``memoryd export`` / ``memoryd import``: JSON lines that round-trip byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

from support.cli import Cli, memory_line


def seed(cli: Cli) -> None:
    cli.ok("memories", "add", "-u", "alice", "--global", "Prefers concise answers")
    cli.ok("memories", "add", "-u", "alice", "--global", "Écrit en français, emoji 🎉 ok")
    cli.ok("memories", "add", "-u", "alice", "-w", "phoenix", "Phoenix ships in Q3")
    cli.ok("memories", "add", "-u", "alice", "-w", "atlas", 'Atlas uses "quotes" and \\ slashes')
    cli.ok("memories", "add", "-u", "bob", "--global", "Bob's own fact")
    cli.ok("context", "-u", "alice", "-w", "phoenix", "-m", "hi")  # sets last_used_at


def test_export_import_export_is_byte_identical(cli: Cli, alice: str, tmp_path: Path) -> None:
    seed(cli)
    first = tmp_path / "first.jsonl"
    written = cli.ok("export", "-u", alice, "-o", str(first)).stderr
    assert "exported 4 memories, 0 chats and alice's preferences" in written
    exported = first.read_bytes()
    assert cli.ok("export", "-u", alice).stdout_bytes == exported
    preferences, *records = [json.loads(line) for line in exported.decode("utf-8").splitlines()]
    assert preferences == {
        "preferences": {"language": "default", "learn_from_chats": True, "memory_review": "default"}
    }
    assert len(records) == 4 and "Bob's own fact" not in exported.decode("utf-8")
    assert any(r["last_used_at"] for r in records)

    fresh = f"sqlite:///{tmp_path / 'fresh.db'}"
    cli.ok("users", "add", "alice", db=fresh)
    out = cli.ok("import", "-u", "alice", str(first), db=fresh).stdout
    assert "created 4, updated 0, unchanged 0, skipped 0 duplicates" in out
    assert "created workspaces: atlas, phoenix" in out
    second = cli.ok("export", "-u", "alice", db=fresh).stdout_bytes
    assert second == exported


def test_importing_an_unchanged_export_again_changes_nothing(cli: Cli, alice: str) -> None:
    """Issue 38: not "updated 4" with four audit updates whose before and after are equal."""
    seed(cli)
    exported = cli.ok("export", "-u", alice).stdout
    logged = cli.json("audit", "-u", alice, "--limit", "1000")
    summary = json.loads(cli.ok("import", "-u", alice, "-", "--json", input=exported).stdout)
    assert cli.json("audit", "-u", alice, "--limit", "1000") == logged
    assert summary == {
        "created": 0,
        "updated": 0,
        "unchanged": 4,
        "skipped": 0,
        "workspaces_created": [],
        "preferences": {
            "language": "default",
            "learn_from_chats": True,
            "memory_review": "default",
        },
        "chats_created": 0,
        "chats_skipped": 0,
    }
    assert cli.ok("export", "-u", alice).stdout == exported
    edited = exported.replace("Prefers concise answers", "Prefers short answers")
    out = cli.ok("import", "-u", alice, "-", input=edited).stdout
    assert out.startswith("created 0, updated 1, unchanged 3, skipped 0 duplicates\n")
    [entry] = cli.json("audit", "-u", alice, "--limit", "1")
    assert entry["action"] == "update" and entry["after"]["content"] == "Prefers short answers"


def test_bad_import_files_exit_2_and_change_nothing(cli: Cli, alice: str, tmp_path: Path) -> None:
    seed(cli)
    before = cli.ok("export", "-u", alice).stdout_bytes
    valid = before.decode("utf-8").splitlines()[1]
    cases = {
        "missing.jsonl": None,
        "latin1.jsonl": valid.replace("Prefers", "Pr\u00e9fers").encode("latin-1") + b"\n",
        "broken.jsonl": b'{"id": "x"\n',
        "heading.jsonl": valid.replace("Prefers concise answers", "## forged").encode() + b"\n",
    }
    reasons = {
        "missing.jsonl": "does not exist",
        "latin1.jsonl": "not valid UTF-8 text (byte 0xe9 on line 1)",
        "broken.jsonl": "line 1: not JSON",
        "heading.jsonl": "line 1: memory content must not start with Markdown",
    }
    for name, content in cases.items():
        path = tmp_path / name
        if content is not None:
            path.write_bytes(content)
        assert reasons[name] in cli.fails("import", "-u", alice, str(path))
    assert "is a directory" in cli.fails("import", "-u", alice, str(tmp_path))
    assert cli.ok("export", "-u", alice).stdout_bytes == before


def test_import_over_the_limit_changes_nothing(cli: Cli, alice: str) -> None:
    lines = [memory_line(f"m{i}", f"fact {i}") for i in range(6)]
    line = cli.fails("import", "-u", alice, "-", input="\n".join(lines))
    assert "limit 5" in line and "nothing was imported" in line
    assert cli.memories() == []


def test_export_errors(cli: Cli, alice: str, tmp_path: Path) -> None:
    assert "no user 'carol'" in cli.fails("export", "-u", "carol")
    assert "cannot write" in cli.fails("export", "-u", alice, "-o", str(tmp_path / "no" / "x"))
    empty = tmp_path / "empty.jsonl"
    cli.ok("export", "-u", "bob", "-o", str(empty))
    assert empty.read_bytes() == (
        b'{"preferences": {"language": "default", "learn_from_chats": true, '
        b'"memory_review": "default"}}\n'
    )


def choices(cli: Cli, name: str, db: str | None = None) -> tuple[bool, str]:
    learning = cli.json("users", "learning", name, db=db)["learn_from_chats"]
    return learning, cli.json("users", "review", name, db=db)["memory_review"]


def test_moving_a_user_carries_their_choices(cli: Cli, alice: str, tmp_path: Path) -> None:
    seed(cli)
    cli.ok("users", "learning", alice, "off")
    cli.ok("users", "review", alice, "everything")
    exported = cli.ok("export", "-u", alice).stdout_bytes
    fresh = f"sqlite:///{tmp_path / 'fresh.db'}"
    cli.ok("users", "add", "alice", db=fresh)
    out = cli.ok("import", "-u", "alice", "-", input=exported, db=fresh).stdout
    assert "set preferences: learn_from_chats false, memory_review everything" in out
    assert choices(cli, "alice", fresh) == (False, "everything")
    assert cli.ok("export", "-u", "alice", db=fresh).stdout_bytes == exported


def test_no_preferences_keeps_the_choices_the_user_has(cli: Cli, alice: str) -> None:
    seed(cli)
    exported = cli.ok("export", "-u", alice).stdout  # learning on, review default
    cli.ok("users", "learning", alice, "off")
    cli.ok("users", "review", alice, "updates")
    out = cli.ok("import", "-u", alice, "-", "--no-preferences", input=exported).stdout
    assert "left the user's preferences as they were (--no-preferences)" in out
    assert choices(cli, alice) == (False, "updates")
    summary = json.loads(
        cli.ok("import", "-u", alice, "-", "--no-preferences", "--json", input=exported).stdout
    )
    assert summary["preferences"] is None and summary["unchanged"] == 4


def test_a_malformed_preferences_line_exits_2_and_imports_nothing(cli: Cli, alice: str) -> None:
    seed(cli)
    before = cli.ok("export", "-u", alice).stdout_bytes
    memories = before.decode("utf-8").splitlines()[1:]
    cases = {
        '{"preferences": {"learn_from_chats": false, "memory_review": "sometimes"}}': (
            "error: line 1: unknown memory_review 'sometimes': use default, off, updates,"
            " everything"
        ),
        '{"preferences": {"learn": false}}': "error: line 1: unknown preference 'learn'",
        '{"preferences": {"learn_from_chats": "off"}}': (
            "error: line 1: learn_from_chats must be true or false, not 'off'"
        ),
    }
    for bad, message in cases.items():
        text = "\n".join([bad, '{"content": "Likes jazz"}', *memories]) + "\n"
        assert cli.fails("import", "-u", alice, "-", input=text).startswith(message)
        # checked even when the import would not apply it
        refused = cli.fails("import", "-u", alice, "-", "--no-preferences", input=text)
        assert refused.startswith(message)
    twice = '{"preferences": {"learn_from_chats": false}}'
    text = "\n".join([twice, '{"content": "Likes jazz"}', "", twice]) + "\n"
    assert "line 4: a second preferences line (the first is line 1)" in cli.fails(
        "import", "-u", alice, "-", input=text
    )
    assert cli.ok("export", "-u", alice).stdout_bytes == before
    assert choices(cli, alice) == (True, "default")


def record_chats(cli: Cli) -> None:
    [ships] = [m["id"] for m in cli.memories() if m["content"] == "Phoenix ships in Q3"]
    cli.ok("chats", "add", "-u", "alice", "-w", "phoenix", "--prompt", "When do we ship?",
           "--response", "In Q3.", "--memory", ships)  # fmt: skip
    cli.ok("chats", "add", "-u", "bob", "-w", "phoenix", "--prompt", "Bob asks", "--response", "ok")
    cli.ok("chats", "add", "-u", "alice", "-w", "atlas", "--prompt", "Kafka or not?",
           "--response", "Kafka.")  # fmt: skip


def test_export_carries_the_chats_and_imports_them_elsewhere(
    cli: Cli, alice: str, tmp_path: Path
) -> None:
    seed(cli)
    record_chats(cli)
    path = tmp_path / "alice.jsonl"
    written = cli.ok("export", "-u", alice, "-o", str(path)).stderr
    assert "exported 4 memories, 2 chats and alice's preferences" in written
    lines = path.read_text("utf-8").splitlines()
    chats = [json.loads(line)["chat"] for line in lines[-2:]]
    assert [(c["workspace"], c["prompt"], c["memory_processed"]) for c in chats] == [
        ("phoenix", "When do we ship?", False),
        ("atlas", "Kafka or not?", False),
    ]
    assert "Bob asks" not in path.read_text("utf-8")

    fresh = f"sqlite:///{tmp_path / 'fresh.db'}"
    cli.ok("users", "add", "alice", db=fresh)
    out = cli.ok("import", "-u", "alice", str(path), db=fresh).stdout
    assert "added 2 chats, skipped 0 already recorded" in out
    moved = cli.json("chats", "list", "-u", "alice", db=fresh)
    assert sorted(c["prompt"] for c in moved) == ["Kafka or not?", "When do we ship?"]
    [ship] = [c for c in moved if c["prompt"] == "When do we ship?"]
    assert [m["content"] for m in ship["memories"]] == ["Phoenix ships in Q3"]
    second = cli.ok("export", "-u", "alice", db=fresh).stdout_bytes
    # bob's chat 2 is not alice's: her second chat is numbered 2 here, not 3
    assert second == path.read_bytes().replace(b'"id": 3, ', b'"id": 2, ')
    again = json.loads(cli.ok("import", "-u", "alice", str(path), "--json", db=fresh).stdout)
    assert (again["chats_created"], again["chats_skipped"]) == (0, 2)


def test_no_chats_on_export_and_on_import(cli: Cli, alice: str) -> None:
    seed(cli)
    record_chats(cli)
    full = cli.ok("export", "-u", alice).stdout
    without = cli.ok("export", "-u", alice, "--no-chats").stdout
    assert without.splitlines() == full.splitlines()[:-2] and '"chat"' not in without
    cli.ok("chats", "clear", "-u", alice, "--yes")
    out = cli.ok("import", "-u", alice, "-", "--no-chats", input=full).stdout
    assert "skipped the file's 2 chats (--no-chats)" in out
    assert cli.json("chats", "list", "-u", alice) == []


def test_a_malformed_chat_line_exits_2_and_imports_nothing(cli: Cli, alice: str) -> None:
    seed(cli)
    before = cli.ok("export", "-u", alice).stdout_bytes
    bad = '{"chat": {"workspace": "phoenix", "prompt": "hi", "processed": true}}'
    text = "\n".join(['{"content": "Likes jazz"}', "", bad]) + "\n"
    refused = cli.fails("import", "-u", alice, "-", input=text)
    assert refused.startswith("error: line 3: unknown chat field 'processed'")
    assert cli.ok("export", "-u", alice).stdout_bytes == before
    assert cli.json("chats", "list", "-u", alice) == []


def test_chats_need_membership_of_their_workspace(cli: Cli, alice: str) -> None:
    cli.ok("workspaces", "add", "secret")  # alice is not a member
    line = '{"chat": {"workspace": "secret", "prompt": "hello", "response": "hi"}}\n'
    assert "secret" in cli.fails("import", "-u", alice, "-", input=line)
    assert cli.ok("import", "-u", alice, "-", "--no-chats", input=line).stdout
    assert cli.json("chats", "list", "-u", alice) == []
    new = line.replace("secret", "newproj")
    assert "created workspaces: newproj" in cli.ok("import", "-u", alice, "-", input=new).stdout
    members = cli.json("workspaces", "members", "list", "newproj")
    assert [m["name"] for m in members] == ["alice"]


def test_a_chat_linking_a_memory_it_may_not_link_exits_2_and_imports_nothing(
    cli: Cli, alice: str
) -> None:
    seed(cli)
    before = cli.ok("export", "-u", alice).stdout_bytes
    [atlas] = [m["id"] for m in cli.memories() if m["workspace"] == "atlas"]
    [bobs] = [m["id"] for m in cli.memories("bob")]
    chat = {"workspace": "phoenix", "prompt": "Which quotes?", "response": "Those."}
    new = '{"id": "fresh", "content": "Likes jazz", "workspace": "atlas"}'
    cases = {
        atlas: f"error: line 1: the chat links memory '{atlas}', which is not a memory of yours",
        "fresh": "error: line 2: the chat links memory 'fresh', which line 1 puts in 'atlas'",
    }
    for memory_id, reason in cases.items():
        line = json.dumps({"chat": {**chat, "memory_ids": [memory_id]}})
        lines = [line] if memory_id != "fresh" else [new, line]
        assert cli.fails("import", "-u", alice, "-", input="\n".join(lines)).startswith(reason)
    assert cli.ok("export", "-u", alice).stdout_bytes == before
    assert cli.json("chats", "list", "-u", alice) == []
    # another user's memory is not refused (that would say the id exists): the link is dropped
    line = json.dumps({"chat": {**chat, "memory_ids": [bobs]}})
    cli.ok("import", "-u", alice, "-", input=line)
    [imported] = cli.json("chats", "list", "-u", alice)
    assert imported["prompt"] == "Which quotes?" and imported["memories"] == []
