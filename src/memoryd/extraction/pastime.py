"""The background pass that asks, for each memory, whether it says what the person does
for fun (issue 10).

"What do you do for fun?" has more plausible answers in a pool of 20 memories than the 5
slots, and which of them are pastimes is world knowledge an embedding carries poorly
("I grow roses." is one, "I have a dog." is not). An LLM knows it; the hybrid reranker
then lifts the memories it said yes to on turns like a "for fun" question
(``memoryd.rerank.pastime``). BENCHMARKS.md, "Retrieval quality", rounds 16 and 21 to
23: +0.010 recall@5 on the labelled test split with a strong judge's answers, +0.001
with the bundled 1.5B model's, so unless ``pastime_memories_per_run`` says otherwise the
pass runs with a hosted LLM and not with the bundled model (``budget``,
docs/reranking.md). The prompt below is round 16's, the one measured: changing its words
means measuring again.

The rules are the other passes' (``memoryd.extraction.memory_pass``): oldest first, up to
a budget; an answer that is not JSON of the schema is stored as "no"; an LLM error leaves
the memory unasked and stops the pass; a text the server refuses outright is stored as
"no"; a memory whose text changes while the LLM answers keeps its new, unasked text. The
answer is derived data, like the vector: it moves no ``updated_at`` and writes no audit
entry, and a new text is asked again.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from memoryd.extraction.memory_pass import PassOutcome, Request, ask_each, fact_messages
from memoryd.llm.base import LLMProvider, Message
from memoryd.llm.json_output import parse_json_object
from memoryd.storage.database import Database
from memoryd.storage.repository import Repository, Untagged

SYSTEM = (
    "You read one fact a person states about themselves and decide whether it says what"
    " they do or enjoy in their free time: a hobby, pastime, sport or exercise they do,"
    " music, films, books, shows or games they enjoy, travel, going out, collecting,"
    " cooking or baking for pleasure, volunteering. It does not if it is about their job or"
    " studies, family or friends, where they live, their looks, health, age, personality,"
    " beliefs, money or belongings, their pets, food they eat or dislike, or plans and"
    ' wishes. Answer with JSON: {"free_time": true} or {"free_time": false}.'
)
SHOTS: list[tuple[str, bool]] = [
    ("I love to go hiking on weekends.", True),
    ("I work as a nurse.", False),
    ("My favorite band is the beatles.", True),
    ("I have two sisters.", False),
    ("I am allergic to peanuts.", False),
    ("I collect vintage stamps.", True),
]
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"free_time": {"type": "boolean"}},
    "required": ["free_time"],
}
MAX_TOKENS = 20  # an answer is about 7 tokens
HOSTED_BUDGET = 50  # memories per run when the setting is unset and the LLM is not bundled


def budget(setting: int | None, provider: str) -> int:
    """The memories a run asks: the ``pastime_memories_per_run`` setting, or when it is
    unset ``HOSTED_BUDGET`` with a hosted LLM and none with the bundled model, whose
    answers gain too little for the call (BENCHMARKS.md, round 23)."""
    if setting is not None:
        return setting
    return 0 if provider == "local" else HOSTED_BUDGET


def messages(fact: str) -> list[Message]:
    """The conversation asking about one memory: the instructions, six worked examples,
    then the memory."""
    return fact_messages(SYSTEM, SHOTS, "free_time", fact)


def read_answer(text: str) -> bool:
    """True only for an answer that is JSON of the schema saying true."""
    try:
        value = parse_json_object(text)
    except ValueError:
        return False
    return value.get("free_time") is True


def in_words(pastime: bool | None) -> str:
    """A memory's answer for people (the CLI, the web detail; memoryd.js says the same):
    "Not asked yet" (None), "Yes" or "No"."""
    if pastime is None:
        return "Not asked yet"
    return "Yes" if pastime else "No"


REQUEST = Request((messages,), SCHEMA, "free_time", MAX_TOKENS)


def judge_pastimes(
    db: Database,
    llm: LLMProvider,
    *,
    limit: int,
    now: datetime,
    user_id: int | None = None,
    workspace_id: int | None = None,
    on_memory: Callable[[], None] | None = None,
) -> PassOutcome:
    """Ask up to ``limit`` unexpired memories not asked yet, oldest first: anyone's, or
    with ``user_id`` that user's globals and (with ``workspace_id``) that workspace's.
    ``on_memory`` is called after each answer (the run's heartbeat); the outcome's
    ``stored`` counts the memories answered (a refused or unusable one as "no")."""
    if limit <= 0:
        return PassOutcome()
    with db.read() as repo:
        todo = repo.unjudged_memories(limit, now, user_id=user_id, workspace_id=workspace_id)

    def store(repo: Repository, memory: Untagged, pastime: bool | None) -> bool:
        return repo.set_pastime(memory.id, memory.content_key, bool(pastime))

    return ask_each(
        db,
        llm,
        todo,
        REQUEST,
        derive=lambda _, answers: read_answer(answers[0]),
        store=store,
        on_memory=on_memory,
    )
