"""Recording a chat history exported by another product (issue 38, item 4).

Each turn of ``memoryd.app.history_formats`` becomes one recorded chat in the chosen
workspace, at its original time, through the path of ``memoryd import``'s chats. The
turns go in committed batches of ``BATCH_TURNS``, and a turn already recorded is counted
as already there, so an interrupted import is resumed by uploading the file again
(docs/history.md). Turns with no text, no plausible time or too long are skipped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memoryd.app.chat_log import MAX_CHAT_TEXT
from memoryd.app.history_formats import NAMES, History, Turn
from memoryd.app.transfer import ImportFile, import_lines
from memoryd.app.transfer_chats import ChatRecord
from memoryd.domain.models import Actor, Source

if TYPE_CHECKING:
    from memoryd.app.backends import Backends

BATCH_TURNS = 2000  # turns per committed batch: what an interruption can cost again


@dataclass
class HistoryImport:
    """An import's counts so far (``done`` of ``total`` turns looked at)."""

    format: str
    conversations: int
    total: int
    recorded: int = 0
    already: int = 0
    skipped: int = 0

    @property
    def done(self) -> int:
        return self.recorded + self.already + self.skipped

    def summary(self) -> str:
        """One line for a person: what the import did."""
        said = (
            f"{NAMES.get(self.format, self.format)} export: {self.conversations} conversations,"
            f" {self.recorded} turns recorded, {self.already} already there,"
            f" {self.skipped} skipped"
        )
        if self.recorded == 0 and self.already and not self.skipped:
            said += " (nothing new)"
        return said


def import_history(
    md: Backends,
    user_id: int,
    history: History,
    workspace: str,
    *,
    actor: Actor | None = None,
    progress: Callable[[HistoryImport], None] | None = None,
    batch_turns: int = BATCH_TURNS,
) -> HistoryImport:
    """Record ``history``'s turns as ``user_id``'s chats in ``workspace`` (which must
    exist; the caller checks the user may use it). ``progress`` is called after each
    committed batch."""
    with md.db.read() as repo:  # NotFound before anything is written
        md.store.require_workspace(repo, workspace)
    actor = actor or Actor(Source.IMPORT, user_id)
    turns: dict[str, Turn] = {}  # the first of each key
    for turn in history.turns:
        turns.setdefault(turn.key, turn)
    wanted = [
        t
        for t in turns.values()
        if t.created_at is not None and max(len(t.prompt), len(t.response)) <= MAX_CHAT_TEXT
    ]
    outcome = HistoryImport(history.format, len(history.conversations), 0)
    outcome.skipped = history.empty_prompts + len(turns) - len(wanted)
    outcome.total = len(wanted) + outcome.skipped
    if progress is not None:
        progress(outcome)
    for start in range(0, len(wanted), batch_turns):
        batch = [
            ChatRecord(
                line=start + n + 1,
                id=None,
                workspace=workspace,
                prompt=turn.prompt,
                response=turn.response,
                created_at=turn.created_at,
                processed=False,
                memory_ids=(),
            )
            for n, turn in enumerate(wanted[start : start + batch_turns])
        ]
        done = import_lines(md, user_id, ImportFile([], None, batch), actor, preferences=False)
        outcome.recorded += done.chats_created
        outcome.already += done.chats_skipped
        if progress is not None:
            progress(outcome)
    return outcome
