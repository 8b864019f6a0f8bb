"""``memoryd memories suggestions``: the review queue of one user, from the terminal.

Deciding goes through ``memoryd.access.suggestions`` as the operator, as the REST API's
and the web UI's review queue do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from memoryd.access import suggestions as review
from memoryd.cli.common import (
    DbOption,
    JsonOption,
    UserOption,
    as_operator,
    echo,
    emit,
    emit_json,
    open_for,
    print_table,
    resolve_id,
    short_id_length,
    typed,
)
from memoryd.domain.errors import InvalidInput
from memoryd.domain.models import Scope, User
from memoryd.domain.rules import KEEP, scope_label

if TYPE_CHECKING:
    from memoryd.app.service import Memoryd

app = typer.Typer(no_args_is_help=True, invoke_without_command=True, subcommand_metavar="[COMMAND]")

SuggestionArgument = Annotated[
    str, typer.Argument(metavar="ID", help="Suggestion id, or a unique prefix (6+ characters).")
]


def _resolve(md: Memoryd, owner: User, given: str) -> str:
    known = {s.id for s in md.list_suggestions(owner.id, "all")}
    return resolve_id(given, known, owner.name, ("suggestion", "suggestions"))


StatusOption = Annotated[
    str, typer.Option("--status", help="pending (default), accepted, rejected or all.")
]


@app.callback()
def suggestions(
    ctx: typer.Context,
    user: Annotated[
        str | None,
        typer.Option("--user", "-u", metavar="NAME", help="List this user's suggestions."),
    ] = None,
    status: StatusOption = "pending",
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Extraction's suggested changes waiting for review (setting memory_review).

    Without a command, lists them as `list` does: memoryd memories suggestions --user NAME.
    """
    if ctx.invoked_subcommand is None:
        if user is None:
            raise InvalidInput("give --user NAME to list a user's suggestions, or a command")
        list_suggestions(user, status, db, as_json)
    elif typed(ctx, ctx.params):
        raise InvalidInput(f"give the options after `{ctx.invoked_subcommand}`")


@app.command("list")
def list_suggestions(
    user: UserOption,
    status: StatusOption = "pending",
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """List a user's suggestions; an update shows the memory it would replace."""
    with open_for(db, user) as (md, owner):
        found = md.list_suggestions(owner.id, status)
    if as_json:
        emit_json([s.to_dict() for s in found])
        return
    if not found:
        echo(f"{owner.name} has no {'' if status == 'all' else status + ' '}suggestions.")
        return
    width = short_id_length([s.id for s in found])
    rows = [
        (
            s.id[:width],
            s.kind.value,
            scope_label(s.scope, s.workspace),
            s.target_content or "-",
            s.content,
            s.status.value,
        )
        for s in found
    ]
    columns = ["ID", "Kind", "Where", "Now", "Suggested", "Status"]
    print_table(f"Suggestions ({len(found)})", columns, rows)


@app.command("accept")
def accept(
    user: UserOption,
    suggestion_id: SuggestionArgument,
    text: Annotated[
        str | None, typer.Option("--text", metavar="TEXT", help="Accept with this text instead.")
    ] = None,
    until: Annotated[
        str | None,
        typer.Option("--until", metavar="DATE", help="Remember until this date (YYYY-MM-DD)."),
    ] = None,
    scope: Annotated[
        Scope | None,
        typer.Option(
            "--scope",
            help="Put a new memory in global, or in workspace: the one its chats were in"
            " (default: where extraction put it).",
        ),
    ] = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Apply a suggestion (a full scope or a duplicate is refused, as for any add)."""
    with open_for(db, user) as (md, owner):
        full_id = _resolve(md, owner, suggestion_id)
        expiry = KEEP if until is None else until
        memory = review.accept(
            *as_operator(md, owner), full_id, content=text, expires_at=expiry, scope=scope
        )
    where = scope_label(memory.scope, memory.workspace)
    emit(as_json, memory.to_dict(), f"accepted: {memory.id} in {where}: {memory.content}")


@app.command("reject")
def reject(
    user: UserOption,
    suggestion_id: SuggestionArgument,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Turn a suggestion down; the same text is not suggested again in that scope."""
    with open_for(db, user) as (md, owner):
        decided = review.reject(*as_operator(md, owner), _resolve(md, owner, suggestion_id))
    emit(as_json, decided.to_dict(), f"rejected: {decided.content}")
