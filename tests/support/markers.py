"""A pytest plugin (loaded by ``tests/conftest.py``) that marks every test with the
databases it runs on and says, at the end of a run, how many tests ran per marker.

Markers: ``sqlite`` and ``postgres`` (set here from the fixtures a test uses),
``browser`` and ``slow`` (set by the test modules). The line ``tests per marker: ...``
shows a whole class of tests that silently skipped; ``.ci/run`` reads the same counts
from ``MEMORYD_TEST_MARKER_REPORT`` (a JSON file written here) and fails on a zero.

With ``MEMORYD_TEST_DATABASE_URL`` naming a PostgreSQL server (CI's second pass), the tests
parametrised ``[sqlite]``/``[postgres]`` are deselected: they ran on both already.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest

from support.databases import DEFAULT_IS_POSTGRES

MARKERS = ("sqlite", "postgres", "browser", "slow")
REPORT_ENV = "MEMORYD_TEST_MARKER_REPORT"
SQLITE_FIXTURES = {"sqlite_url"}
POSTGRES_FIXTURES = {"pg_url", "pg_server", "migrated_pg_url"}
# fixtures parametrised [sqlite]/[postgres] (tests/conftest.py)
BOTH_BACKENDS = ("db_url", "empty_db_url")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "sqlite: runs on a SQLite database")


def backends_of(item: pytest.Item) -> set[str]:
    """The databases a test runs on, from the fixtures it asks for."""
    names = set(getattr(item, "fixturenames", ()))
    callspec = getattr(item, "callspec", None)
    backends = set()
    for name in BOTH_BACKENDS:
        if callspec is not None and name in callspec.params:
            backends.add(str(callspec.params[name]))
    if names & SQLITE_FIXTURES:
        backends.add("sqlite")
    if names & POSTGRES_FIXTURES:
        backends.add("postgres")
    if "database_url" in names:
        backends.add("postgres" if DEFAULT_IS_POSTGRES else "sqlite")
    return backends


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    kept, deselected = [], []
    for item in items:
        callspec = getattr(item, "callspec", None)
        params = callspec.params if callspec is not None else {}
        if DEFAULT_IS_POSTGRES and any(name in params for name in BOTH_BACKENDS):
            deselected.append(item)
            continue
        for backend in backends_of(item):
            item.add_marker(backend)
        kept.append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = kept


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if hasattr(terminalreporter.config, "workerinput"):
        return  # a pytest-xdist worker: the controller counts every worker's reports
    counts: Counter[str] = Counter()
    for outcome in ("passed", "failed"):
        for report in terminalreporter.stats.get(outcome, []):
            if getattr(report, "when", None) == "call":
                counts.update(m for m in MARKERS if m in report.keywords)
    terminalreporter.write_line(
        "tests per marker: " + ", ".join(f"{m} {counts[m]}" for m in MARKERS)
    )
    path = os.environ.get(REPORT_ENV)
    if path:
        Path(path).write_text(json.dumps({m: counts[m] for m in MARKERS}))
