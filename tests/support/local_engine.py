"""A stand-in for the local model's ``xllamacpp.Server``, for tests of ``LocalProvider``
that must not load the real model: timeouts, cancellation, errors.

``FakeLlamaServer.handle_chat_completions(request, callback)`` answers like llama.cpp's
streamed chat completion (a role chunk, one chunk per word, a finish chunk, a usage
chunk) and stops as llama.cpp does when the callback returns True. ``hold_at`` makes it
wait, before that chunk, until the test calls ``release()``: a model that is still
computing, for exactly as long as the test wants.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Generation:
    """One request the fake model received, and how it ended."""

    request: dict[str, Any]
    delivered: int = 0  # chunks handed to the callback
    stopped_by_caller: bool = False  # the callback answered "stop"
    done: threading.Event = field(default_factory=threading.Event)


class FakeLlamaServer:
    def __init__(
        self,
        answer: str = '{"facts": []}',
        *,
        hold_at: int | None = None,
        usage: tuple[int, int] = (21, 4),
        error: dict[str, Any] | None = None,
        crash: str | None = None,
    ) -> None:
        self.answer = answer
        self.hold_at = hold_at
        self.usage = usage
        self.error = error  # answered instead of chunks, as llama.cpp reports a bad request
        self.crash = crash  # raised, as the native binding raises on a broken model
        self.generations: list[Generation] = []
        self.max_at_once = 0
        self._at_once = 0
        self._released = threading.Event()
        self._lock = threading.Lock()

    def release(self) -> None:
        """Let every held generation go on (and later ones pass ``hold_at`` at once)."""
        self._released.set()

    def chunks(self) -> list[dict[str, Any]]:
        words = self.answer.split(" ")
        pieces = [w if i == 0 else f" {w}" for i, w in enumerate(words)]
        prompt, completion = self.usage
        return [
            {"choices": [{"index": 0, "delta": {"role": "assistant", "content": None}}]},
            *({"choices": [{"index": 0, "delta": {"content": p}}]} for p in pieces),
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
            {
                "choices": [],
                "usage": {"prompt_tokens": prompt, "completion_tokens": completion},
            },
        ]

    def handle_chat_completions(
        self, request: dict[str, Any], callback: Callable[[Any], bool] | None = None
    ) -> Any:
        assert callback is not None and request.get("stream"), "LocalProvider always streams"
        generation = Generation(dict(request))
        with self._lock:
            self.generations.append(generation)
            self._at_once += 1
            self.max_at_once = max(self.max_at_once, self._at_once)
        try:
            if self.crash:
                raise RuntimeError(self.crash)
            if self.error is not None:
                callback({"error": self.error})
                return None
            for index, chunk in enumerate(self.chunks()):
                if index == self.hold_at:
                    self._released.wait()
                generation.delivered += 1
                if callback(chunk):
                    generation.stopped_by_caller = True
                    return None
            return None
        finally:
            with self._lock:
                self._at_once -= 1
            generation.done.set()
