"""Helpers for extraction tests: a hand-moved clock, settings pointing at the scripted
OpenAI-compatible server, and builders for scripted Observer/Reflector replies."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memoryd import Memoryd
from memoryd.config import MemorydSettings
from memoryd.embedding.minilm import MiniLMEmbedder
from memoryd.testing import FakeOpenAIServer, Reply

START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


class Clock:
    """A clock tests move by hand."""

    def __init__(self, now: datetime = START) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now


def settings_for(srv: FakeOpenAIServer, tmp_path: Path, **overrides: Any) -> MemorydSettings:
    values: dict[str, Any] = {
        "data_dir": tmp_path,
        "llm_provider": "openai",
        "llm_model": "fake-model",
        "llm_base_url": srv.base_url,
        "llm_api_key": "sk-test-not-a-real-key-0000",
        "llm_timeout": 1.5,
        "idle_threshold_ms": 0,
    }
    values.update(overrides)
    return MemorydSettings(**values)


def make_md(url: str, srv: FakeOpenAIServer, tmp_path: Path, embedder: MiniLMEmbedder,
            clock: Clock, **overrides: Any) -> Memoryd:  # fmt: skip
    return Memoryd(
        url, embedder=embedder, settings=settings_for(srv, tmp_path, **overrides), clock=clock
    )


def observe(*facts: tuple[str, str] | tuple[str, str, str]) -> Reply:
    """An Observer answer: (text, scope[, action]) per fact."""
    return Reply.json(
        {
            "facts": [
                {"text": f[0], "scope": f[1], "action": f[2] if len(f) > 2 else "create"}
                for f in facts
            ]
        }
    )


def reflect(*items: dict[str, Any]) -> Reply:
    """A Reflector answer; each item like {"candidate": 1, "action": "create", ...}."""
    full = [{"action": "create", "target": "", "scope": "WORKSPACE", **item} for item in items]
    return Reply.json({"memories": full})


def chat(md: Memoryd, user_id: int, workspace: str, count: int = 3, text: str = "hello") -> None:
    for n in range(count):
        md.record_chat(user_id, workspace, f"{text} ({n})", "noted")
