"""``memoryd workspaces``: list, add and remove workspaces (shared by all users)."""

from __future__ import annotations

from typing import Annotated

import typer

from memoryd.cli.common import (
    DbOption,
    JsonOption,
    cell,
    console,
    echo,
    emit_json,
    make_table,
    open_memoryd,
    require_utf8,
)
from memoryd.domain.models import Workspace

app = typer.Typer(help="Workspaces: list, add, remove.", no_args_is_help=True)

SlugArgument = Annotated[
    str, typer.Argument(metavar="SLUG", help="Lowercase letters, digits, '-' or '_'.")
]


def workspace_json(workspace: Workspace) -> dict[str, str]:
    return {"slug": workspace.slug, "name": workspace.name}


@app.command("list")
def list_workspaces(db: DbOption = None, as_json: JsonOption = False) -> None:
    """List every workspace."""
    with open_memoryd(db) as md:
        workspaces = md.list_workspaces()
    if as_json:
        emit_json([workspace_json(w) for w in workspaces])
        return
    table = make_table(f"Workspaces ({len(workspaces)})", ["Slug", "Name"])
    for workspace in workspaces:
        table.add_row(cell(workspace.slug), cell(workspace.name))
    console().print(table)


@app.command("add")
def add(
    slug: SlugArgument,
    name: Annotated[
        str | None, typer.Option("--name", help="Display name (default: the slug).")
    ] = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Create a workspace."""
    if name is not None:
        require_utf8(name, "workspace name")
    with open_memoryd(db) as md:
        workspace = md.create_workspace(slug, name)
    if as_json:
        emit_json(workspace_json(workspace))
    else:
        echo(f"added workspace {workspace.slug} ({workspace.name})")


@app.command("rm")
def remove(slug: SlugArgument, db: DbOption = None, as_json: JsonOption = False) -> None:
    """Delete a workspace with every user's memories and chats in it."""
    with open_memoryd(db) as md:
        workspace = md.get_workspace(require_utf8(slug, "workspace slug"))
        md.delete_workspace(workspace.slug)
    if as_json:
        emit_json({"deleted": workspace_json(workspace)})
    else:
        echo(f"deleted workspace {workspace.slug} with its memories and chats")
