"""``Memoryd``: the library API, one implementation of every operation.

It joins the domain rules to storage and the embedder: validate, embed outside the
transaction, then check limits and write inside one serialised transaction. The REST API,
the proxy and the CLI all call this class. Some concerns live in mixins it inherits: chat
turns (``memoryd.turns``), extraction, recorded chats, the memory lifecycle, the audit log
and memberships.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from memoryd.audit import AuditFacade
from memoryd.chat_log import ChatFacade
from memoryd.config import MemorydSettings
from memoryd.domain import runtime_settings
from memoryd.domain.errors import (
    AlreadyExists,
    DuplicateMemory,
    InvalidInput,
    InvalidScope,
    NotFound,
)
from memoryd.domain.models import (
    Actor,
    AuditAction,
    Memory,
    Role,
    Scope,
    Source,
    User,
    UserSummary,
    Workspace,
)
from memoryd.domain.rules import (
    DEFAULT_LIMITS,
    Limits,
    content_key,
    is_row_id,
    normalize_content,
    normalize_reason,
    parse_expiry,
    parse_scope,
    resolve_scope,
    scope_label,
    validate_display_name,
    validate_slug,
    validate_user_name,
)
from memoryd.embedding.base import Embedder, embed_memories
from memoryd.extraction.facade import ExtractionFacade
from memoryd.lifecycle import LifecycleFacade
from memoryd.memberships import BY_ADMIN, MembershipFacade, change_membership, end_memberships
from memoryd.rerank.base import Reranker
from memoryd.storage.catalog import Catalog
from memoryd.storage.database import Database
from memoryd.storage.opening import open_database
from memoryd.storage.repository import Repository
from memoryd.store import KEEP, Keep, MemoryStore
from memoryd.turns import TurnFacade
from memoryd.user_settings import change_role
from memoryd.writeback import BackgroundWriter, QuietGate

if TYPE_CHECKING:
    from memoryd.history_formats import History
    from memoryd.history_import import HistoryImport
    from memoryd.transfer import ImportFile, ImportResult


def utcnow() -> datetime:
    return datetime.now(UTC)


class Memoryd(
    TurnFacade, ExtractionFacade, ChatFacade, LifecycleFacade, AuditFacade, MembershipFacade
):
    """Persistent memories for LLM chat.

    ``Memoryd()`` uses the default SQLite file under your data directory (or
    ``MEMORYD_DATABASE_URL``); ``Memoryd(url)`` any SQLAlchemy URL (SQLite or
    ``postgresql+psycopg://``). Nothing is opened until the first call; the schema is
    migrated then.
    """

    def __init__(
        self,
        url: str | None = None,
        *,
        database: Database | None = None,
        embedder: Embedder | None = None,
        reranker: str | Reranker | None = None,
        settings: MemorydSettings | None = None,
        limits: Limits = DEFAULT_LIMITS,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self.settings = settings or MemorydSettings()
        self.url = url or self.settings.resolved_database_url()
        self.limits = limits
        self.clock = clock
        self._database = database
        self._embedder = embedder
        self._embedder_factory: Callable[[MemorydSettings], Embedder] | None = None
        if embedder is None:  # an unknown MEMORYD_EMBEDDER fails here, not at the first turn
            from memoryd.plugins import embedder_factories, pick

            self._embedder_factory = pick("embedder", self.settings.embedder, embedder_factories())
        self._reranker_choice: str | Reranker = reranker or self.settings.reranker
        self._reranker: Reranker | None = None
        # one database, embedder and reranker per instance, even when threads (the
        # writer's pre-embedding, a server's workers) ask for them first at the same time
        self._open_lock = threading.RLock()
        self.store = MemoryStore(limits, clock, lambda: self.embedder.name)
        self.catalog = Catalog()
        self.quiet = QuietGate()  # chat turns in progress (see memoryd.writeback)
        self._writer: BackgroundWriter | None = None

    # wiring ----------------------------------------------------------------
    @property
    def db(self) -> Database:
        if self._database is None:
            with self._open_lock:
                if self._database is None:
                    self._database = open_database(self.url)
        return self._database

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            with self._open_lock:
                if self._embedder is None:
                    assert self._embedder_factory is not None  # set when none was given
                    self._embedder = self._embedder_factory(self.settings)
        return self._embedder

    @property
    def reranker(self) -> Reranker:
        if self._reranker is None:
            from memoryd.plugins import pick, reranker_factories

            with self._open_lock:
                choice = self._reranker_choice
                if self._reranker is None:
                    self._reranker = (
                        pick("reranker", choice, reranker_factories())(self.embedder)
                        if isinstance(choice, str)
                        else choice
                    )
        return self._reranker

    @property
    def writer(self) -> BackgroundWriter:
        """Writes that need not hold up a reply (``last_used_at``, proxied chats)."""
        if self._writer is None:
            with self._open_lock:
                if self._writer is None:
                    self._writer = BackgroundWriter(self)
        return self._writer

    def finish_writes(self) -> None:
        """Write everything the background writer holds and stop its thread (a later
        write starts a new one)."""
        with self._open_lock:
            writer, self._writer = self._writer, None
        if writer is not None:
            writer.close()

    def close(self) -> None:
        """Finish pending background writes, then release the database."""
        self.finish_writes()
        if self._database is not None:
            self._database.dispose()

    def __enter__(self) -> Memoryd:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # users and workspaces -------------------------------------------------
    def create_user(self, name: str, role: Role | str = Role.DEFAULT) -> User:
        name = validate_user_name(name)
        role = _role(role)
        with self.db.write() as repo:
            if repo.get_user_by_name(name):
                raise AlreadyExists(f"user {name!r} already exists")
            return repo.insert_user(name, role, self.clock())

    def get_user(self, user: int | str) -> User:
        """A user by id, or by name when given a string."""
        found = None
        if isinstance(user, str) or is_row_id(user):
            with self.db.read() as repo:
                found = (
                    repo.get_user_by_name(user) if isinstance(user, str) else repo.get_user(user)
                )
        if found is None:
            raise NotFound(f"no user {user!r}")
        return found

    def list_users(self) -> list[User]:
        with self.db.read() as repo:
            return repo.list_users()

    def user_summaries(self) -> list[UserSummary]:
        """Every user with memory counts, usable workspaces and own choices (a few
        queries in one transaction, however many users)."""
        with self.db.read() as repo:
            return repo.user_summaries()

    def set_role(
        self,
        user_id: int,
        role: Role | str,
        *,
        keep_an_admin: bool = False,
        actor: Actor | None = None,
    ) -> User:
        """Change a role. With ``keep_an_admin`` the last admin cannot be demoted, checked
        in the same locked transaction as the change (two admins demoting each other at
        once leave one). A real change is one ``change_setting`` entry in the user's
        audit log, by ``actor`` (default: ``admin``, whoever administers the database,
        as on the command line)."""
        new_role = _role(role)
        actor = actor or Actor(Source.ADMIN)
        with self.db.write() as repo:
            self.store.require_user(repo, user_id)
            if keep_an_admin and new_role is not Role.ADMIN:
                _keep_an_admin(repo, user_id)
            repo.lock_user(user_id)  # only after the admins' rows: two demotions cannot deadlock
            change_role(repo, user_id, new_role, actor, self.clock())
            user = repo.get_user(user_id)
        assert user is not None
        return user

    def delete_user(self, user_id: int, *, keep_an_admin: bool = False) -> None:
        """Delete a user with their memories, chats and audit log (with ``keep_an_admin``,
        not the last admin: see ``set_role``)."""
        with self.db.write() as repo:
            self.store.require_user(repo, user_id)
            if keep_an_admin:
                _keep_an_admin(repo, user_id)
            repo.delete_user(user_id)

    def create_workspace(
        self,
        slug: str,
        name: str | None = None,
        *,
        member: int | None = None,
        actor: Actor | None = None,
        quota: int | None = None,
    ) -> Workspace:
        """A new workspace; with ``member``, that user joins it in the same transaction
        (by ``actor``), refused with PermissionDenied when that would take them past
        ``quota`` workspaces (see ``memoryd.memberships.change_membership``)."""
        slug = validate_slug(slug)
        display = validate_display_name(name, what="workspace name") if name else slug
        with self.db.write() as repo:
            if member is not None:  # locked first, as every write of the user's does
                self.store.require_user(repo, member, lock=True)
            if repo.workspace_id(slug) is not None:
                raise AlreadyExists(f"workspace {slug!r} already exists")
            workspace = repo.insert_workspace(slug, display, self.clock())
            if member is not None:
                by = actor or BY_ADMIN
                change_membership(repo, slug, member, True, by, self.clock(), quota=quota)
            return workspace

    def get_workspace(self, slug: str) -> Workspace:
        with self.db.read() as repo:
            found = repo.get_workspace(slug)
        if found is None:
            raise NotFound(f"no workspace {slug!r}")
        return found

    def has_workspace(self, slug: str, *, trust_s: float = 0.25) -> bool:
        """Whether the workspace exists; answered from the per-process cache if it was
        checked against the database in the last ``trust_s`` seconds."""
        catalog = self.catalog
        if catalog.checked_within(trust_s) and catalog.get("workspaces", slug) is not None:
            return True
        with self.db.read() as repo:
            version = catalog.check(repo.conn)
            found = repo.workspace_id(slug)
        if found is not None:
            catalog.put("workspaces", slug, found, version)
        return found is not None

    def list_workspaces(self) -> list[Workspace]:
        with self.db.read() as repo:
            return repo.list_workspaces()

    def delete_workspace(self, slug: str, *, actor: Actor | None = None) -> None:
        """Delete a workspace with its memories and chats; each member's audit log records
        that they are no longer one (by ``actor``, default ``admin``: memoryd.memberships)."""
        with self.db.write() as repo:
            workspace_id = self.store.require_workspace(repo, slug)
            end_memberships(repo, workspace_id, slug, actor or BY_ADMIN, self.clock())
            repo.delete_workspace(workspace_id)

    # memories ----------------------------------------------------------------
    def add_memory(
        self,
        user_id: int,
        content: str,
        scope: Scope | str | None = None,
        workspace: str | None = None,
        *,
        actor: Actor | None = None,
        source_chat_ids: Sequence[int] = (),
        expires_at: datetime | str | None = None,
    ) -> Memory:
        """Store a new memory; raises ScopeFull, DuplicateMemory or InvalidContent.

        ``expires_at`` ("remember until": a date or an aware time) hides the memory from
        chats once passed; see ``memoryd.domain.rules.parse_expiry``."""
        text = normalize_content(content)
        chosen, slug = resolve_scope(scope, workspace)
        until = parse_expiry(expires_at, self.clock())
        actor = actor or Actor(Source.USER, user_id)
        vector = embed_memories(self.embedder, [text])[0]
        with self.db.write() as repo:
            return self.store.insert_memory(
                repo, user_id, text, chosen, slug, actor, vector, source_chat_ids, expires_at=until
            )

    def get_memory(self, user_id: int, memory_id: str) -> Memory:
        with self.db.read() as repo:
            return self.store.owned(repo, user_id, memory_id)

    def list_memories(
        self,
        user_id: int,
        scope: Scope | str | None = None,
        workspace: str | None = None,
    ) -> list[Memory]:
        """A user's memories, globals first, then by workspace and age."""
        with self.db.read() as repo:
            self.store.require_user(repo, user_id)
            chosen = None if scope is None else parse_scope(scope)
            if chosen is Scope.GLOBAL and workspace:
                raise InvalidScope("a global memory belongs to no workspace; drop the workspace")
            workspace_id = self.store.require_workspace(repo, workspace) if workspace else None
            return repo.list_memories(user_id, scope=chosen, workspace_id=workspace_id)

    def edit_memory(
        self,
        user_id: int,
        memory_id: str,
        content: str | None = None,
        *,
        actor: Actor | None = None,
        expires_at: datetime | str | Keep | None = KEEP,
    ) -> Memory:
        """Change a memory's text, its expiry (None clears it), or both, in one write."""
        if content is None and expires_at is KEEP:
            raise InvalidInput("nothing to change: give the new text or an expiry")
        text = None if content is None else normalize_content(content)
        until = KEEP if expires_at is KEEP else parse_expiry(expires_at, self.clock())
        actor = actor or Actor(Source.USER, user_id)
        vector = embed_memories(self.embedder, [text])[0] if text is not None else None
        with self.db.write() as repo:
            return self.store.revise_memory(
                repo, user_id, memory_id, text, actor, vector, expires_at=until
            )

    def delete_memory(
        self,
        user_id: int,
        memory_id: str,
        *,
        reason: str | None = None,
        actor: Actor | None = None,
    ) -> None:
        """Delete a memory; ``reason`` (why, e.g. "reported as wrong") goes into the
        audit entry, as its ``before["reason"]``."""
        actor = actor or Actor(Source.USER, user_id)
        why = normalize_reason(reason)
        with self.db.write() as repo:
            self.store.require_user(repo, user_id, lock=True)
            before = self.store.owned(repo, user_id, memory_id)
            repo.delete_memory(memory_id)
            now = self.clock()
            self.store.audit(repo, AuditAction.DELETE, actor, before, None, now, reason=why)

    def promote(self, user_id: int, memory_id: str, *, actor: Actor | None = None) -> Memory:
        """Move a workspace memory to the user's global scope (R2)."""
        return self._move(user_id, memory_id, Scope.GLOBAL, None, actor)

    def demote(
        self, user_id: int, memory_id: str, workspace: str, *, actor: Actor | None = None
    ) -> Memory:
        """Move a global memory into a workspace (R2)."""
        return self._move(user_id, memory_id, Scope.WORKSPACE, validate_slug(workspace), actor)

    def _move(
        self,
        user_id: int,
        memory_id: str,
        target: Scope,
        slug: str | None,
        actor: Actor | None,
    ) -> Memory:
        actor = actor or Actor(Source.USER, user_id)
        with self.db.write() as repo:
            self.store.require_user(repo, user_id, lock=True)
            before = self.store.owned(repo, user_id, memory_id)
            if target is Scope.GLOBAL and before.scope is Scope.GLOBAL:
                raise InvalidScope("this memory is already global")
            if target is Scope.WORKSPACE and before.scope is Scope.WORKSPACE:
                raise InvalidScope(
                    "only a global memory can be demoted; this one is in a workspace"
                )
            workspace_id = self.store.require_workspace(repo, slug) if slug else None
            if repo.find_duplicate(user_id, target, workspace_id, content_key(before.content)):
                raise DuplicateMemory(f"this memory already exists in {scope_label(target, slug)}")
            self.store.require_room(repo, user_id, target, workspace_id, slug)
            now = self.clock()
            repo.update_memory(
                memory_id, {"scope": target.value, "workspace_id": workspace_id, "updated_at": now}
            )
            after = self.store.owned(repo, user_id, memory_id)
            action = AuditAction.PROMOTE if target is Scope.GLOBAL else AuditAction.DEMOTE
            self.store.audit(repo, action, actor, before, after, now)
            return after

    # settings ----------------------------------------------------------------
    def get_settings(self) -> dict[str, Any]:
        with self.db.read() as repo:
            return runtime_settings.effective(repo.get_settings())

    def parse_setting(self, key: str, value: object) -> Any:
        """The stored form of a setting's value, or InvalidInput saying why not."""
        spec = runtime_settings.spec_for(key)
        parsed = spec.parse(value)
        if spec is runtime_settings.EXTRACTION_PROVIDER and parsed:
            from memoryd.plugins import llm_provider_factories, pick

            pick("LLM provider", parsed, llm_provider_factories())
        return parsed

    def set_setting(self, key: str, value: object) -> Any:
        parsed = self.parse_setting(key, value)
        with self.db.write() as repo:
            repo.put_setting(key, parsed, self.clock())
        return parsed

    @property
    def memory_enabled(self) -> bool:
        return bool(self.get_settings()[runtime_settings.MEMORY_ENABLED.key])

    def _setting(self, repo: Repository, spec: runtime_settings.SettingSpec) -> Any:
        return repo.get_settings().get(spec.key, spec.default)

    # export / import -----------------------------------------------------------
    def export_memories(self, user_id: int, *, chats: bool = True) -> list[str]:
        """The user's own choices (first line), memories and recorded chats as JSON lines
        (see ``memoryd.transfer``); ``chats=False`` leaves the chats out."""
        from memoryd.transfer import export_lines

        return export_lines(self, user_id, chats=chats)

    def import_memories(
        self,
        user_id: int,
        lines: Iterable[str] | str | ImportFile,
        *,
        actor: Actor | None = None,
        protected_ids: Iterable[str] = (),
        preferences: bool = True,
        chats: bool = True,
        workspace_quota: int | None = None,
    ) -> ImportResult:
        """Load JSON lines made by ``export_memories`` (a list of lines, the file's whole
        text split at LF only, or an ``ImportFile`` from ``memoryd.transfer.parse_file``);
        all or nothing. The file's preferences line sets the user's own choices
        unless ``preferences=False``; its chat lines add to the user's recorded chats
        unless ``chats=False``.
        ``protected_ids`` are memories the importer may not touch, ``workspace_quota``
        the most workspaces the user may then belong to (see ``memoryd.transfer``)."""
        from memoryd.transfer import import_lines

        return import_lines(
            self,
            user_id,
            lines,
            actor or Actor(Source.IMPORT, user_id),
            protected_ids=set(protected_ids),
            preferences=preferences,
            chats=chats,
            workspace_quota=workspace_quota,
        )

    def import_history(
        self,
        user_id: int,
        history: History,
        workspace: str,
        *,
        actor: Actor | None = None,
        progress: Callable[[HistoryImport], None] | None = None,
    ) -> HistoryImport:
        """Record a chat history exported by ChatGPT, Claude or Open WebUI (parsed by
        ``memoryd.history_formats.parse_history``) as the user's chats in ``workspace``;
        a turn already recorded is not recorded again (see ``memoryd.history_import``)."""
        from memoryd.history_import import import_history

        return import_history(self, user_id, history, workspace, actor=actor, progress=progress)


def _keep_an_admin(repo: Repository, user_id: int) -> None:
    """Refuse to demote or delete the last admin; locks the admins' rows (PostgreSQL) so
    two transactions cannot each count the other one in."""
    admins = repo.lock_admins()
    if admins == [user_id]:
        user = repo.get_user(user_id)
        name = user.name if user else str(user_id)
        raise AlreadyExists(f"{name} is the last admin; make another admin first")


def _role(role: Role | str) -> Role:
    try:
        return Role(role)
    except ValueError:
        raise InvalidInput(f"unknown role {role!r}: use 'admin' or 'default'") from None
