"""bench/README.md is where a newcomer finds the benchmarks: it must name every script."""

from __future__ import annotations

from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_every_bench_script_is_listed_in_the_readme() -> None:
    readme = (BENCH / "README.md").read_text()
    scripts = sorted(p.name for p in BENCH.glob("*.py"))
    assert scripts, BENCH
    assert [s for s in scripts if f"`{s}`" not in readme] == []
