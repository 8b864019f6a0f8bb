"""``memoryd serve`` as a real process, ``memoryd apikey`` and ``memoryd users passwd``."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import httpx
from typer.testing import CliRunner

from memoryd.cli.app import app
from support.processes import free_port, memoryd_env

MEMORYD = str(Path(sys.executable).parent / "memoryd")


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return memoryd_env(MEMORYD_DATA_DIR=str(tmp_path), **extra)


def test_serve_creates_the_admin_and_answers(tmp_path: Path) -> None:
    port = free_port()
    db = f"sqlite:///{tmp_path / 'served.db'}"
    process = subprocess.Popen(
        [MEMORYD, "serve", "--port", str(port), "--db", db, "--no-scheduler"],
        env=_env(tmp_path, MEMORYD_ADMIN_PASSWORD="first-admin-pw"),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/health", timeout=1)
                break
            except httpx.HTTPError:
                assert process.poll() is None, process.stdout.read() if process.stdout else ""
                assert time.monotonic() < deadline, "memoryd serve did not start"
                time.sleep(0.2)
        assert health.json()["status"] == "ok"
        docs = httpx.get(f"http://127.0.0.1:{port}/openapi.json").json()
        assert "/v1/chat/completions" in docs["paths"]
    finally:
        process.terminate()
        output, _ = process.communicate(timeout=20)
    assert "created admin 'admin' with the password from MEMORYD_ADMIN_PASSWORD" in output
    assert "the proxy sends chats to the bundled local model" in output  # no MEMORYD_PROXY_*


def test_single_user_refuses_a_public_address(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            MEMORYD,
            "serve",
            "--single-user",
            "--host",
            "0.0.0.0",
            "--db",
            f"sqlite:///{tmp_path}/x.db",
        ],
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "error: --single-user serves one person without sign-in, so it listens only on "
        "127.0.0.1 or localhost, not '0.0.0.0'"
    ]


def test_apikey_create_list_revoke_and_passwd(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'keys.db'}"
    runner = CliRunner()

    def run(*args: str, stdin: str | None = None) -> str:
        result = runner.invoke(app, [*args, "--db", db], input=stdin)
        assert result.exit_code == 0, result.output
        return result.output

    run("users", "add", "alice")
    created = run("apikey", "create", "--user", "alice", "--name", "laptop")
    secret = next(line for line in created.splitlines() if line.startswith("mdk_"))
    listed = run("apikey", "list", "--user", "alice")
    assert "laptop" in listed and "active" in listed and secret not in listed
    key_id = listed.split()[0]
    run("apikey", "revoke", key_id, "--user", "alice")
    assert "revoked" in run("apikey", "list", "--user", "alice")
    missing = runner.invoke(app, ["apikey", "revoke", "nope", "--user", "alice", "--db", db])
    assert missing.exit_code == 2
    assert "password set for alice" in run(
        "users", "passwd", "alice", "--password-stdin", stdin="a-long-password\n"
    )
    short = runner.invoke(
        app, ["users", "passwd", "alice", "--password-stdin", "--db", db], input="short\n"
    )
    assert short.exit_code == 2
    from memoryd import Memoryd
    from memoryd.access.credentials import AuthStore

    with Memoryd(db) as md:
        assert AuthStore(md.db).authenticate("alice", "a-long-password") is not None
