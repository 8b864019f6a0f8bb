"""The local provider's calls, timeout and errors, on a stand-in for the model.

``FakeLlamaServer`` answers as xllamacpp's in-process server does and holds a
generation for as long as a test wants, so a call slower than ``MEMORYD_LLM_TIMEOUT`` is
made without loading the real model (tests/extraction/test_local_model.py runs that).
"""

from __future__ import annotations

import json
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

from memoryd import Memoryd
from memoryd.config import MemorydSettings
from memoryd.models.llm.base import LLMError
from memoryd.models.llm.builtin import make_provider
from memoryd.models.llm.local import LocalProvider
from support.local_engine import FakeLlamaServer
from support.threads import run_threads

SCHEMA = {"type": "object", "properties": {"facts": {"type": "array"}}, "required": ["facts"]}
ASK = [{"role": "user", "content": "x"}]


@pytest.fixture
def engines() -> Iterator[list[FakeLlamaServer]]:
    """Fake models made by a test; every held generation is let go when it ends."""
    made: list[FakeLlamaServer] = []
    yield made
    for engine in made:
        engine.release()


def local(
    engines: list[FakeLlamaServer], tmp_path: Path, timeout: float | None = 30, **fake: Any
) -> tuple[LocalProvider, FakeLlamaServer]:
    engine = FakeLlamaServer(**fake)
    engines.append(engine)
    return LocalProvider(models_dir=tmp_path, timeout=timeout, server=engine), engine


def test_a_completion_is_the_streamed_answer_with_its_usage(
    engines: list[FakeLlamaServer], tmp_path: Path
) -> None:
    provider, engine = local(engines, tmp_path, answer='{"facts": ["a b"]}', usage=(120, 7))
    completion = provider.complete(ASK, schema=SCHEMA, max_tokens=50, temperature=0.0)
    assert json.loads(completion.text) == {"facts": ["a b"]}
    assert (completion.prompt_tokens, completion.completion_tokens) == (120, 7)
    [generation] = engine.generations
    assert generation.request["max_tokens"] == 50
    assert generation.request["grammar"].startswith("%llguidance")
    assert not generation.stopped_by_caller


def test_a_call_slower_than_the_timeout_fails_and_the_model_stops(
    engines: list[FakeLlamaServer], tmp_path: Path
) -> None:
    provider, engine = local(engines, tmp_path, timeout=0.3, hold_at=0)  # still "prefilling"
    with pytest.raises(LLMError, match=r"timed out after 0\.3 s \(MEMORYD_LLM_TIMEOUT\)") as err:
        provider.complete(ASK, schema=SCHEMA)
    assert err.value.retryable  # like a remote timeout: the scheduler backs off and retries
    [abandoned] = engine.generations
    assert not abandoned.done.is_set()  # the model is still busy with it
    engine.release()
    assert abandoned.done.wait(10)
    # the model's first chunk after the caller gave up was answered with "stop"
    assert abandoned.stopped_by_caller and abandoned.delivered == 1


def test_the_next_call_waits_for_an_abandoned_one_and_never_overlaps_it(
    engines: list[FakeLlamaServer], tmp_path: Path
) -> None:
    provider, engine = local(engines, tmp_path, timeout=0.3, hold_at=0)
    with pytest.raises(LLMError, match="timed out"):
        provider.complete(ASK)
    provider.timeout = 30  # the next call is patient: it gets the model once it is free

    def next_call() -> str:
        return provider.complete(ASK).text

    text, _ = run_threads([next_call, engine.release], timeout=30)
    assert text == '{"facts": []}'
    first, second = engine.generations
    assert first.stopped_by_caller and not second.stopped_by_caller
    assert engine.max_at_once == 1


def test_waiting_for_a_busy_model_counts_toward_the_timeout(
    engines: list[FakeLlamaServer], tmp_path: Path
) -> None:
    provider, engine = local(engines, tmp_path, timeout=0.2, hold_at=0)
    with pytest.raises(LLMError, match="timed out"):
        provider.complete(ASK)
    with pytest.raises(LLMError, match="waiting for an earlier call to finish"):
        provider.complete(ASK)
    assert len(engine.generations) == 1  # the second call never reached the model


def test_a_stream_times_out_between_pieces(engines: list[FakeLlamaServer], tmp_path: Path) -> None:
    provider, engine = local(engines, tmp_path, timeout=0.3, answer="one two three", hold_at=2)
    pieces = provider.stream(ASK)
    assert next(pieces) == "one"
    with pytest.raises(LLMError, match="timed out"):
        next(pieces)  # held before its second word, longer than the timeout
    engine.release()
    [generation] = engine.generations
    assert generation.done.wait(10) and generation.stopped_by_caller
    assert "".join(provider.stream(ASK)) == "one two three"  # not held: all of it, in order


def test_a_reader_who_stops_reading_stops_the_model(
    engines: list[FakeLlamaServer], tmp_path: Path
) -> None:
    provider, engine = local(engines, tmp_path, answer="one two three", hold_at=2)
    pieces = provider.stream(ASK)
    assert isinstance(pieces, Generator) and next(pieces) == "one"
    pieces.close()  # e.g. the chat client went away
    engine.release()
    [generation] = engine.generations
    assert generation.done.wait(10)
    assert generation.stopped_by_caller and generation.delivered == 3


def test_model_errors_become_llm_errors(engines: list[FakeLlamaServer], tmp_path: Path) -> None:
    refused, _ = local(
        engines, tmp_path, error={"code": 400, "message": "bad grammar", "type": "invalid"}
    )
    with pytest.raises(LLMError, match="local model failed: bad grammar"):
        refused.complete(ASK, schema=SCHEMA)
    crashed, _ = local(engines, tmp_path, crash="context overflow")
    with pytest.raises(LLMError, match="local model failed: context overflow"):
        crashed.complete(ASK)
    with pytest.raises(LLMError, match="local model failed: context overflow"):
        list(crashed.stream(ASK))


def test_the_local_provider_takes_memoryd_llm_timeout(tmp_path: Path) -> None:
    settings = MemorydSettings(data_dir=tmp_path, llm_timeout=7.5)
    provider = make_provider(settings)
    assert isinstance(provider, LocalProvider) and provider.timeout == 7.5
    with pytest.raises(ValueError, match="positive"):
        LocalProvider(models_dir=tmp_path, timeout=0)


def test_extraction_past_the_timeout_records_a_failed_run(
    md: Memoryd, engines: list[FakeLlamaServer], tmp_path: Path
) -> None:
    provider, _ = local(engines, tmp_path, timeout=0.3, hold_at=0)
    ana = md.create_user("ana")
    md.create_workspace("lab")
    for n in range(3):
        md.record_chat(ana.id, "lab", f"I run experiment {n} on Slurm.", "Noted.")

    result = md.extract(ana.id, "lab", force=True, provider=provider)

    assert result.status == "failed" and "timed out" in (result.error or "")
    assert not any(c.memory_processed for c in md.list_chats(ana.id, "lab"))
    [run] = md.extraction_runs()
    assert run.status == "errors" and run.chats_processed == 0
    assert md.list_memories(ana.id) == []
