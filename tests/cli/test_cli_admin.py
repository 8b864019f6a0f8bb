"""``memoryd db``, ``users``, ``workspaces`` and ``--version`` through the CLI."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import update
from sqlalchemy.engine import make_url

from memoryd import Memoryd, __version__
from memoryd.cli.app import app
from memoryd.storage.tables import memories
from support.cli import Cli


def test_version(cli: Cli) -> None:
    result = cli.runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout.strip() == f"memoryd {__version__}"


def test_db_status_upgrade_status(cli: Cli, tmp_path: Path) -> None:
    before = cli.json("db", "status")
    assert before["exists"] is False and before["current"] is None
    assert before["up_to_date"] is False
    assert not (tmp_path / "x.db").exists(), "status must not create the database"

    upgraded = cli.json("db", "upgrade")
    assert (upgraded["from"], upgraded["to"]) == (None, before["head"])
    again = cli.ok("db", "upgrade").stdout
    assert f"already at revision {before['head']}" in again

    after = cli.json("db", "status")
    assert after["current"] == after["head"] == before["head"]
    assert after["up_to_date"] is True
    assert "up to date" in cli.ok("db", "status").stdout


def test_db_status_hides_the_password(cli: Cli, pg_url: str) -> None:
    with_password = make_url(pg_url).set(password="hunter2").render_as_string(hide_password=False)
    result = cli.ok("db", "status", db=with_password)
    assert "hunter2" not in result.stdout
    assert ":***@" in result.stdout
    assert cli.json("db", "status", db=with_password)["url"].count("***") == 1


def test_unreachable_database_is_one_line_without_the_password(cli: Cli) -> None:
    url = "postgresql+psycopg://postgres:hunter2@127.0.0.1:1/nothing"
    for command in (("db", "status"), ("users", "list")):
        line = cli.fails(*command, db=url)
        assert "cannot open database" in line and "hunter2" not in line


def test_bad_database_urls(cli: Cli) -> None:
    assert "cannot open database" in cli.fails("users", "list", db="nope://x")
    assert "in-memory SQLite is not supported" in cli.fails("users", "list", db="sqlite://")


def test_users_add_list_role_rm(cli: Cli) -> None:
    assert cli.json("users", "add", "alice") == {"id": 1, "name": "alice", "role": "default"}
    assert "added user bob" in cli.ok("users", "add", "bob", "--admin").stdout
    assert cli.json("users", "list") == [
        {"id": 1, "name": "alice", "role": "default"},
        {"id": 2, "name": "bob", "role": "admin"},
    ]
    table = cli.ok("users", "list").stdout
    assert "alice" in table and "admin" in table
    assert cli.json("users", "role", "alice", "admin")["role"] == "admin"
    assert "bob is now default" in cli.ok("users", "role", "bob", "default").stdout
    cli.ok("workspaces", "add", "phoenix")
    cli.ok("memories", "add", "--user", "alice", "--global", "Likes tea")
    removed = cli.json("users", "rm", "alice")
    assert removed["memories"] == 1 and removed["deleted"]["name"] == "alice"
    assert [u["name"] for u in cli.json("users", "list")] == ["bob"]


def test_user_errors(cli: Cli) -> None:
    cli.ok("users", "add", "alice")
    assert "already exists" in cli.fails("users", "add", "alice")
    assert "invalid user name" in cli.fails("users", "add", "bad name")
    assert "no user 'carol'" in cli.fails("users", "rm", "carol")
    assert "no user 'carol'" in cli.fails("users", "role", "carol", "admin")
    bad_role = cli.run("users", "role", "alice", "superuser")
    assert bad_role.exit_code == 2  # click's own usage error
    assert cli.json("users", "list")[0]["role"] == "default"


def test_workspaces_add_list_rm(cli: Cli) -> None:
    assert cli.json("workspaces", "add", "phoenix", "--name", "Project  Phoenix") == {
        "slug": "phoenix",
        "name": "Project Phoenix",
    }
    cli.ok("workspaces", "add", "atlas")
    assert [w["slug"] for w in cli.json("workspaces", "list")] == ["atlas", "phoenix"]
    assert "Project Phoenix" in cli.ok("workspaces", "list").stdout
    assert "deleted workspace atlas" in cli.ok("workspaces", "rm", "atlas").stdout
    assert [w["slug"] for w in cli.json("workspaces", "list")] == ["phoenix"]


def test_workspace_errors(cli: Cli) -> None:
    cli.ok("workspaces", "add", "phoenix")
    assert "already exists" in cli.fails("workspaces", "add", "phoenix")
    assert "invalid workspace slug" in cli.fails("workspaces", "add", "Not A Slug")
    assert "no workspace 'atlas'" in cli.fails("workspaces", "rm", "atlas")
    assert "invalid workspace name" in cli.fails("workspaces", "add", "x", "--name", "a\x07b")
    assert [w["slug"] for w in cli.json("workspaces", "list")] == ["phoenix"]


def test_surrogate_escaped_arguments_are_refused(cli: Cli) -> None:
    """What Linux hands Python for non-UTF-8 bytes in argv: refused, nothing stored."""
    line = cli.fails("users", "add", "caf\udce9")
    assert "not valid UTF-8" in line and "caf\\xe9" in line
    cli.fails("workspaces", "add", "phoenix", "--name", "Ph\udcffenix")
    assert cli.json("users", "list") == []
    assert cli.json("workspaces", "list") == []


def test_db_refresh_vectors_makes_old_vectors_again(cli: Cli) -> None:
    cli.ok("users", "add", "alice")
    added = cli.json("memories", "add", "-u", "alice", "--global", "The user has two cats.")
    assert cli.json("db", "refresh-vectors") == {"made": 0}
    assert "every memory vector is current" in cli.ok("db", "refresh-vectors").stdout
    with Memoryd(cli.url) as md, md.db.write() as repo:  # as a process before 0019 left it
        repo.conn.execute(
            update(memories).where(memories.c.id == added["id"]).values(vector_form=None)
        )
    assert "made 1 memory vectors again" in cli.ok("db", "refresh-vectors").stdout
    assert cli.json("db", "refresh-vectors") == {"made": 0}
