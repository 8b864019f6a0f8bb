"""The OpenAI-compatible and Anthropic providers over real HTTP to the scripted server."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import pytest

from memoryd.config import MemorydSettings
from memoryd.domain.errors import InvalidInput
from memoryd.models.llm.anthropic_provider import AnthropicProvider
from memoryd.models.llm.base import LLMConfigError, LLMError, LLMProvider
from memoryd.models.llm.builtin import make_provider
from memoryd.models.llm.local import LocalProvider, compact_json_grammar
from memoryd.models.llm.openai_provider import OpenAIProvider
from memoryd.testing import FakeOpenAIServer, Reply

SCHEMA = {"type": "object", "properties": {"facts": {"type": "array"}}, "required": ["facts"]}
KEY = "sk-secret-test-key-1234567890abcdef"


@pytest.fixture
def srv() -> FakeOpenAIServer:
    with FakeOpenAIServer() as server:
        yield server  # type: ignore[misc]


def openai(srv: FakeOpenAIServer, timeout: float = 2.0) -> OpenAIProvider:
    return OpenAIProvider(model="m1", base_url=srv.base_url, api_key=KEY, timeout=timeout)


def test_openai_structured_output_request_and_usage(srv: FakeOpenAIServer) -> None:
    srv.script(Reply.json({"facts": ["a"]}, usage=(120, 7)))
    completion = openai(srv).complete(
        [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}],
        schema=SCHEMA,
        schema_name="observations",
        max_tokens=50,
        temperature=0.0,
    )
    assert json.loads(completion.text) == {"facts": ["a"]}
    assert (completion.prompt_tokens, completion.completion_tokens) == (120, 7)
    [request] = srv.requests
    assert request["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "observations", "schema": SCHEMA},
    }
    assert request["max_tokens"] == 50
    assert request["model"] == "m1"
    assert request.headers["authorization"] == f"Bearer {KEY}"


def test_openai_steps_down_when_the_server_refuses_response_format(
    srv: FakeOpenAIServer,
) -> None:
    srv.script(
        Reply.error(400, "response_format json_schema is not supported"),
        Reply.error(400, "Unknown response_format type json_object"),
        Reply.text('{"facts": []}'),
        Reply.text('{"facts": [1]}'),
    )
    provider = openai(srv)
    assert provider.complete([{"role": "user", "content": "x"}], schema=SCHEMA).text
    assert provider.complete([{"role": "user", "content": "x"}], schema=SCHEMA).text
    kinds = [r.get("response_format", {}).get("type") for r in srv.requests]
    assert kinds == ["json_schema", "json_object", None, None]  # remembered


def test_the_form_a_server_took_is_remembered_for_the_process(srv: FakeOpenAIServer) -> None:
    """Extraction builds a provider per run; a later run must not ask the refused way again."""
    srv.script(
        Reply.error(400, "response_format json_schema is not supported"),
        Reply.json({"facts": []}),
        Reply.json({"facts": [1]}),
    )
    assert openai(srv).complete([{"role": "user", "content": "x"}], schema=SCHEMA).text
    assert openai(srv).complete([{"role": "user", "content": "x"}], schema=SCHEMA).text
    kinds = [r.get("response_format", {}).get("type") for r in srv.requests]
    assert kinds == ["json_schema", "json_object", "json_object"]


@pytest.mark.parametrize(
    ("reply", "status", "retryable", "text"),
    [
        (Reply.error(500, "boom"), 500, True, "HTTP 500: boom"),
        (Reply.error(429, "slow down"), 429, True, "HTTP 429"),
        (Reply.error(401, "bad key"), 401, False, "HTTP 401: bad key"),
        (Reply.delay(2, Reply.json({})), None, True, "timed out"),
    ],
)
def test_openai_errors_become_llm_errors(
    srv: FakeOpenAIServer, reply: Reply, status: int | None, retryable: bool, text: str
) -> None:
    srv.script(reply)
    with pytest.raises(LLMError, match=text) as caught:
        openai(srv, timeout=0.5).complete([{"role": "user", "content": "x"}])
    assert (caught.value.status, caught.value.retryable) == (status, retryable)
    assert len(srv.requests) == 1  # no silent SDK retries: backoff is the scheduler's job


def test_openai_unreachable_server() -> None:
    provider = OpenAIProvider(base_url="http://127.0.0.1:9/v1", api_key="x", timeout=1)
    with pytest.raises(LLMError, match="cannot reach"):
        provider.complete([{"role": "user", "content": "x"}])


def test_openai_stream(srv: FakeOpenAIServer) -> None:
    srv.script(Reply.text("hello streaming world"))
    assert "".join(openai(srv).stream([{"role": "user", "content": "x"}])) == (
        "hello streaming world"
    )


def test_anthropic_forced_tool_and_system(srv: FakeOpenAIServer) -> None:
    srv.script(Reply.json({"facts": ["b"]}, usage=(30, 4)))
    provider = AnthropicProvider(model="claude-x", base_url=srv.base_url, api_key=KEY)
    completion = provider.complete(
        [{"role": "system", "content": "rules"}, {"role": "user", "content": "chat"}],
        schema=SCHEMA,
        schema_name="observations",
    )
    assert json.loads(completion.text) == {"facts": ["b"]}
    assert (completion.prompt_tokens, completion.completion_tokens) == (30, 4)
    [request] = srv.requests
    assert request.path == "/v1/messages" and request["system"] == "rules"
    assert request["tool_choice"] == {"type": "tool", "name": "observations"}
    assert request["tools"][0]["input_schema"] == SCHEMA
    assert request["messages"] == [{"role": "user", "content": "chat"}]
    # the SDK sends the key as x-api-key or (newer versions) as a bearer token
    assert KEY in (request.headers.get("x-api-key"), request.headers.get("authorization", "")[7:])


def test_anthropic_stream(srv: FakeOpenAIServer) -> None:
    srv.script(Reply.text("hello streaming world"))
    provider = AnthropicProvider(model="claude-x", base_url=srv.base_url, api_key=KEY)
    pieces = list(
        provider.stream([{"role": "system", "content": "rules"}, {"role": "user", "content": "x"}])
    )
    assert len(pieces) > 1 and "".join(pieces) == "hello streaming world"
    [request] = srv.requests
    assert request.path == "/v1/messages" and request["stream"] is True
    assert request["system"] == "rules"


def test_anthropic_errors(srv: FakeOpenAIServer) -> None:
    srv.script(Reply.error(529, "overloaded"))
    provider = AnthropicProvider(base_url=srv.base_url, api_key="k", timeout=2)
    with pytest.raises(LLMError, match="HTTP 529") as caught:
        provider.complete([{"role": "user", "content": "x"}], schema=SCHEMA)
    assert caught.value.retryable


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (Reply.error(401, "bad x-api-key"), "refused the API key (HTTP 401: bad x-api-key)"),
        (Reply.error(404, "model: claude-nope"), "has no model 'claude-nope'"),
    ],
)
def test_anthropic_settings_errors_quote_the_server_and_name_the_setting(
    srv: FakeOpenAIServer, reply: Reply, expected: str
) -> None:
    srv.script(reply)
    provider = AnthropicProvider(model="claude-nope", base_url=srv.base_url, api_key="k", timeout=2)
    with pytest.raises(LLMConfigError, match=re.escape(expected)) as caught:
        provider.complete([{"role": "user", "content": "x"}], schema=SCHEMA)
    assert "{'type'" not in str(caught.value) and not caught.value.retryable


def test_providers_come_from_the_plugin_registry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MEMORYD_MODELS_DIR", raising=False)  # tests/conftest.py sets it
    settings = MemorydSettings(
        data_dir=tmp_path, llm_base_url="http://127.0.0.1:1/v1", llm_api_key=KEY
    )
    remote = make_provider(settings, "openai")
    assert isinstance(remote, OpenAIProvider)
    assert remote.base_url == "http://127.0.0.1:1/v1"
    claude = make_provider(settings, "anthropic", "claude-y")
    assert isinstance(claude, AnthropicProvider)
    assert claude.model == "claude-y"
    local = make_provider(settings)  # nothing configured: the bundled local model
    assert isinstance(local, LocalProvider)
    assert local.name == "local"
    assert local.models_dir == tmp_path / "models"
    for provider in (remote, claude, local):
        assert isinstance(provider, LLMProvider), provider
    with pytest.raises(InvalidInput, match=r"unknown LLM provider 'nope'.*anthropic, local"):
        make_provider(settings, "nope")
    shared = MemorydSettings(data_dir=tmp_path, models_dir=tmp_path / "shared")
    local = make_provider(shared)
    assert isinstance(local, LocalProvider)
    assert local.models_dir == tmp_path / "shared"


def test_environment_configures_the_provider(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("MEMORYD_LLM_PROVIDER", "openai")
    monkeypatch.setenv("MEMORYD_LLM_MODEL", "llama3.2")
    monkeypatch.setenv("MEMORYD_LLM_BASE_URL", "http://127.0.0.1:11434/v1")
    monkeypatch.setenv("MEMORYD_LLM_API_KEY", KEY)
    monkeypatch.setenv("MEMORYD_LLM_TIMEOUT", "7.5")
    settings = MemorydSettings(data_dir=tmp_path)
    provider = make_provider(settings)
    assert isinstance(provider, OpenAIProvider)
    assert (provider.model, provider.base_url) == ("llama3.2", "http://127.0.0.1:11434/v1")
    assert settings.llm_timeout == 7.5


def test_the_api_key_is_never_shown(
    srv: FakeOpenAIServer, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    settings = MemorydSettings(
        data_dir=tmp_path, llm_provider="openai", llm_base_url=srv.base_url, llm_api_key=KEY
    )
    provider = make_provider(settings)
    srv.script(Reply.error(401, "invalid key"))
    caplog.set_level(logging.DEBUG)
    with pytest.raises(LLMError) as caught:
        provider.complete([{"role": "user", "content": "x"}])
    shown = " ".join([repr(settings), str(settings), repr(provider), str(caught.value),
                      caplog.text])  # fmt: skip
    assert KEY not in shown


def test_local_grammar_is_compact_json_of_the_schema() -> None:
    grammar = compact_json_grammar(SCHEMA)
    assert grammar.startswith("%llguidance {}\nstart: %json {")
    body = json.loads(grammar.split("%json ", 1)[1])
    assert body["x-guidance"]["whitespace_flexible"] is False
    assert body["properties"] == SCHEMA["properties"]


def test_local_provider_says_how_to_install_what_is_missing(tmp_path: Path) -> None:
    with pytest.raises(LLMError, match="unknown local model"):
        LocalProvider(model="gpt-5", models_dir=tmp_path)
