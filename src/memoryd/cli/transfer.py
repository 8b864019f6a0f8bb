"""``memoryd export`` and ``memoryd import``: a user's memories and own choices as JSON lines.

The bytes written by export are exactly what the library produces (one sorted-key JSON
object per line, UTF-8, newline-terminated: the user's preferences first, then their
memories), so export, import into a fresh database and export again gives an identical
file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from memoryd.cli.common import (
    DbOption,
    JsonOption,
    UserOption,
    echo,
    emit_json,
    find_user,
    memberships,
    note,
    open_memoryd,
    read_text_input,
    require_member,
    require_utf8,
)
from memoryd.domain.errors import InvalidInput
from memoryd.transfer import ImportResult, parse_file
from memoryd.transfer_preferences import Preferences


def export(
    user: UserOption,
    output: Annotated[
        str | None,
        typer.Option("--output", "-o", metavar="FILE", help="Write here instead of stdout."),
    ] = None,
    db: DbOption = None,
) -> None:
    """Write a user's memories and own choices as JSON lines (to stdout, or to FILE with -o).

    The first line holds the user's preferences (learning from their chats, their review
    mode); each further line is one memory.
    """
    with open_memoryd(db) as md:
        owner = find_user(md, user)
        lines = md.export_memories(owner.id)
    data = "".join(f"{line}\n" for line in lines).encode("utf-8")
    if output is None or output == "-":
        stream = typer.get_binary_stream("stdout")
        stream.write(data)
        stream.flush()
        return
    path = Path(require_utf8(output, "file name"))
    try:
        path.write_bytes(data)
    except OSError as exc:
        raise InvalidInput(f"cannot write {str(path)!r}: {exc.strerror}") from None
    note(f"exported {len(lines) - 1} memories and {owner.name}'s preferences to {path}")


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
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Load memories and the user's own choices from JSON lines (all or nothing).

    Each line is an object from `memoryd export`, or a hand-written one with only
    "content" and "scope" (and "workspace" for a workspace memory). The line
    `{"preferences": {...}}` sets the user's learning switch and review mode, unless
    `--no-preferences`. The user must be a member of the workspaces the file names;
    workspaces that do not exist yet are created with the user as their member.
    """
    text = read_text_input(source)
    lines = text.split("\n")
    with open_memoryd(db) as md:
        owner = find_user(md, user)
        existing = {w.slug for w in md.list_workspaces()}
        parsed = parse_file(lines)
        for slug in sorted({r.workspace for r in parsed.records if r.workspace} & existing):
            require_member(md, owner, slug)
        result = md.import_memories(owner.id, lines, preferences=preferences)
        for slug in result.workspaces_created:
            memberships(md).add(slug, owner.id)
    if as_json:
        emit_json(
            {
                "created": result.created,
                "updated": result.updated,
                "skipped": result.skipped_duplicates,
                "workspaces_created": result.workspaces_created,
                "preferences": result.preferences.to_dict() if result.preferences else None,
            }
        )
        return
    echo(
        f"created {result.created}, updated {result.updated}, "
        f"skipped {result.skipped_duplicates} duplicates"
    )
    if result.workspaces_created:
        echo(f"created workspaces: {', '.join(result.workspaces_created)}")
    _report_preferences(result, parsed.preferences)


def _report_preferences(result: ImportResult, in_file: Preferences | None) -> None:
    if result.preferences is not None:
        said = result.preferences.to_dict()
        shown = ", ".join(f"{k} {str(v).lower()}" for k, v in said.items()) or "none given"
        echo(f"set preferences: {shown}")
    elif in_file is not None:
        echo("left the user's preferences as they were (--no-preferences)")
