"""The published OpenAPI schema (docs/openapi.json) is the app's, and the TypeScript
client generated from it type-checks, builds and talks to a real server.

After changing an endpoint: ``python scripts/export_openapi.py`` then, in
clients/typescript, ``npm run generate``.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

from memoryd.testing.live import LiveMemoryd

ROOT = Path(__file__).resolve().parents[2]
TS = ROOT / "clients" / "typescript"


def script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_published_schema_is_the_apps() -> None:
    published = (ROOT / "docs" / "openapi.json").read_text(encoding="utf-8")
    assert published == script("export_openapi").current_schema(), (
        "docs/openapi.json is stale: run python scripts/export_openapi.py"
    )


def npm(*args: str, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        ["npm", *args], cwd=cwd, capture_output=True, text=True, timeout=300, env=env
    )
    assert done.returncode == 0, f"npm {' '.join(args)}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def ts_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of clients/typescript with its pinned packages installed from npm."""
    if shutil.which("npm") is None or shutil.which("node") is None:
        pytest.skip("node and npm are not installed: the TypeScript client is not checked")
    project = tmp_path_factory.mktemp("ts") / "typescript"
    shutil.copytree(TS, project, ignore=shutil.ignore_patterns("node_modules", "dist"))
    npm("ci", "--no-audit", "--no-fund", cwd=project)
    return project


def test_typescript_client_is_generated_from_the_schema_and_type_checks(
    ts_project: Path,
) -> None:
    schema = ROOT / "docs" / "openapi.json"
    npm("exec", "--", "openapi-typescript", str(schema), "-o", "src/schema.d.ts", cwd=ts_project)
    generated = (ts_project / "src" / "schema.d.ts").read_text(encoding="utf-8")
    assert generated == (TS / "src" / "schema.d.ts").read_text(encoding="utf-8"), (
        "clients/typescript/src/schema.d.ts is stale: run npm run generate there"
    )
    npm("exec", "--", "tsc", "--noEmit", cwd=ts_project)


def test_typescript_example_runs_against_a_real_server(ts_project: Path, live: LiveMemoryd) -> None:
    npm("exec", "--", "tsc", cwd=ts_project)
    env = {
        **os.environ,
        "MEMORYD_URL": live.url,
        "MEMORYD_API_KEY": live.keys["alice"],
        "MEMORYD_WORKSPACE": "alpha",
    }
    done = subprocess.run(
        ["node", "dist/examples/chat-turn.js"],
        cwd=ts_project,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    alice = live.ids["alice"]
    expected = live.md.context(alice, "alpha", "When do we ship?").system_prompt("You are helpful.")
    assert done.stdout.startswith(expected + "\n")
    assert done.stdout.strip().endswith('["Phoenix ships in Q3"]')
    chats = live.md.list_chats(alice, "alpha")
    assert [(c.prompt, c.response) for c in chats] == [("When do we ship?", "In Q3.")]
