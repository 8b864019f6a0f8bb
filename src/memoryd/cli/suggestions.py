"""``memoryd memories suggestions``: the review queue of one user, from the terminal.

When the run-time setting ``memory_review`` is ``updates`` or ``everything``, extraction
files its changes as suggestions; these commands list them (an update shows the memory
it would replace beside the new text), accept them as they are, with new text or
into another scope (``--scope``), or reject them. Ids are given in full or as a unique
prefix of at least 6 characters. Deciding goes through ``memoryd.access.suggestions``
as the operator, as the REST API's and the web UI's review queue do.
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
    cell,
    console,
    echo,
    emit_json,
    find_user,
    make_table,
    memory_json,
    open_memoryd,
    resolve_id,
    short_id_length,
    typed,
)
from memoryd.domain.errors import InvalidInput
from memoryd.domain.models import Scope, Suggestion, User
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


def _json(suggestion: Suggestion) -> dict[str, object]:
    return suggestion.to_dict()


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
    with open_memoryd(db) as md:
        owner = find_user(md, user)
        found = md.list_suggestions(owner.id, status)
    if as_json:
        emit_json([_json(s) for s in found])
        return
    if not found:
        echo(f"{owner.name} has no {'' if status == 'all' else status + ' '}suggestions.")
        return
    table = make_table(
        f"Suggestions ({len(found)})", ["ID", "Kind", "Where", "Now", "Suggested", "Status"]
    )
    width = short_id_length([s.id for s in found])
    for s in found:
        table.add_row(
            cell(s.id[:width]),
            cell(s.kind.value),
            cell(scope_label(s.scope, s.workspace)),
            cell(s.target_content or "-"),
            cell(s.content),
            cell(s.status.value),
        )
    console().print(table)


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
    with open_memoryd(db) as md:
        owner = find_user(md, user)
        full_id = _resolve(md, owner, suggestion_id)
        expiry = KEEP if until is None else until
        memory = review.accept(
            *as_operator(md, owner), full_id, content=text, expires_at=expiry, scope=scope
        )
    if as_json:
        emit_json(memory_json(memory))
    else:
        echo(
            f"accepted: {memory.id} in {scope_label(memory.scope, memory.workspace)}: "
            f"{memory.content}"
        )


@app.command("reject")
def reject(
    user: UserOption,
    suggestion_id: SuggestionArgument,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Turn a suggestion down; the same text is not suggested again in that scope."""
    with open_memoryd(db) as md:
        owner = find_user(md, user)
        decided = review.reject(*as_operator(md, owner), _resolve(md, owner, suggestion_id))
    if as_json:
        emit_json(_json(decided))
    else:
        echo(f"rejected: {decided.content}")
