"""``memoryd users``: list, add and remove users and change their role."""

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
    find_user,
    make_table,
    open_memoryd,
)
from memoryd.domain.models import Role, User

app = typer.Typer(help="Users: list, add, remove, change role.", no_args_is_help=True)

NameArgument = Annotated[str, typer.Argument(metavar="NAME", help="The user's name.")]


def user_json(user: User) -> dict[str, object]:
    return {"id": user.id, "name": user.name, "role": user.role.value}


@app.command("list")
def list_users(db: DbOption = None, as_json: JsonOption = False) -> None:
    """List every user."""
    with open_memoryd(db) as md:
        users = md.list_users()
    if as_json:
        emit_json([user_json(u) for u in users])
        return
    table = make_table(f"Users ({len(users)})", ["ID", "Name", "Role"])
    for user in users:
        table.add_row(cell(user.id), cell(user.name), cell(user.role.value))
    console().print(table)


@app.command("add")
def add(
    name: NameArgument,
    admin: Annotated[bool, typer.Option("--admin", help="Make the user an admin.")] = False,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Create a user (role 'default' unless --admin)."""
    with open_memoryd(db) as md:
        user = md.create_user(name, Role.ADMIN if admin else Role.DEFAULT)
    if as_json:
        emit_json(user_json(user))
    else:
        echo(f"added user {user.name} (id {user.id}, role {user.role.value})")


@app.command("rm")
def remove(name: NameArgument, db: DbOption = None, as_json: JsonOption = False) -> None:
    """Delete a user with their memories, chats and audit log."""
    with open_memoryd(db) as md:
        user = find_user(md, name)
        memories = len(md.list_memories(user.id))
        chats = len(md.list_chats(user.id))
        md.delete_user(user.id)
    if as_json:
        emit_json({"deleted": user_json(user), "memories": memories, "chats": chats})
    else:
        echo(f"deleted user {user.name} with {memories} memories and {chats} chats")


@app.command("role")
def role(
    name: NameArgument,
    new_role: Annotated[Role, typer.Argument(metavar="ROLE", help="admin or default.")],
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Make a user an admin or a default user."""
    with open_memoryd(db) as md:
        user = md.set_role(find_user(md, name).id, new_role)
    if as_json:
        emit_json(user_json(user))
    else:
        echo(f"{user.name} is now {user.role.value}")
