"""``memoryd audit``: read a user's audit log, newest first, a page at a time, filtered.

The same reading as ``GET /api/v1/audit``, in an admin's view (the memories of
workspaces the user has left too); ``memoryd memories history`` shares its table and JSON.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any

import typer

from memoryd.cli.common import (
    DbOption,
    JsonOption,
    UserOption,
    cell,
    emit,
    make_table,
    note,
    open_for,
    resolve_id,
    short_id_length,
    workspace_option,
)
from memoryd.domain.audit import MAX_PAGE
from memoryd.domain.errors import InvalidInput
from memoryd.domain.models import AuditEntry, Scope
from memoryd.domain.rules import MAX_ROW_ID

if TYPE_CHECKING:
    from rich.table import Table

    from memoryd.app.service import Memoryd

CLI_PAGE = 50  # entries shown when no --limit is given


def entry_json(entry: AuditEntry) -> dict[str, Any]:
    """An entry as the REST API gives it."""
    return {
        "id": entry.id,
        "memory_id": entry.memory_id,
        "action": entry.action.value,
        "actor": entry.actor,
        "at": entry.at.isoformat(),
        "before": entry.before,
        "after": entry.after,
    }


def state_text(view: dict[str, Any] | None) -> str:
    """A memory as an entry recorded it (``[slug] text``), what a chat deletion did, or a
    setting's value (``learn_from_chats = false``, ``[slug]`` first for a workspace's)."""
    if view is None:
        return "-"
    if "setting" in view:  # a change_setting entry
        where = f"[{view['workspace']}] " if view.get("workspace") else ""
        value = view.get("value")
        shown = value if isinstance(value, str) else json.dumps(value)
        return f"{where}{view['setting']} = {shown}"
    if "chat_ids" in view:  # a delete_chats entry: how many and where, never their text
        where = ", ".join(f"{slug}: {n}" for slug, n in view.get("workspaces", {}).items())
        return f"{view.get('count')} chat(s) ({where})"
    where = "global" if view.get("scope") == Scope.GLOBAL.value else f"[{view.get('workspace')}]"
    why = f" (why: {view['reason']})" if view.get("reason") else ""  # a deletion's reason
    return f"{where} {view.get('content', '')}{why}"


def audit_table(title: str, entries: Sequence[AuditEntry], width: int) -> Table:
    """The entries as a table; memory ids cut to ``width`` characters."""
    table = make_table(title, ["#", "When", "Action", "By", "Memory", "Before", "After"])
    for e in entries:
        table.add_row(
            cell(e.id),
            cell(e.at),
            cell(e.action.value),
            cell(e.actor),
            cell(e.memory_id[:width] or "-"),
            cell(state_text(e.before)),
            cell(state_text(e.after)),
        )
    return table


def memory_ids_in_log(md: Memoryd, user_id: int) -> set[str]:
    """Every memory id a user's log names, and their current memories' ids."""
    known = {e.memory_id for e in md.audit_log(user_id) if e.memory_id}
    return known | {m.id for m in md.list_memories(user_id)}


def whole_number(given: str | None, option: str, top: int) -> int | None:
    if given is None:
        return None
    text = given.strip()
    if not text.isascii() or not text.isdigit() or not 1 <= int(text) <= top:
        raise InvalidInput(f"{option} takes a whole number from 1 to {top}, not {given!r}")
    return int(text)


def audit(
    user: UserOption,
    memory: Annotated[
        str | None,
        typer.Option(
            "--memory",
            "-m",
            metavar="ID",
            help="Only this memory's entries (a deleted memory's too): its id, or a unique "
            "prefix of 6+ characters.",
        ),
    ] = None,
    action: Annotated[
        list[str] | None,
        typer.Option(
            "--action",
            "-a",
            metavar="ACTION",
            help="Only this action: create, update, delete, promote, demote, delete_chats "
            "(recorded chats deleted) or change_setting (learning from chats, review mode, "
            "role or a workspace membership changed). Repeat it for several.",
        ),
    ] = None,
    actor: Annotated[
        str | None,
        typer.Option(
            "--actor",
            metavar="WHO",
            help="Only changes made by: user, admin, extraction, import or system; or one "
            "actor exactly as the By column shows it (extraction:RUN_ID, admin:1).",
        ),
    ] = None,
    workspace: Annotated[
        str | None,
        workspace_option(
            "Only changes to memories that were in this workspace (before or after), "
            "and chat deletions there."
        ),
    ] = None,
    since: Annotated[
        str | None,
        typer.Option(
            "--since",
            metavar="DATE",
            help="Only entries from this date (YYYY-MM-DD, UTC) or ISO 8601 time on.",
        ),
    ] = None,
    before: Annotated[
        str | None,
        typer.Option(
            "--before",
            metavar="N",
            help="Only entries older than entry N (the # column): the next page is "
            "--before with the # of the last entry shown.",
        ),
    ] = None,
    limit: Annotated[
        str | None,
        typer.Option(
            "--limit",
            "-n",
            metavar="N",
            help=f"Show at most N entries (1 to {MAX_PAGE}; default {CLI_PAGE}).",
        ),
    ] = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Read a user's audit log: every change to their memories and settings, newest first.

    Each entry (numbered in the # column) says what happened -- create, update, delete,
    promote, demote, delete_chats when recorded chats were deleted (how many and where,
    never their text), or change_setting when their learning from chats, review mode,
    role or membership of a workspace changed -- who did it (user:ID, admin:ID, admin
    for the command line, extraction:RUN_ID, import:ID, or system when memoryd deleted
    an expired memory), when, and the memory (or the setting's value) before and after.
    Deleted memories keep their entries. Filters combine.

    Examples:
      memoryd audit --user alice
      memoryd audit --user alice --before 120      (the entries older than #120)
      memoryd audit --user alice --actor extraction --since 2026-03-01
      memoryd audit --user alice --memory 65f398 --action update
      memoryd audit --user alice --action change_setting
    """
    page_size = whole_number(limit, "--limit", MAX_PAGE) or CLI_PAGE
    cursor = whole_number(before, "--before", MAX_ROW_ID)
    with open_for(db, user) as (md, owner):
        memory_id = None
        if memory is not None:
            memory_id = resolve_id(memory, memory_ids_in_log(md, owner.id), owner.name)
        filters: dict[str, Any] = {
            "memory_id": memory_id,
            "action": action or None,
            "actor": actor,
            "workspace": workspace,
            "since": since,
        }
        entries = md.list_audit(owner.id, before=cursor, limit=page_size, **filters)
        more = len(entries) == page_size and bool(
            md.list_audit(owner.id, before=entries[-1].id, limit=1, **filters)
        )
    ids = {e.memory_id for e in entries if e.memory_id}
    title = f"Audit log of {owner.name}: {len(entries)} entries, newest first"
    emit(
        as_json, [entry_json(e) for e in entries], audit_table(title, entries, short_id_length(ids))
    )
    if more and not as_json:
        note(f"older entries: add --before {entries[-1].id} (with the same filters)")
