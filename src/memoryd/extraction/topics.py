"""The background pass that tags memories with conversation topics (issue 10).

The reranker tells broad questions' answers apart better when each memory carries 1 to
3 topics of ``memoryd.domain.topics`` (BENCHMARKS.md, "Retrieval quality", round 6), and
an LLM knows which apply where an embedding does not. So extraction runs, after their
pairs, ask the extraction LLM once per untagged memory, oldest first, up to a budget
(``run_extraction(..., tag_topics=N)``). The prompt below is the one that was measured
(``bench/topic_tags.py`` imports it): changing its words means measuring again.

An answer that is not JSON of the schema, or names no known topic, is stored as "no
topics" so the memory is not asked about again until its text changes; an LLM error
leaves it untagged and stops the pass (the next run tries again). A request the server
refuses outright (HTTP 400, 403, 422: not a timeout, 429 or 5xx) while it answers the
next memory's is that memory's own doing (a text a content filter rejects): it is stored
as "no topics" too, or it would stay first in line and stop every later pass. Two
refusals in a row stop the pass and store nothing: then it is the request, not a text.
A memory whose text changes while the LLM answers keeps its new, untagged text: the
write is guarded by the text's key. Topics are derived data, like the vector: tagging
moves no ``updated_at`` and writes no audit entry.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memoryd.domain.topics import LABELS, MAX_TOPICS, encode, key_of
from memoryd.llm.base import LLMError, LLMProvider, LLMUnavailable, Message
from memoryd.llm.json_output import Usage, parse_json_object
from memoryd.storage.database import Database
from memoryd.storage.repository import Untagged

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
    shots: list[Message] = []
    for example, topics in SHOTS:
        shots += [
            {"role": "user", "content": f"Fact: {example}"},
            {"role": "assistant", "content": json.dumps({"topics": topics})},
        ]
    return [
        {"role": "system", "content": SYSTEM},
        *shots,
        {"role": "user", "content": f"Fact: {fact}"},
    ]


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
    refused: list[Untagged] = []  # refused outright (HTTP 400, 403, 422...), not yet judged
    for memory in todo:
        try:
            completion = llm.complete(
                messages(memory.content),
                schema=SCHEMA,
                schema_name="topics",
                max_tokens=MAX_TOKENS,
                temperature=0.0,
            )
        except LLMError as exc:
            done.usage.add_failure()
            done.error = str(exc)
            done.unavailable = isinstance(exc, LLMUnavailable)
            if exc.retryable or done.unavailable or refused:
                break  # the next call would most likely fail alike: stop here
            refused.append(memory)  # its own fault if the server answers the next one
            continue
        done.usage.add(completion)
        with db.write() as repo:
            for earlier in refused:  # the server answers others: it refuses this text
                if repo.set_topics(earlier.id, earlier.content_key, encode(())):
                    done.tagged += 1
            if repo.set_topics(memory.id, memory.content_key, encode(read_answer(completion.text))):
                done.tagged += 1
        refused.clear()
        done.error = None  # the pass goes on
        if on_memory is not None:
            on_memory()
    return done
