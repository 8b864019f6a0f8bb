"""The background pass that asks, for each memory, the questions it answers (issue 10).

A question and its answer are far apart for a sentence embedder, so the reranker also
compares a turn's message with 3 questions an LLM wrote for each memory ("doc2query";
BENCHMARKS.md, "Retrieval quality", rounds 8 to 10: +0.012 recall@5 on the labelled test,
nothing lost on the hand-written set). Extraction runs, after their topic-tagging pass, ask
the extraction LLM once per memory not asked yet, oldest first, up to a budget
(``run_extraction(..., ask_questions=N)``; the ``question_memories_per_run`` setting), and
embed the answer's questions with the service's embedder at once. The prompt below is the
one that was measured (``bench/doc2query.py`` imports it): changing its words means
measuring again.

The rules are topics' (``memoryd.extraction.memory_pass``, the loop both passes share):
an answer that is not JSON of the schema, or holds no usable question, is stored as "no
questions" (``[]``) so the memory is not asked about again until its text changes; an LLM
error leaves it unasked and stops the pass (the next run tries again); a text the server
refuses outright is stored as "no questions" too; a memory whose text changes while the
LLM answers keeps its new, unasked text: the write is guarded by the text's key.
Questions are derived data, like the vector: asking moves no ``updated_at`` and writes no
audit entry. Questions another embedder embedded are embedded again first,
from their stored text (no LLM call), within the same budget.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memoryd.domain.errors import InvalidInput
from memoryd.embedding.base import Embedder
from memoryd.extraction.memory_pass import Request, ask_each
from memoryd.llm.base import LLMProvider, Message
from memoryd.llm.json_output import Usage, parse_json_object
from memoryd.storage import questions as stored
from memoryd.storage.database import Database
from memoryd.storage.repository import Repository

SYSTEM = (
    "A person told a chat partner a fact about themself. Write 3 different short "
    "questions the chat partner could ask that this fact answers, as people ask them in "
    "a chat. Use other words than the fact where you can. Answer in JSON."
)
SHOTS: list[tuple[str, list[str]]] = [
    (
        "I like to dance at the club.",
        [
            "What do you do for fun?",
            "Where do you go on weekends?",
            "Do you like going out at night?",
        ],
    ),
    (
        "I work in the healthcare industry.",
        ["What do you do for a living?", "Where do you work?", "What field is your job in?"],
    ),
    (
        "My wife left me and took my children.",
        ["Are you married?", "Do you have kids?", "How is your family life?"],
    ),
]
QUESTIONS = 3
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "questions": {
            "type": "array",
            "items": {"type": "string", "pattern": r"^[A-Z][^?\"\\\n]{4,80}\?$"},
            "minItems": QUESTIONS,
            "maxItems": QUESTIONS,
        }
    },
    "required": ["questions"],
}
MAX_TOKENS = 90  # an answer is about 45 tokens
MAX_CHARS = 200  # a longer "question" is not one (servers that ignore the schema)


def messages(
    fact: str, system: str = SYSTEM, examples: list[tuple[str, list[str]]] = SHOTS
) -> list[Message]:
    """The conversation asking for one memory's questions: the instructions, three worked
    examples, then the memory (``bench/doc2query.py`` passes other instructions and
    examples to measure another prompt)."""
    shots: list[Message] = []
    for example, questions in examples:
        shots += [
            {"role": "user", "content": f"Fact: {example}"},
            {"role": "assistant", "content": json.dumps({"questions": questions})},
        ]
    return [
        {"role": "system", "content": system},
        *shots,
        {"role": "user", "content": f"Fact: {fact}"},
    ]


def read_answer(text: str) -> tuple[str, ...]:
    """The distinct questions an answer names, in its order, at most ``QUESTIONS``;
    blank or over-long strings are dropped, and an answer that is not JSON of the schema
    gives none."""
    try:
        value = parse_json_object(text)
    except ValueError:
        return ()
    named = value.get("questions")
    if not isinstance(named, list):
        return ()
    kept = (q.strip() for q in named if isinstance(q, str))
    return tuple(dict.fromkeys(q for q in kept if q and len(q) <= MAX_CHARS))[:QUESTIONS]


def in_words(questions: tuple[str, ...] | None) -> str:
    """A memory's questions for people (the CLI, the web detail; memoryd.js says the
    same): "Not asked yet" (None), "None" (asked, nothing usable), else "Q1 / Q2 / Q3"."""
    if questions is None:
        return "Not asked yet"
    return " / ".join(questions) if questions else "None"


def parse_stored(value: object) -> tuple[str, ...]:
    """An export line's ``questions``, checked as strictly as the pass stores them: a
    list of at most ``QUESTIONS`` distinct strings, none blank or over ``MAX_CHARS``;
    anything else is InvalidInput saying what a line may hold."""
    rule = (
        f"questions must be a list of at most {QUESTIONS} distinct, non-blank strings of at "
        f"most {MAX_CHARS} characters"
    )
    if not isinstance(value, list) or len(value) > QUESTIONS:
        raise InvalidInput(rule)
    found = tuple(q.strip() for q in value if isinstance(q, str))
    if len(found) != len(value) or not all(found) or len(set(found)) != len(found):
        raise InvalidInput(rule)
    if any(len(q) > MAX_CHARS for q in found):
        raise InvalidInput(rule)
    return found


REQUEST = Request(messages, SCHEMA, "questions", MAX_TOKENS)


@dataclass
class Asking:
    """What one questions pass did: memories whose questions it wrote (an answer with no
    usable question included), those whose questions it embedded again for a new
    embedder, the calls it made, and the LLM error that stopped it."""

    asked: int = 0
    reembedded: int = 0
    usage: Usage = field(default_factory=Usage)
    error: str | None = None
    unavailable: bool = False  # the error says every call would fail the same way


def ask_questions(
    db: Database,
    llm: LLMProvider,
    embedder: Embedder,
    *,
    limit: int,
    now: datetime,
    user_id: int | None = None,
    workspace_id: int | None = None,
    on_memory: Callable[[], None] | None = None,
) -> Asking:
    """Embed again the questions another embedder made, then ask about memories not asked
    yet, oldest first, up to ``limit`` memories in all: anyone's, or with ``user_id`` that
    user's globals and (with ``workspace_id``) that workspace's. ``on_memory`` is called
    after each answer (the run's heartbeat)."""
    done = Asking()
    if limit <= 0:
        return done
    mine: dict[str, Any] = {"user_id": user_id, "workspace_id": workspace_id}
    with db.read() as repo:
        stale = stored.stale_question_memories(repo.conn, embedder.name, limit, now, **mine)
    for memory in stale:
        assert memory.questions is not None
        again = embedder.embed(list(memory.questions))
        with db.write() as repo:
            if stored.set_questions(
                repo.conn, memory.id, memory.content_key, memory.questions, again,
                embedder.name, again=True,
            ):  # fmt: skip
                done.reembedded += 1
    limit -= len(stale)
    if limit <= 0:
        return done
    with db.read() as repo:
        todo = stored.unasked_memories(repo.conn, limit, now, **mine)

    def derive(_: stored.Unasked, answer: str) -> tuple[tuple[str, ...], Any]:
        questions = read_answer(answer)  # embedded here, outside the write transaction
        return questions, embedder.embed(list(questions)) if questions else None

    def store(repo: Repository, memory: stored.Unasked, asked: Any) -> bool:
        questions, vectors = asked if asked is not None else ((), None)  # None: refused
        return stored.set_questions(
            repo.conn, memory.id, memory.content_key, questions, vectors, embedder.name
        )

    outcome = ask_each(db, llm, todo, REQUEST, derive=derive, store=store, on_memory=on_memory)
    done.asked, done.usage = outcome.stored, outcome.usage
    done.error, done.unavailable = outcome.error, outcome.unavailable
    return done
