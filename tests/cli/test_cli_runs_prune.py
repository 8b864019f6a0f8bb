"""``memoryd runs prune`` and the ``run_retention_days`` setting through the CLI."""

from __future__ import annotations

from datetime import timedelta

from memoryd import Memoryd
from memoryd.extraction.runs import list_runs
from support.cli import Cli
from support.extraction import stored_run


def test_prune_dry_run_then_prune_prints_the_rows(cli: Cli, alice: str) -> None:
    with Memoryd(cli.url) as md:
        ana = md.get_user(alice).id
        now = md.clock()
        stored_run(md, now - timedelta(days=200))
        stored_run(md, now - timedelta(days=120))
        newest = stored_run(md, now - timedelta(days=150), [(ana, "phoenix")])
        stored_run(md, now - timedelta(days=400), finished=False)
        stored_run(md, now - timedelta(days=3))
    out = cli.ok("runs", "prune", "--dry-run").stdout
    assert out.startswith("would remove 2 row(s) (2 from extraction_runs)"), out
    assert "older than 90 days" in out and "nothing was deleted" in out
    assert len(cli.json("runs")) == 5
    assert cli.ok("runs", "prune").stdout.startswith("removed 2 row(s)")
    assert len(cli.json("runs")) == 3
    assert newest in {r["id"] for r in cli.json("runs")}
    planned = cli.json("runs", "prune", "--older-than", "2", "--dry-run")
    assert planned["cutoff"].startswith(str((now - timedelta(days=2)).date()))
    assert {k: v for k, v in planned.items() if k != "cutoff"} == {
        "older_than_days": 2,
        "dry_run": True,
        "rows": {"extraction_runs": 1},
    }
    assert cli.ok("runs", "prune", "--older-than", "2").stdout.startswith("removed 1 row(s)")
    assert len(cli.json("runs")) == 2  # the newest of alice/phoenix, and the one in progress


def test_setting_zero_keeps_every_run_and_says_so(cli: Cli) -> None:
    with Memoryd(cli.url) as md:
        stored_run(md, md.clock() - timedelta(days=1000))
    assert cli.ok("settings", "set", "run_retention_days", "0").stdout.strip() == (
        "run_retention_days = 0"
    )
    out = cli.ok("runs", "prune").stdout
    assert "run_retention_days is 0, so every run is kept: nothing removed" in out
    assert len(cli.json("runs")) == 1
    assert cli.ok("runs", "prune", "--older-than", "999").stdout.startswith("removed 1 row(s)")


def test_bad_values_exit_2_with_one_line(cli: Cli) -> None:
    line = cli.fails("settings", "set", "run_retention_days", "forever")
    assert "run_retention_days: expected a number of days from 0 (keep every run)" in line
    assert "to 3650, got 'forever'" in line
    assert cli.json("settings", "get", "run_retention_days") == {"run_retention_days": 90}
    assert "from 1 to 3650, got 0" in cli.fails("runs", "prune", "--older-than", "0")
    assert "give them without `prune`" in cli.fails("runs", "--parked", "prune")
    assert "give them without `prune`" in cli.fails("runs", "-n", "5", "prune")


def test_listing_still_works_without_a_subcommand(cli: Cli) -> None:
    with Memoryd(cli.url) as md:
        made = stored_run(md, md.clock() - timedelta(days=1))
        assert [r.id for r in list_runs(md.db)] == [made]
    assert [r["id"] for r in cli.json("runs", "--limit", "1")] == [made]
    assert made[:8] in cli.ok("runs").stdout
