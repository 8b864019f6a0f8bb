"""Fixtures for extraction tests: a Memoryd wired to a scripted OpenAI-compatible server.

``xmd`` is a Memoryd on the suite's default database whose LLM is ``fake_llm`` (a real HTTP
server on loopback), with a controllable clock; ``team_md`` the same on SQLite and on
PostgreSQL, with two users and two workspaces. The helpers (``Clock``, ``observe``,
``reflect``, ``chat``, ``make_md``) live in ``tests/support/extraction.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memoryd import Memoryd
from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.testing import FakeOpenAIServer
from support.extraction import Clock, make_md


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as srv:
        yield srv


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def xmd(
    database_url: str,
    fake_llm: FakeOpenAIServer,
    tmp_path: Path,
    embedder: MiniLMEmbedder,
    clock: Clock,
) -> Iterator[Memoryd]:
    with make_md(database_url, fake_llm, tmp_path, embedder, clock) as md:
        yield md


@pytest.fixture
def team_md(
    db_url: str,
    fake_llm: FakeOpenAIServer,
    tmp_path: Path,
    embedder: MiniLMEmbedder,
    clock: Clock,
) -> Iterator[Memoryd]:
    """A Memoryd on SQLite and on PostgreSQL with users ana and bo, workspaces lab and ops."""
    with make_md(db_url, fake_llm, tmp_path, embedder, clock) as md:
        md.create_user("ana")
        md.create_user("bo")
        md.create_workspace("lab")
        md.create_workspace("ops")
        yield md
