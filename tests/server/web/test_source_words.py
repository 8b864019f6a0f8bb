"""A memory's Source row in words (``memory_focus.source_text``): never a raw actor id."""

from __future__ import annotations

import pytest

from memoryd.access.wire import MemoryDetail
from memoryd.server.web.memory_focus import source_text

RUN = "5f0c2a9e41d84b1c9d7e"


@pytest.mark.parametrize(
    ("source", "created_by", "run_id", "words"),
    [
        ("user", "user:7", None, "Added by hand"),
        ("admin", "admin:1", None, "Added by an admin"),
        ("import", "import:7", None, "Imported from a file"),
        ("extraction", f"extraction:{RUN}", RUN, "Learned from chats (extraction run 5f0c2a9e)"),
        (
            "extraction",
            "user:7",
            RUN,
            "Learned from chats (extraction run 5f0c2a9e), accepted in review",
        ),
        ("extraction", None, None, "Learned from chats (extraction run ?)"),
    ],
)
def test_the_source_reads_in_words(
    source: str, created_by: str | None, run_id: str | None, words: str
) -> None:
    detail = MemoryDetail.model_construct(source=source, created_by=created_by, run_id=run_id)
    assert source_text(detail) == words
