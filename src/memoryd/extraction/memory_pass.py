"""LLM calls per memory, the way the background passes that derive data from a memory's
text (the questions pass; a plugin's) make them.

A pass walks a list of memories, oldest first, and asks the extraction LLM about each
under a JSON schema, with one prompt or several (questions: one call per prompt, in
order). The LLM reads each memory in the user's own words ("The user runs a dog
school." as "I run a dog school.", ``memoryd.domain.perspective``): the prompts' examples
are written so, and they were measured on such facts (docs/retrieval-history.md, rounds 6 to 14).
What they do with answers and failures is the same, so it is here once: a
memory's answers, all of them, are turned into the value to store (outside any
transaction: the questions pass embeds), then stored in its own write transaction,
guarded by the text's key (a memory edited meanwhile keeps its new text, not asked
about). An LLM error on any of a memory's calls stops the pass and stores nothing for
that memory (the next run tries again, all its calls), except a request the server
refuses outright (HTTP 400, 403, 422: not a timeout, 429, 5xx or an unreachable server)
while it answers the next memory's: that is the refused memory's own doing (a text a
content filter rejects), so it is stored as "nothing found" with the next memory's
answers, or it would stay first in line and stop every later pass. Two refusals in a
row stop the pass and store nothing: then it is the request, not a text. A refused call
is that memory's last: its other prompts are not sent.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from memoryd.domain.perspective import first_person
from memoryd.llm.base import LLMError, LLMProvider, LLMUnavailable, Message
from memoryd.llm.json_output import Usage
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


class Pending(Protocol):
    """A memory a pass asks about: its text, and the key that guards the write."""

    @property
    def content(self) -> str: ...


M = TypeVar("M", bound=Pending)
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
    todo: Sequence[M],
    request: Request,
    *,
    derive: Callable[[M, tuple[str, ...]], V],
    store: Callable[[Repository, M, V | None], bool],
    on_memory: Callable[[], None] | None = None,
) -> PassOutcome:
    """Ask about each memory of ``todo`` in order. ``derive`` turns a memory's answer texts
    (one per prompt of ``request``, in its order) into the value to store; ``store``
    writes it (None: the server refused one of that memory's requests, store "nothing
    found") inside a write transaction and says whether the memory still had the text it
    was asked about. ``on_memory`` is called after each memory's answers (the run's
    heartbeat)."""
    done = PassOutcome()
    refused: list[M] = []  # refused outright (HTTP 400, 403, 422...), not yet judged
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
