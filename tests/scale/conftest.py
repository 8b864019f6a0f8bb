"""Fixtures for the scale tests: PostgreSQL behind a cuttable proxy, worker processes.

Every test here runs on a fresh PostgreSQL database (``pg_md``, ``pg_url``) and, where it needs
several processes, starts real ``memoryd worker`` processes (``python -m
memoryd.cli.app worker``) against the scripted LLM server, and stops them at the end.
Helpers live in ``tests/support/scale.py``; the proxy in ``tests/support/tcp_proxy.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from memoryd import Memoryd
from memoryd.models.embedding.minilm import MiniLMEmbedder
from support.scale import Workers
from support.tcp_proxy import TcpProxy


@pytest.fixture
def pg_md(migrated_pg_url: str, embedder: MiniLMEmbedder) -> Iterator[Memoryd]:
    with Memoryd(migrated_pg_url, embedder=embedder) as md:
        yield md


@pytest.fixture
def proxy(pg_server: str) -> Iterator[TcpProxy]:
    url = make_url(pg_server)
    tcp = TcpProxy(url.host or "127.0.0.1", url.port or 5432)
    try:
        yield tcp
    finally:
        tcp.close()


@pytest.fixture
def workers(tmp_path: Path) -> Iterator[Workers]:
    pool = Workers(tmp_path)
    try:
        yield pool
    finally:
        pool.stop_all()
