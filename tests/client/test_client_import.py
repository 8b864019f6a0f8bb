"""``import memoryd.client`` stays light: the HTTP client needs only the domain.

An app that talks to a remote memoryd server should not pay for the library it does not
run (SQLAlchemy, storage, the ``Memoryd`` facade: about half a second) nor for numpy
(~50 ms; the domain names it only in annotations). The result types the client rebuilds
live in ``memoryd.domain.results`` and ``memoryd/__init__.py`` loads ``Memoryd`` only when
asked for, which these tests hold in place.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import memoryd
import memoryd.app.lifecycle
import memoryd.app.service
import memoryd.app.transfer
import memoryd.app.transfer_preferences
from memoryd.domain import results

SRC = Path(__file__).resolve().parents[2] / "src"
HEAVY = ("sqlalchemy", "numpy", "memoryd.app.service", "memoryd.storage", "memoryd.app.transfer")


def loaded_after(code: str) -> set[str]:
    """The modules a fresh interpreter has loaded after running ``code``."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=60,
    )
    return set(json.loads(done.stdout.splitlines()[-1]))


def test_importing_the_client_loads_neither_sqlalchemy_numpy_nor_the_library() -> None:
    loaded = loaded_after("import memoryd.client\nfrom memoryd.client import MemorydClient")
    assert "memoryd.client._sync.client" in loaded  # the import did run
    assert not sorted(m for m in HEAVY if m in loaded)


def test_the_facade_is_loaded_when_asked_for() -> None:
    loaded = loaded_after("from memoryd import Memoryd, ImportResult\nassert Memoryd.__name__")
    assert {"memoryd.app.service", "sqlalchemy"} <= loaded


def test_the_package_names_are_unchanged() -> None:
    assert memoryd.Memoryd is memoryd.app.service.Memoryd
    assert memoryd.ImportResult is results.ImportResult is memoryd.app.transfer.ImportResult
    assert memoryd.app.lifecycle.MemoryDetail is results.MemoryDetail
    assert memoryd.app.transfer_preferences.Preferences is results.Preferences
    assert {"Memoryd", "ImportResult"} <= set(dir(memoryd))
    assert all(hasattr(memoryd, name) for name in memoryd.__all__)


def test_an_unknown_name_is_still_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="'memoryd' has no attribute 'Memoryds'"):
        memoryd.Memoryds  # noqa: B018
    with pytest.raises(ImportError):
        from memoryd import Memoryds  # type: ignore[attr-defined]  # noqa: F401
