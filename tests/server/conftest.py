"""Fixtures for the server: an app over a fresh SQLite database with a small world in it
(an admin, two default users, three workspaces, API keys), a TestClient for most tests
and a real uvicorn server on a free loopback port for the proxy and browser tests.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.testing import FakeOpenAIServer
from memoryd.testing.live import LiveServer
from support.server import World, build_world, make_settings


@pytest.fixture
def world(tmp_path: Path, embedder: MiniLMEmbedder, database_url: str) -> Iterator[World]:
    """The app over the suite's default database (SQLite, or PostgreSQL in CI's 2nd pass)."""
    w = build_world(make_settings(tmp_path, database_url=database_url), embedder)
    with w.client:
        yield w
    w.md.close()


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def live_world(
    tmp_path: Path, embedder: MiniLMEmbedder, fake_llm: FakeOpenAIServer
) -> Iterator[tuple[World, LiveServer]]:
    """The world served by uvicorn, with the fake LLM server as the proxy's upstream."""
    settings = make_settings(tmp_path, proxy_upstream_url=fake_llm.base_url)
    w = build_world(settings, embedder)
    with LiveServer(w.app) as live:
        yield w, live
    w.md.close()
