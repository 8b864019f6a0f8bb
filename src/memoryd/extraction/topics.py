"""The background pass that tags memories with conversation topics (issue 10).

The reranker tells broad questions' answers apart better when each memory carries 1 to
3 topics of ``memoryd.domain.topics`` (BENCHMARKS.md, "Retrieval quality", round 6), and
an LLM knows which apply where an embedding does not. So extraction runs, after their
pairs, ask the extraction LLM once per untagged memory, oldest first, up to a budget
(``run_extraction(..., tag_topics=N)``). The prompt below is the one that was measured
(``bench/topic_tags.py`` imports it): changing its words means measuring again.

An answer that is not JSON of the schema, or names no known topic, is stored as "no
topics" so the memory is not asked about again until its text changes. LLM errors,
refused requests and texts edited while the LLM answers are handled as for every
per-memory pass (``memoryd.extraction.memory_pass``): an error leaves the memory untagged
and stops the pass, a refused text is stored as "no topics", an edited one keeps its new,
untagged text. Topics are derived data, like the vector: tagging moves no ``updated_at``
and writes no audit entry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memoryd.domain.topics import LABELS, MAX_TOPICS, encode, key_of
from memoryd.extraction.memory_pass import Request, ask_each, fact_messages
from memoryd.llm.base import LLMProvider, Message
from memoryd.llm.json_output import Usage, parse_json_object
from memoryd.storage.database import Database
from memoryd.storage.repository import Repository, Untagged

SYSTEM = (
    "A person told a chat partner a fact about themself. Pick the 1 to 3 conversation "
    "topics under which this fact would come up, from this list: "
    + "; ".join(LABELS)
    + ". Answer in JSON."
)
SHOTS: list[tuple[str, list[str]]] = [
    ("I like to dance at the club.", ["hobbies and free time", "music"]),
    ("My wife left me and took my children.", ["family and relationships", "past and life events"]),
    ("I work in the healthcare industry.", ["work and career"]),
]
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "topics": {
            "type": "array",
            "items": {"enum": list(LABELS)},
            "minItems": 1,
            "maxItems": MAX_TOPICS,
        }
    },
    "required": ["topics"],
}
MAX_TOKENS = 60  # an answer is about 10 tokens


def messages(fact: str) -> list[Message]:
    """The conversation asking for one memory's topics: the instructions, three worked
    examples, then the memory."""
    return fact_messages(SYSTEM, SHOTS, "topics", fact)


def read_answer(text: str) -> tuple[str, ...]:
    """The topic keys an answer names, in its order, at most ``MAX_TOPICS``; unknown
    labels are dropped, and an answer that is not JSON of the schema gives none."""
    try:
        value = parse_json_object(text)
    except ValueError:
        return ()
    named = value.get("topics")
    if not isinstance(named, list):
        return ()
    keys = (key_of(label) for label in named if isinstance(label, str))
    return tuple(dict.fromkeys(key for key in keys if key is not None))[:MAX_TOPICS]


REQUEST = Request((messages,), SCHEMA, "topics", MAX_TOKENS)


@dataclass
class Tagging:
    """What one tagging pass did: memories whose topics it wrote (an answer with no
    usable topic included), the calls it made, and the LLM error that stopped it."""

    tagged: int = 0
    usage: Usage = field(default_factory=Usage)
    error: str | None = None
    unavailable: bool = False  # the error says every call would fail the same way


def tag_memories(
    db: Database,
    llm: LLMProvider,
    *,
    limit: int,
    now: datetime,
    user_id: int | None = None,
    workspace_id: int | None = None,
    on_memory: Callable[[], None] | None = None,
) -> Tagging:
    """Tag up to ``limit`` untagged, unexpired memories, oldest first: anyone's, or with
    ``user_id`` that user's globals and (with ``workspace_id``) that workspace's.
    ``on_memory`` is called after each answer (the run's heartbeat)."""
    done = Tagging()
    if limit <= 0:
        return done
    with db.read() as repo:
        todo = repo.untagged_memories(limit, now, user_id=user_id, workspace_id=workspace_id)

    def store(repo: Repository, memory: Untagged, topics: str | None) -> bool:
        stored = encode(()) if topics is None else topics  # None: refused, no topics
        return repo.set_topics(memory.id, memory.content_key, stored)

    outcome = ask_each(
        db,
        llm,
        todo,
        REQUEST,
        derive=lambda _, answers: encode(read_answer(answers[0])),
        store=store,
        on_memory=on_memory,
    )
    done.tagged, done.usage = outcome.stored, outcome.usage
    done.error, done.unavailable = outcome.error, outcome.unavailable
    return done
