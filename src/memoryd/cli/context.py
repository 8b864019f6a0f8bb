"""``memoryd context``: show exactly what one chat turn would get, and why, so an operator
can see why a memory was or was not injected (the proxy's and the API's selection).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Annotated, Any

import typer

from memoryd.cli.common import (
    DbOption,
    JsonOption,
    UserOption,
    console,
    echo,
    emit_json,
    open_for,
    print_table,
    read_text_input,
    require_member,
    require_utf8,
    workspace_option,
)
from memoryd.domain.errors import InvalidInput
from memoryd.domain.injection import Turn
from memoryd.domain.models import ScoredMemory


def read_history(source: str) -> list[Mapping[str, Any]]:
    """Chat messages from a JSON file: ``[{"role": "user", "content": "..."}, ...]``."""
    text = read_text_input(source, "history file")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"history file {source!r} is not JSON ({exc.msg})") from None
    if isinstance(data, dict) and isinstance(data.get("messages"), list):
        data = data["messages"]
    if not isinstance(data, list):
        raise InvalidInput(
            f"history file {source!r} must hold a JSON list of messages "
            '([{"role": "user", "content": "..."}])'
        )
    for number, item in enumerate(data, start=1):
        if not isinstance(item, dict):
            raise InvalidInput(f"history file {source!r}: message {number} is not an object")
        content = item.get("content")
        if content is not None and not isinstance(content, str | list):
            raise InvalidInput(f"history file {source!r}: message {number} has no text content")
    return data


def _scored_json(scored: ScoredMemory) -> dict[str, Any]:
    memory = scored.memory
    return {
        "id": memory.id,
        "scope": memory.scope.value,
        "workspace": memory.workspace,
        "content": memory.content,
        "score": scored.score,
    }


def _chosen(turn: Turn) -> list[ScoredMemory]:
    return [*turn.global_memories, *turn.workspace_memories]


def _explain(turn: Turn, workspace: str | None) -> str:
    if not turn.enabled:
        return "memory is off (memory_enabled = false): nothing is injected"
    if workspace is None:
        return "no --workspace: only global memories are injected (as in a chat of no workspace)"
    if turn.fallback_reason:
        return (
            f"the reranker {turn.reranker} failed, so the 5 newest workspace memories were "
            f"used: {turn.fallback_reason}"
        )
    if turn.reranker:
        return f"workspace memories ranked by {turn.reranker} ({turn.candidates} candidates)"
    if not turn.candidates:
        return f"no workspace memories in {workspace!r} yet; only global memories are injected"
    return f"all {turn.candidates} workspace memories fit; no ranking needed"


def context(
    user: UserOption,
    message: Annotated[
        str, typer.Option("--message", "-m", help="The user's message for this turn.")
    ],
    workspace: Annotated[
        str | None,
        workspace_option(
            "The chat's workspace (without it: a chat of no workspace, globals only)."
        ),
    ] = None,
    history_file: Annotated[
        str | None,
        typer.Option(
            "--history-file",
            metavar="FILE",
            help='Earlier messages as JSON: [{"role": "user", "content": "..."}] (- for stdin).',
        ),
    ] = None,
    base: Annotated[
        str | None, typer.Option("--base", help="The base system prompt to append to.")
    ] = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Print the system prompt a chat turn would get and the memories chosen for it."""
    require_utf8(message, "message")
    if base is not None:
        require_utf8(base, "base prompt")
    history = read_history(history_file) if history_file is not None else []
    with open_for(db, user) as (md, owner):
        if workspace is not None:
            require_member(md, owner, workspace, "the proxy and the API refuse their chats there")
        turn = md.context(owner.id, workspace, message, history)
    prompt = turn.system_prompt(base)
    if as_json:
        emit_json(
            {
                "system_prompt": prompt,
                "section": turn.section,
                "memories": [_scored_json(s) for s in _chosen(turn)],
                "enabled": turn.enabled,
                "reranker": turn.reranker,
                "fallback_reason": turn.fallback_reason,
            }
        )
        return
    echo(prompt if prompt else "(empty system prompt: nothing to inject and no --base)")
    echo("")
    rows = [
        (
            rank,
            s.memory.id[:8],
            s.memory.scope.value,
            s.memory.workspace,
            "-" if s.score is None else f"{s.score:.3f}",
            s.memory.content,
        )
        for rank, s in enumerate(_chosen(turn), start=1)
    ]
    columns = ["#", "ID", "Scope", "Workspace", "Score", "Memory"]
    print_table(f"Memories chosen for this turn ({len(rows)})", columns, rows)
    console().print(_explain(turn, workspace), markup=False)
