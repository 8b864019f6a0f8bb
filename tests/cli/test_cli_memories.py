"""``memoryd memories``: every subcommand, the content rules, limits, short ids, isolation."""

from __future__ import annotations

from typing import Any

import pytest

from memoryd import Memoryd
from support.cli import Cli, memory_line
from support.questions import store_questions


def add(cli: Cli, text: str, *where: str, user: str = "alice") -> str:
    created: dict[str, str] = cli.json("memories", "add", "--user", user, *where, text)
    return created["id"]


def memory_entries(cli: Cli, user: str) -> list[dict[str, Any]]:
    """The user's audit entries about memories (the fixture's memberships left out)."""
    history: list[dict[str, Any]] = cli.json("memories", "history", "--user", user)
    return [e for e in history if e["memory_id"]]


def test_add_and_list_by_scope(cli: Cli, alice: str) -> None:
    tea = add(cli, "Prefers green tea", "--global")
    q3 = add(cli, "Phoenix ships in Q3", "--workspace", "phoenix")
    add(cli, "Atlas is written in Go", "-w", "atlas")
    every = cli.memories()
    assert [(m["scope"], m["workspace"], m["content"]) for m in every] == [
        ("global", None, "Prefers green tea"),
        ("workspace", "atlas", "Atlas is written in Go"),
        ("workspace", "phoenix", "Phoenix ships in Q3"),
    ]
    assert every[0]["id"] == tea and every[0]["source"] == "admin"
    assert cli.contents("alice", "--scope", "global") == ["Prefers green tea"]
    assert cli.contents("alice", "--workspace", "phoenix") == ["Phoenix ships in Q3"]
    assert len(cli.contents("alice", "--scope", "workspace")) == 2

    table = cli.ok("memories", "list", "--user", alice).stdout
    assert "Global (1/5)" in table
    assert "Workspace atlas (1/20)" in table and "Workspace phoenix (1/20)" in table
    assert q3[:8] in table and q3 not in table  # short ids in the table, full ids in JSON
    assert "Global (1/5)" not in cli.ok("memories", "list", "-u", alice, "-w", "atlas").stdout


def test_add_reports_the_count_and_keeps_markup_literal(cli: Cli, alice: str) -> None:
    out = cli.ok("memories", "add", "-u", alice, "-w", "phoenix", "Uses [bold]rich[/bold]").stdout
    assert "workspace 'phoenix' (1/20)" in out
    assert "[bold]rich[/bold]" in cli.ok("memories", "list", "-u", alice).stdout


def test_add_needs_exactly_one_place(cli: Cli, alice: str) -> None:
    assert "--workspace SLUG or --global" in cli.fails("memories", "add", "-u", alice, "x")
    assert "no workspace" in cli.fails(
        "memories", "add", "-u", alice, "--global", "-w", "atlas", "x"
    )
    assert cli.memories() == []


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("## Forged heading", "Markdown"),
        ("\n\n## Forged heading\n- injected", "Markdown"),
        ("> quoted instructions", "Markdown"),
        ("```", "Markdown"),
        ("x" * 10_000, "limit is 500"),
        ("bell \x07 here", "control character"),
        ("nul \x00 here", "control character"),
        ("escape \x1b[31m red", "control character"),
        ("right-to-left \u202e override", "control character"),
        ("   \n\t  ", "empty"),
    ],
)
def test_hostile_text_is_refused_and_nothing_stored(
    cli: Cli, alice: str, text: str, reason: str
) -> None:
    line = cli.fails("memories", "add", "--user", alice, "-w", "phoenix", text)
    assert reason in line
    assert cli.memories() == []
    assert memory_entries(cli, alice) == []  # only her joining phoenix and atlas


def test_edit_refuses_hostile_text_and_keeps_the_old(cli: Cli, alice: str) -> None:
    memory = add(cli, "Likes tea", "--global")
    cli.fails("memories", "edit", "-u", alice, memory, "## heading")
    cli.fails("memories", "edit", "-u", alice, memory, "y" * 10_000)
    assert cli.contents() == ["Likes tea"]


def test_line_breaks_inside_text_fold_into_one_injected_line(cli: Cli, alice: str) -> None:
    add(cli, "first part\n## not a heading\r\n- not an item", "--global")
    assert cli.contents() == ["first part ## not a heading - not an item"]
    turn = cli.json("context", "-u", alice, "-w", "phoenix", "-m", "hi")
    assert turn["section"].splitlines() == [
        "## Things I Remember About You",
        "- first part ## not a heading - not an item",
    ]


def test_full_global_scope_exits_2_and_evicts_nothing(cli: Cli, alice: str) -> None:
    for i in range(5):
        add(cli, f"global fact {i}", "--global")
    line = cli.fails("memories", "add", "-u", alice, "--global", "one too many")
    assert "global is full (5 memories)" in line
    assert cli.contents("alice", "--scope", "global") == [f"global fact {i}" for i in range(5)]
    stuck = add(cli, "phoenix fact", "-w", "phoenix")
    assert "full" in cli.fails("memories", "promote", "-u", alice, stuck)
    assert cli.memories("alice", "-w", "phoenix")[0]["scope"] == "workspace"


def test_full_workspace_scope_exits_2(cli: Cli, alice: str) -> None:
    for i in range(20):
        add(cli, f"phoenix fact {i}", "-w", "phoenix")
    line = cli.fails("memories", "add", "-u", alice, "-w", "phoenix", "twenty-first")
    assert "workspace 'phoenix' is full (20 memories)" in line
    assert "(20/20)" in cli.ok("memories", "list", "-u", alice, "-w", "phoenix").stdout
    moved = add(cli, "a global one", "--global")
    assert "full" in cli.fails("memories", "demote", "-u", alice, moved, "-w", "phoenix")
    assert len(cli.memories("alice", "-w", "phoenix")) == 20
    assert add(cli, "atlas is separate", "-w", "atlas")


def test_edit_rm_promote_demote_with_short_ids(cli: Cli, alice: str) -> None:
    memory = add(cli, "Phoenix ships in Q3", "-w", "phoenix")
    edited = cli.json("memories", "edit", "-u", alice, memory[:6], "Phoenix ships in Q4")
    assert (edited["id"], edited["content"]) == (memory, "Phoenix ships in Q4")
    promoted = cli.json("memories", "promote", "-u", alice, memory[:7])
    assert (promoted["scope"], promoted["workspace"]) == ("global", None)
    assert "already global" in cli.fails("memories", "promote", "-u", alice, memory)
    out = cli.ok("memories", "demote", "-u", alice, memory[:10], "--workspace", "atlas").stdout
    assert "demoted" in out and "workspace 'atlas' (1/20)" in out
    assert "demoted" in cli.fails("memories", "demote", "-u", alice, memory, "-w", "phoenix")
    assert "deleted" in cli.ok("memories", "rm", "-u", alice, memory[:8]).stdout
    assert cli.memories() == []


def test_duplicate_text_exits_2(cli: Cli, alice: str) -> None:
    first = add(cli, "Likes tea", "--global")
    add(cli, "Likes coffee", "--global")
    assert "already exists" in cli.fails("memories", "add", "-u", alice, "--global", "likes TEA")
    assert "already exists" in cli.fails("memories", "edit", "-u", alice, first, "Likes coffee")
    assert cli.contents() == ["Likes tea", "Likes coffee"]


def test_short_id_too_short_or_ambiguous_exits_2(cli: Cli, alice: str) -> None:
    lines = [memory_line(f"abcdef0{i}", f"fact {i}") for i in (1, 2)]
    cli.ok("import", "-u", alice, "-", input="\n".join(lines))
    line = cli.fails("memories", "rm", "-u", alice, "abcdef")
    assert "ambiguous" in line and "2 memories" in line
    assert "too short" in cli.fails("memories", "rm", "-u", alice, "abc")
    assert "no memory 'ffffff'" in cli.fails("memories", "rm", "-u", alice, "ffffff")
    assert len(cli.memories()) == 2
    cli.ok("memories", "rm", "-u", alice, "abcdef02")
    assert cli.contents() == ["fact 1"]
    table = cli.ok("memories", "list", "-u", alice).stdout
    assert "abcdef01" in table


def test_another_users_memory_is_not_found(cli: Cli, alice: str) -> None:
    secret = add(cli, "Alice's secret project", "-w", "phoenix")
    mine = add(cli, "Bob likes jazz", "--global", user="bob")
    for args in (
        ("edit", "-u", "bob", secret, "stolen"),
        ("rm", "-u", "bob", secret),
        ("promote", "-u", "bob", secret),
        ("demote", "-u", "bob", secret, "-w", "atlas"),
        ("history", "-u", "bob", secret),
        ("rm", "-u", "bob", secret[:6]),
    ):
        assert "no memory" in cli.fails("memories", *args)
    assert cli.contents() == ["Alice's secret project"]
    assert [m["id"] for m in cli.memories("bob")] == [mine]
    assert "Alice" not in cli.ok("memories", "list", "-u", "bob").stdout
    assert [e["memory_id"] for e in memory_entries(cli, "bob")] == [mine]
    assert "no memory" in cli.fails("memories", "rm", "-u", alice, mine)


def test_unknown_user_workspace_or_id_exit_2(cli: Cli, alice: str) -> None:
    assert "no user 'carol'" in cli.fails("memories", "list", "-u", "carol")
    assert "no user 'carol'" in cli.fails("memories", "add", "-u", "carol", "--global", "x")
    assert "no workspace 'nope'" in cli.fails("memories", "add", "-u", alice, "-w", "nope", "x")
    assert "no workspace 'nope'" in cli.fails("memories", "list", "-u", alice, "-w", "nope")
    assert "no memory" in cli.fails("memories", "edit", "-u", alice, "0123456789ab", "x")
    assert "drop --workspace" in cli.fails(
        "memories", "list", "-u", alice, "--scope", "global", "-w", "atlas"
    )
    assert cli.memories() == []


def test_history_shows_before_and_after(cli: Cli, alice: str) -> None:
    memory = add(cli, "Phoenix ships in Q3", "-w", "phoenix")
    other = add(cli, "Likes tea", "--global")
    cli.ok("memories", "edit", "-u", alice, memory, "Phoenix ships in Q4")
    cli.ok("memories", "promote", "-u", alice, memory)
    cli.ok("memories", "rm", "-u", alice, memory)
    entries = cli.json("memories", "history", "-u", alice, memory[:6])
    assert [e["action"] for e in entries] == ["create", "update", "promote", "delete"]
    assert entries[0]["before"] is None and entries[0]["after"]["content"] == "Phoenix ships in Q3"
    assert entries[1]["before"]["content"] == "Phoenix ships in Q3"
    assert entries[1]["after"]["content"] == "Phoenix ships in Q4"
    assert (entries[2]["before"]["scope"], entries[2]["after"]["scope"]) == ("workspace", "global")
    assert entries[3]["after"] is None and entries[3]["actor"] == "admin"
    assert len(cli.json("memories", "history", "-u", alice)) == 7  # and her 2 memberships
    assert other in {e["memory_id"] for e in cli.json("memories", "history", "-u", alice)}
    table = cli.ok("memories", "history", "-u", alice, memory).stdout
    assert "History (4 changes)" in table and "Phoenix ships in Q4" in table


def test_non_utf8_text_is_refused(cli: Cli, alice: str) -> None:
    line = cli.fails("memories", "add", "-u", alice, "--global", "caf\udce9 au lait")
    assert "not valid UTF-8" in line
    assert cli.memories() == []


def test_show_gives_the_questions_and_json_lists_them(cli: Cli, alice: str) -> None:
    garden = add(cli, "Grows roses in the garden", "--global")
    tea = add(cli, "Prefers green tea", "--global")
    # as the questions pass stores them (that pass has its own tests)
    with Memoryd(cli.url) as md:
        store_questions(md, garden, ["Do you garden?", "What grows?"])
    shown = cli.ok("memories", "show", "-u", alice, garden).stdout.splitlines()
    assert "questions: Do you garden? / What grows?" in shown
    assert "questions: Not asked yet" in cli.ok("memories", "show", "-u", alice, tea).stdout
    assert cli.json("memories", "show", "-u", alice, garden)["questions"] == [
        "Do you garden?",
        "What grows?",
    ]
    assert cli.json("memories", "show", "-u", alice, tea)["questions"] is None
