"""``memoryd import-history`` and ``memoryd memories add-many``: another product's chats
and saved facts, in one command each; a second run records nothing; bad input is one
line and a non-zero exit."""

from __future__ import annotations

import json
from pathlib import Path

from support.cli import Cli
from support.history import EXPECTED, FILES, SAMPLES


def test_each_export_is_recorded_then_nothing_new(cli: Cli, alice: str) -> None:
    for name, file in FILES.items():
        path = str(SAMPLES / file)
        first = cli.ok("import-history", path, "-u", alice, "-w", "phoenix").stdout
        assert first.splitlines() == [
            f"{ {'chatgpt': 'ChatGPT', 'claude': 'Claude', 'openwebui': 'Open WebUI'}[name] }"
            " export: 2 conversations, 3 turns recorded, 0 already there, 0 skipped"
        ]
        again = cli.json("import-history", path, "-u", alice, "-w", "phoenix", "--format", name)
        assert again == {
            "format": name,
            "conversations": 2,
            "recorded": 0,
            "already": 3,
            "skipped": 0,
        }
    chats = cli.json("chats", "list", "-u", alice, "-w", "phoenix")
    prompts = [c["prompt"] for c in chats]
    assert sorted(prompts) == sorted(p for turns in EXPECTED.values() for p, _, _ in turns)


def test_stdin_and_quiet(cli: Cli, alice: str) -> None:
    text = (SAMPLES / FILES["claude"]).read_text(encoding="utf-8")
    out = cli.ok("import-history", "-", "-u", alice, "-w", "atlas", "--quiet", input=text)
    assert out.stdout.endswith("3 turns recorded, 0 already there, 0 skipped\n")


def test_bad_files_and_places_are_one_line_each(cli: Cli, alice: str, tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('[{"mapping": {"a": 1}}]', encoding="utf-8")
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"memories": []}), encoding="utf-8")
    claude = str(SAMPLES / FILES["claude"])
    cases = [
        ((str(broken), "-w", "phoenix"), "conversation 1 of the ChatGPT export: node 'a' is not"),
        ((str(other), "-w", "phoenix"), "not a ChatGPT, Claude or Open WebUI export"),
        ((claude, "-w", "phoenix", "--format", "chatgpt"), "'mapping' must be an object"),
        ((str(tmp_path / "none.json"), "-w", "phoenix"), "does not exist"),
        ((claude, "-w", "nowhere"), "no workspace 'nowhere'"),
    ]
    for args, message in cases:
        said = cli.fails("import-history", *args, "-u", alice)
        assert message in said and len(said.strip().splitlines()) == 1, said
    cli.ok("workspaces", "add", "private")
    said = cli.fails("import-history", claude, "-u", alice, "-w", "private")
    assert "alice is not a member of workspace 'private'" in said
    assert cli.json("chats", "list", "-u", alice) == []


def test_a_pasted_list_adds_the_good_lines(cli: Cli, alice: str) -> None:
    facts = (
        "- Prefers short answers\n\n• Lives in Lisbon\n2) My PIN is 4921\nPrefers short answers\n"
    )
    result = cli.run("memories", "add-many", "-u", alice, "-", input=facts)
    assert result.exit_code == 2
    assert result.stdout.splitlines() == [
        "line 4: refused as a secret: it contains a password or other credential",
        "line 5: the same fact as line 1",
        "added 2 of 4 facts, 2 refused",
    ]
    assert sorted(cli.contents(alice)) == ["Lives in Lisbon", "Prefers short answers"]
    args = ("memories", "add-many", "-u", alice, "-w", "phoenix", "-", "--json")
    again = json.loads(cli.ok(*args, input="Ships in Q3").stdout)
    assert again[0]["error"] is None and again[0]["line"] == 1
    assert cli.contents(alice, "-w", "phoenix") == ["Ships in Q3"]
