"""The ``api`` reranker against a real /rerank HTTP server on loopback (R4)."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from memoryd import Memoryd
from memoryd.domain.errors import InvalidInput
from memoryd.embedding.minilm import MiniLMEmbedder
from memoryd.rerank.api import ApiReranker, ApiRerankSettings

FACTS = [f"filler fact number {i}" for i in range(6)] + [
    "Sarah Chen is the legal contact",
    "The budget is 120k EUR",
]


class RerankServer:
    """Scores each document by the query words it contains, as Cohere or TEI would answer."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.delay_s = 0.0
        self.status = 200
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                body["authorization"] = self.headers.get("Authorization")
                server.requests.append(body)
                time.sleep(server.delay_s)
                words = set(body["query"].lower().split())
                docs = body.get("documents") or body.get("texts")
                scores = [len(words & set(d.lower().split())) for d in docs]
                if "texts" in body:  # TEI: a bare list with "score"
                    answer: Any = [{"index": i, "score": s} for i, s in enumerate(scores)]
                else:
                    answer = {
                        "results": [
                            {"index": i, "relevance_score": s}
                            for i, s in reversed(list(enumerate(scores)))
                        ]
                    }
                data = json.dumps(answer).encode()
                self.send_response(server.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1/rerank"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


@pytest.fixture
def server() -> Iterator[RerankServer]:
    fake = RerankServer()
    yield fake
    fake.httpd.shutdown()
    fake.httpd.server_close()


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
