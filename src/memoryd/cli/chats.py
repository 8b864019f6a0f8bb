"""``memoryd chats``: record finished exchanges and list them (what extraction reads), each
with the memories that were injected into it, and delete a user's chats (``rm`` by id,
``clear`` a workspace's or all of them, only with ``--yes``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

import typer

from memoryd.cli.common import (
    CLI_ACTOR,
    DbOption,
    JsonOption,
    UserOption,
    emit,
    fail,
    make_table,
    open_for,
    require_member,
    resolve_memory,
    workspace_option,
)
from memoryd.domain.errors import InvalidInput
from memoryd.domain.injection import injectable_into
from memoryd.domain.models import Chat, UsedMemory

app = typer.Typer(help="Chat exchanges: record, list and delete.", no_args_is_help=True)

PREVIEW_CHARS = 60


def chat_json(chat: Chat, used: Sequence[UsedMemory] = ()) -> dict[str, Any]:
    """A chat as the HTTP API gives it: ``memories`` are those injected into it, in order;
    a deleted one keeps its id with ``deleted`` true and no content."""
    return {
        "id": chat.id,
        "workspace": chat.workspace,
        "prompt": chat.prompt,
        "response": chat.response,
        "created_at": chat.created_at.isoformat(),
        "memory_processed": chat.memory_processed,
        "memories": [
            {
                "id": u.id,
                "deleted": u.deleted,
                "content": u.memory.content if u.memory else None,
                "scope": u.memory.scope.value if u.memory else None,
                "workspace": u.memory.workspace if u.memory else None,
            }
            for u in used
        ],
    }


def _preview(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= PREVIEW_CHARS else flat[: PREVIEW_CHARS - 1] + "…"


@app.command("add")
def add(
    user: UserOption,
    workspace: Annotated[str, workspace_option("The chat's workspace.")],
    prompt: Annotated[str, typer.Option("--prompt", "-p", help="What the user said.")],
    response: Annotated[str, typer.Option("--response", "-r", help="What the assistant said.")],
    memory: Annotated[
        list[str] | None,
        typer.Option(
            "--memory",
            "-m",
            metavar="ID",
            help="A memory that was injected into this exchange (full id or a unique prefix"
            " of 6+ characters); repeat it for each, in prompt order.",
        ),
    ] = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Record one finished exchange for later memory extraction."""
    with open_for(db, user) as (md, owner):
        require_member(md, owner, workspace, "extraction would learn memories they never get")
        ids = [resolve_memory(md, owner, given) for given in memory or ()]
        for memory_id in ids:
            found = md.get_memory(owner.id, memory_id)
            if not injectable_into(found, workspace):
                raise InvalidInput(
                    f"memory {memory_id[:8]} is in workspace {found.workspace}; a turn in"
                    f" {workspace} injects only global memories and {workspace}'s own"
                )
        chat = md.record_chat(owner.id, workspace, prompt, response, memory_ids=ids)
        used = md.chat_memories(owner.id, [chat.id]).get(chat.id, [])
        waiting = len(md.list_chats(owner.id, workspace, processed=False))
    emit(
        as_json,
        chat_json(chat, used),
        f"recorded chat {chat.id} ({waiting} unprocessed in {chat.workspace})",
    )


@app.command("list")
def list_chats(
    user: UserOption,
    workspace: Annotated[str | None, workspace_option("Only this workspace.")] = None,
    unprocessed: Annotated[
        bool, typer.Option("--unprocessed", help="Only chats extraction has not read yet.")
    ] = False,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """List a user's recorded chats, oldest first."""
    with open_for(db, user) as (md, owner):
        chats = md.list_chats(owner.id, workspace, processed=False if unprocessed else None)
        used = md.chat_memories(owner.id, [c.id for c in chats])
    columns = ["ID", "Workspace", "When", "Processed", "Memories", "Prompt", "Response"]
    rows = [
        (
            c.id,
            c.workspace,
            c.created_at,
            "yes" if c.memory_processed else "no",
            len(used.get(c.id, ())),
            _preview(c.prompt),
            _preview(c.response),
        )
        for c in chats
    ]
    table = make_table(f"Chats of {owner.name} ({len(chats)})", columns, rows)
    emit(as_json, [chat_json(c, used.get(c.id, ())) for c in chats], table)


def _chat_ids(given: Sequence[str]) -> list[int]:
    """Chat ids as ``chats list`` shows them: whole numbers, given in full."""
    for raw in given:
        if not raw.isascii() or not raw.isdigit():
            fail(f"chat id {raw!r} is not a number: give the ids that 'chats list' shows")
    return [int(raw) for raw in given]


def _chats(count: int) -> str:
    return f"{count} chat{'' if count == 1 else 's'}"


@app.command("rm")
def remove(
    user: UserOption,
    chat_ids: Annotated[
        list[str],
        typer.Argument(metavar="ID", help="The chats to delete, as 'chats list' shows them."),
    ],
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Delete some of a user's recorded chats, by id.

    Their text is erased and extraction never reads them; memories learned from them
    stay. All or nothing: if one id is not one of the user's chats, none is deleted.
    The audit log records how many went, not what they said."""
    ids = _chat_ids(chat_ids)
    with open_for(db, user) as (md, owner):
        deleted = md.delete_chats(owner.id, ids, actor=CLI_ACTOR)
    unique = sorted(set(ids))
    text = f"deleted {_chats(deleted)} of {owner.name}: {', '.join(map(str, unique))}"
    emit(as_json, {"deleted": deleted, "ids": unique}, text)


@app.command("clear")
def clear(
    user: UserOption,
    workspace: Annotated[
        str | None, workspace_option("Only this workspace (default: all).")
    ] = None,
    yes: Annotated[
        bool, typer.Option("--yes", help="Really delete them (refused without it).")
    ] = False,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Delete all of a user's recorded chats, or those in one workspace.

    Their text is erased and extraction never reads them; memories learned from them
    stay. Without --yes nothing is deleted: the command says how many it would delete."""
    with open_for(db, user) as (md, owner):
        where = f"workspace {workspace!r}" if workspace else "every workspace"
        if not yes:
            count = len(md.list_chats(owner.id, workspace))
            fail(
                f"this would delete {_chats(count)} of {owner.name} in {where}; "
                "add --yes to delete them"
            )
        deleted = md.clear_chats(owner.id, workspace, actor=CLI_ACTOR)
    emit(as_json, {"deleted": deleted}, f"deleted {_chats(deleted)} of {owner.name} in {where}")
