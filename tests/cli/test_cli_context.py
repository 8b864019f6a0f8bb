"""``memoryd context``: the system prompt a turn gets and which memories were chosen, and why."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from memoryd import Memory, Query, hookimpl
from memoryd.plugins import plugin_manager
from support.cli import Cli


def add(cli: Cli, text: str, *where: str) -> str:
    created: dict[str, str] = cli.json("memories", "add", "--user", "alice", *where, text)
    return created["id"]


def test_prompt_and_table(cli: Cli, alice: str) -> None:
    add(cli, "Prefers concise answers", "--global")
    add(cli, "Phoenix ships in Q3", "-w", "phoenix")
    add(cli, "Atlas is written in Go", "-w", "atlas")
    out = cli.ok(
        "context",
        "--user",
        alice,
        "--workspace",
        "phoenix",
        "--message",
        "When do we ship?",
        "--base",
        "You are a helpful assistant.",
    ).stdout
    assert out.startswith(
        "You are a helpful assistant.\n\n## Things I Remember About You\n"
        "- Prefers concise answers\n- Phoenix ships in Q3\n"
    )
    assert "Memories chosen for this turn (2)" in out
    assert "Atlas" not in out
    assert "all 1 workspace memories fit; no ranking needed" in out


def test_json_ranks_workspace_memories(cli: Cli, alice: str, tmp_path: Path) -> None:
    add(cli, "Prefers concise answers", "--global")
    facts = [
        "The phoenix database is PostgreSQL 16",
        "Standup is at 9:30 every morning",
        "The office plants are watered on Fridays",
        "Lunch orders go through the team channel",
        "The logo is orange and purple",
        "The holiday party is in December",
        "Code reviews need two approvals",
    ]
    ids = {add(cli, fact, "-w", "phoenix"): fact for fact in facts}
    history = tmp_path / "history.json"
    history.write_text(
        json.dumps([{"role": "user", "content": "We are migrating storage engines."}]),
        encoding="utf-8",
    )
    turn = cli.json(
        "context",
        "-u",
        alice,
        "-w",
        "phoenix",
        "-m",
        "Which database does phoenix use?",
        "--history-file",
        str(history),
    )
    assert set(turn) >= {"system_prompt", "section", "memories", "reranker", "fallback_reason"}
    assert turn["reranker"] and turn["fallback_reason"] is None
    chosen = turn["memories"]
    assert len(chosen) == 6
    assert chosen[0] == {
        "id": chosen[0]["id"],
        "scope": "global",
        "workspace": None,
        "content": "Prefers concise answers",
        "score": None,
    }
    workspace_part = chosen[1:]
    assert all(m["id"] in ids and m["workspace"] == "phoenix" for m in workspace_part)
    scores = [m["score"] for m in workspace_part]
    assert scores == sorted(scores, reverse=True)
    assert workspace_part[0]["content"] == "The phoenix database is PostgreSQL 16"
    assert turn["system_prompt"] == turn["section"]
    assert turn["section"].splitlines()[1:] == [f"- {m['content']}" for m in chosen]


def test_memory_disabled_injects_nothing(cli: Cli, alice: str) -> None:
    add(cli, "Prefers concise answers", "--global")
    cli.ok("settings", "set", "memory_enabled", "off")
    turn = cli.json("context", "-u", alice, "-w", "phoenix", "-m", "hi", "--base", "Base.")
    assert (turn["system_prompt"], turn["memories"], turn["enabled"]) == ("Base.", [], False)
    out = cli.ok("context", "-u", alice, "-w", "phoenix", "-m", "hi").stdout
    assert "memory is off" in out


class BrokenReranker:
    name = "broken"

    def score(self, query: Query, memories: Sequence[Memory]) -> Sequence[float]:
        raise RuntimeError("model file is corrupt")


class BrokenRerankerPlugin:
    @hookimpl
    def register_rerankers(self, register: Callable[[str, Callable[..., Any]], None]) -> None:
        register("broken", lambda embedder: BrokenReranker())


@pytest.fixture
def broken_reranker(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    plugin = BrokenRerankerPlugin()
    plugin_manager().register(plugin, "test-broken-reranker")
    monkeypatch.setenv("MEMORYD_RERANKER", "broken")
    try:
        yield
    finally:
        plugin_manager().unregister(plugin)


def test_reranker_failure_shows_the_fallback(cli: Cli, alice: str, broken_reranker: None) -> None:
    for i in range(7):
        add(cli, f"phoenix fact {i}", "-w", "phoenix")
    turn = cli.json("context", "-u", alice, "-w", "phoenix", "-m", "anything")
    assert turn["fallback_reason"] == "RuntimeError: model file is corrupt"
    newest_first = [f"phoenix fact {i}" for i in (6, 5, 4, 3, 2)]
    assert [m["content"] for m in turn["memories"]] == newest_first
    assert all(m["score"] is None for m in turn["memories"])
    out = cli.ok("context", "-u", alice, "-w", "phoenix", "-m", "anything").stdout
    assert "reranker broken failed" in out and "model file is corrupt" in out


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b'{"role": "user"', "not JSON"),
        (b'"just text"', "JSON list of messages"),
        (b"[1, 2]", "message 1 is not an object"),
        (b'[{"role": "user", "content": "caf\xe9"}]', "not valid UTF-8"),
    ],
)
def test_bad_history_file_exits_2(
    cli: Cli, alice: str, tmp_path: Path, content: bytes, reason: str
) -> None:
    path = tmp_path / "history.json"
    path.write_bytes(content)
    assert reason in cli.fails(
        "context", "-u", alice, "-w", "phoenix", "-m", "hi", "--history-file", str(path)
    )


def test_context_errors(cli: Cli, alice: str, tmp_path: Path) -> None:
    missing = str(tmp_path / "missing.json")
    assert "does not exist" in cli.fails(
        "context", "-u", alice, "-w", "phoenix", "-m", "hi", "--history-file", missing
    )
    assert "no workspace 'nope'" in cli.fails("context", "-u", alice, "-w", "nope", "-m", "hi")
    assert "no user 'carol'" in cli.fails("context", "-u", "carol", "-w", "phoenix", "-m", "hi")
    assert "not valid UTF-8" in cli.fails("context", "-u", alice, "-w", "phoenix", "-m", "\udcff")
    assert cli.run("context", "-u", alice, "-w", "phoenix").exit_code == 2  # no --message


def test_a_turn_without_a_workspace_gets_the_globals_only(cli: Cli, alice: str) -> None:
    add(cli, "Prefers concise answers", "--global")
    add(cli, "Phoenix ships in Q3", "-w", "phoenix")
    out = cli.ok("context", "--user", alice, "--message", "When do we ship?").stdout
    assert out.startswith("## Things I Remember About You\n- Prefers concise answers\n")
    assert "Phoenix" not in out
    assert "no --workspace: only global memories are injected" in out
    data = cli.json("context", "--user", alice, "-m", "When do we ship?")
    assert [(m["scope"], m["content"]) for m in data["memories"]] == [
        ("global", "Prefers concise answers")
    ]
