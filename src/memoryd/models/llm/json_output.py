"""Getting one usable JSON object out of an LLM, even a small local one (R11).

Providers are asked for schema-constrained output where they support it, but the answer is
still parsed tolerantly: code fences and prose around the object are ignored, trailing
commas repaired. If the text still is not an object of the expected shape, the model is
asked once more with the problem shown to it; after that the call counts as failed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from memoryd.models.llm.base import Completion, LLMError, LLMProvider, Message

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")

# A shape check returns None when the object is usable, else what is wrong with it.
ShapeCheck = Callable[[dict[str, Any]], str | None]


class UnusableOutput(LLMError):
    """The model answered, but not with JSON of the requested shape (even after a retry)."""


@dataclass
class Usage:
    """LLM calls and tokens spent, summed over every call made for one purpose.

    ``calls`` counts every call made, answered or not; ``failed`` counts those of them
    that got no answer (an HTTP error, a timeout, a server that cannot be reached), so
    "no call was needed" (0 calls) reads apart from "every call failed" (calls == failed).
    An answer that was not usable JSON is an answered call, not a failed one."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    failed: int = 0

    def add(self, completion: Completion) -> None:
        self.calls += 1
        self.prompt_tokens += completion.prompt_tokens
        self.completion_tokens += completion.completion_tokens

    def add_failure(self) -> None:
        self.calls += 1
        self.failed += 1

    def merge(self, other: Usage) -> None:
        self.calls += other.calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.failed += other.failed


def parse_json_object(text: str) -> dict[str, Any]:
    """The first JSON object in ``text``; ValueError saying why when there is none."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("the answer was empty")
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    last_error = "no JSON object found in the answer"
    for candidate in candidates:
        start = candidate.find("{")
        while start != -1:
            chunk = _balanced_object(candidate, start)
            if chunk is None:
                last_error = "the JSON object in the answer is not closed (cut off?)"
                break
            for attempt in (chunk, _TRAILING_COMMA.sub(r"\1", chunk)):
                try:
                    value = json.loads(attempt)
                except ValueError as exc:
                    last_error = f"invalid JSON: {exc}"
                    continue
                if isinstance(value, dict):
                    return value
            start = candidate.find("{", start + 1)
    raise ValueError(last_error)


def _balanced_object(text: str, start: int) -> str | None:
    """The substring from ``start`` to its matching closing brace (strings respected)."""
    depth = 0
    in_string = False
    escaped = False
    for index in range(start, len(text)):
        ch = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return text[start : index + 1]
    return None


@dataclass
class JsonAnswer:
    value: dict[str, Any]
    usage: Usage = field(default_factory=Usage)


def complete_json(
    provider: LLMProvider,
    messages: Sequence[Message],
    *,
    schema: Mapping[str, Any],
    schema_name: str,
    check: ShapeCheck,
    max_tokens: int,
    usage: Usage | None = None,
) -> JsonAnswer:
    """Ask for JSON of ``schema``; retry once showing the model its mistake.

    Provider errors (LLMError) propagate at once; an unusable answer after the retry
    raises UnusableOutput. ``usage`` (if given) is updated even when the call fails: a
    call that raised is counted, as failed.
    """
    spent = usage if usage is not None else Usage()
    conversation = list(messages)
    problem = ""
    for attempt in range(2):
        try:
            completion = provider.complete(
                conversation,
                schema=schema,
                schema_name=schema_name,
                max_tokens=max_tokens,
                temperature=0.0,
            )
        except Exception:
            spent.add_failure()
            raise
        spent.add(completion)
        try:
            value = parse_json_object(completion.text)
            problem = check(value) or ""
        except ValueError as exc:
            problem = str(exc)
        if not problem:
            return JsonAnswer(value, spent)
        if attempt == 0:
            conversation = [
                *messages,
                {"role": "assistant", "content": completion.text[:2000]},
                {
                    "role": "user",
                    "content": f"That answer was not usable: {problem}. Reply again with only "
                    "one JSON object that matches the schema, nothing else.",
                },
            ]
    raise UnusableOutput(f"unusable {schema_name} output after a retry: {problem}")
