"""The ``api`` reranker against a real /rerank HTTP server on loopback (R4)."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator

import pytest

from memoryd import Memoryd
from memoryd.domain.errors import InvalidInput
from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.models.rerank.api import ApiReranker, ApiRerankSettings
from support.rerank_server import RerankServer, rerank_server

FACTS = [f"filler fact number {i}" for i in range(6)] + [
    "Sarah Chen is the legal contact",
    "The budget is 120k EUR",
]


@pytest.fixture
def server() -> Iterator[RerankServer]:
    with rerank_server() as fake:
        yield fake


def _setup(md: Memoryd) -> int:
    md.create_workspace("w")
    uid = md.create_user("alice").id
    for text in FACTS:
        md.add_memory(uid, text, workspace="w")
    return uid


@pytest.mark.parametrize("style", ["documents", "texts"])
def test_memories_are_ranked_by_the_endpoint(
    md: Memoryd,
    embedder: MiniLMEmbedder,
    server: RerankServer,
    monkeypatch: pytest.MonkeyPatch,
    style: str,
) -> None:
    uid = _setup(md)
    for key, value in (
        ("URL", server.url),
        ("MODEL", "bge-reranker"),
        ("STYLE", style),
        ("API_KEY", "sekret"),
    ):
        monkeypatch.setenv(f"MEMORYD_RERANK_{key}", value)
    with Memoryd(md.url, embedder=embedder, reranker="api") as remote:
        turn = remote.context(uid, "w", "who is the legal contact")
    assert turn.reranker == "api" and turn.fallback_reason is None
    assert turn.workspace_memories[0].memory.content == "Sarah Chen is the legal contact"
    (sent,) = server.requests
    assert sent["model"] == "bge-reranker" and sent["authorization"] == "Bearer sekret"
    assert sorted(sent[style]) == sorted(FACTS)


def test_a_slow_endpoint_times_out_and_the_newest_memories_are_used(
    md: Memoryd,
    embedder: MiniLMEmbedder,
    server: RerankServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    uid = _setup(md)
    server.delay_s = 1.0
    reranker = ApiReranker(ApiRerankSettings(url=server.url, timeout_s=0.2))
    started = time.perf_counter()
    with (
        Memoryd(md.url, embedder=embedder, reranker=reranker) as remote,
        caplog.at_level(logging.WARNING, logger="memoryd"),
    ):
        turn = remote.context(uid, "w", "who is the legal contact")
    assert time.perf_counter() - started < 0.9
    assert turn.fallback_reason is not None and "ReadTimeout" in turn.fallback_reason
    assert [m.content for m in turn.memories] == FACTS[:-6:-1]
    assert "reranker api failed" in caplog.text


@pytest.mark.parametrize("status", [500, 404])
def test_an_error_status_falls_back_to_recency(
    md: Memoryd,
    embedder: MiniLMEmbedder,
    server: RerankServer,
    status: int,
) -> None:
    uid = _setup(md)
    server.status = status
    reranker = ApiReranker(ApiRerankSettings(url=server.url))
    with Memoryd(md.url, embedder=embedder, reranker=reranker) as remote:
        turn = remote.context(uid, "w", "who is the legal contact")
    assert turn.fallback_reason is not None and str(status) in turn.fallback_reason
    assert [m.content for m in turn.memories] == FACTS[:-6:-1]


def test_the_api_reranker_without_a_url_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMORYD_RERANK_URL", raising=False)
    with pytest.raises(InvalidInput, match="MEMORYD_RERANK_URL"):
        ApiReranker(ApiRerankSettings())
