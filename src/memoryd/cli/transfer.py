"""``memoryd export`` and ``memoryd import``: a user's memories as JSON lines.

The bytes written by export are exactly what the library produces (one sorted-key JSON
object per line, UTF-8, newline-terminated), so export, import into a fresh database and
export again gives an identical file.
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
    note,
    open_memoryd,
    read_text_input,
    require_utf8,
)
from memoryd.domain.errors import InvalidInput


def export(
    user: UserOption,
    output: Annotated[
        str | None,
        typer.Option("--output", "-o", metavar="FILE", help="Write here instead of stdout."),
    ] = None,
    db: DbOption = None,
) -> None:
    """Write a user's memories as JSON lines (to stdout, or to FILE with -o)."""
    with open_memoryd(db) as md:
        lines = md.export_memories(find_user(md, user).id)
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
    note(f"exported {len(lines)} memories to {path}")


def import_(
    user: UserOption,
    source: Annotated[
        str,
        typer.Argument(metavar="FILE", help="JSON lines from `memoryd export`, or - for stdin."),
    ],
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Load memories exported by `memoryd export` (all or nothing)."""
    text = read_text_input(source)
    with open_memoryd(db) as md:
        result = md.import_memories(find_user(md, user).id, text.split("\n"))
    if as_json:
        emit_json(
            {
                "created": result.created,
                "updated": result.updated,
                "skipped": result.skipped_duplicates,
                "workspaces_created": result.workspaces_created,
            }
        )
        return
    echo(
        f"created {result.created}, updated {result.updated}, "
        f"skipped {result.skipped_duplicates} duplicates"
    )
    if result.workspaces_created:
        echo(f"created workspaces: {', '.join(result.workspaces_created)}")
