"""Every script in bench/ still imports: a module moved or renamed in src/ must take its
benchmarks along (the import is all this runs; each script's work is behind ``main``)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.mark.parametrize("script", sorted(p.stem for p in BENCH.glob("*.py")))
def test_the_bench_script_imports(script: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    module = importlib.import_module(script)
    assert module.__file__ is not None and Path(module.__file__).parent == BENCH
    sys.modules.pop(script, None)
