"""Give a memory questions as the background pass would (that pass has its own tests),
for tests of what the surfaces show and carry."""

from __future__ import annotations

from collections.abc import Sequence

from memoryd import Memoryd
from memoryd.storage.questions import question_columns
from memoryd.storage.tables import QUESTION_PROMPT


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
