"""``memoryd import`` of hand-written lines, and its workspace rules (issue 12, item 6)."""

from __future__ import annotations

import json

from support.cli import Cli


def test_lines_with_only_content_and_scope_are_imported(cli: Cli, alice: str) -> None:
    lines = [
        {"content": "Prefers tea", "scope": "global"},
        {"content": "Phoenix ships in Q3", "scope": "workspace", "workspace": "phoenix"},
        {"content": "Atlas runs on Fridays", "workspace": "atlas"},  # scope follows
        {"content": "Likes short answers"},  # no scope, no workspace: global
    ]
    text = "\n".join(json.dumps(line) for line in lines) + "\n"
    summary = json.loads(cli.ok("import", "-u", alice, "-", "--json", input=text).stdout)
    assert summary["created"] == 4
    stored = {(m["scope"], m["workspace"], m["content"], m["source"]) for m in cli.memories()}
    assert stored == {
        ("global", None, "Prefers tea", "import"),
        ("workspace", "phoenix", "Phoenix ships in Q3", "import"),
        ("workspace", "atlas", "Atlas runs on Fridays", "import"),
        ("global", None, "Likes short answers", "import"),
    }
    assert all(len(m["id"]) == 32 and m["created_at"] for m in cli.memories())
    # the same lines again are duplicates, not new memories
    again = json.loads(cli.ok("import", "-u", alice, "-", "--json", input=text).stdout)
    assert again["skipped"] == 4 and again["created"] == 0


def test_hand_written_lines_are_still_checked(cli: Cli, alice: str) -> None:
    cases = {
        '{"scope": "global"}': "line 1: missing content",
        '{"content": "x", "scope": "workspace"}': "line 1: a workspace memory needs a workspace",
        '{"content": "x", "scope": "global", "workspace": "phoenix"}': "line 1: a global memory",
        '{"content": "x", "scope": "everywhere"}': "line 1:",
        '{"content": "x", "created_at": "yesterday"}': "line 1: created_at is not an ISO 8601",
    }
    for line, reason in cases.items():
        assert reason in cli.fails("import", "-u", alice, "-", input=line)
    assert cli.memories() == []


def test_import_into_a_workspace_needs_membership_and_new_ones_admit_the_user(
    cli: Cli, alice: str
) -> None:
    cli.ok("users", "add", "carol")
    line = json.dumps({"content": "Phoenix ships in Q3", "workspace": "phoenix"})
    refused = cli.fails("import", "-u", "carol", "-", input=line)
    assert "carol is not a member of workspace 'phoenix'" in refused
    assert cli.memories("carol") == []
    fresh = json.dumps({"content": "The oven runs hot", "workspace": "kitchen"})
    out = cli.ok("import", "-u", "carol", "-", input=fresh).stdout
    assert "created workspaces: kitchen" in out
    members = cli.json("workspaces", "members", "list", "kitchen")
    assert [m["name"] for m in members] == ["carol"]
