"""Schemathesis fuzzes every operation of the OpenAPI schema, as an admin and as a default
user: whatever it sends, the server answers without a 5xx (bounded: a few examples each)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error

from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.testing import FakeOpenAIServer, Reply
from support.server import World, build_world, make_settings


@pytest.fixture(scope="module")
def fuzz_world(
    tmp_path_factory: pytest.TempPathFactory, embedder: MiniLMEmbedder
) -> Iterator[World]:
    with FakeOpenAIServer() as upstream:
        upstream.responder = lambda body: Reply.text("fuzzed answer")
        tmp: Path = tmp_path_factory.mktemp("fuzz")
        world = build_world(
            make_settings(
                tmp,
                proxy_upstream_url=upstream.base_url,
                llm_provider="openai",
                llm_base_url=upstream.base_url,
                llm_model="fake-model",
            ),
            embedder,
        )
        alice = world.ids["alice"]
        world.md.add_memory(alice, "Alice likes tea")
        world.md.add_memory(alice, "Alpha uses Go", workspace="alpha")
        world.md.record_chat(alice, "alpha", "hello", "hi")
        with world.client:
            yield world
        world.md.close()


@schemathesis.serializer("application/x-ndjson")
def ndjson(ctx: Any, value: Any) -> bytes:
    """Import bodies are JSON lines; fuzzed ones are whatever text was generated."""
    return value.encode("utf-8", "surrogatepass") if isinstance(value, str) else b""


def fuzz(world: World, who: str) -> list[str]:
    """Every operation, a few generated requests each; the ones answered with a 5xx."""
    schema = schemathesis.openapi.from_asgi("/openapi.json", world.app)
    failures: list[str] = []
    for result in schema.get_all_operations():
        operation = result.ok()

        @given(case=operation.as_strategy())
        @settings(
            max_examples=6,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            derandomize=True,
            database=None,
        )
        def run(case: Any) -> None:
            case.call_and_validate(headers=world.headers(who), checks=[not_a_server_error])

        try:
            run()
        except Exception as exc:  # collect them all, then report
            failures.append(f"{operation.label}: {str(exc)[:400]}")
    return failures


@pytest.mark.parametrize("who", ["admin", "alice"])
def test_no_server_errors(fuzz_world: World, who: str) -> None:
    assert fuzz(fuzz_world, who) == []
