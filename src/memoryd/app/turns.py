"""The chat-turn part of the library facade: which memories one turn gets (R3, R4).

Kept apart because it is the hot path, shaped for speed (docs/reranking.md, "Speed"): one
read, a single statement that also reads the cache version (``memoryd.storage.catalog``),
the user, workspace and settings from the per-process cache when it has them; the
workspace's memories ranked by the reranker past ``WORKSPACE_TOP_K`` (any failure falls
back to the most recent, R4); marking the chosen memories used left to the background
writer, off the reply's path.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any

from memoryd.app.i18n import check_language, section_heading, section_titles, turn_language
from memoryd.app.user_settings import change_language
from memoryd.domain import runtime_settings
from memoryd.domain.errors import InvalidInput, NotFound
from memoryd.domain.injection import (
    WORKSPACE_TOP_K,
    Turn,
    build_query,
    check_history,
    most_recent,
    top_k,
)
from memoryd.domain.language import FOLLOW_SERVER
from memoryd.domain.models import Actor, Memory, Scope, ScoredMemory, Source
from memoryd.domain.rules import is_row_id
from memoryd.models.blas import one_blas_thread

if TYPE_CHECKING:
    from memoryd.app.backends import Backends
    from memoryd.storage.repository import Repository

log = logging.getLogger("memoryd")

LAST_USED_RESOLUTION_S = 60


class TurnService:
    """Chat turns (see the module doc)."""

    def __init__(self, backends: Backends) -> None:
        self.backends = backends

    def context(
        self,
        user_id: int,
        workspace: str | None = None,
        message: str = "",
        history: Sequence[Mapping[str, Any]] = (),
        *,
        record: bool = True,
        confirm: Callable[[], None] | None = None,
    ) -> Turn:
        """Choose the memories for one chat turn (R3, R4) and mark them used.

        ``record=False`` makes the turn incognito: the same memories are chosen, but
        their last-used times are left alone and ``record_chat`` refuses the turn, so
        nothing of the conversation is kept or learned from. ``confirm`` runs right
        after the turn's statement has read the cache version (``memoryd.storage.catalog``)
        and before anything is marked: the server checks there that an API key taken
        from its cache is still valid; an exception it raises ends the turn."""
        quiet = self.backends.quiet
        quiet.enter()  # pre-embedding waits for no turn to be in progress
        try:
            if not isinstance(message, str):
                raise InvalidInput("message must be text")
            query = build_query(message, check_history(history))
            b = self.backends
            with b.db.read() as repo:
                for _ in range(2):  # a second time, uncached, when something changed
                    own, workspace_id, enabled = self._turn_scope(repo, user_id, workspace)
                    version, pool = repo.turn_pool(user_id, workspace_id)
                    if b.catalog.sync(version):
                        break
            if confirm is not None:
                confirm()
            language = turn_language(own or b.settings.language, query.text)
            heading = section_heading(language)
            turn_of = partial(
                Turn, query=query, record=record, heading=heading, titles=section_titles
            )
            if not enabled:
                return turn_of(enabled=False)
            now = b.clock()
            pool = [m for m in pool if not m.is_expired(now)]  # expired: never injected
            globals_ = [ScoredMemory(m, None) for m in pool if m.scope is Scope.GLOBAL]
            candidates = [m for m in pool if m.scope is Scope.WORKSPACE]
            chosen, reason = self._rank(query, candidates)
            turn = turn_of(
                global_memories=tuple(globals_),
                workspace_memories=tuple(chosen),
                reranker=b.reranker.name if len(candidates) > WORKSPACE_TOP_K else None,
                fallback_reason=reason,
                candidates=len(candidates),
            )
            if not record:
                return turn
            stale = [m.id for m in turn.memories if _needs_touch(m.last_used_at, now)]
            if stale:
                b.writer.touch(stale, now)
            return turn
        finally:
            quiet.leave()

    def mark_used(self, marks: dict[str, datetime]) -> None:
        """Set ``last_used_at`` of memories the background writer queued, one UPDATE per
        distinct time."""
        by_time: dict[datetime, list[str]] = {}
        for memory_id, at in marks.items():
            by_time.setdefault(at, []).append(memory_id)
        with self.backends.db.write() as repo:
            for at, ids in by_time.items():
                repo.touch_memories(ids, at)

    def _turn_scope(
        self, repo: Repository, user_id: int, workspace: str | None
    ) -> tuple[str | None, int | None, bool]:
        """The user's own language, the workspace id and whether memory is on, from the
        cache when it has them."""
        catalog, store = self.backends.catalog, self.backends.store
        own = catalog.get("users", user_id) if type(user_id) is int else None
        if own is None:
            own = self._user_language(repo, user_id) or ""
            catalog.put("users", user_id, own, catalog.version)
        workspace_id = None
        if workspace:
            if isinstance(workspace, str):
                workspace_id = catalog.get("workspaces", workspace)
            if workspace_id is None:
                workspace_id = store.require_workspace(repo, workspace)
                catalog.put("workspaces", workspace, workspace_id, catalog.version)
        values = catalog.get("settings", None)
        if values is None:
            values = repo.get_settings()
            catalog.put("settings", None, values, catalog.version)
        spec = runtime_settings.MEMORY_ENABLED
        return own or None, workspace_id, bool(values.get(spec.key, spec.default))

    # the user's own language (memoryd.app.i18n) ---------------------------------------------
    def _user_language(self, repo: Repository, user_id: int) -> str | None:
        exists, own = repo.user_language(user_id) if is_row_id(user_id) else (False, None)
        if not exists:
            raise NotFound(f"no user with id {user_id!r}")
        return own

    def language_preference(self, user_id: int) -> str | None:
        """The user's own language (a code or ``auto``), or None when they follow the
        server's ``MEMORYD_LANGUAGE``."""
        with self.backends.db.read() as repo:
            return self._user_language(repo, user_id)

    def language(self, user_id: int) -> str:
        """The language choice in force for the user: their own, else the server's."""
        return self.language_preference(user_id) or self.backends.settings.language

    def set_language_preference(
        self, user_id: int, language: str | None, *, actor: Actor | None = None
    ) -> None:
        """Set the user's own language (``en``, ``fr``, ... or ``auto``: the language of
        each turn's text), or None (or ``default``) to follow ``MEMORYD_LANGUAGE`` again.
        A real change is one ``change_setting`` audit entry, by ``actor`` (default: the
        user)."""
        chosen = None if language is None else check_language(language)
        actor = actor or Actor(Source.USER, user_id)
        b = self.backends
        with b.db.write() as repo:
            b.store.require_user(repo, user_id, lock=True)
            own = None if chosen == FOLLOW_SERVER else chosen
            change_language(repo, user_id, own, actor, b.clock())

    def _rank(self, query: Any, candidates: list[Memory]) -> tuple[list[ScoredMemory], str | None]:
        if len(candidates) <= WORKSPACE_TOP_K:
            return [ScoredMemory(m, None) for m in most_recent(candidates, len(candidates))], None
        one_blas_thread()  # small products: another core's BLAS thread only costs time
        try:
            scores = self.backends.reranker.score(query, candidates)
            return top_k(candidates, scores, WORKSPACE_TOP_K), None
        except Exception as exc:  # any reranker failure falls back to recency (R4)
            reason = f"{type(exc).__name__}: {exc}"
            log.warning(
                "reranker %s failed, using the 5 newest memories: %s",
                self.backends.reranker.name,
                reason,
            )
            return [ScoredMemory(m, None) for m in most_recent(candidates)], reason


def _needs_touch(last_used: datetime | None, now: datetime) -> bool:
    """``last_used_at`` is kept to the minute, so a busy chat does not write every turn."""
    return last_used is None or (now - last_used).total_seconds() >= LAST_USED_RESOLUTION_S
