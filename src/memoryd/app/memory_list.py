"""Adding a pasted list of facts in one step (issue 38, item 4).

Someone leaving another product brings the facts it kept about them, one per line, often
bulleted or numbered. Each line is checked as a memory typed by hand is and as
extraction checks what it learns (``secret_reason``); the lines that pass are added in
one write transaction, and the result says, per line, what happened.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memoryd.domain import runtime_settings
from memoryd.domain.errors import DuplicateMemory, InvalidContent, InvalidInput, ScopeFull
from memoryd.domain.models import Actor, Scope, Source
from memoryd.domain.rules import content_key, normalize_content
from memoryd.extraction.secrets import secret_reason
from memoryd.models.embedding.base import embed_memories

if TYPE_CHECKING:
    from memoryd.app.service import Memoryd

MAX_LINES = 500  # a paste longer than this is refused whole: split it
_MARKER = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")


@dataclass(frozen=True)
class FactLine:
    """What became of one line of the paste (numbered from 1, blank lines counted)."""

    line: int
    text: str
    memory_id: str | None = None  # the new memory's id when it was added
    error: str | None = None  # why it was not

    @property
    def added(self) -> bool:
        return self.memory_id is not None


def fact_lines(text: str) -> list[tuple[int, str]]:
    """The paste's non-blank lines with their numbers, bullets and numbering dropped."""
    found = [
        (number, _MARKER.sub("", line, count=1).strip())
        for number, line in enumerate(text.splitlines(), start=1)
        if line.strip()
    ]
    if len(found) > MAX_LINES:
        raise InvalidInput(f"a list holds at most {MAX_LINES} facts, this one has {len(found)}")
    return found


def add_facts(
    md: Memoryd,
    user_id: int,
    text: str,
    workspace: str | None = None,
    *,
    actor: Actor | None = None,
) -> list[FactLine]:
    """Add each valid line of ``text`` as a memory of ``user_id``: global, or in
    ``workspace`` (which the caller checked the user may use). Returns every non-blank
    line's outcome, in order."""
    lines = fact_lines(text)
    actor = actor or Actor(Source.USER, user_id)
    scope = Scope.WORKSPACE if workspace else Scope.GLOBAL
    if workspace:
        md.get_workspace(workspace)  # NotFound before anything is embedded
    patterns = md.get_settings()[runtime_settings.SECRET_PATTERNS.key]
    outcomes: dict[int, FactLine] = {}
    valid: list[tuple[int, str]] = []
    first: dict[str, int] = {}
    for number, raw in lines:
        try:
            content = normalize_content(raw)
        except InvalidContent as exc:
            outcomes[number] = FactLine(number, raw, error=str(exc))
            continue
        reason = secret_reason(content, extra_patterns=patterns)
        if reason:
            outcomes[number] = FactLine(number, raw, error=f"refused as a secret: it {reason}")
        elif content_key(content) in first:
            same = first[content_key(content)]
            outcomes[number] = FactLine(number, raw, error=f"the same fact as line {same}")
        else:
            first[content_key(content)] = number
            valid.append((number, content))
    vectors = embed_memories(md.embedder, [c for _, c in valid])
    with md.db.write() as repo:
        for (number, content), vector in zip(valid, vectors, strict=True):
            try:
                memory = md.store.insert_memory(
                    repo, user_id, content, scope, workspace, actor, vector
                )
            except (DuplicateMemory, ScopeFull) as exc:
                outcomes[number] = FactLine(number, content, error=str(exc))
            else:
                outcomes[number] = FactLine(number, content, memory_id=memory.id)
    return [outcomes[number] for number, _ in lines]


def report(outcomes: list[FactLine]) -> str:
    """One line summing the paste up."""
    added = sum(o.added for o in outcomes)
    refused = len(outcomes) - added
    return f"added {added} of {len(outcomes)} facts" + (f", {refused} refused" if refused else "")
