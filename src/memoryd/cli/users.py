"""``memoryd users``: list, add and remove users, change their role, switch off
learning from a user's chats, and set their review mode and language."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

import typer

from memoryd.cli.common import (
    CLI_ACTOR,
    DbOption,
    JsonOption,
    emit,
    find_user,
    make_table,
    open_for,
    open_memoryd,
)
from memoryd.domain.errors import InvalidInput
from memoryd.domain.models import Role, User
from memoryd.domain.runtime_settings import REVIEW_MODES

app = typer.Typer(
    help="Users: list, add, remove, change role, learning from chats, review mode.",
    no_args_is_help=True,
)

NameArgument = Annotated[str, typer.Argument(metavar="NAME", help="The user's name.")]


def user_json(user: User) -> dict[str, object]:
    return {"id": user.id, "name": user.name, "role": user.role.value}


def show_users(title: str, users: Sequence[User], as_json: bool) -> None:
    table = make_table(title, ["ID", "Name", "Role"], [(u.id, u.name, u.role.value) for u in users])
    emit(as_json, [user_json(u) for u in users], table)


@app.command("list")
def list_users(db: DbOption = None, as_json: JsonOption = False) -> None:
    """List every user."""
    with open_memoryd(db) as md:
        users = md.list_users()
    show_users(f"Users ({len(users)})", users, as_json)


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
    emit(as_json, user_json(user), f"added user {user.name} (id {user.id}, role {user.role.value})")


@app.command("rm")
def remove(name: NameArgument, db: DbOption = None, as_json: JsonOption = False) -> None:
    """Delete a user with their memories, chats and audit log."""
    with open_for(db, name) as (md, user):
        memories = len(md.list_memories(user.id))
        chats = len(md.list_chats(user.id))
        md.delete_user(user.id)
    emit(
        as_json,
        {"deleted": user_json(user), "memories": memories, "chats": chats},
        f"deleted user {user.name} with {memories} memories and {chats} chats",
    )


@app.command("role")
def role(
    name: NameArgument,
    new_role: Annotated[Role, typer.Argument(metavar="ROLE", help="admin or default.")],
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Make a user an admin or a default user."""
    with open_memoryd(db) as md:
        user = md.set_role(find_user(md, name).id, new_role, actor=CLI_ACTOR)
    emit(as_json, user_json(user), f"{user.name} is now {user.role.value}")


@app.command("learning")
def learning(
    name: NameArgument,
    switch: Annotated[
        str | None,
        typer.Argument(
            metavar="[on|off]",
            help="off: keep recording the user's chats but never learn from them. "
            "Leave out to show the current setting.",
        ),
    ] = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show or set whether memoryd learns memories from a user's chats."""
    choices = {"on": True, "off": False}
    if switch is not None and switch.lower() not in choices:
        raise InvalidInput(f"learning is 'on' or 'off', not {switch!r}")
    closed = 0
    with open_for(db, name) as (md, user):
        if switch is not None:
            closed = md.set_learning(user.id, choices[switch.lower()], actor=CLI_ACTOR)
        on = md.learns_from_chats(user.id)
    waiting = f" ({closed} waiting chat(s) closed)" if closed else ""
    emit(
        as_json,
        {**user_json(user), "learn_from_chats": on, "chats_closed": closed},
        f"memoryd learns from {user.name}'s chats"
        if on
        else f"memoryd does not learn from {user.name}'s chats; they are still recorded{waiting}",
    )


@app.command("review")
def review(
    name: NameArgument,
    mode: Annotated[
        str | None,
        typer.Argument(
            metavar="[default|off|updates|everything]",
            help="Which of extraction's changes to the user's memories wait for their review:"
            " off, updates (changes to existing memories), everything (new memories too),"
            " or default (follow the setting memory_review). Leave out to show it.",
        ),
    ] = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show or set a user's own review mode (it beats the instance setting memory_review)."""
    with open_for(db, name) as (md, user):
        if mode is not None:
            chosen = mode.strip().lower()
            if chosen not in ("default", *REVIEW_MODES):
                raise InvalidInput(f"review is default, off, updates or everything, not {mode!r}")
            own_mode = None if chosen == "default" else chosen
            md.set_review_preference(user.id, own_mode, actor=CLI_ACTOR)
        own = md.review_preference(user.id)
        effective = md.review_mode(user.id)
    emit(
        as_json,
        {
            **user_json(user),
            "memory_review": own or "default",
            "memory_review_effective": effective,
        },
        f"{user.name} follows the instance setting: memory_review = {effective}"
        if own is None
        else f"{user.name} reviews: {own} (instead of the instance setting)",
    )


@app.command("language")
def language(
    name: NameArgument,
    code: Annotated[
        str | None,
        typer.Argument(
            metavar="[default|auto|en|fr|es|de|pt|it|id|zh|ja|ko]",
            help="The language of the user's injected heading and web UI: a language code,"
            " auto (the language of each message), or default (follow MEMORYD_LANGUAGE)."
            " Leave out to show it.",
        ),
    ] = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show or set a user's own language (it beats the server's MEMORYD_LANGUAGE)."""
    with open_for(db, name) as (md, user):
        if code is not None:
            md.set_language_preference(user.id, code, actor=CLI_ACTOR)
        own = md.language_preference(user.id)
        effective = md.language(user.id)
    emit(
        as_json,
        {**user_json(user), "language": own or "default", "language_effective": effective},
        f"{user.name} follows the server: MEMORYD_LANGUAGE = {effective}"
        if own is None
        else f"{user.name}'s language: {own} (instead of the server's)",
    )
