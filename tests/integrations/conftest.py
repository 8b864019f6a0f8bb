"""Fixtures for the integration tests: a real ``memoryd serve`` app on a loopback port,
with alice's memories in workspace ``alpha``, and a client for her."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memoryd.client import MemorydClient
from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.testing.live import LiveMemoryd

FACTS = [
    "The database is PostgreSQL 16",
    "Deploys go out on Fridays",
    "The frontend is written in Svelte",
    "The team standup is at 9am",
    "Logs are shipped to Loki",
    "Tests run on GitHub Actions",
    "The API is versioned under /v2",
]


@pytest.fixture
def live(tmp_path: Path, embedder: MiniLMEmbedder, database_url: str) -> Iterator[LiveMemoryd]:
    with LiveMemoryd(tmp_path, embedder, database_url=database_url) as server:
        alice = server.ids["alice"]
        server.md.add_memory(alice, "Prefers concise answers", scope="global")
        for fact in FACTS:
            server.md.add_memory(alice, fact, workspace="alpha")
        yield server


@pytest.fixture
def client(live: LiveMemoryd) -> Iterator[MemorydClient]:
    with MemorydClient(live.url, live.keys["alice"]) as c:
        yield c
