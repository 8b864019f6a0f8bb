"""Fixtures for the client tests: a real ``memoryd serve`` app on a loopback port."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.testing.live import LiveMemoryd


@pytest.fixture
def live(tmp_path: Path, embedder: MiniLMEmbedder, database_url: str) -> Iterator[LiveMemoryd]:
    with LiveMemoryd(tmp_path, embedder, database_url=database_url) as server:
        yield server
