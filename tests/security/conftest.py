"""Fixtures for the attack tests: the server's small world (admin, alice, bob, three
workspaces, API keys) on SQLite and on PostgreSQL, as a TestClient or a live server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.testing.live import LiveServer
from support.server import World, build_world, make_settings


@pytest.fixture
def world(tmp_path: Path, embedder: MiniLMEmbedder, db_url: str) -> Iterator[World]:
    """The app on SQLite and on PostgreSQL (each test runs on both)."""
    w = build_world(make_settings(tmp_path, database_url=db_url), embedder)
    with w.client:
        yield w
    w.md.close()


@pytest.fixture
def sqlite_world(tmp_path: Path, embedder: MiniLMEmbedder) -> Iterator[World]:
    """The app on SQLite only, for attacks where the database plays no part."""
    w = build_world(make_settings(tmp_path), embedder)
    with w.client:
        yield w
    w.md.close()


@pytest.fixture
def live(sqlite_world: World) -> Iterator[tuple[World, LiveServer]]:
    with LiveServer(sqlite_world.app) as server:
        yield sqlite_world, server
