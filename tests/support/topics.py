"""Tag a memory's topics as the background tagging pass would (that pass has its own
tests), for tests of what the surfaces show and carry."""

from __future__ import annotations

from collections.abc import Sequence

from memoryd import Memoryd
from memoryd.domain.topics import encode


def tag(md: Memoryd, memory_id: str, topics: Sequence[str] | None) -> None:
    """Give the memory these topics (None: untagged again)."""
    with md.db.write() as repo:
        repo.update_memory(memory_id, {"topics": encode(topics)})
