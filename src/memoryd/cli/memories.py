"""``memoryd memories``: browse and change one user's memories, and read their history.

A memory id (or a unique prefix) is resolved among the ``--user``'s memories alone, so
another user's id is simply "no memory". Changes go through ``memoryd.access.memories``
as the operator, like the REST API's, the web UI's and MCP's.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta
from typing import TYPE_CHECKING, Annotated

import typer

from memoryd.access import memories
from memoryd.cli import suggestions
from memoryd.cli.audit import audit_table, entry_json, memory_ids_in_log
from memoryd.cli.common import (
    CLI_ACTOR,
    EXIT_BAD_INPUT,
    Column,
    DbOption,
    JsonOption,
    UserOption,
    as_operator,
    column_table,
    console,
    echo,
    emit,
    emit_json,
    open_for,
    open_memoryd,
    read_text_input,
    require_member,
    resolve_id,
    resolve_memory,
    short_id_length,
    workspace_option,
)
from memoryd.domain.errors import InvalidInput, InvalidScope
from memoryd.domain.models import Memory, Scope
from memoryd.domain.rules import KEEP, scope_label

if TYPE_CHECKING:
    from memoryd.app.service import Memoryd

app = typer.Typer(
    help="One user's memories: list, add (one or many), edit, remove, move, show, history,"
    " suggestions.",
    no_args_is_help=True,
)
app.add_typer(suggestions.app, name="suggestions")

IdArgument = Annotated[
    str, typer.Argument(metavar="ID", help="Memory id, or a unique prefix (6+ characters).")
]

UntilOption = Annotated[
    str | None,
    typer.Option(
        "--until",
        metavar="DATE",
        help="Remember until this date (YYYY-MM-DD, to the end of that day, UTC) or ISO "
        "time; after it the memory is never injected and is deleted after the grace period.",
    ),
]


def _until(memory: Memory, md: Memoryd, stamp: str = "%Y-%m-%d %H:%M", words: bool = False) -> str:
    """When the memory expires: an expiry given as a date (stored as the next midnight,
    UTC) shows as the day the user gave, another time in ``stamp``; ``words`` says which
    ("2026-03-14 (to the end of that day, UTC)", "2026-03-14 18:00 UTC")."""
    moment = memory.expires_at
    if moment is None:
        return "never" if words else ""
    mark = " (expired)" if memory.is_expired(md.clock()) else ""
    if moment.time() == time(0):
        day = f"{moment - timedelta(days=1):%Y-%m-%d}"
        return f"{day} (to the end of that day, UTC){mark}" if words else day + mark
    return f"{moment:%Y-%m-%d %H:%M} UTC{mark}" if words else moment.strftime(stamp) + mark


WIDE_MEMORY_TABLE = 120  # from here on: times with hours and minutes
NARROW_MEMORY_TABLE = 100  # below this: no "Created" column


def _memory_columns(terminal: int, md: Memoryd, id_width: int) -> list[Column[Memory]]:
    """The columns of ``memories list`` for a terminal this wide: headers are whole words
    and times stay on one line; the memory's text takes what is left (and wraps)."""
    stamp = "%Y-%m-%d %H:%M" if terminal >= WIDE_MEMORY_TABLE else "%Y-%m-%d"

    def when(value: datetime | None) -> str:
        return "-" if value is None else value.strftime(stamp)

    columns: list[Column[Memory]] = [
        ("ID", True, lambda m: m.id[:id_width]),
        ("Memory", False, lambda m: m.content),
        ("Source", True, lambda m: m.source.words),
    ]
    if terminal >= NARROW_MEMORY_TABLE:
        columns.append(("Created", True, lambda m: when(m.created_at)))
    columns += [
        ("Last used", True, lambda m: when(m.last_used_at)),
        ("Expires", True, lambda m: _until(m, md, stamp)),
    ]
    return columns


def _where(memory: Memory) -> str:
    return scope_label(memory.scope, memory.workspace)


def _report(md: Memoryd, verb: str, memory: Memory, as_json: bool) -> None:
    if as_json:
        emit_json(memory.to_dict())
        return
    slug = memory.workspace if memory.scope is Scope.WORKSPACE else None
    count = len(md.list_memories(memory.user_id, memory.scope, slug))
    limit = md.limits.for_scope(memory.scope)
    echo(f"{verb} {memory.id} in {_where(memory)} ({count}/{limit}): {memory.content}")
    if memory.expires_at is not None:
        echo(f"remembered until {_until(memory, md, words=True)}")


@app.command("list")
def list_memories(
    user: UserOption,
    workspace: Annotated[str | None, workspace_option("Only this workspace.")] = None,
    scope: Annotated[
        Scope | None, typer.Option("--scope", help="Only global or only workspace memories.")
    ] = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """List a user's memories: Global (n/5), then each workspace (n/20)."""
    with open_for(db, user) as (md, owner):
        if scope is Scope.GLOBAL and workspace:
            raise InvalidScope("--scope global lists memories of no workspace; drop --workspace")
        memories = md.list_memories(owner.id, scope, workspace)
        all_ids = [m.id for m in md.list_memories(owner.id)]
    if as_json:
        emit_json([m.to_dict() for m in memories])
        return
    groups: dict[str | None, list[Memory]] = {}
    if scope is not Scope.WORKSPACE and not workspace:
        groups[None] = []
    if workspace:
        groups[workspace] = []
    for memory in memories:
        groups.setdefault(memory.workspace, []).append(memory)
    out = console()
    columns = _memory_columns(out.width, md, short_id_length(all_ids))
    for slug, members in groups.items():
        label = "Global" if slug is None else f"Workspace {slug}"
        limit = md.limits.for_scope(Scope.GLOBAL if slug is None else Scope.WORKSPACE)
        live = sum(1 for m in members if not m.is_expired(md.clock()))
        out.print(column_table(f"{label} ({live}/{limit})", columns, members))
    if not memories:
        out.print(f"{owner.name} has no memories here yet.", markup=False)


@app.command("add")
def add(
    user: UserOption,
    text: Annotated[str, typer.Argument(metavar="TEXT", help="The memory: one line.")],
    workspace: Annotated[str | None, workspace_option("Store in this workspace.")] = None,
    global_: Annotated[bool, typer.Option("--global", help="Store as a global memory.")] = False,
    until: UntilOption = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Add a memory to a workspace (--workspace SLUG) or to the user's global scope (--global)."""
    if global_ and workspace:
        raise InvalidScope(
            "--global and --workspace are exclusive: a global memory belongs to no "
            "workspace; give one of them"
        )
    if not global_ and not workspace:
        raise InvalidScope("say where the memory goes: --workspace SLUG or --global")
    with open_for(db, user) as (md, owner):
        if workspace:
            require_member(md, owner, workspace)
        scope = Scope.GLOBAL if global_ else Scope.WORKSPACE
        memory = memories.add_memory(*as_operator(md, owner), text, scope, workspace, until)
        _report(md, "added", memory, as_json)


@app.command("add-many")
def add_many(
    user: UserOption,
    source: Annotated[
        str, typer.Argument(metavar="FILE", help="One fact per line (bullets allowed), or -.")
    ],
    workspace: Annotated[
        str | None, workspace_option("Store in this workspace (default: global).")
    ] = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Add a list of facts (ChatGPT's saved memories, say) in one step, one per line.

    Each line is checked like a memory added by hand, and refused if it holds a secret;
    the lines that pass are added, the others are listed with the reason. The exit code
    is 2 when a line was refused.
    """
    from memoryd.app.memory_list import add_facts, report

    text = read_text_input(source)
    with open_for(db, user) as (md, owner):
        if workspace:
            require_member(md, owner, workspace)
        outcomes = add_facts(md, owner.id, text, workspace, actor=CLI_ACTOR)
    refused = [f"line {o.line}: {o.error}" for o in outcomes if o.error]
    data = [{"line": o.line, "id": o.memory_id, "error": o.error} for o in outcomes]
    emit(as_json, data, "\n".join([*refused, report(outcomes)]))
    if refused:
        raise typer.Exit(EXIT_BAD_INPUT)


@app.command("edit")
def edit(
    user: UserOption,
    memory_id: IdArgument,
    text: Annotated[
        str | None,
        typer.Argument(metavar="[TEXT]", help="The new text (leave out to change only --until)."),
    ] = None,
    until: UntilOption = None,
    no_expiry: Annotated[
        bool, typer.Option("--no-expiry", help="Remove the expiry: remember for good.")
    ] = False,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Replace the text of a memory (it keeps its id and scope), its expiry, or both."""
    if until is not None and no_expiry:
        raise InvalidInput("give --until DATE or --no-expiry, not both")
    with open_for(db, user) as (md, owner):
        full_id = resolve_memory(md, owner, memory_id)
        expiry = None if no_expiry else (KEEP if until is None else until)
        memory = memories.edit_memory(*as_operator(md, owner), full_id, text, expiry)
        _report(md, "edited", memory, as_json)


@app.command("show")
def show(
    user: UserOption, memory_id: IdArgument, db: DbOption = None, as_json: JsonOption = False
) -> None:
    """One memory in full: its origin, source chats, expiry, questions and history.

    The questions the memory answers are written by the background pass after
    extraction runs."""
    from memoryd.extraction.questions import in_words

    with open_for(db, user) as (md, owner):
        full_id = resolve_memory(md, owner, memory_id)
        detail = memories.memory_detail(*as_operator(md, owner), full_id)
        expires = _until(detail.memory, md, words=True)
    memory = detail.memory
    if as_json:
        emit_json(
            {
                **memory.to_dict(),
                "expired": detail.expired,
                "created_by": detail.created_by,
                "source_chats": [
                    {"id": c.id, "workspace": c.workspace, "prompt": c.prompt}
                    for c in detail.source_chats
                ],
                "deleted_source_chat_ids": list(detail.deleted_source_chat_ids),
                "history": [entry_json(e) for e in detail.history],
            }
        )
        return
    origin = memory.source.words + (f" (run {memory.run_id})" if memory.run_id else "")
    used = memory.last_used_at.isoformat(timespec="seconds") if memory.last_used_at else "never"
    lines = [
        f"{memory.id} in {_where(memory)}: {memory.content}",
        f"source: {origin}; created by {detail.created_by or 'unknown'}",
        f"created {memory.created_at.isoformat(timespec='seconds')}, "
        f"updated {memory.updated_at.isoformat(timespec='seconds')}, "
        f"last used {used}",
        f"expires: {expires}",
        f"questions: {in_words(memory.questions)}",
    ]
    lines += [f"from chat {c.id} in {c.workspace}: {c.prompt[:200]}" for c in detail.source_chats]
    lines += [f"from chat {i}: deleted" for i in detail.deleted_source_chat_ids]
    out = console()
    for line in lines:
        out.print(line, markup=False)
    out.print(audit_table(f"History ({len(detail.history)} changes)", detail.history, 8))


@app.command("purge-expired")
def purge_expired(db: DbOption = None, as_json: JsonOption = False) -> None:
    """Delete every memory expired longer than the expired_grace_days setting (all users).

    The server's scheduler does this on each extraction tick; run it from cron when no
    server runs."""
    with open_memoryd(db) as md:
        deleted = md.purge_expired()
    text = f"deleted {deleted} expired memor{'y' if deleted == 1 else 'ies'}"
    emit(as_json, {"deleted": deleted}, text)


@app.command("rm")
def remove(
    user: UserOption, memory_id: IdArgument, db: DbOption = None, as_json: JsonOption = False
) -> None:
    """Delete a memory (its history stays in the audit log)."""
    with open_for(db, user) as (md, owner):
        memory = memories.delete_memory(
            *as_operator(md, owner), resolve_memory(md, owner, memory_id)
        )
    text = f"deleted {memory.id} from {_where(memory)}: {memory.content}"
    emit(as_json, {"deleted": memory.to_dict()}, text)


@app.command("promote")
def promote(
    user: UserOption, memory_id: IdArgument, db: DbOption = None, as_json: JsonOption = False
) -> None:
    """Move a workspace memory to the user's global scope."""
    with open_for(db, user) as (md, owner):
        full_id = resolve_memory(md, owner, memory_id)
        memory = memories.promote(*as_operator(md, owner), full_id)
        _report(md, "promoted", memory, as_json)


@app.command("demote")
def demote(
    user: UserOption,
    memory_id: IdArgument,
    workspace: Annotated[str, workspace_option("The target workspace.")],
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Move a global memory into a workspace."""
    with open_for(db, user) as (md, owner):
        full_id = resolve_memory(md, owner, memory_id)
        require_member(md, owner, workspace)
        memory = memories.demote(*as_operator(md, owner), full_id, workspace)
        _report(md, "demoted", memory, as_json)


@app.command("history")
def history(
    user: UserOption,
    memory_id: Annotated[
        str | None,
        typer.Argument(metavar="[ID]", help="Only this memory (deleted ones too)."),
    ] = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """The audit log of a user's memories, oldest first, with before and after.

    It also lists each deletion of their chats (how many and where). `memoryd audit`
    reads the same log newest first, a page at a time, with filters."""
    with open_for(db, user) as (md, owner):
        entries = md.audit_log(owner.id)
        known = memory_ids_in_log(md, owner.id)
        if memory_id is not None:
            full_id = resolve_id(memory_id, known, owner.name)
            entries = md.audit_log(owner.id, full_id)
    table = audit_table(f"History ({len(entries)} changes)", entries, short_id_length(known))
    emit(as_json, [entry_json(e) for e in entries], table)
