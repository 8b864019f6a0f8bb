"""Give a memory questions as the background pass would (that pass has its own tests),
for tests of what the surfaces show and carry."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memoryd import Memoryd
from memoryd.domain.rules import content_key
from memoryd.extraction.questions import PROMPT_VERSION
from memoryd.storage import derived


def store_questions(
    md: Memoryd,
    memory_id: str,
    questions: Sequence[str] | None,
    vectors: Any = None,
    embedder: str | None = None,
    prompt: int = PROMPT_VERSION,
) -> None:
    """Store exactly these questions (None: none, not asked) for the memory's text, with
    these vectors by ``embedder``, as written by the prompt of version ``prompt``."""
    with md.db.write() as repo:
        derived.forget(repo.conn, [memory_id], derived.QUESTIONS)
        memory = repo.get_memory(memory_id)
        if questions is not None and memory is not None:
            key = content_key(memory.content)
            assert derived.put(
                repo.conn, memory_id, key, derived.QUESTIONS, prompt, list(questions),
                vectors, embedder,
            )  # fmt: skip


def give_questions(
    md: Memoryd, memory_id: str, questions: Sequence[str] | None, prompt: int = PROMPT_VERSION
) -> None:
    """Give the memory these questions with their vectors, written by the prompt of
    version ``prompt`` (None: not asked)."""
    vectors = md.embedder.embed(list(questions)) if questions else None
    store_questions(md, memory_id, questions, vectors, md.embedder.name, prompt)
