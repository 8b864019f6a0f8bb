"""``memoryd extract`` and ``memoryd runs`` against the scripted LLM server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from memoryd import Memoryd
from memoryd.cli.app import app
from memoryd.embedding.minilm import MiniLMEmbedder
from memoryd.testing import FakeOpenAIServer, Reply
from support.extraction import chat, observe


@pytest.fixture
def seeded(database_url: str, embedder: MiniLMEmbedder) -> str:
    with Memoryd(database_url, embedder=embedder) as md:
        ana = md.create_user("ana")
        md.create_user("bob")
        md.create_workspace("lab")
        chat(md, ana.id, "lab", 3, "I run the Porto lab.")
    return database_url


def run(url: str, srv: FakeOpenAIServer, tmp_path: Path, *args: str) -> Result:
    env: dict[str, Any] = {
        "MEMORYD_DATABASE_URL": None,
        "MEMORYD_DATA_DIR": str(tmp_path),
        "MEMORYD_LLM_PROVIDER": "openai",
        "MEMORYD_LLM_BASE_URL": srv.base_url,
        "MEMORYD_LLM_API_KEY": "sk-cli-test-key-000000000000",
        "MEMORYD_LLM_TIMEOUT": "2",
        "MEMORY_IDLE_THRESHOLD_MS": "0",
        "COLUMNS": "250",
    }
    return CliRunner().invoke(app, [*args, "--db", url], env=env)


def test_extract_one_pair_then_runs(
    seeded: str, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    fake_llm.script(observe(person=[1]))

    result = run(seeded, fake_llm, tmp_path, "extract", "--user", "ana", "--workspace", "lab")

    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[:2] == [
        "[1/1] ana/lab: extracting...",
        "[1/1] ana/lab: 1 created, 0 updated, 3 chats processed",
    ]
    assert "1 processed" in result.stdout and "1 LLM calls" in result.stdout
    history = run(seeded, fake_llm, tmp_path, "runs", "--json")
    [entry] = json.loads(history.stdout)
    assert (entry["memories_created"], entry["chats_processed"], entry["status"]) == (1, 3, "ok")
    table = run(seeded, fake_llm, tmp_path, "runs")
    assert entry["id"][:8] in table.stdout and "manual" in table.stdout
    assert "sk-cli-test-key" not in table.output + result.output


def test_dry_run_prints_the_plan_and_writes_nothing(
    seeded: str, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    fake_llm.script(observe(person=[1]))
    result = run(seeded, fake_llm, tmp_path, "extract", "--dry-run", "--force")
    assert result.exit_code == 0, result.output
    assert "ana/lab: create global: The user runs the Porto lab." in result.stdout
    listed = run(seeded, fake_llm, tmp_path, "memories", "list", "--user", "ana", "--json")
    assert json.loads(listed.stdout) == []


def test_all_due_pairs_with_a_failure(
    seeded: str, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    fake_llm.script(Reply.error(500, "model server down"))
    result = run(seeded, fake_llm, tmp_path, "extract")
    assert result.exit_code == 1
    assert "ana/lab: failed, chats left unprocessed" in result.stderr
    failing = run(seeded, fake_llm, tmp_path, "runs", "--parked")
    assert "model server down" in failing.stdout and "ana" in failing.stdout
    run_id = json.loads(run(seeded, fake_llm, tmp_path, "runs", "--json").stdout)[0]["id"]
    detail = run(seeded, fake_llm, tmp_path, "runs", "--run", run_id[:6])
    assert "[pair] user 1/lab: LLM server answered HTTP 500: model server down" in detail.stdout


def test_bad_input_is_one_line_and_exit_2(
    seeded: str, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    for args in (("extract", "--user", "ana"), ("extract", "--user", "zoe", "-w", "lab"),
                 ("extract", "--user", "ana", "-w", "nope")):  # fmt: skip
        result = run(seeded, fake_llm, tmp_path, *args)
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith("error: ") and len(result.stderr.splitlines()) == 1
    assert fake_llm.requests == []
    assert json.loads(run(seeded, fake_llm, tmp_path, "runs", "--json").stdout) == []
