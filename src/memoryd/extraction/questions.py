"""The background pass that asks, for each memory, the questions it answers (issue 10).

A question and its answer are far apart for a sentence embedder, so the reranker also
compares a turn's message with up to 6 questions an LLM wrote for each memory
("doc2query"; docs/extraction.md, "Questions"). Each memory is asked once per prompt of
``PROMPTS`` (3 questions each) and keeps the union. The prompts are the ones measured
(docs/retrieval-history.md): changing their words means measuring again, and a new
``PROMPT_VERSION`` gets memories asked with an older one asked again. Questions another
embedder embedded are embedded again first (no LLM call), within the same budget.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memoryd.domain.errors import InvalidInput
from memoryd.extraction.memory_pass import (
    MemoryPass,
    PassJob,
    PassOutcome,
    Request,
    ask_each,
    fact_messages,
)
from memoryd.models.embedding.base import embed_queries
from memoryd.models.llm.base import Message
from memoryd.models.llm.json_output import parse_json_object
from memoryd.storage import derived
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
# Round 13's prompt for work facts: with the chat examples above a work fact got
# definitions ("What is Tailscale?") or off-topic questions, and a task turn asks nothing
# a fact answers; this one also asks for requests that need the fact.
WORK_SYSTEM = (
    "A person told a chat assistant a fact about themself or their work. Write 3 different "
    "short questions or requests the person or a chat partner could write in a chat that "
    "need this fact to be answered well. Never ask what a word means. Use other words than "
    "the fact where you can. Answer in JSON."
)
WORK_SHOTS: list[tuple[str, list[str]]] = [
    *SHOTS[:2],
    (
        "Crew trucks must be back at the depot by 6pm; Ines locks the gate.",
        [
            "What time do the trucks have to be back?",
            "Who closes up the yard at night?",
            "Can you write the crew a reminder about the end of the day?",
        ],
    ),
    (
        "Choir rehearsals are on Thursdays in the church hall; singers bring sheet music.",
        [
            "When is the next practice?",
            "Where do we rehearse?",
            "Can you draft a note to the singers about what to bring?",
        ],
    ),
]
QUESTIONS = 3  # per answer
MAX_QUESTIONS = 6  # per memory: the union of the two prompts' answers
# The version of PROMPTS, stored with each memory's questions: 1 was the chat prompt alone.
PROMPT_VERSION = 2
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
    examples, then the memory (other instructions and examples measure another prompt)."""
    return fact_messages(system, examples, "questions", fact)


def work_messages(fact: str) -> list[Message]:
    """The conversation asking for one memory's questions with the work prompt."""
    return messages(fact, WORK_SYSTEM, WORK_SHOTS)


# One call per prompt, in this order; the memory keeps the union of their questions.
PROMPTS: tuple[Callable[[str], list[Message]], ...] = (messages, work_messages)


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


def union(answers: tuple[tuple[str, ...], ...]) -> tuple[str, ...]:
    """The questions of several answers, in their order, each once, at most
    ``MAX_QUESTIONS``."""
    return tuple(dict.fromkeys(q for answer in answers for q in answer))[:MAX_QUESTIONS]


def in_words(questions: tuple[str, ...] | None) -> str:
    """A memory's questions for people (the CLI, the web detail; memoryd.js says the
    same): "Not asked yet" (None), "None" (asked, nothing usable), else "Q1 / Q2 / ..."."""
    return "Not asked yet" if questions is None else " / ".join(questions) or "None"


def parse_stored(value: object) -> tuple[str, ...]:
    """An export line's ``questions``, checked as strictly as the pass stores them: a
    list of at most ``MAX_QUESTIONS`` distinct strings, none blank or over ``MAX_CHARS``;
    anything else is InvalidInput saying what a line may hold."""
    rule = (
        f"questions must be a list of at most {MAX_QUESTIONS} distinct, non-blank strings of "
        f"at most {MAX_CHARS} characters"
    )
    if not isinstance(value, list) or len(value) > MAX_QUESTIONS:
        raise InvalidInput(rule)
    found = tuple(q.strip() for q in value if isinstance(q, str))
    distinct = len(set(found)) == len(found) == len(value)
    if not distinct or not all(found) or any(len(q) > MAX_CHARS for q in found):
        raise InvalidInput(rule)
    return found


def parse_prompt(value: object) -> int:
    """An export line's ``question_prompt``: the version of the prompt that wrote its
    questions, a whole number from 1; else InvalidInput."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidInput("question_prompt must be a whole number from 1")
    return value


REQUEST = Request(PROMPTS, SCHEMA, "questions", MAX_TOKENS)


class QuestionsPass(MemoryPass):
    """The questions pass (see the module doc), registered by ``memoryd.extraction.builtin``."""

    kind = derived.QUESTIONS
    version = PROMPT_VERSION
    what = "asking memories' questions"

    def waiting(self, job: PassJob) -> bool:
        with job.db.read() as repo:
            name = job.embedder.name
            if derived.other_embedder(repo.conn, derived.QUESTIONS, name, 1, job.now):
                return True
        return super().waiting(job)

    def run(self, job: PassJob, limit: int) -> PassOutcome:
        """Embed again the questions another embedder made, then ask about memories not
        asked yet, then about those an older prompt asked, oldest first each, up to
        ``limit`` memories in all; ``stored`` counts the memories asked."""
        done = PassOutcome()
        if limit <= 0:
            return done
        embedder = job.embedder
        with job.db.read() as repo:
            stale = derived.other_embedder(
                repo.conn, derived.QUESTIONS, embedder.name, limit, job.now, **job.scope
            )
        for memory in stale:
            if not isinstance(memory.value, list) or not memory.value:
                continue  # not questions: asked again when their turn comes
            again = embed_queries(embedder, list(memory.value))
            with job.db.write() as repo:
                derived.revise(
                    repo.conn, memory.id, memory.content_key, derived.QUESTIONS, memory.value,
                    vectors=again, embedder=embedder.name,
                )  # fmt: skip
        if limit <= len(stale):
            return done
        todo = self.pending(job, limit - len(stale), skip={m.id for m in stale})

        def derive(_: derived.Pending, answers: tuple[str, ...]) -> tuple[tuple[str, ...], Any]:
            questions = union(tuple(read_answer(a) for a in answers))
            # embedded here, outside the write transaction
            return questions, embed_queries(embedder, list(questions)) if questions else None

        def store(repo: Repository, memory: derived.Pending, asked: Any) -> bool:
            questions, vectors = asked if asked is not None else ((), None)  # None: refused
            if not questions and memory.value:  # asked again, nothing new: keep the old
                return derived.revise(
                    repo.conn, memory.id, memory.content_key, derived.QUESTIONS, memory.value,
                    version=PROMPT_VERSION,
                )  # fmt: skip
            return derived.put(
                repo.conn, memory.id, memory.content_key, derived.QUESTIONS, PROMPT_VERSION,
                questions, vectors, embedder.name,
            )  # fmt: skip

        if job.llm is None:
            raise ValueError("the questions pass needs an LLM")
        return ask_each(
            job.db, job.llm, todo, REQUEST, derive=derive, store=store, on_memory=job.on_memory
        )
