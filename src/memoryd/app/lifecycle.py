"""The memory lifecycle part of the library facade: expiry, upkeep, review and detail.

``upkeep`` (the scheduler's tick, the queue worker's periodic task) purges memories
expired past ``expired_grace_days`` and remakes a batch of outdated vectors. Accepting a
suggestion of the review queue is a write like any other (limits, duplicates, audit
log). A user's own review mode wins over the instance's: it only concerns their memories.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from memoryd.app.user_settings import change_review
from memoryd.domain import runtime_settings
from memoryd.domain.audit import AuditQuery
from memoryd.domain.errors import InvalidInput, InvalidScope, NotFound
from memoryd.domain.models import (
    Actor,
    AuditAction,
    Memory,
    Scope,
    Source,
    Suggestion,
    SuggestionKind,
    SuggestionStatus,
)
from memoryd.domain.perspective import first_person
from memoryd.domain.results import MemoryDetail as MemoryDetail  # re-exported: it was defined here
from memoryd.domain.rules import normalize_content, parse_expiry
from memoryd.models.embedding.base import embed_memories
from memoryd.storage import audit_rows, vectors
from memoryd.storage import lifecycle as queries
from memoryd.storage.write_rules import KEEP, Keep

if TYPE_CHECKING:
    from memoryd.extraction.deps import ExtractionDeps
    from memoryd.storage.repository import Repository

PURGE_ACTOR = Actor(Source.SYSTEM)
log = logging.getLogger("memoryd")


REFRESH_BATCH = 500  # vectors made again per read and write (and per scheduler tick)


class LifecycleService:
    """Expiry, upkeep, the review queue and a memory's detail (see the module doc)."""

    def __init__(self, deps: ExtractionDeps) -> None:
        self.deps = deps
        self.store = deps.store

    # expiry -------------------------------------------------------------------------
    def purge_expired(self, now: datetime | None = None) -> int:
        """Delete memories expired longer than ``expired_grace_days``; how many went.

        Each deletion is in the audit log (actor ``system``), like any other delete."""
        moment = now or self.deps.clock()
        deleted = 0
        while True:
            with self.deps.db.write() as repo:
                spec = runtime_settings.EXPIRED_GRACE_DAYS
                days = int(repo.get_settings().get(spec.key, spec.default))
                doomed = repo.expired_before(moment - timedelta(days=days))
                for memory in doomed:
                    repo.delete_memory(memory.id)
                    self.store.audit(repo, AuditAction.DELETE, PURGE_ACTOR, memory, None, moment)
            deleted += len(doomed)
            if len(doomed) < 500:
                return deleted

    # upkeep -------------------------------------------------------------------------
    def upkeep(self) -> None:
        """What the extraction scheduler's ticks and the PostgreSQL sweep do before
        extraction: delete memories expired past their grace period, and make a batch of
        vectors of an older form of their text again. A failure is logged and left to the
        next call; it never stops the other part, nor extraction."""
        for name, step in (
            ("purging expired memories", self.purge_expired),
            ("making memory vectors again", self.refresh_vectors),
        ):
            try:
                done = step()
            except Exception:
                log.exception("%s failed", name)
            else:
                if done:
                    log.info("%s: %d", name, done)

    def refresh_vectors(self, limit: int | None = REFRESH_BATCH) -> int:
        """Make again the vectors made from an older form of their memory's text
        (``memoryd.domain.perspective``; before migration 0019, the text as written) or by
        another embedder than this process's, oldest first, looking at ``limit`` memories
        at most (None: all); how many vectors were made. A vector of the text as written
        whose text reads the same in the current form is only marked current."""
        made = seen = 0
        name = self.deps.embedder.name
        while limit is None or seen < limit:
            batch = REFRESH_BATCH if limit is None else min(REFRESH_BATCH, limit - seen)
            with self.deps.db.read() as repo:
                old = vectors.old_vector_memories(repo.conn, batch, name)
            changed = [
                m
                for m in old
                if m.vector_form or m.embedder != name or first_person(m.content) != m.content
            ]
            fresh = embed_memories(self.deps.embedder, [m.content for m in changed])
            by_id = {m.id: vector for m, vector in zip(changed, fresh, strict=True)}
            with self.deps.db.write() as repo:
                for memory in old:
                    vector = by_id.get(memory.id)
                    if vectors.set_vector(repo.conn, memory, vector, name):
                        made += vector is not None
            seen += len(old)
            if len(old) < batch:
                break
        return made

    # detail -------------------------------------------------------------------------
    def memory_detail(self, user_id: int, memory_id: str) -> MemoryDetail:
        with self.deps.db.read() as repo:
            memory = self.store.owned(repo, user_id, memory_id)
            history = audit_rows.list_entries(
                repo.conn, AuditQuery(user_id, memory_id=memory_id, limit=None), newest_first=False
            )
            chats = queries.chats_by_id(repo.conn, user_id, memory.source_chat_ids)
        created = next((e for e in history if e.action is AuditAction.CREATE), None)
        return MemoryDetail(
            memory=memory,
            expired=memory.is_expired(self.deps.clock()),
            created_by=created.actor if created else None,
            source_chats=tuple(chats),
            history=tuple(history),
            deleted_source_chat_ids=tuple(
                sorted(set(memory.source_chat_ids) - {c.id for c in chats})
            ),
        )

    # the user's own review mode -------------------------------------------------------
    def review_preference(self, user_id: int) -> str | None:
        """The user's own review mode, or None when they follow the instance setting."""
        with self.deps.db.read() as repo:
            self.store.require_user(repo, user_id)
            return repo.review_preference(user_id)

    def review_mode(self, user_id: int) -> str:
        """The review mode extraction uses for this user's memories."""
        with self.deps.db.read() as repo:
            self.store.require_user(repo, user_id)
            own = repo.review_preference(user_id)
            return runtime_settings.review_mode(own, repo.get_settings())

    def set_review_preference(
        self, user_id: int, mode: str | None, *, actor: Actor | None = None
    ) -> None:
        """Set the user's own review mode (off | updates | everything), or None to follow
        the instance setting again. Suggestions already waiting stay until decided. A
        real change is one ``change_setting`` audit entry, by ``actor`` (default: the
        user)."""
        chosen = None if mode is None else runtime_settings.parse_review(mode)
        actor = actor or Actor(Source.USER, user_id)
        with self.deps.db.write() as repo:
            self.store.require_user(repo, user_id, lock=True)
            change_review(repo, user_id, chosen, actor, self.deps.clock())

    # review queue -------------------------------------------------------------------
    def list_suggestions(
        self, user_id: int, status: SuggestionStatus | str | None = SuggestionStatus.PENDING
    ) -> list[Suggestion]:
        """A user's suggestions (pending ones by default), oldest first."""
        wanted = _status(status)
        with self.deps.db.read() as repo:
            self.store.require_user(repo, user_id)
            found = queries.list_suggestions(repo.conn, user_id, wanted)
            return queries.with_origins(repo.conn, user_id, found)

    def get_suggestion(self, user_id: int, suggestion_id: str) -> Suggestion:
        with self.deps.db.read() as repo:
            found = _owned(repo, user_id, suggestion_id)
            return queries.with_origins(repo.conn, user_id, [found])[0]

    def accept_suggestion(
        self,
        user_id: int,
        suggestion_id: str,
        *,
        content: str | None = None,
        expires_at: datetime | str | Keep | None = KEEP,
        scope: Scope | str | None = None,
        actor: Actor | None = None,
    ) -> Memory:
        """Apply a pending suggestion (optionally with the user's own text or expiry).

        A new memory goes into ``scope``: ``global``, ``workspace`` (the workspace its
        chats were in, ``origin``) or None (where extraction put it); it obeys the scope
        limit and duplicates like any add (ScopeFull, DuplicateMemory). An update revises
        its memory where that memory is, which must still exist."""
        actor = actor or Actor(Source.USER, user_id)
        current = self.get_suggestion(user_id, suggestion_id)
        where, slug = accept_target(current, scope)
        text = normalize_content(content if content is not None else current.content)
        until = (
            current.expires_at
            if expires_at is KEEP
            else parse_expiry(expires_at, self.deps.clock())
        )
        vector = embed_memories(self.deps.embedder, [text])[0]
        with self.deps.db.write() as repo:
            self.store.require_user(repo, user_id, lock=True)
            found = _pending(repo, user_id, suggestion_id)
            if found.kind is SuggestionKind.CREATE:
                memory = self.store.insert_memory(
                    repo,
                    user_id,
                    text,
                    where,
                    slug,
                    actor,
                    vector,
                    found.source_chat_ids,
                    expires_at=until,
                    source=Source.EXTRACTION,
                    run_id=found.run_id,
                )
            else:
                if found.target_id is None or repo.owner_of(found.target_id) != user_id:
                    raise NotFound(
                        "the memory this suggestion changes was deleted; reject the suggestion"
                        " or add the text as a new memory"
                    )
                memory = self.store.revise_memory(
                    repo,
                    user_id,
                    found.target_id,
                    text,
                    actor,
                    vector,
                    found.source_chat_ids,
                    expires_at=until if until is not None or expires_at is not KEEP else KEEP,
                )
            queries.decide_suggestion(
                repo.conn, found.id, SuggestionStatus.ACCEPTED, self.deps.clock(), memory.id
            )
            return memory

    def reject_suggestion(self, user_id: int, suggestion_id: str) -> Suggestion:
        """Turn a suggestion down; the same text is not suggested again in that scope."""
        with self.deps.db.write() as repo:
            self.store.require_user(repo, user_id, lock=True)
            found = _pending(repo, user_id, suggestion_id)
            queries.decide_suggestion(
                repo.conn, found.id, SuggestionStatus.REJECTED, self.deps.clock()
            )
            decided = queries.get_suggestion(repo.conn, found.id)
        assert decided is not None
        return decided


def _status(status: SuggestionStatus | str | None) -> SuggestionStatus | None:
    if status is None or isinstance(status, SuggestionStatus):
        return status
    if status == "all":
        return None
    try:
        return SuggestionStatus(status)
    except ValueError:
        known = ", ".join([*(s.value for s in SuggestionStatus), "all"])
        raise InvalidInput(f"unknown suggestion status {status!r}: use {known}") from None


def accept_target(suggestion: Suggestion, scope: Scope | str | None) -> tuple[Scope, str | None]:
    """Where accepting ``suggestion`` into ``scope`` puts its memory: (scope, workspace)."""
    if scope is None:
        return suggestion.scope, suggestion.workspace
    try:
        chosen = Scope(scope)
    except ValueError:
        raise InvalidScope(f"unknown scope {scope!r}: use global or workspace") from None
    if suggestion.kind is SuggestionKind.UPDATE:
        if chosen is not suggestion.scope:
            raise InvalidScope(
                "a change to a memory is accepted where that memory is; move it afterwards"
            )
        return suggestion.scope, suggestion.workspace
    if chosen is Scope.GLOBAL:
        return Scope.GLOBAL, None
    if suggestion.origin is None:
        raise InvalidScope(
            "the chats this suggestion came from are deleted, so its workspace is unknown;"
            " accept it into global"
        )
    return Scope.WORKSPACE, suggestion.origin


def _owned(repo: Repository, user_id: int, suggestion_id: str) -> Suggestion:
    found = queries.get_suggestion(repo.conn, suggestion_id)
    if found is None or found.user_id != user_id:
        raise NotFound(f"no suggestion {suggestion_id!r} for this user")
    return found


def _pending(repo: Repository, user_id: int, suggestion_id: str) -> Suggestion:
    found = _owned(repo, user_id, suggestion_id)
    if found.status is not SuggestionStatus.PENDING:
        raise InvalidInput(f"this suggestion was already {found.status.value}")
    return found
