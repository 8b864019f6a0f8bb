"""``memoryd chats``: record finished exchanges and list them (what extraction reads)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from memoryd.cli.common import (
    DbOption,
    JsonOption,
    UserOption,
    cell,
    console,
    echo,
    emit_json,
    find_user,
    make_table,
    open_memoryd,
    require_member,
)
from memoryd.domain.models import Chat

app = typer.Typer(help="Chat exchanges: record and list.", no_args_is_help=True)

PREVIEW_CHARS = 60


def chat_json(chat: Chat) -> dict[str, Any]:
    return {
        "id": chat.id,
        "workspace": chat.workspace,
        "prompt": chat.prompt,
        "response": chat.response,
        "created_at": chat.created_at.isoformat(),
        "memory_processed": chat.memory_processed,
    }


def _preview(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= PREVIEW_CHARS else flat[: PREVIEW_CHARS - 1] + "…"


@app.command("add")
def add(
    user: UserOption,
    workspace: Annotated[
        str, typer.Option("--workspace", "-w", metavar="SLUG", help="The chat's workspace.")
    ],
    prompt: Annotated[str, typer.Option("--prompt", "-p", help="What the user said.")],
    response: Annotated[str, typer.Option("--response", "-r", help="What the assistant said.")],
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Record one finished exchange for later memory extraction."""
    with open_memoryd(db) as md:
        owner = find_user(md, user)
        require_member(md, owner, workspace)
        chat = md.record_chat(owner.id, workspace, prompt, response)
        waiting = len(md.list_chats(owner.id, workspace, processed=False))
    if as_json:
        emit_json(chat_json(chat))
    else:
        echo(f"recorded chat {chat.id} ({waiting} unprocessed in {chat.workspace})")


@app.command("list")
def list_chats(
    user: UserOption,
    workspace: Annotated[
        str | None, typer.Option("--workspace", "-w", metavar="SLUG", help="Only this workspace.")
    ] = None,
    unprocessed: Annotated[
        bool, typer.Option("--unprocessed", help="Only chats extraction has not read yet.")
    ] = False,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """List a user's recorded chats, oldest first."""
    with open_memoryd(db) as md:
        owner = find_user(md, user)
        chats = md.list_chats(owner.id, workspace, processed=False if unprocessed else None)
    if as_json:
        emit_json([chat_json(c) for c in chats])
        return
    table = make_table(
        f"Chats of {owner.name} ({len(chats)})",
        ["ID", "Workspace", "When", "Processed", "Prompt", "Response"],
    )
    for c in chats:
        table.add_row(
            cell(c.id),
            cell(c.workspace),
            cell(c.created_at),
            cell("yes" if c.memory_processed else "no"),
            cell(_preview(c.prompt)),
            cell(_preview(c.response)),
        )
    console().print(table)
