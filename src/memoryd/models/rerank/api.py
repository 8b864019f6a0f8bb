"""A reranker that asks a ``/rerank`` HTTP endpoint (Cohere, vLLM, Jina, TEI) (R4).

For teams that already serve a cross-encoder: memoryd sends the turn's query text and the
workspace memories, and ranks by the scores that come back. It is registered as ``api``
and configured from the environment (``MEMORYD_RERANK_*``, docs/reranking.md). Any error,
including the timeout, raises, so ``Memoryd.context`` falls back to the 5 newest memories
and logs why, as for every reranker.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import httpx
from pydantic import SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from memoryd.domain.errors import InvalidInput
from memoryd.domain.injection import Query
from memoryd.domain.models import Memory


class ApiRerankSettings(BaseSettings):
    """``MEMORYD_RERANK_URL`` (the full endpoint, e.g. http://gpu:8000/v1/rerank) and friends."""

    model_config = SettingsConfigDict(env_prefix="MEMORYD_RERANK_", extra="ignore")

    url: str | None = None
    model: str | None = None  # sent as "model" when set (Cohere, vLLM and Jina want one)
    api_key: SecretStr | None = None  # sent as "Authorization: Bearer ..."
    timeout_s: float = 2.0
    # "documents": Cohere, vLLM and Jina's request body; "texts": Hugging Face TEI's
    style: Literal["documents", "texts"] = "documents"


class RerankApiError(RuntimeError):
    """The endpoint answered with something that is not one score per memory."""


class ApiReranker:
    name = "api"

    def __init__(self, settings: ApiRerankSettings, client: httpx.Client | None = None) -> None:
        if not settings.url:
            raise InvalidInput("the 'api' reranker needs MEMORYD_RERANK_URL (its /rerank endpoint)")
        self.settings = settings
        headers = {}
        if settings.api_key is not None:
            headers["Authorization"] = f"Bearer {settings.api_key.get_secret_value()}"
        self.client = client or httpx.Client(timeout=settings.timeout_s, headers=headers)

    def score(self, query: Query, memories: Sequence[Memory]) -> list[float]:
        if not memories:
            return []
        body: dict[str, Any] = {
            "query": query.text,
            self.settings.style: [m.content for m in memories],
        }
        if self.settings.model:
            body["model"] = self.settings.model
        if self.settings.style == "documents":
            body["top_n"] = len(memories)
        url = self.settings.url
        assert url is not None
        response = self.client.post(url, json=body)
        response.raise_for_status()
        return parse_scores(response.json(), len(memories))


def parse_scores(payload: Any, count: int) -> list[float]:
    """Scores in memory order from ``{"results": [{"index", "relevance_score"}]}`` (Cohere,
    vLLM, Jina) or ``[{"index", "score"}]`` (TEI)."""
    rows = payload.get("results") if isinstance(payload, dict) else payload
    if not isinstance(rows, list):
        raise RerankApiError("the rerank endpoint's answer has no list of results")
    scores: dict[int, float] = {}
    for row in rows:
        value = row.get("relevance_score", row.get("score")) if isinstance(row, dict) else None
        index = row.get("index") if isinstance(row, dict) else None
        if (
            not isinstance(index, int)
            or not 0 <= index < count
            or not isinstance(value, (int, float))
        ):
            raise RerankApiError(f"the rerank endpoint sent an unusable result: {row!r:.200}")
        scores[index] = float(value)
    if len(scores) != count:
        raise RerankApiError(f"the rerank endpoint scored {len(scores)} of {count} memories")
    return [scores[i] for i in range(count)]
