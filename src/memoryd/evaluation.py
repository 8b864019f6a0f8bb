"""Measuring an extraction provider on labelled conversations (``memoryd eval extraction``).

Each conversation runs through the real pipeline (``Memoryd.extract``) on a fresh SQLite
database with the configured provider; the memories it creates or updates are matched
by meaning against the labelled facts. A labelled set is a JSON file (or JSON lines) of
conversations::

    {"id": "...", "workspace": "kitchen",
     "exchanges": [{"prompt": "user turn", "response": "assistant turn"}, ...],
     "facts": ["what the user stated", ...],          # the truth about the user
     "other_facts": ["what the assistant said of itself", ...],   # optional
     "secrets": ["hunter2", ...]}                     # optional: must never be stored

Matching (``match_memories``): MiniLM cosine similarity between a memory and each fact,
both taken without their subject words (``core``: "The user is ..." / "I am ...").
A memory is *correct* when its best user fact scores at least ``MATCH_SIMILARITY`` and no
``other_facts`` line scores higher; *wrong subject* when an ``other_facts`` line scores at
least the threshold and higher than every user fact; otherwise *unsupported*. Precision
is correct / memories (wrong-subject and unsupported memories count as wrong), recall is
facts with at least one memory at or above the threshold / facts. Because a labelled set
may list facts its conversation never states (Synthetic-Persona-Chat often does), the
facts that some sentence of the user's own turns matches are counted too
(``facts_stated_in_user_turns``), with the recall of those (``recall_of_stated_facts``):
what a perfect extractor of the user's words could reach. The threshold was
checked by hand on pairs from the development split (BENCHMARKS.md gives the agreement).
"""

from __future__ import annotations

import re
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from memoryd.config import MemorydSettings
from memoryd.domain.errors import InvalidInput
from memoryd.embedding.base import Embedder
from memoryd.labelled_data import read_items
from memoryd.llm.base import LLMProvider, LLMUnavailable

MATCH_SIMILARITY = 0.6
SAMPLE = "extraction-sample.json"


@dataclass
class ConversationResult:
    id: str
    facts: int
    memories: list[str]
    correct: int = 0
    wrong_subject: int = 0
    facts_found: int = 0
    facts_stated: int = 0  # facts some sentence of the user's turns says (by the matcher)
    stated_found: int = 0
    leaked_secrets: int = 0
    seconds: float = 0.0
    batches: int = 0
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    chats: int = 0
    global_memories: int = 0
    error: str | None = None
    rejected: list[str] = field(default_factory=list)
    not_stored: list[str] = field(default_factory=list)


def load_dataset(path: Path | None) -> list[dict[str, Any]]:
    """Conversations from a JSON file (a list, or an object with "conversations"), JSON
    lines, or the bundled sample when ``path`` is None. Raises InvalidInput when unusable."""
    items = read_items(path, SAMPLE, "conversations", "conversations")
    for index, conv in enumerate(items):
        if not isinstance(conv, dict) or not isinstance(conv.get("exchanges"), list):
            raise InvalidInput(f"conversation {index + 1} has no 'exchanges' list")
        if not isinstance(conv.get("facts"), list):
            raise InvalidInput(f"conversation {index + 1} has no 'facts' list")
    return list(items)


def _fact_text(fact: Any) -> str:
    return str(fact["text"] if isinstance(fact, dict) else fact)


_SUBJECT = re.compile(
    r"^the user said:\s*|\b(?:the user's|the user|user's|i'm|i am|i've|i'd|i|my|me|mine|"
    r"they're|they|their|them)\b",
    re.IGNORECASE,
)


# Kept apart from memoryd.extraction on purpose: the benchmark runs this module against
# earlier revisions of the pipeline too.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def core(text: str) -> str:
    """``text`` without who it is about ("The user is a bee farmer" and "I am a bee
    farmer" both become "is a bee farmer"-like), so matching compares what is said."""
    return " ".join(_SUBJECT.sub(" ", text.replace("’", "'")).replace('"', " ").split())


def match_memories(
    embedder: Embedder, memories: Sequence[str], facts: Sequence[str], others: Sequence[str]
) -> tuple[int, int, set[int]]:
    """(correct memories, wrong-subject memories, indexes of facts found); see the
    module doc."""
    if not memories:
        return 0, 0, set()
    mem = np.asarray(embedder.embed([core(m) for m in memories]))
    user = mem @ np.asarray(embedder.embed([core(f) for f in facts])).T if facts else None
    other = mem @ np.asarray(embedder.embed([core(o) for o in others])).T if others else None
    correct = wrong = 0
    for i in range(len(memories)):
        best_user = float(user[i].max()) if user is not None else -1.0
        best_other = float(other[i].max()) if other is not None else -1.0
        if best_user >= MATCH_SIMILARITY and best_user >= best_other:
            correct += 1
        elif best_other >= MATCH_SIMILARITY:
            wrong += 1
    found = (
        {int(j) for j in np.flatnonzero((user >= MATCH_SIMILARITY).any(axis=0))}
        if user is not None
        else set()
    )
    return correct, wrong, found


def run_conversation(
    conv: dict[str, Any],
    settings: MemorydSettings,
    provider: LLMProvider,
    embedder: Embedder,
    folder: Path,
) -> ConversationResult:
    """One conversation through the real pipeline on a fresh database, scored.

    LLMUnavailable when the provider refused its settings (API key, model, base URL) or
    its server could not be reached.
    """
    from memoryd.service import Memoryd

    conv_id = str(conv.get("id", "conversation"))
    facts = [_fact_text(f) for f in conv["facts"]]
    others = [_fact_text(f) for f in conv.get("other_facts", [])]
    db = folder / f"{abs(hash(conv_id))}-{time.monotonic_ns()}.db"
    with Memoryd(f"sqlite:///{db}", settings=settings, embedder=embedder) as md:
        user = md.create_user("eval")
        slug = str(conv.get("workspace") or "general")
        md.create_workspace(slug)
        for exchange in conv["exchanges"]:
            md.record_chat(user.id, slug, str(exchange.get("prompt", "")),
                           str(exchange.get("response", "")))  # fmt: skip
        started = time.perf_counter()
        result = md.extract(user.id, slug, force=True, provider=provider)
        if result.stopped_by:  # every other conversation would fail the same way
            raise LLMUnavailable(result.error or result.stopped_by)
        seconds = time.perf_counter() - started
        stored = md.list_memories(user.id)
    memories = [m.content for m in [*result.created, *result.updated]]
    correct, wrong, found = match_memories(embedder, memories, facts, others)
    said = [s for e in conv["exchanges"] for s in _SENTENCE_END.split(str(e.get("prompt", "")))]
    stated = match_memories(embedder, said, facts, others)[2]
    everything = " ".join(m.content for m in stored)
    return ConversationResult(
        id=conv_id,
        facts=len(facts),
        memories=memories,
        correct=correct,
        wrong_subject=wrong,
        facts_found=len(found),
        facts_stated=len(stated),
        stated_found=len(found & stated),
        leaked_secrets=sum(str(s) in everything for s in conv.get("secrets", [])),
        seconds=seconds,
        batches=result.batches,
        calls=result.usage.calls,
        prompt_tokens=result.usage.prompt_tokens,
        completion_tokens=result.usage.completion_tokens,
        chats=len(result.chats_processed),
        global_memories=sum(m.workspace is None for m in [*result.created, *result.updated]),
        error=result.error,
        rejected=list(result.rejected),
        not_stored=list(getattr(result, "not_stored", [])),
    )


def evaluate(
    conversations: Sequence[dict[str, Any]],
    settings: MemorydSettings,
    provider: LLMProvider,
    embedder: Embedder,
    on_result: Callable[[ConversationResult], None] | None = None,
) -> list[ConversationResult]:
    results = []
    with tempfile.TemporaryDirectory(prefix="memoryd-eval-") as tmp:
        for conv in conversations:
            row = run_conversation(conv, settings, provider, embedder, Path(tmp))
            results.append(row)
            if on_result is not None:
                on_result(row)
    return results


def summarize(results: Sequence[ConversationResult]) -> dict[str, Any]:
    """The figures ``memoryd eval extraction`` and the benchmark print."""
    memories = sum(len(r.memories) for r in results)
    facts = sum(r.facts for r in results)
    correct = sum(r.correct for r in results)
    wrong = sum(r.wrong_subject for r in results)
    batches = sum(r.batches for r in results) or 1
    chats = sum(r.chats for r in results) or 1
    precision = correct / memories if memories else 0.0
    recall = sum(r.facts_found for r in results) / facts if facts else 0.0
    stated = sum(r.facts_stated for r in results)
    return {
        "conversations": len(results),
        "facts": facts,
        "memories": memories,
        "precision": round(precision, 3),
        "recall": round(recall, 3),
        "f1": round(2 * precision * recall / (precision + recall), 3) if correct else 0.0,
        "facts_stated_in_user_turns": stated,
        "recall_of_stated_facts": round(sum(r.stated_found for r in results) / stated, 3)
        if stated
        else 0.0,
        "wrong_subject_share": round(wrong / memories, 3) if memories else 0.0,
        "global_share": round(sum(r.global_memories for r in results) / memories, 3)
        if memories
        else 0.0,
        "not_stored_for_full_scope": sum(len(r.not_stored) for r in results),
        "conversations_without_memories": sum(1 for r in results if not r.memories),
        "secrets_leaked": sum(r.leaked_secrets for r in results),
        "seconds_per_batch": round(sum(r.seconds for r in results) / batches, 2),
        "llm_calls_per_batch": round(sum(r.calls for r in results) / batches, 2),
        "llm_calls_per_chat": round(sum(r.calls for r in results) / chats, 3),
        "tokens_per_chat": round(
            sum(r.prompt_tokens + r.completion_tokens for r in results) / chats
        ),
        "errors": sum(1 for r in results if r.error),
    }


def result_rows(results: Sequence[ConversationResult]) -> list[dict[str, Any]]:
    return [asdict(r) for r in results]
