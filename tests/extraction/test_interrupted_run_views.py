"""Where people read runs, an interrupted run says so: ``memoryd runs`` (table, one run,
``--json``), ``memoryd runs prune``, and the admin API -- on SQLite and PostgreSQL.

These run on the real clock (the CLI and the server read it), so the runs are stored at
times relative to now: one whose process died two days ago, one still beating.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memoryd import Memoryd
from memoryd.cli.app import app
from memoryd.models.embedding.minilm import MiniLMEmbedder
from support.cli import Cli
from support.extraction import run_ids, stored_run
from support.server import build_world, make_settings

DIED = "the process running it stopped before it finished"
DAY = timedelta(days=1)


@dataclass(frozen=True)
class Runs:
    finished: str
    alive: str
    dead: str


def store_runs(md: Memoryd) -> Runs:
    now = datetime.now(UTC)
    return Runs(
        finished=stored_run(md, now - 3 * DAY),
        alive=stored_run(md, now - 3 * DAY, finished=False),  # beats now
        dead=stored_run(md, now - 2 * DAY, finished=False, last_beat=now - 2 * DAY),
    )


@pytest.fixture
def seeded(db_url: str, embedder: MiniLMEmbedder) -> tuple[str, Runs]:
    with Memoryd(db_url, embedder=embedder) as md:
        return db_url, store_runs(md)


def test_memoryd_runs_shows_the_interrupted_run(seeded: tuple[str, Runs]) -> None:
    url, runs = seeded
    cli = Cli(url, CliRunner())
    listed = {r["id"]: r for r in cli.json("runs")}
    assert {k: listed[v]["status"] for k, v in vars(runs).items()} == {
        "finished": "ok",
        "alive": "running",
        "dead": "interrupted",
    }
    assert listed[runs.dead]["status_note"].startswith(DIED)
    assert listed[runs.alive]["status_note"] is None
    assert listed[runs.dead]["heartbeat_at"] is not None

    table = cli.ok("runs").stdout
    rows = {line.split()[0]: line.split() for line in table.splitlines() if line.strip()}
    assert "interrupted" in rows[runs.dead[:8]] and "running" in rows[runs.alive[:8]]

    detail = cli.ok("runs", "--run", runs.dead[:8]).stdout
    assert "status interrupted" in detail and f"interrupted: {DIED}" in detail
    [one] = cli.json("runs", "--run", runs.dead)
    assert one["status"] == "interrupted"
    assert "interrupted:" not in cli.ok("runs", "--run", runs.alive).stdout


@pytest.mark.parametrize("columns", [80, 100])
def test_the_narrow_runs_table_splits_no_word_for_interrupted(
    seeded: tuple[str, Runs], columns: int
) -> None:
    url, runs = seeded
    env = {"MEMORYD_DATABASE_URL": None, "COLUMNS": str(columns)}
    table = CliRunner().invoke(app, ["runs", "--db", url], env=env).stdout
    lines = table.splitlines()
    assert max(len(line) for line in lines) <= columns
    header = next(line for line in lines if "status" in line).split()
    assert header[:2] == ["run", "started"] and "dropped" in header
    row = next(line for line in lines if line.strip().startswith(runs.dead[:8])).split()
    assert "interrupted" in row


def test_memoryd_runs_prune_deletes_the_interrupted_run_not_the_live_one(
    seeded: tuple[str, Runs], embedder: MiniLMEmbedder
) -> None:
    url, runs = seeded
    cli = Cli(url, CliRunner())
    planned = cli.json("runs", "prune", "--older-than", "1", "--dry-run")
    assert planned["rows"] == {"extraction_runs": 2}
    said = cli.ok("runs", "prune", "--older-than", "1").stdout
    assert said.startswith("removed 2 row(s) (2 from extraction_runs): finished or interrupted")
    with Memoryd(url, embedder=embedder) as md:
        assert run_ids(md) == {runs.alive}


def test_the_admin_api_shows_the_interrupted_run(
    db_url: str, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    world = build_world(make_settings(tmp_path, database_url=db_url), embedder)
    runs = store_runs(world.md)
    with world.client:
        listed = world.call("admin", "GET", "/api/v1/extraction/runs").json()
        statuses = {r["id"]: (r["status"], r["status_note"]) for r in listed}
        assert statuses[runs.alive] == ("running", None)
        assert statuses[runs.finished] == ("ok", None)
        state, note = statuses[runs.dead]
        assert state == "interrupted" and note.startswith(DIED)
        one = world.call("admin", "GET", f"/api/v1/extraction/runs/{runs.dead[:8]}").json()
        assert (one["status"], one["finished_at"]) == ("interrupted", None)
        assert one["heartbeat_at"] == one["started_at"] and one["status_note"] == note
    world.md.close()
