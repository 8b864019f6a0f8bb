"""``memoryd workspaces``: list, add and remove workspaces, and manage their members.

A default user uses only the workspaces they are a member of, so ``workspaces members``
is how a CLI-only installation lets people in.
"""

from __future__ import annotations

from typing import Annotated

import typer

from memoryd.cli.common import (
    DbOption,
    JsonOption,
    emit,
    make_table,
    memberships,
    note,
    open_for,
    open_memoryd,
    require_utf8,
)
from memoryd.cli.users import show_users
from memoryd.domain.models import Role, Workspace

app = typer.Typer(help="Workspaces: list, add, remove, members.", no_args_is_help=True)
members_app = typer.Typer(
    help="Who may use a workspace: list, add, rm (admins use every workspace).",
    no_args_is_help=True,
)
app.add_typer(members_app, name="members")

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
    rows = [(w.slug, w.name) for w in workspaces]
    table = make_table(f"Workspaces ({len(workspaces)})", ["Slug", "Name"], rows)
    emit(as_json, [workspace_json(w) for w in workspaces], table)


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
    emit(as_json, workspace_json(workspace), f"added workspace {workspace.slug} ({workspace.name})")


@app.command("rm")
def remove(slug: SlugArgument, db: DbOption = None, as_json: JsonOption = False) -> None:
    """Delete a workspace with every user's memories and chats in it."""
    with open_memoryd(db) as md:
        workspace = md.get_workspace(require_utf8(slug, "workspace slug"))
        md.delete_workspace(workspace.slug)
    emit(
        as_json,
        {"deleted": workspace_json(workspace)},
        f"deleted workspace {workspace.slug} with its memories and chats",
    )


MemberArgument = Annotated[str, typer.Argument(metavar="USER", help="The user's name.")]


@members_app.command("list")
def list_members(slug: SlugArgument, db: DbOption = None, as_json: JsonOption = False) -> None:
    """List the members of a workspace."""
    with open_memoryd(db) as md:
        members = memberships(md).members(require_utf8(slug, "workspace slug"))
    show_users(f"Members of {slug} ({len(members)})", members, as_json)


@members_app.command("add")
def add_member(
    slug: SlugArgument, user: MemberArgument, db: DbOption = None, as_json: JsonOption = False
) -> None:
    """Let a user into a workspace (its memories reach them through the proxy).

    Recorded in the user's audit log (memoryd audit --user NAME)."""
    with open_for(db, user) as (md, member):
        added = md.add_member(require_utf8(slug, "workspace slug"), member.id)
    text = f"{member.name} {'is now' if added else 'was already'} a member of {slug}"
    emit(as_json, {"workspace": slug, "user": member.name, "added": added}, text)
    if member.role is Role.ADMIN and not as_json:
        note(f"note: {member.name} is an admin and uses every workspace anyway")


@members_app.command("rm")
def remove_member(
    slug: SlugArgument, user: MemberArgument, db: DbOption = None, as_json: JsonOption = False
) -> None:
    """Take a user out of a workspace (their memories there stay stored, unused).

    Recorded in the user's audit log (memoryd audit --user NAME)."""
    with open_for(db, user) as (md, member):
        md.remove_member(require_utf8(slug, "workspace slug"), member.id)
    emit(
        as_json,
        {"workspace": slug, "user": member.name, "removed": True},
        f"{member.name} is no longer a member of {slug}",
    )
