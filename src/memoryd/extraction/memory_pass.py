"""The background passes that derive a value from each memory's text, and how they ask.

A pass is a ``MemoryPass``: a ``kind`` (the name its values are stored under in
``memory_derived``), a ``version`` (raising it gets older values derived again, after the
memories never derived) and how to derive one memory's value. Passes join through the
plugin hook ``register_memory_passes``, the built-in questions pass too; an extraction run
with a budget runs each over up to that many memories. A pass that needs no LLM only
implements ``derive``; one that asks the LLM overrides ``run`` and uses ``ask_each``.

In ``ask_each`` an LLM error stops the pass and stores nothing for that memory, except a
request the server refuses outright (HTTP 400, 403, 422) while it answers the next
memory's: that is the refused memory's own text (a content filter), so it is stored as
"nothing found", or it would stay first in line and stop every later pass. Two refusals
in a row stop the pass (docs/extraction.md, "Questions").
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar, TypeVar

from memoryd.domain.perspective import first_person
from memoryd.models.embedding.base import Embedder
from memoryd.models.llm.base import LLMError, LLMProvider, LLMUnavailable, Message
from memoryd.models.llm.json_output import Usage
from memoryd.storage import derived
from memoryd.storage.database import Database
from memoryd.storage.repository import Repository


def fact_messages(
    system: str, examples: Sequence[tuple[str, Any]], field_name: str, fact: str
) -> list[Message]:
    """The conversation asking about one memory: the instructions, worked examples (a
    fact and the answer's ``field_name`` value, as JSON), then the memory."""
    shots: list[Message] = []
    for example, answer in examples:
        shots += [
            {"role": "user", "content": f"Fact: {example}"},
            {"role": "assistant", "content": json.dumps({field_name: answer})},
        ]
    return [
        {"role": "system", "content": system},
        *shots,
        {"role": "user", "content": f"Fact: {fact}"},
    ]


V = TypeVar("V")


@dataclass
class PassOutcome:
    """What one pass's calls did: memories whose answer it stored (a refused one stored as
    "nothing found" included), the calls' usage, and the LLM error that stopped it."""

    stored: int = 0
    usage: Usage = field(default_factory=Usage)
    error: str | None = None
    unavailable: bool = False  # the error says every call would fail the same way


@dataclass(frozen=True)
class Request:
    """How a pass asks about one memory's text: one call per conversation builder of
    ``messages``, in order, each under the same schema and token limit."""

    messages: tuple[Callable[[str], list[Message]], ...]
    schema: dict[str, Any]
    schema_name: str
    max_tokens: int


def ask_each(
    db: Database,
    llm: LLMProvider,
    todo: Sequence[derived.Pending],
    request: Request,
    *,
    derive: Callable[[derived.Pending, tuple[str, ...]], V],
    store: Callable[[Repository, derived.Pending, V | None], bool],
    on_memory: Callable[[], None] | None = None,
) -> PassOutcome:
    """Ask about each memory of ``todo`` in order (see the module doc). ``derive`` turns a
    memory's answer texts (one per prompt of ``request``) into the value to store;
    ``store`` writes it (None: refused, "nothing found") in a write transaction and says
    whether the memory still had the text it was asked about."""
    done = PassOutcome()
    refused: list[derived.Pending] = []  # refused outright (HTTP 400, 403, 422...), not yet judged
    for memory in todo:
        answers: list[str] = []
        try:
            for build in request.messages:
                completion = llm.complete(
                    build(first_person(memory.content)),  # as the prompts were measured
                    schema=request.schema,
                    schema_name=request.schema_name,
                    max_tokens=request.max_tokens,
                    temperature=0.0,
                )
                done.usage.add(completion)
                answers.append(completion.text)
        except LLMError as exc:
            done.usage.add_failure()
            done.error = str(exc)
            done.unavailable = isinstance(exc, LLMUnavailable)
            if exc.retryable or done.unavailable or refused:
                break  # the next call would most likely fail alike: stop here
            refused.append(memory)  # its own fault if the server answers the next one
            continue
        value = derive(memory, tuple(answers))
        with db.write() as repo:
            for earlier in refused:  # the server answers others: it refuses this text
                done.stored += store(repo, earlier, None)
            done.stored += store(repo, memory, value)
        refused.clear()
        done.error = None  # the pass goes on
        if on_memory is not None:
            on_memory()
    return done


@dataclass(frozen=True)
class PassJob:
    """What a pass works with in one run: whose memories (anyone's, or ``user_id``'s
    globals and, given ``workspace_id``, that workspace's), the run's LLM and the
    service's embedder; ``on_memory`` after each memory (the run's heartbeat)."""

    db: Database
    llm: LLMProvider | None  # None: only asking whether memories wait (``waiting``)
    embedder: Embedder
    now: datetime
    user_id: int | None = None
    workspace_id: int | None = None
    on_memory: Callable[[], None] | None = None

    @property
    def scope(self) -> dict[str, Any]:
        return {"user_id": self.user_id, "workspace_id": self.workspace_id}

    def beat(self) -> None:
        if self.on_memory is not None:
            self.on_memory()


class MemoryPass:
    """A value of ``kind`` derived from each memory's text (see the module doc)."""

    kind: ClassVar[str]
    version: ClassVar[int] = 1
    what: ClassVar[str] = "deriving memories' values"  # an error says "<what> stopped ..."

    def derive(self, memory: derived.Pending) -> Any:
        """One memory's value (JSON-able), from its ``content``."""
        raise NotImplementedError

    def pending(
        self, job: PassJob, limit: int, skip: Collection[str] = ()
    ) -> list[derived.Pending]:
        """Up to ``limit`` memories to derive: those with no value for their text, then
        those an older version derived (with that value), oldest first each; ``skip``'s
        ids left out of the second."""
        with job.db.read() as repo:
            todo = derived.underived(repo.conn, self.kind, limit, job.now, **job.scope)
            if len(todo) < limit:
                wanted = limit - len(todo) + len(skip)
                older = derived.outdated(
                    repo.conn, self.kind, self.version, wanted, job.now, **job.scope
                )
                todo += [m for m in older if m.id not in skip][: limit - len(todo)]
        return todo

    def waiting(self, job: PassJob) -> bool:
        """Whether some memory waits for this pass (a small read)."""
        return bool(self.pending(job, 1))

    def store(self, repo: Repository, memory: derived.Pending, value: Any) -> bool:
        return derived.put(repo.conn, memory.id, memory.content_key, self.kind, self.version, value)

    def run(self, job: PassJob, limit: int) -> PassOutcome:
        """Derive and store up to ``limit`` memories' values, each in its own write."""
        done = PassOutcome()
        for memory in self.pending(job, limit):
            value = self.derive(memory)
            with job.db.write() as repo:
                done.stored += self.store(repo, memory, value)
            job.beat()
        return done
