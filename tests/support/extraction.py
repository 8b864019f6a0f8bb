"""Helpers for extraction tests: a hand-moved clock, settings pointing at the scripted
OpenAI-compatible server, builders of scripted replies (the Observer answers with
user sentence numbers, the Reflector with a verdict per pair), and runs stored at a
chosen time for the run-history retention tests."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memoryd import Memoryd
from memoryd.config import MemorydSettings
from memoryd.domain.rules import DEFAULT_LIMITS, Limits
from memoryd.extraction.runs import (
    Heartbeat,
    Run,
    finish_run,
    new_run_id,
    stale_after,
    start_run,
)
from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.testing import FakeOpenAIServer, Reply

START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
DEFAULT_TEXT = "I keep my lab notes in Obsidian."


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


def make_md(
    url: str,
    srv: FakeOpenAIServer,
    tmp_path: Path,
    embedder: MiniLMEmbedder,
    clock: Clock,
    limits: Limits = DEFAULT_LIMITS,
    **overrides: Any,
) -> Memoryd:
    settings = settings_for(srv, tmp_path, **overrides)
    return Memoryd(url, embedder=embedder, settings=settings, clock=clock, limits=limits)


def observe(person: Sequence[object] = (), project: Sequence[object] = ()) -> Reply:
    """An Observer answer: the numbers of the user sentences about the person and about
    the project (anything may be passed, to script a model that answers badly)."""
    return Reply.json({"person": list(person), "project": list(project)})


def reflect(*verdicts: str | dict[str, Any]) -> Reply:
    """A Reflector answer: one verdict per pair, numbered from 1 in order ("same",
    "replaces", "separate"), or a raw item such as ``{"pair": 7, "verdict": "same"}``."""
    items = [
        v if isinstance(v, dict) else {"pair": n, "verdict": v} for n, v in enumerate(verdicts, 1)
    ]
    return Reply.json({"verdicts": items})


def notes(*texts: str) -> Reply:
    """The rewrite of one language's sentences, in order."""
    return Reply.json({"notes": list(texts)})


SAID_ON = datetime(2023, 5, 8, 15, 0, tzinfo=UTC)  # a Monday


def learn(
    md: Memoryd,
    llm: FakeOpenAIServer,
    clock: Clock,
    prompts: list[str],
    *replies: Reply,
    workspace: str = "life",
) -> tuple[list[str], list[str]]:
    """Record the prompts (said on SAID_ON) in ``workspace``, run extraction with the
    scripted replies; the memories' texts and the sentences the Observer was shown."""
    clock.now = SAID_ON
    user = md.get_user("ana") if any(u.name == "ana" for u in md.list_users()) else None
    ana = user or md.create_user("ana")
    if not any(w.slug == workspace for w in md.list_workspaces()):
        md.create_workspace(workspace)
    for prompt in prompts:
        md.record_chat(ana.id, workspace, prompt, "I see.")
    llm.script(*replies)
    result = md.extract(ana.id, workspace, force=True)
    assert result.error is None, result.error
    observer = next(
        (r for r in reversed(llm.requests) if "The user wrote:" in r["messages"][-1]["content"]),
        None,
    )
    shown = observer["messages"][-1]["content"].split("The user wrote:\n")[1] if observer else ""
    return sorted(m.content for m in md.list_memories(ana.id)), shown.splitlines()


FILLER = "Thanks, that helps."  # a user turn with no candidate sentence


def chat(
    md: Memoryd, user_id: int, workspace: str, count: int = 3, text: str = DEFAULT_TEXT
) -> None:
    """``count`` chats: the first prompt is ``text`` (the batch's user sentences), the
    others are thanks, which hold no candidate sentence."""
    for n in range(count):
        md.record_chat(user_id, workspace, text if n == 0 else FILLER, "Noted.")


def stored_run(
    md: Memoryd,
    started: datetime,
    pairs: Sequence[tuple[int, str]] = (),
    *,
    finished: bool = True,
    last_beat: datetime | None = None,
    **counters: int,
) -> str:
    """A run stored through the real start/finish path, started at ``started`` and
    having processed ``pairs`` ((user id, workspace slug)); ``finished=False`` leaves it
    in progress, its last heartbeat at ``last_beat`` (default: the clock's now, so it is
    alive). ``counters`` (``pairs_failed=1``...) are what it had counted. Returns its id."""
    stale = stale_after(md.settings.llm_timeout)
    run = Run(id=new_run_id(), trigger="scheduler", started_at=started, **counters)
    start_run(md.db, run, stale)
    if finished:
        run.pairs = [{"user_id": uid, "workspace": slug, "status": "ok"} for uid, slug in pairs]
        finish_run(md.db, run, started + timedelta(minutes=1))
    else:
        beat_at = last_beat or md.clock()
        Heartbeat(md.db, run, lambda: beat_at, stale).beat()
    return run.id


def run_ids(md: Memoryd) -> set[str]:
    """The ids of every stored run."""
    return {r.id for r in md.extraction_runs(limit=10_000)}
