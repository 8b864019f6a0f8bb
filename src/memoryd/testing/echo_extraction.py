"""A predictable extraction LLM for tests and benchmarks that process many pairs.

Set an ``EchoExtractor`` as a ``FakeOpenAIServer``'s ``responder``. It answers the
Observer with one WORKSPACE fact per user message of the batch (the message text itself)
and the Reflector with ``create`` for every candidate, so after extraction a pair holds
exactly one memory per chat, and any duplicate or lost chat shows in the counts.

It also counts calls in flight per workspace named in the prompt (give each pair its own
workspace): ``max_in_flight_per_workspace`` above 1 means two workers processed one
pair at the same time. ``hold_seconds`` keeps each call open that long (on top of the
server's ``latency``), so a test can act while a batch is in the middle of its LLM calls.
"""

from __future__ import annotations

import re
import threading
import time
from collections import Counter

from memoryd.testing.fake_openai import RecordedRequest, Reply

_WORKSPACE = re.compile(r'^Workspace "([^"]+)"', re.MULTILINE)
_USER_LINE = re.compile(r"^User: (.+)$", re.MULTILINE)
_CANDIDATE = re.compile(r"^(\d+)\. \[", re.MULTILINE)


class EchoExtractor:
    def __init__(self, hold_seconds: float = 0.0) -> None:
        self.hold_seconds = hold_seconds
        self._lock = threading.Lock()
        self._in_flight: Counter[str] = Counter()
        self.max_in_flight_per_workspace: Counter[str] = Counter()
        self.max_in_flight = 0
        self.calls: Counter[str] = Counter()

    def __call__(self, request: RecordedRequest) -> Reply:
        messages = request.get("messages") or [{}]
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
        if "Candidates:" in prompt:  # the Reflector: keep every candidate
            numbers = [int(n) for n in _CANDIDATE.findall(prompt.split("Candidates:", 1)[1])]
            return {
                "memories": [
                    {"candidate": n, "action": "create", "target": "", "scope": "WORKSPACE"}
                    for n in numbers
                ]
            }
        facts = [
            {"text": line.strip(), "scope": "WORKSPACE", "action": "create"}
            for line in _USER_LINE.findall(prompt)
        ]
        return {"facts": facts}
