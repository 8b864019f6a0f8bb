"""The ``memoryd`` command: the root typer app and the entry point.

Each command group lives in its own module under ``memoryd.cli`` and is attached here,
so adding a group is one import and one ``add_typer`` line.
"""

from __future__ import annotations

import typer

from memoryd.cli import audit, chats, db, evaluate, memories, settings, users, workspaces
from memoryd.cli.common import MemorydGroup, root_options
from memoryd.cli.context import context
from memoryd.cli.extract import extract, runs_app
from memoryd.cli.history import import_history
from memoryd.cli.mcp import mcp
from memoryd.cli.serve import apikey_app, passwd, serve
from memoryd.cli.transfer import export, import_
from memoryd.cli.worker import worker

app = typer.Typer(
    name="memoryd",
    cls=MemorydGroup,
    help="Persistent per-user memory for LLM chat: manage users, workspaces and memories.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
app.callback()(root_options)
app.add_typer(db.app, name="db")
app.add_typer(users.app, name="users")
app.add_typer(workspaces.app, name="workspaces")
app.add_typer(memories.app, name="memories")
app.command("audit")(audit.audit)
app.command("context")(context)
app.command("extract")(extract)
app.add_typer(runs_app, name="runs")
app.command("export")(export)
app.command("import")(import_)
app.command("import-history")(import_history)
app.add_typer(settings.app, name="settings")
app.add_typer(chats.app, name="chats")
app.command("serve")(serve)
app.command("worker")(worker)
app.command("mcp")(mcp)
app.add_typer(apikey_app, name="apikey")
app.add_typer(evaluate.app, name="eval")
users.app.command("passwd")(passwd)


def main() -> None:
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
