"""``memoryd import-history``: a ChatGPT, Claude or Open WebUI export as recorded chats.

The file is read whole and checked before anything is recorded; the recording itself
(batches, each committed, resumable) is ``memoryd.app.history_import``.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from memoryd.app.history_formats import FORMATS, parse_history  # light: json and the domain
from memoryd.cli.common import (
    DbOption,
    JsonOption,
    UserOption,
    emit,
    open_for,
    read_text_input,
    require_member,
    workspace_option,
)

if TYPE_CHECKING:
    from memoryd.app.history_formats import History
    from memoryd.app.history_import import HistoryImport
    from memoryd.app.service import Memoryd


def import_history(
    user: UserOption,
    source: Annotated[
        str,
        typer.Argument(
            metavar="FILE",
            help="conversations.json of ChatGPT or Claude, an Open WebUI chat export, or -"
            " for stdin.",
        ),
    ],
    workspace: Annotated[str, workspace_option("Record the chats here.")],
    format: Annotated[
        str | None,
        typer.Option(
            "--format",
            metavar="|".join(FORMATS),
            help="The export's product (default: told from the file).",
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Record a chat history exported by ChatGPT, Claude or Open WebUI as the user's chats.

    Each message of the user's with the answer after it becomes one recorded chat in the
    workspace, in order, at its original time; extraction then learns from them as from
    any recorded chat (through the review queue when the user's review mode says so).
    A turn already recorded is not recorded again, so running the command twice records
    nothing new the second time, and running it after an interruption continues it.
    """
    history = parse_history(read_text_input(source), format)
    with open_for(db, user) as (md, owner):
        require_member(md, owner, workspace, "chats recorded there would never reach them")
        if quiet or as_json or not sys.stderr.isatty():
            result = md.import_history(owner.id, history, workspace)
        else:
            result = _with_progress(md, owner.id, history, workspace)
    fields = ("format", "conversations", "recorded", "already", "skipped")
    emit(as_json, {name: getattr(result, name) for name in fields}, result.summary())


def _with_progress(md: Memoryd, user_id: int, history: History, workspace: str) -> HistoryImport:
    """The import with a rich progress bar on stderr, gone when it ends."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    columns = (TextColumn("recording turns"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("import", total=None)

        def shown(now: HistoryImport) -> None:
            bar.update(task, total=now.total, completed=now.done)

        return md.import_history(user_id, history, workspace, progress=shown)
