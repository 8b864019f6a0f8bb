"""``memoryd extract`` and ``memoryd runs`` against the scripted LLM server."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from memoryd import Memoryd
from memoryd.cli.app import app
from memoryd.models.embedding.minilm import MiniLMEmbedder
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
    # the Observer's answer, then the new memory's questions
    # (MEMORYD_QUESTION_MEMORIES_PER_RUN, 50; one call per prompt)
    asked = Reply.json({"questions": ["Where do you work?", "What is your job?", "Who leads?"]})
    fake_llm.script(observe(person=[1]), asked, asked)

    result = run(seeded, fake_llm, tmp_path, "extract", "--user", "ana", "--workspace", "lab")

    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[:2] == [
        "[1/1] ana/lab: extracting...",
        "[1/1] ana/lab: 1 created, 0 updated, 3 chats processed",
    ]
    assert "1 processed" in result.stdout
    assert "3 chats, 1 asked for questions; 3 LLM calls, " in result.stdout
    history = run(seeded, fake_llm, tmp_path, "runs", "--json")
    [entry] = json.loads(history.stdout)
    assert (entry["memories_created"], entry["chats_processed"], entry["status"]) == (1, 3, "ok")
    assert entry["memories_questioned"] == 1
    table = run(seeded, fake_llm, tmp_path, "runs")
    assert entry["id"][:8] in table.stdout and "manual" in table.stdout
    assert "asked" in table.stdout  # the column, from 130 columns
    one = run(seeded, fake_llm, tmp_path, "runs", "--run", entry["id"][:8])
    assert "1 asked for questions" in one.stdout
    # the id alone, without --run (issue 38), also after other options
    assert run(seeded, fake_llm, tmp_path, "runs", entry["id"][:8]).stdout == one.stdout
    after = run(seeded, fake_llm, tmp_path, "runs", "--limit", "3", entry["id"])
    assert after.stdout == one.stdout
    pruned = run(seeded, fake_llm, tmp_path, "runs", "prune", "--dry-run")  # still a command
    assert pruned.stdout.startswith("would remove 0 row(s)"), pruned.output
    missing = run(seeded, fake_llm, tmp_path, "runs", "abcdef")
    assert (missing.exit_code, missing.stderr) == (2, "error: no extraction run 'abcdef'\n")
    assert "sk-cli-test-key" not in table.output + result.output


@pytest.mark.parametrize("pair", [(), ("--user", "ana", "--workspace", "lab")])
def test_dry_run_prints_the_candidates_and_writes_nothing(
    seeded: str, fake_llm: FakeOpenAIServer, tmp_path: Path, pair: tuple[str, ...]
) -> None:
    fake_llm.script(observe(person=[1, 9]))  # sentence 9 does not exist: dropped
    result = run(seeded, fake_llm, tmp_path, "extract", "--dry-run", "--force", *pair)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "ana/lab: would create workspace: The user runs the Porto lab."
    assert lines[1].startswith("ana/lab: would drop ")
    assert lines[-1].startswith("dry run: nothing was written and no run was recorded; ")
    assert "1 change(s) planned, 1 fact(s) dropped" in lines[-1]
    assert not re.search(r"\brun [0-9a-f]{8}", result.stdout)  # no id `runs` would not know
    listed = run(seeded, fake_llm, tmp_path, "memories", "list", "--user", "ana", "--json")
    assert json.loads(listed.stdout) == []
    assert json.loads(run(seeded, fake_llm, tmp_path, "runs", "--json").stdout) == []
    fake_llm.script(observe(person=[1, 9]))
    as_json = run(seeded, fake_llm, tmp_path, "extract", "--dry-run", "--force", "--json", *pair)
    data = json.loads(as_json.stdout)
    assert data["dry_run"] is True and data["run"] is None
    assert data["pairs"][0]["planned"] == ["create workspace: The user runs the Porto lab."]


def test_a_run_that_dropped_a_fact_is_ok_and_its_details_are_kept(
    seeded: str, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    # a real sentence and an invented one (an answer of only invented ones is retried,
    # then fails the batch: tests/security/test_wrong_llm_answers.py)
    fake_llm.script(observe(person=[1, 9]))
    result = run(seeded, fake_llm, tmp_path, "extract", "--force")
    assert result.exit_code == 0, result.output
    assert "status ok (0 pair(s) failed, 1 fact(s) dropped, 0 not stored)" in result.stdout
    [entry] = json.loads(run(seeded, fake_llm, tmp_path, "runs", "--json").stdout)
    assert (entry["status"], entry["pairs_failed"], entry["facts_dropped"]) == ("ok", 0, 1)
    [pair] = entry["pairs"]
    assert (pair["workspace"], pair["status"], len(pair["dropped"])) == ("lab", "processed", 1)
    detail = run(seeded, fake_llm, tmp_path, "runs", "--run", entry["id"][:6]).stdout
    assert "* ana/lab: processed: 1 created, 0 updated, 3 chats, 1 dropped" in detail
    assert "- [item] ana/lab:" in detail  # named as on the pair's line, not "user 1"
    assert re.search(r"^started \S+ \S+ UTC \(manual\), finished \S+ \S+ UTC; LLM: openai ",
                     detail, re.M)  # fmt: skip


@pytest.mark.parametrize("columns", ["80", "100", "250"])
def test_runs_table_never_splits_a_header(
    seeded: str, fake_llm: FakeOpenAIServer, tmp_path: Path, columns: str
) -> None:
    fake_llm.script(observe(person=[1, 9]))
    assert run(seeded, fake_llm, tmp_path, "extract", "--force").exit_code == 0
    env = {"MEMORYD_DATABASE_URL": None, "COLUMNS": columns}
    table = CliRunner().invoke(app, ["runs", "--db", seeded], env=env).stdout
    assert max(len(line) for line in table.splitlines()) <= int(columns)
    header = next(line for line in table.splitlines() if "status" in line).split()
    trigger = ["trigger"] if int(columns) >= 100 else []  # narrow: fewer columns, whole words
    expected = ["run", "started", *trigger, "status", "pairs", "memories", "chats", "failed"]
    assert header[: len(expected) + 1] == [*expected, "dropped"]
    assert ("tokens" in header) is (int(columns) >= 130)
    row = next(line for line in table.splitlines() if " ok " in line).split()
    assert ("manual" in row) is bool(trigger)
    status = row.index("ok")
    assert row[status : status + 7] == ["ok", "1/1", "+1", "~0", "3", "0", "1"]


def test_all_due_pairs_with_a_failure(
    seeded: str, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    fake_llm.script(Reply.error(500, "model server down"))
    result = run(seeded, fake_llm, tmp_path, "extract")
    assert result.exit_code == 1
    assert "ana/lab: failed, chats left unprocessed" in result.stderr
    # the call was made and failed: counted, and shown apart from a run that needed none
    assert "; 1 LLM call (1 failed), 0+0 tokens;" in result.stdout
    failing = run(seeded, fake_llm, tmp_path, "runs", "--parked")
    assert "model server down" in failing.stdout and "ana" in failing.stdout
    [entry] = json.loads(run(seeded, fake_llm, tmp_path, "runs", "--json").stdout)
    assert (entry["llm_calls"], entry["llm_calls_failed"]) == (1, 1)
    assert (entry["pairs"][0]["llm_calls"], entry["pairs"][0]["llm_calls_failed"]) == (1, 1)
    table = run(seeded, fake_llm, tmp_path, "runs").stdout  # 250 columns: LLM calls shown
    row = next(line for line in table.splitlines() if entry["id"][:8] in line)
    assert " 1 (1 failed) " in row
    detail = run(seeded, fake_llm, tmp_path, "runs", "--run", entry["id"][:6])
    assert "; 1 LLM call (1 failed), " in detail.stdout.splitlines()[0]
    assert (
        "* ana/lab: failed: 0 created, 0 updated, 0 chats, 0 dropped, 0 not stored, "
        "1 LLM call (1 failed); LLM server answered HTTP 500" in detail.stdout
    )
    assert "[pair] ana/lab: LLM server answered HTTP 500: model server down" in detail.stdout


def test_empty_history_and_no_failing_pair_say_so_in_one_line(
    seeded: str, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    """Not an empty table: one line saying there is nothing, exit 0; --json stays []."""
    for args, line in (
        (("runs",), "No extraction run is recorded yet; `memoryd extract` runs one now."),
        (("runs", "--parked"), "No pair has a failed batch: none is waiting for a retry or "
         "parked."),
    ):  # fmt: skip
        result = run(seeded, fake_llm, tmp_path, *args)
        assert result.exit_code == 0, result.output
        assert result.stdout.splitlines() == [line] and result.stderr == ""
        assert json.loads(run(seeded, fake_llm, tmp_path, *args, "--json").stdout) == []


def test_bad_input_is_one_line_and_exit_2(
    seeded: str, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    for args in (("extract", "--user", "ana"), ("extract", "--user", "zoe", "-w", "lab"),
                 ("extract", "--user", "ana", "-w", "nope"),
                 ("runs", "--run", "abcdef", "--parked"), ("extract", "--ask-questions", "-1"),
                 ("extract", "--ask-questions", "many")):  # fmt: skip
        result = run(seeded, fake_llm, tmp_path, *args)
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith("error: ") and len(result.stderr.splitlines()) == 1
    assert fake_llm.requests == []
    assert json.loads(run(seeded, fake_llm, tmp_path, "runs", "--json").stdout) == []


def test_a_run_id_prefix_too_short_says_how_long_it_must_be(
    seeded: str, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    result = run(seeded, fake_llm, tmp_path, "runs", "--run", "abc")
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines() == [
        "error: run id 'abc' is too short: give the full id or a unique prefix of at least "
        "6 characters"
    ]
    result = run(seeded, fake_llm, tmp_path, "runs", "--run", "abcdef")
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines() == ["error: no extraction run 'abcdef'"]


def test_a_refused_api_key_is_one_error_line_naming_the_setting(
    seeded: str, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    fake_llm.default = Reply.error(401, "Incorrect API key provided")

    result = run(seeded, fake_llm, tmp_path, "extract", "--force")

    assert result.exit_code == 1, result.output
    last = result.stderr.splitlines()[-1]
    assert last.startswith("error: the LLM server refused the API key (HTTP 401: Incorrect API")
    assert "set MEMORYD_LLM_API_KEY" in last and "Traceback" not in result.output
    assert len(fake_llm.requests) == 1
    parked = run(seeded, fake_llm, tmp_path, "runs", "--parked", "--json")
    assert json.loads(parked.stdout) == []  # no attempt counted: nothing to retry by hand


def test_a_hosted_provider_without_a_key_is_refused_before_any_call(
    seeded: str, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    env: dict[str, Any] = {
        "MEMORYD_DATABASE_URL": None,
        "MEMORYD_DATA_DIR": str(tmp_path),
        "MEMORYD_LLM_PROVIDER": "anthropic",
        "MEMORYD_LLM_BASE_URL": None,
        "MEMORYD_LLM_API_KEY": None,
    }
    result = CliRunner().invoke(app, ["extract", "--force", "--db", seeded], env=env)
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines()[-1].startswith("error: MEMORYD_LLM_API_KEY is not set:")
    assert fake_llm.requests == []


def test_ask_questions_sets_the_budget_and_an_error_is_a_warning(
    seeded: str, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    with Memoryd(seeded) as md:
        ana = md.get_user("ana")
        for text in ("I play chess.", "I have two cats.", "I drink tea."):
            md.add_memory(ana.id, text)
    fake_llm.script(
        observe(person=[]),
        *[Reply.json({"questions": ["Do you play chess?", "What games?", "Any hobbies?"]})] * 2,
        Reply.error(500, "boom"),  # the second memory's first call
    )
    asked = run(seeded, fake_llm, tmp_path, "extract", "--ask-questions", "2")
    assert asked.exit_code == 0, asked.output  # asking never fails a run
    assert "1 asked for questions; 4 LLM calls (1 failed), " in asked.stdout
    last_line = asked.stderr.splitlines()[-1]
    assert last_line.startswith("warning: asking memories' questions stopped after 1 memory: ")
    assert "HTTP 500: boom" in asked.stderr


@pytest.mark.parametrize("columns", ["80", "250"])
def test_suggestions_filed_for_review_are_counted_everywhere_a_run_is_shown(
    seeded: str, fake_llm: FakeOpenAIServer, tmp_path: Path, columns: str
) -> None:
    """Issue 38: with memory_review on, a run that filed suggestions does not read as
    "0 created, 0 updated" with nothing else to see."""
    review = run(seeded, fake_llm, tmp_path, "settings", "set", "memory_review", "everything")
    assert review.exit_code == 0, review.output
    fake_llm.script(observe(person=[1]))
    result = run(seeded, fake_llm, tmp_path, "extract", "--force", "--ask-questions", "0")
    assert result.exit_code == 0, result.output
    assert "[1/1] ana/lab: 0 created, 0 updated, 1 suggested for review, 3 chats processed" in (
        result.stderr
    )
    assert "0 created, 0 updated, 1 suggested for review, 3 chats" in result.stdout
    [entry] = json.loads(run(seeded, fake_llm, tmp_path, "runs", "--json").stdout)
    [waiting] = json.loads(
        run(seeded, fake_llm, tmp_path, "memories", "suggestions", "list", "-u", "ana",
            "--json").stdout
    )  # fmt: skip
    assert entry["memories_suggested"] == 1 and entry["pairs"][0]["suggested"] == [waiting["id"]]
    env = {"MEMORYD_DATABASE_URL": None, "COLUMNS": columns}
    table = CliRunner().invoke(app, ["runs", "--db", seeded], env=env).stdout
    row = next(line for line in table.splitlines() if " ok " in line).split()
    assert row[row.index("ok") + 2 : row.index("ok") + 5] == ["+0", "~0", "?1"]
    detail = run(seeded, fake_llm, tmp_path, "runs", "--run", entry["id"]).stdout
    assert "* ana/lab: processed: 0 created, 0 updated, 1 suggested for review, 3 chats" in detail
