"""Measuring an extraction provider on labelled conversations (``memoryd eval extraction``).

Each conversation runs through the real pipeline (``Memoryd.extract``) on a fresh SQLite
database with the configured provider; the memories it creates or updates are matched
by meaning against the labelled facts. A labelled set is a JSON file (or JSON lines) of
conversations::

    {"id": "...", "workspace": "kitchen",
     "exchanges": [{"prompt": "user turn", "response": "assistant turn",
                    "time": "2025-12-19T12:00:00+00:00",   # optional: when it was said
                    "session": 0}, ...],                   # optional: see below
     "facts": ["what the user stated", ...],          # the truth about the user
     "other_facts": ["what the assistant said of itself", ...],   # optional
     "secrets": ["hunter2", ...]}                     # optional: must never be stored

A fact is a string or an object ``{"text": ..., "session": 2, "replaced_in": 5,
"scope": "workspace"}`` (all keys but ``text`` optional). An exchange's ``time`` (ISO
8601; without an offset, UTC) is the time the chat is recorded at: memoryd's clock is set
to it, so what depends on a chat's time (a date "on Friday" resolves to) reads it as said
then. When exchanges carry ``session`` numbers, the conversation is several sessions: each
is recorded and extracted in turn, as the background job would between sessions, and the
memories stored after each are scored against the facts in force then (``session`` at or
before it, not yet ``replaced_in``). The headline figures are those after the last
session; a memory that matches a replaced fact better than any fact in force is *stale*.
A fact with a ``scope`` ("global" or "workspace") counts a correct memory stored in the
other scope as in the wrong scope.

Matching (``judge_memories``): MiniLM cosine similarity between a memory and each fact,
both taken without their subject words (``core``: "The user is ..." / "I am ...").
A memory is *correct* when its best user fact scores at least ``MATCH_SIMILARITY`` and no
``other_facts`` line (or replaced fact) scores higher; *wrong subject* when an
``other_facts`` line scores at least the threshold and higher than every user fact;
*stale* likewise for a replaced fact; otherwise *unsupported*. Precision
is correct / memories (wrong-subject, stale and unsupported memories count as wrong), recall is
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
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from memoryd.config import MemorydSettings
from memoryd.domain.errors import InvalidInput
from memoryd.models.embedding.base import Embedder
from memoryd.models.llm.base import LLMProvider, LLMUnavailable

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
    stale: int = 0  # memories matching a replaced fact best (sessions only)
    wrong_scope: int = 0  # correct memories filed in the other scope than their fact's
    judged: list[dict[str, Any]] = field(default_factory=list)  # per memory, see judge_memories
    checkpoints: list[dict[str, Any]] = field(default_factory=list)  # after each session


def load_dataset(path: Path | None) -> list[dict[str, Any]]:
    """Conversations from a JSON file (a list, or an object with "conversations"), JSON
    lines, or the bundled sample when ``path`` is None. Raises InvalidInput when unusable."""
    from memoryd.evaluation.labelled_data import (
        read_items,  # here: older revisions run this module too
    )

    items = read_items(path, SAMPLE, "conversations", "conversations")
    for index, conv in enumerate(items):
        if not isinstance(conv, dict) or not isinstance(conv.get("exchanges"), list):
            raise InvalidInput(f"conversation {index + 1} has no 'exchanges' list")
        if not isinstance(conv.get("facts"), list):
            raise InvalidInput(f"conversation {index + 1} has no 'facts' list")
        for exchange in conv["exchanges"]:
            if isinstance(exchange, dict) and exchange.get("time") is not None:
                try:
                    chat_time(exchange)
                except (TypeError, ValueError):
                    raise InvalidInput(
                        f"conversation {index + 1}: 'time' {exchange['time']!r} is not ISO 8601"
                    ) from None
    return list(items)


def _fact_text(fact: Any) -> str:
    return str(fact["text"] if isinstance(fact, dict) else fact)


def chat_time(exchange: dict[str, Any]) -> datetime | None:
    """The exchange's labelled time (UTC when it names no offset), or None."""
    value = exchange.get("time")
    if value is None:
        return None
    at = datetime.fromisoformat(str(value))
    return at if at.tzinfo else at.replace(tzinfo=UTC)


def facts_at(conv: dict[str, Any], session: int | None) -> tuple[list[Any], list[Any]]:
    """(facts in force, facts replaced) after ``session``; None: after the last one."""
    live, replaced = [], []
    for fact in conv["facts"]:
        info = fact if isinstance(fact, dict) else {}
        if session is not None and int(info.get("session", -1)) > session:
            continue  # not said yet
        gone = info.get("replaced_in")
        if gone is not None and (session is None or int(gone) <= session):
            replaced.append(fact)
        else:
            live.append(fact)
    live_texts = {_fact_text(f) for f in live}  # a rule set back to what it was is not stale
    return live, [f for f in replaced if _fact_text(f) not in live_texts]


_SUBJECT = re.compile(
    r"^the user said:\s*|\b(?:the user's|the user|user's|i'm|i am|i've|i'd|i|my|me|mine|"
    r"they're|they|their|them)\b",
    re.IGNORECASE,
)


# Kept apart from memoryd.extraction on purpose: the benchmark runs this module against
# earlier revisions of the pipeline too. CJK full stops end a sentence without a space.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])")


def core(text: str) -> str:
    """``text`` without who it is about ("The user is a bee farmer" and "I am a bee
    farmer" both become "is a bee farmer"-like), so matching compares what is said."""
    return " ".join(_SUBJECT.sub(" ", text.replace("’", "'")).replace('"', " ").split())


def judge_memories(
    embedder: Embedder,
    memories: Sequence[str],
    facts: Sequence[str],
    others: Sequence[str],
    replaced: Sequence[str] = (),
) -> tuple[list[dict[str, Any]], set[int]]:
    """Per memory its ``verdict`` (correct, wrong-subject, stale, unsupported; see the
    module doc) and its nearest line of each kind with the score (``user_fact`` /
    ``user_score``, ``other_*``, ``replaced_*``; None and -1 when there is none); and
    the indexes of the facts found."""
    if not memories:
        return [], set()
    # MATCH_SIMILARITY is MiniLM's: a routed embedder's comparison half (read by name,
    # not imported: bench/genres.py runs this file against older revisions' packages)
    embedder = getattr(embedder, "comparison", None) or embedder
    mem = np.asarray(embedder.embed([core(m) for m in memories]))

    def scores(lines: Sequence[str]) -> Any:
        return mem @ np.asarray(embedder.embed([core(x) for x in lines])).T if lines else None

    kinds = {"user": (facts, scores(facts)), "other": (others, scores(others)),
             "replaced": (replaced, scores(replaced))}  # fmt: skip
    judged = []
    for i, memory in enumerate(memories):
        row: dict[str, Any] = {"memory": memory}
        for kind, (lines, matrix) in kinds.items():
            best = int(matrix[i].argmax()) if matrix is not None else -1
            row[f"{kind}_fact"] = lines[best] if best >= 0 else None
            row[f"{kind}_score"] = round(float(matrix[i][best]), 4) if best >= 0 else -1.0
        user, other, old = row["user_score"], row["other_score"], row["replaced_score"]
        if user >= MATCH_SIMILARITY and user >= other and user >= old:
            row["verdict"] = "correct"
        elif other >= MATCH_SIMILARITY and other >= old:
            row["verdict"] = "wrong-subject"
        elif old >= MATCH_SIMILARITY:
            row["verdict"] = "stale"
        else:
            row["verdict"] = "unsupported"
        judged.append(row)
    user_matrix = kinds["user"][1]
    found = (
        {int(j) for j in np.flatnonzero((user_matrix >= MATCH_SIMILARITY).any(axis=0))}
        if user_matrix is not None
        else set()
    )
    return judged, found


class _Clock:
    """The wall clock, or a labelled chat time moving on with it from when it was set."""

    def __init__(self) -> None:
        self.offset = timedelta(0)

    def set(self, at: datetime) -> None:
        self.offset = at - datetime.now(UTC)

    def __call__(self) -> datetime:
        return datetime.now(UTC) + self.offset


def sessions_of(conv: dict[str, Any]) -> list[tuple[int | None, list[dict[str, Any]]]]:
    """The exchanges in runs of one ``session`` number each, in order; one run keyed
    None when no exchange names a session."""
    exchanges = conv["exchanges"]
    if not any(isinstance(e, dict) and "session" in e for e in exchanges):
        return [(None, list(exchanges))]
    runs: list[tuple[int | None, list[dict[str, Any]]]] = []
    for exchange in exchanges:
        key = exchange.get("session")
        if not runs or (key is not None and int(key) != runs[-1][0]):
            runs.append((None if key is None else int(key), []))
        runs[-1][1].append(exchange)
    return runs


def _score(
    conv: dict[str, Any], embedder: Embedder, memories: Sequence[Any], session: int | None
) -> tuple[list[dict[str, Any]], set[int], list[Any]]:
    """Judge ``memories`` (Memory objects) against the facts in force after ``session``."""
    live, replaced = facts_at(conv, session)
    others = [_fact_text(f) for f in conv.get("other_facts", [])]
    judged, found = judge_memories(
        embedder, [m.content for m in memories], [_fact_text(f) for f in live], others,
        [_fact_text(f) for f in replaced],
    )  # fmt: skip
    by_text = {_fact_text(f): f for f in live}
    for row, memory in zip(judged, memories, strict=True):
        row["scope"] = "global" if memory.workspace is None else "workspace"
        fact = by_text.get(row["user_fact"]) if row["verdict"] == "correct" else None
        wanted = fact.get("scope") if isinstance(fact, dict) else None
        row["wrong_scope"] = bool(wanted and wanted != row["scope"])
    return judged, found, live


def run_conversation(
    conv: dict[str, Any],
    settings: MemorydSettings,
    provider: LLMProvider,
    embedder: Embedder,
    folder: Path,
) -> ConversationResult:
    """One conversation through the real pipeline on a fresh database, scored (session by
    session when it has sessions; see the module doc).

    LLMUnavailable when the provider refused its settings (API key, model, base URL) or
    its server could not be reached.
    """
    from memoryd.app.service import Memoryd

    conv_id = str(conv.get("id", "conversation"))
    row = ConversationResult(id=conv_id, facts=0, memories=[])
    sessions = sessions_of(conv)
    clock = _Clock()
    first = next((t for e in conv["exchanges"] if (t := chat_time(e))), None)
    if first is not None:
        clock.set(first - timedelta(minutes=1))
    made: list[Any] = []
    db = folder / f"{abs(hash(conv_id))}-{time.monotonic_ns()}.db"
    with Memoryd(f"sqlite:///{db}", settings=settings, embedder=embedder, clock=clock) as md:
        user = md.create_user("eval")
        slug = str(conv.get("workspace") or "general")
        md.create_workspace(slug)
        for session, exchanges in sessions:
            for exchange in exchanges:
                at = chat_time(exchange)
                if at is not None:
                    clock.set(at)
                md.record_chat(user.id, slug, str(exchange.get("prompt", "")),
                               str(exchange.get("response", "")))  # fmt: skip
            started = time.perf_counter()
            result = md.extract(user.id, slug, force=True, provider=provider)
            if result.stopped_by:  # every other conversation would fail the same way
                raise LLMUnavailable(result.error or result.stopped_by)
            row.seconds += time.perf_counter() - started
            row.batches += result.batches
            row.calls += result.usage.calls
            row.prompt_tokens += result.usage.prompt_tokens
            row.completion_tokens += result.usage.completion_tokens
            row.chats += len(result.chats_processed)
            row.error = row.error or result.error
            row.rejected += list(result.rejected)
            row.not_stored += list(getattr(result, "not_stored", []))
            made += [*result.created, *result.updated]
            if session is not None:
                judged, found, live = _score(conv, embedder, md.list_memories(user.id), session)
                verdicts = [j["verdict"] for j in judged]
                row.checkpoints.append({
                    "session": session, "memories": len(judged), "facts": len(live),
                    "correct": verdicts.count("correct"), "stale": verdicts.count("stale"),
                    "facts_found": len(found),
                })  # fmt: skip
        stored = md.list_memories(user.id)
    # with sessions: the memories the user has at the end; else what this run wrote
    final = stored if row.checkpoints else made
    judged, found, live = _score(conv, embedder, final, None)
    live_texts = [_fact_text(f) for f in live]
    others = [_fact_text(f) for f in conv.get("other_facts", [])]
    said = [
        s
        for e in conv["exchanges"]
        for s in _SENTENCE_END.split(str(e.get("prompt", "")))
        if s.strip()
    ]
    stated = judge_memories(embedder, said, live_texts, others)[1]
    everything = " ".join(m.content for m in stored)
    verdicts = [j["verdict"] for j in judged]
    row.facts = len(live)
    row.memories = [m.content for m in final]
    row.judged = judged
    row.correct = verdicts.count("correct")
    row.wrong_subject = verdicts.count("wrong-subject")
    row.stale = verdicts.count("stale")
    row.wrong_scope = sum(j["wrong_scope"] for j in judged)
    row.facts_found = len(found)
    row.facts_stated = len(stated)
    row.stated_found = len(found & stated)
    row.leaked_secrets = sum(str(s) in everything for s in conv.get("secrets", []))
    row.global_memories = sum(m.workspace is None for m in final)
    return row


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


def _share(part: float, whole: float) -> float:
    return round(part / whole, 3) if whole else 0.0


def summarize(results: Sequence[ConversationResult]) -> dict[str, Any]:
    """The figures ``memoryd eval extraction`` and the benchmarks print."""
    memories = sum(len(r.memories) for r in results)
    facts = sum(r.facts for r in results)
    correct = sum(r.correct for r in results)
    wrong = sum(r.wrong_subject for r in results)
    stale = sum(r.stale for r in results)
    batches = sum(r.batches for r in results) or 1
    chats = sum(r.chats for r in results) or 1
    conversations = len(results) or 1
    precision = correct / memories if memories else 0.0
    recall = sum(r.facts_found for r in results) / facts if facts else 0.0
    stated = sum(r.facts_stated for r in results)
    points = [c for r in results for c in r.checkpoints]
    summary = {
        "conversations": len(results),
        "facts": facts,
        "memories": memories,
        "precision": round(precision, 3),
        "recall": round(recall, 3),
        "f1": round(2 * precision * recall / (precision + recall), 3) if correct else 0.0,
        "facts_stated_in_user_turns": stated,
        "recall_of_stated_facts": _share(sum(r.stated_found for r in results), stated),
        "wrong_subject_share": _share(wrong, memories),
        "unsupported_share": _share(memories - correct - wrong - stale, memories),
        "stale_share": _share(stale, memories),
        "wrong_scope_share_of_correct": _share(sum(r.wrong_scope for r in results), correct),
        "global_share": _share(sum(r.global_memories for r in results), memories),
        "not_stored_for_full_scope": sum(len(r.not_stored) for r in results),
        "conversations_without_memories": sum(1 for r in results if not r.memories),
        "secrets_leaked": sum(r.leaked_secrets for r in results),
        "seconds_per_batch": round(sum(r.seconds for r in results) / batches, 2),
        "llm_calls_per_batch": round(sum(r.calls for r in results) / batches, 2),
        "llm_calls_per_chat": round(sum(r.calls for r in results) / chats, 3),
        "tokens_per_chat": round(
            sum(r.prompt_tokens + r.completion_tokens for r in results) / chats
        ),
        "seconds_per_conversation": round(sum(r.seconds for r in results) / conversations, 2),
        "llm_calls_per_conversation": round(sum(r.calls for r in results) / conversations, 2),
        "errors": sum(1 for r in results if r.error),
    }  # fmt: skip
    if points:  # pooled over every session's checkpoint
        summary["precision_over_sessions"] = _share(
            sum(c["correct"] for c in points), sum(c["memories"] for c in points)
        )
        summary["recall_over_sessions"] = _share(
            sum(c["facts_found"] for c in points), sum(c["facts"] for c in points)
        )
    return summary


def result_rows(results: Sequence[ConversationResult]) -> list[dict[str, Any]]:
    return [asdict(r) for r in results]
