"""Observer -> Reflector -> Apply for one (user, workspace) pair: the one code path.

``process_pair`` takes the pair's unprocessed chats oldest first in bounded batches and,
for each: asks the Observer for candidate facts, the Reflector what to do with them
given the stored memories and the free slots, lets code decide what is allowed
(``memoryd.extraction.decide``), then writes the changes and flags the chats
``memory_processed`` in one transaction (R5, R9, R10). Any failure before that commit
leaves the chats unprocessed and records the failure for backoff and parking; a batch
one of whose chats the user deleted meanwhile is dropped and the rest read again.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from memoryd.config import MemorydSettings
from memoryd.domain import runtime_settings
from memoryd.domain.errors import MemorydError
from memoryd.domain.models import Actor, Chat, Memory, Scope, Source, Suggestion, Vector
from memoryd.extraction import prompts
from memoryd.extraction.decide import CheckedFact, Names, Plan, plan_changes, relate, verify_facts
from memoryd.extraction.deps import ExtractionDeps, current_settings
from memoryd.extraction.review import needs_review, suggest
from memoryd.extraction.rewrite import write_facts
from memoryd.extraction.runs import record_failure
from memoryd.extraction.schema import (
    MAX_SENTENCES,
    check_selection,
    check_verdicts,
    observer_schema,
    read_selection,
    read_verdicts,
    reflector_schema,
)
from memoryd.extraction.scope import scope_for
from memoryd.extraction.secrets import secret_reason, secret_values
from memoryd.extraction.sentences import (
    Sentence,
    addressed_names,
    renumber,
    self_names,
    user_sentences,
)
from memoryd.extraction.timebound import expiry_for
from memoryd.models.embedding.base import comparison_embedder, embed_memories
from memoryd.models.llm.base import LLMProvider, LLMUnavailable
from memoryd.models.llm.json_output import Usage, complete_json
from memoryd.storage.chat_erasure import lock_batch
from memoryd.storage.extraction_rows import (
    clear_failures,
    get_pair_state,
    mark_processed,
    pending_chats,
)
from memoryd.storage.repository import Repository
from memoryd.storage.write_rules import KEEP

log = logging.getLogger("memoryd.extraction")

BATCH_CHARS = 6000  # user prompt characters per batch (after at least one chat)
# room for an Observer answer that lists every sentence in both lists (about four tokens
# a number with its line break and comma): 160 tokens had cut off such an answer of 24
OBSERVER_TOKENS_PER_SENTENCE = 8
OBSERVER_BASE_TOKENS = 40
REFLECTOR_MAX_TOKENS = 200
GONE = "user or workspace deleted"  # a pair's skip reason when either went mid-run


@dataclass(frozen=True)
class ExtractionConfig:
    batch_chats: int = 16
    min_messages: int = 5
    idle_threshold: timedelta = timedelta(minutes=20)
    max_attempts: int = 5
    backoff_seconds: float = 300.0

    @property
    def min_chats(self) -> int:
        """Each chat row is one exchange: a prompt and a response, i.e. two messages."""
        return math.ceil(self.min_messages / 2)

    @classmethod
    def from_settings(cls, settings: MemorydSettings) -> ExtractionConfig:
        return cls(
            batch_chats=settings.extraction_batch_chats,
            min_messages=settings.extraction_min_messages,
            idle_threshold=timedelta(milliseconds=settings.idle_threshold_ms),
            max_attempts=settings.extraction_max_attempts,
            backoff_seconds=settings.extraction_backoff_seconds,
        )


@dataclass
class PairResult:
    """What one pair's extraction did."""

    user_id: int
    workspace: str
    status: str = "idle"  # processed | nothing_to_do | skipped | failed | parked
    reason: str | None = None
    created: list[Memory] = field(default_factory=list)
    updated: list[Memory] = field(default_factory=list)
    suggested: list[Suggestion] = field(default_factory=list)  # waiting for review
    chats_processed: list[int] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    not_stored: list[str] = field(default_factory=list)
    planned: list[str] = field(default_factory=list)
    error: str | None = None
    # why the run must stop here (an LLMUnavailable's reason): no pair is to blame
    stopped_by: str | None = None
    batches: int = 0
    usage: Usage = field(default_factory=Usage)

    @property
    def ok(self) -> bool:
        return self.error is None

    def outcome(self) -> dict[str, Any]:
        """What the run's history keeps of this pair (memory ids, not whole memories)."""
        return {
            "user_id": self.user_id,
            "workspace": self.workspace,
            "status": self.status,
            "reason": self.reason,
            "error": self.error,
            "created": [m.id for m in self.created],
            "updated": [m.id for m in self.updated],
            "suggested": [s.id for s in self.suggested],
            "chats_processed": list(self.chats_processed),
            "dropped": list(self.rejected),
            "not_stored": list(self.not_stored),
            "planned": list(self.planned),
            "llm_calls": self.usage.calls,
            "llm_calls_failed": self.usage.failed,
            "prompt_tokens": self.usage.prompt_tokens,
            "completion_tokens": self.usage.completion_tokens,
        }

    def to_dict(self) -> dict[str, Any]:
        """The outcome with the created and updated memories in full (for API and CLI)."""
        return {
            **self.outcome(),
            "created": [m.to_dict() for m in self.created],
            "updated": [m.to_dict() for m in self.updated],
        }


class ConcurrentExtraction(MemorydError):
    """Another worker processed some of these chats first; this batch is dropped."""


class ChatsDeleted(MemorydError):
    """The user deleted some of this batch's chats while it was read; it is dropped."""


@dataclass
class _Batch:
    chats: list[Chat]
    remaining: int  # unprocessed chats of the pair, this batch included
    last_chat_at: datetime | None


def _load_batch(
    repo: Repository, user_id: int, workspace_id: int, limit: int, skip: set[int]
) -> _Batch:
    count, last_at = pending_chats(repo.conn, user_id, workspace_id)
    rows = repo.list_chats(user_id, workspace_id, processed=False, limit=limit + len(skip))
    batch: list[Chat] = []
    size = sentences = 0
    for chat in rows:
        if chat.id in skip:
            continue
        size += len(chat.prompt)
        sentences += len(user_sentences([chat], MAX_SENTENCES))
        if batch and (len(batch) >= limit or size > BATCH_CHARS or sentences > MAX_SENTENCES):
            break
        batch.append(chat)
    return _Batch(batch, count - len(skip), last_at)


@dataclass
class _Pair:
    """One pair's extraction under way: what each of its batches needs."""

    md: ExtractionDeps
    provider: LLMProvider
    result: PairResult
    workspace_id: int
    run_id: str
    dry_run: bool

    @property
    def user_id(self) -> int:
        return self.result.user_id

    @property
    def workspace(self) -> str:
        return self.result.workspace


def process_pair(
    md: ExtractionDeps,
    provider: LLMProvider,
    user_id: int,
    workspace: str,
    *,
    force: bool = False,
    run_id: str,
    clock: Callable[[], datetime] | None = None,
    dry_run: bool = False,
    config: ExtractionConfig | None = None,
    on_batch: Callable[[], None] | None = None,
) -> PairResult:
    """Extract memories from every unprocessed batch of one pair (see the module doc).

    Without ``force`` the pair is skipped while its last chat is newer than the idle
    threshold or it has fewer than the minimum of unprocessed messages (``force`` ignores
    both, and parking). ``dry_run`` calls
    the LLM but writes nothing and lists the planned changes. ``on_batch`` is called
    after each batch that went through (the run's heartbeat).
    """
    cfg = config or ExtractionConfig.from_settings(md.settings)
    now = clock or md.clock
    result = PairResult(user_id=user_id, workspace=workspace)
    with md.db.read() as repo:
        workspace_id = repo.workspace_id(workspace)
        if repo.get_user(user_id) is None or workspace_id is None:
            return _skip(result, GONE)
        enabled = repo.get_settings().get(
            runtime_settings.MEMORY_ENABLED.key, runtime_settings.MEMORY_ENABLED.default
        )
    if not enabled:
        return _skip(result, "memory disabled")
    pair = _Pair(md, provider, result, workspace_id, run_id, dry_run)
    seen: set[int] = set()
    while True:
        with md.db.read() as repo:
            batch = _load_batch(repo, user_id, workspace_id, cfg.batch_chats, seen)
        if not batch.chats:
            break
        if not force:
            if batch.remaining < cfg.min_chats:
                if result.batches == 0:
                    return _skip(result, "below minimum")
                break
            idle_since = now() - cfg.idle_threshold
            last = batch.last_chat_at
            if result.batches == 0 and last is not None and last > idle_since:
                return _skip(result, "idle threshold")
        try:
            _process_batch(pair, batch.chats)
        except Exception as exc:
            if _gone(pair):  # deleted during its batch
                return _skip(result, GONE)
            if isinstance(exc, ChatsDeleted):
                continue  # nothing of it was written: read what is left of the pair again
            if isinstance(exc, LLMUnavailable):  # the server's or settings' fault, not the
                result.error, result.status = str(exc), "failed"  # pair's: no attempt counted
                result.stopped_by = exc.reason
                break
            _fail(pair, batch.chats, exc, now(), cfg)
            break
        if on_batch is not None:
            on_batch()
        result.batches += 1
        if dry_run:
            seen.update(c.id for c in batch.chats)
    if result.error is None:
        result.status = "processed" if result.batches else "nothing_to_do"
    return result


def _gone(pair: _Pair) -> bool:
    """Whether the pair's user or workspace has been deleted (or the slug now names
    another workspace)."""
    with pair.md.db.read() as repo:
        return (
            repo.get_user(pair.user_id) is None
            or repo.workspace_id(pair.workspace) != pair.workspace_id
        )


def _skip(result: PairResult, reason: str) -> PairResult:
    result.status = "skipped"
    result.reason = reason
    return result


def _fail(
    pair: _Pair, batch: list[Chat], exc: Exception, now: datetime, cfg: ExtractionConfig
) -> None:
    result = pair.result
    if isinstance(exc, MemorydError):
        message = str(exc)
    else:
        message = f"{type(exc).__name__}: {exc}"
        log.exception("extraction of user %s in %s failed", pair.user_id, pair.workspace)
    result.error, result.status = message, "failed"
    if pair.dry_run or isinstance(exc, ConcurrentExtraction):
        return
    with pair.md.db.write() as repo:
        state = record_failure(
            repo,
            pair.user_id,
            pair.workspace_id,
            error=message,
            chat_ids=[c.id for c in batch],
            run_id=pair.run_id,
            now=now,
            max_attempts=cfg.max_attempts,
            backoff_seconds=cfg.backoff_seconds,
        )
    if state.parked:
        result.status = "parked"


def _process_batch(pair: _Pair, batch: list[Chat]) -> None:
    sentences = user_sentences(batch, MAX_SENTENCES)
    plan = _plan_batch(pair, batch, sentences) if sentences else Plan()
    result = pair.result
    result.rejected += plan.rejected
    result.not_stored += plan.not_stored
    if pair.dry_run:
        result.planned += [c.describe() for c in plan.changes]
        return
    _apply(pair, batch, plan)


def _plan_batch(pair: _Pair, batch: list[Chat], sentences: list[Sentence]) -> Plan:
    """Observer on the user's sentences, checks in code, Reflector on related pairs."""
    md, provider, result = pair.md, pair.provider, pair.result
    with md.db.read() as repo:
        stored = repo.turn_memories(pair.user_id, pair.workspace_id)
    now = md.clock()
    stored = _with_embeddings(md, [m for m in stored if not m.is_expired(now)])
    prompts_ = [c.prompt for c in batch]
    patterns = current_settings(md)[runtime_settings.SECRET_PATTERNS.key]  # admin's extras
    known_secrets = secret_values(
        (t for c in batch for t in (c.prompt, c.response)), extra_patterns=patterns
    )
    names = Names(frozenset(addressed_names(prompts_)), frozenset(self_names(prompts_)))
    # A sentence holding a secret never reaches the model (which may be a remote one).
    secret_free = []
    for sentence in sentences:
        reason = secret_reason(sentence.text, known_secrets, extra_patterns=patterns)
        if reason:
            result.rejected.append(f"a sentence was left out: {reason}")
        else:
            secret_free.append(sentence)
    sentences = renumber(secret_free)
    if not sentences:
        return Plan()
    usage = Usage()
    try:
        observed = complete_json(
            provider,
            prompts.observer_messages(pair.workspace, sentences),
            schema=observer_schema(len(sentences)),
            schema_name="selection",
            check=check_selection(len(sentences)),
            max_tokens=OBSERVER_BASE_TOKENS + OBSERVER_TOKENS_PER_SENTENCE * len(sentences),
            usage=usage,
        )
        chosen, problems = read_selection(observed.value, len(sentences))
        result.rejected += problems
        said_at = {c.id: c.created_at for c in batch}
        facts, shared = write_facts(provider, sentences, chosen, said_at, usage)
        result.rejected += shared
        # after the writing, which reads the model's own answer ("We ..." as a person fact)
        facts = [
            replace(f, scope=scope_for(sentences[f.sentence - 1].text, f.scope)) for f in facts
        ]
        verified, dropped = verify_facts(facts, sentences, known_secrets, names, patterns)
        result.rejected += dropped
        compare = comparison_embedder(md.embedder)  # MiniLM, where the thresholds were measured
        vectors: list[Vector] = list(compare.embed([t for t, _, _ in verified])) if verified else []
        checked = [
            CheckedFact(text, fact.scope, sentence, vector)
            for (text, fact, sentence), vector in zip(verified, vectors, strict=True)
        ]
        relations, repeats = relate(checked, stored)
        result.rejected += repeats
        related = [r for r in relations if r.stored is not None]
        verdicts: dict[int, str] = {}
        if related:
            reflected = complete_json(
                provider,
                prompts.reflector_messages(
                    [(r.stored.content, r.fact.text) for r in related if r.stored]
                ),
                schema=reflector_schema(len(related)),
                schema_name="verdicts",
                check=check_verdicts(len(related)),
                max_tokens=REFLECTOR_MAX_TOKENS,
                usage=usage,
            )
            verdicts, problems = read_verdicts(reflected.value, len(related))
            result.rejected += problems
    finally:
        result.usage.merge(usage)
    free = {
        Scope.GLOBAL: md.limits.global_per_user - sum(m.scope is Scope.GLOBAL for m in stored),
        Scope.WORKSPACE: md.limits.workspace_per_pair
        - sum(m.scope is Scope.WORKSPACE for m in stored),
    }
    return plan_changes(relations, verdicts, free)


def _with_embeddings(md: ExtractionDeps, stored: list[Memory]) -> list[Memory]:
    """Stored memories with the vectors of their texts as written, as new facts are
    embedded: the thresholds of ``decide`` were measured on those, not on the stored
    first-person vectors the reranker reads (``memoryd.domain.perspective``)."""
    if not stored:
        return []
    matrix = comparison_embedder(md.embedder).embed([m.content for m in stored])
    return [replace(m, embedding=row) for m, row in zip(stored, matrix, strict=True)]


def _apply(pair: _Pair, batch: list[Chat], plan: Plan) -> None:
    """Write the plan and flag the batch processed in one transaction; items fail alone.

    Under ``memory_review`` (the user's own mode, else the instance setting) the changes
    it names wait as suggestions instead (see ``memoryd.extraction.review``); a fact
    about one future day gets an expiry."""
    md, user_id, workspace_id, result = pair.md, pair.user_id, pair.workspace_id, pair.result
    run_id = pair.run_id
    actor = Actor(Source.EXTRACTION, user_id, run_id)
    chat_ids = [c.id for c in batch]
    said_at = {c.id: c.created_at for c in batch}
    vectors = embed_memories(md.embedder, [c.text for c in plan.changes])
    created: list[Memory] = []
    updated: list[Memory] = []
    suggested: list[Suggestion] = []
    rejected: list[str] = []
    notes: list[str] = []
    with md.db.write() as repo:
        # the user's row, then the batch's: the order deleting chats takes them in
        repo.lock_user(user_id)
        gone = len(chat_ids) - len(lock_batch(repo.conn, user_id, workspace_id, chat_ids))
        if gone:
            log.info("user %s deleted %d chat(s) of a batch being read", user_id, gone)
            raise ChatsDeleted(f"{gone} chat(s) of this batch were deleted meanwhile")
        review = runtime_settings.review_mode(repo.review_preference(user_id), repo.get_settings())
        for change, vector in zip(plan.changes, vectors, strict=True):
            # the chat a fact was stated in, or the whole batch when that is unknown
            sources = [change.chat_id] if change.chat_id is not None else chat_ids
            when = said_at.get(change.chat_id or -1, batch[-1].created_at)
            until = expiry_for(change.text, when)
            savepoint = repo.conn.begin_nested()
            try:
                if needs_review(review, change):
                    item = suggest(
                        md, repo, user_id, result.workspace, change, until, sources, run_id
                    )
                    suggested.append(item)
                elif change.target is None:
                    slug = result.workspace if change.scope is Scope.WORKSPACE else None
                    if change.note:
                        notes.append(f"{change.note}: {change.text}")
                    created.append(
                        md.store.insert_memory(
                            repo,
                            user_id,
                            change.text,
                            change.scope,
                            slug,
                            actor,
                            vector,
                            sources,
                            expires_at=until,
                        )
                    )
                else:
                    updated.append(
                        md.store.revise_memory(
                            repo,
                            user_id,
                            change.target.id,
                            change.text,
                            actor,
                            vector,
                            sources,
                            expires_at=until if until is not None else KEEP,
                        )
                    )
                savepoint.commit()
            except MemorydError as exc:
                savepoint.rollback()
                rejected.append(f"{change.describe()}: {exc}")
        if mark_processed(repo.conn, user_id, workspace_id, chat_ids) != len(chat_ids):
            raise ConcurrentExtraction(
                "some chats of this batch were processed by another worker; batch dropped"
            )
        if get_pair_state(repo.conn, user_id, workspace_id) is not None:
            clear_failures(repo.conn, user_id, workspace_id)
    result.created += created
    result.updated += updated
    result.suggested += suggested
    result.rejected += rejected
    result.not_stored += notes  # filed in another scope than the fact asked for
    result.chats_processed += chat_ids
