"""A predictable extraction LLM for tests and benchmarks that process many pairs.

Set an ``EchoExtractor`` as a ``FakeOpenAIServer``'s ``responder``. It answers the
Observer by choosing every numbered user sentence as a project fact, and the Reflector
with "separate" for every pair, so after extraction a pair holds exactly one memory per
chat whose prompt is one fact-like sentence ("Fact 7 of pair 3."), and any duplicate or
lost chat shows in the counts.

It also counts calls in flight per workspace named in the prompt (give each pair its own
workspace): ``max_in_flight_per_workspace`` above 1 means two workers processed one
pair at the same time. ``hold_seconds`` keeps each call open that long (on top of the
server's ``latency``), so a test can act while a batch is in the middle of its LLM calls.

The questions pass (``memoryd.extraction.questions``) belongs to no pair: its requests
get ``QUESTIONS_ANSWER`` at once, counted in ``questions_calls`` and not per workspace.
"""

from __future__ import annotations

import re
import threading
import time
from collections import Counter

from memoryd.extraction.questions import SYSTEM, WORK_SYSTEM
from memoryd.testing.fake_openai import RecordedRequest, Reply

_WORKSPACE = re.compile(r'^Workspace "([^"]+)"', re.MULTILINE)
_SENTENCE = re.compile(r"^(\d+)\. ", re.MULTILINE)
_PAIR = re.compile(r"^(\d+)\. stored: ", re.MULTILINE)
QUESTIONS_ANSWER = {"questions": ["What does the user do?"]}


class EchoExtractor:
    def __init__(self, hold_seconds: float = 0.0) -> None:
        self.hold_seconds = hold_seconds
        self._lock = threading.Lock()
        self._in_flight: Counter[str] = Counter()
        self.max_in_flight_per_workspace: Counter[str] = Counter()
        self.max_in_flight = 0
        self.calls: Counter[str] = Counter()
        self.questions_calls = 0

    def __call__(self, request: RecordedRequest) -> Reply:
        messages = request.get("messages") or [{}]
        if str(messages[0].get("content", "")) in (SYSTEM, WORK_SYSTEM):  # questions pass
            with self._lock:
                self.questions_calls += 1
            return Reply.json(QUESTIONS_ANSWER)
        prompt = str(messages[-1].get("content", ""))
        found = _WORKSPACE.search(prompt)
        workspace = found.group(1) if found else ""
        with self._lock:
            self._in_flight[workspace] += 1
            self.calls[workspace] += 1
            peak = self._in_flight[workspace]
            self.max_in_flight_per_workspace[workspace] = max(
                peak, self.max_in_flight_per_workspace[workspace]
            )
            self.max_in_flight = max(self.max_in_flight, sum(self._in_flight.values()))
        try:
            if self.hold_seconds:
                time.sleep(self.hold_seconds)
            return Reply.json(self.answer(prompt))
        finally:
            with self._lock:
                self._in_flight[workspace] -= 1

    @staticmethod
    def answer(prompt: str) -> dict[str, object]:
        pairs = [int(n) for n in _PAIR.findall(prompt)]
        if pairs:  # the Reflector: every new fact is separate
            return {"verdicts": [{"pair": n, "verdict": "separate"} for n in pairs]}
        return {"person": [], "project": [int(n) for n in _SENTENCE.findall(prompt)]}
