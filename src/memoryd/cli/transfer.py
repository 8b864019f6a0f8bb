"""``memoryd export`` and ``memoryd import``: a user's memories, own choices and recorded
chats as JSON lines.

The bytes written by export are exactly what the library produces (one sorted-key JSON
object per line, UTF-8, newline-terminated: the user's preferences first, then their
memories, then their chats), so export, import into a fresh database and export again
gives an identical file but for the ids the new database gave the chats.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from memoryd.cli.common import (
    DbOption,
    JsonOption,
    UserOption,
    echo,
    emit_json,
    note,
    open_for,
    read_text_input,
    require_member,
    require_utf8,
)
from memoryd.domain.errors import InvalidInput


def export(
    user: UserOption,
    output: Annotated[
        str | None,
        typer.Option("--output", "-o", metavar="FILE", help="Write here instead of stdout."),
    ] = None,
    chats: Annotated[
        bool,
        typer.Option(
            "--chats/--no-chats",
            help="Include the user's recorded chats (the default), or leave them out.",
        ),
    ] = True,
    db: DbOption = None,
) -> None:
    """Write a user's memories, own choices and chats as JSON lines (stdout, or -o FILE).

    The first line holds the user's preferences (learning from their chats, their review
    mode); then one line per memory; then one line per recorded chat
    (`{"chat": {...}}`: workspace, prompt, reply, time, whether extraction read it, the
    memories injected into it), unless `--no-chats`.
    """
    with open_for(db, user) as (md, owner):
        lines = md.export_memories(owner.id, chats=chats)
    data = "".join(f"{line}\n" for line in lines).encode("utf-8")
    if output is None or output == "-":
        stream = typer.get_binary_stream("stdout")
        stream.write(data)
        stream.flush()
        return
    from memoryd.storage.files import open_private

    path = Path(require_utf8(output, "file name"))
    try:
        with os.fdopen(open_private(path), "wb") as out:  # 0600: it holds their chats
            out.write(data)
    except OSError as exc:
        raise InvalidInput(f"cannot write {str(path)!r}: {exc.strerror}") from None
    chat_count = sum(line.startswith('{"chat": ') for line in lines)
    note(
        f"exported {len(lines) - 1 - chat_count} memories, {chat_count} chats"
        f" and {owner.name}'s preferences to {path}"
    )


def import_(
    user: UserOption,
    source: Annotated[
        str,
        typer.Argument(metavar="FILE", help="JSON lines from `memoryd export`, or - for stdin."),
    ],
    preferences: Annotated[
        bool,
        typer.Option(
            "--preferences/--no-preferences",
            help="Set the user's own choices from the file's preferences line (the default),"
            " or leave the ones they have.",
        ),
    ] = True,
    chats: Annotated[
        bool,
        typer.Option(
            "--chats/--no-chats",
            help="Add the file's chat lines to the user's recorded chats (the default),"
            " or skip them.",
        ),
    ] = True,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Load memories, own choices and chats from JSON lines (all or nothing).

    Each line is an object from `memoryd export`, or a hand-written one with only
    "content" and "scope" (and "workspace" for a workspace memory). The line
    `{"preferences": {...}}` sets the user's learning switch, review mode and language,
    unless `--no-preferences`. Each `{"chat": {...}}` line adds a recorded chat with a new id,
    unless `--no-chats`; one already there is not added twice. The user must be a member
    of the workspaces the file names; workspaces that do not exist yet are created with
    the user as their member.
    """
    from memoryd.app.transfer import parse_file

    text = read_text_input(source)
    lines = text.split("\n")
    with open_for(db, user) as (md, owner):
        existing = {w.slug for w in md.list_workspaces()}
        parsed = parse_file(lines)
        for slug in sorted(parsed.workspaces(chats=chats) & existing):
            require_member(md, owner, slug)
        result = md.import_memories(owner.id, parsed, preferences=preferences, chats=chats)
    if as_json:
        emit_json(
            {
                "created": result.created,
                "updated": result.updated,
                "unchanged": result.unchanged,
                "skipped": result.skipped_duplicates,
                "workspaces_created": result.workspaces_created,
                "preferences": result.preferences.to_dict() if result.preferences else None,
                "chats_created": result.chats_created,
                "chats_skipped": result.chats_skipped,
            }
        )
        return
    echo(
        f"created {result.created}, updated {result.updated}, unchanged {result.unchanged}, "
        f"skipped {result.skipped_duplicates} duplicates"
    )
    if result.workspaces_created:
        echo(f"created workspaces: {', '.join(result.workspaces_created)}")
    if result.preferences is not None:
        said = result.preferences.to_dict()
        shown = ", ".join(f"{k} {str(v).lower()}" for k, v in said.items()) or "none given"
        echo(f"set preferences: {shown}")
    elif parsed.preferences is not None:
        echo("left the user's preferences as they were (--no-preferences)")
    if not chats and parsed.chats:
        echo(f"skipped the file's {len(parsed.chats)} chats (--no-chats)")
    elif result.chats_created or result.chats_skipped:
        echo(f"added {result.chats_created} chats, skipped {result.chats_skipped} already recorded")
