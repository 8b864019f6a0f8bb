"""What the chat page and the ``memoryd serve`` banner say about where chats go: always
true, never ``default`` as if it were a model, never a credential from the URL."""

from __future__ import annotations

from pathlib import Path

from memoryd.config import MemorydSettings
from memoryd.server.upstream import chat_target, describe_upstream


def settings(tmp_path: Path, **values: str) -> MemorydSettings:
    return MemorydSettings(data_dir=tmp_path, **values)  # type: ignore[arg-type]


def test_an_openai_compatible_upstream_with_a_model(tmp_path: Path) -> None:
    config = settings(
        tmp_path,
        proxy_provider="openai",
        proxy_upstream_url="http://user:s3cret@127.0.0.1:11434/v1",
        proxy_model="llama3.1",
    )
    target = chat_target(config)
    assert target.model == "llama3.1"
    assert target.sentence.startswith(
        "Answers come from llama3.1 on the OpenAI-compatible server at http://127.0.0.1:11434/v1 "
    )
    banner = describe_upstream(config)
    assert banner == (
        "the OpenAI-compatible server at http://127.0.0.1:11434/v1, "
        "model llama3.1 for the web chat page (clients name their own)"
    )
    assert "s3cret" not in target.sentence + banner


def test_no_model_configured_says_so(tmp_path: Path) -> None:
    config = settings(tmp_path, proxy_provider="openai")
    target = chat_target(config)
    assert target.sentence.startswith("No chat model is configured")
    assert "https://api.openai.com/v1" in target.sentence
    assert describe_upstream(config).endswith(
        "with the model each client names (MEMORYD_PROXY_MODEL is not set)"
    )


def test_the_bundled_local_model_and_other_providers(tmp_path: Path) -> None:
    local = settings(tmp_path)
    assert describe_upstream(local) == "the bundled local model"
    assert chat_target(local).sentence.startswith("Answers come from the bundled local model ")
    claude = settings(tmp_path, proxy_provider="anthropic", llm_model="claude-x")
    assert chat_target(claude).sentence.startswith("Answers come from claude-x on the anthropic")
