"""Tag a memory's topics, or give it questions, as the background passes would (those
passes have their own tests), for tests of what the surfaces show and carry."""

from __future__ import annotations

from collections.abc import Sequence

from memoryd import Memoryd
from memoryd.domain.topics import encode
from memoryd.storage.questions import question_columns
from memoryd.storage.tables import QUESTION_PROMPT


def tag(md: Memoryd, memory_id: str, topics: Sequence[str] | None) -> None:
    """Give the memory these topics (None: untagged again)."""
    with md.db.write() as repo:
        repo.update_memory(memory_id, {"topics": encode(topics)})


def judge(md: Memoryd, memory_id: str, pastime: bool | None) -> None:
    """Give the memory this pastime answer (None: not asked again)."""
    with md.db.write() as repo:
        repo.update_memory(memory_id, {"pastime": pastime})


def give_questions(
    md: Memoryd, memory_id: str, questions: Sequence[str] | None, prompt: int = QUESTION_PROMPT
) -> None:
    """Give the memory these questions with their vectors, written by the prompt of
    version ``prompt`` (None: not asked again)."""
    vectors = md.embedder.embed(list(questions)) if questions else None
    with md.db.write() as repo:
        repo.update_memory(
            memory_id, question_columns(questions, vectors, md.embedder.name, prompt)
        )
