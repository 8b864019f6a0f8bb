"""``Memoryd``: the library API, one implementation of every operation.

The REST API, the proxy and the CLI all call this class. It is only the wiring: it opens
the database, the embedder, the reranker and the background writer on first use and hands
them, as ``memoryd.app.backends.Backends``, to the services that implement the
operations, one concern each; its public methods are theirs (``_via``).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar, cast, overload

from memoryd.app.accounts import AccountService
from memoryd.app.audit import AuditService
from memoryd.app.chat_log import ChatService
from memoryd.app.history_import import HistoryImport, import_history
from memoryd.app.lifecycle import LifecycleService
from memoryd.app.memories import MemoryService
from memoryd.app.transfer import ImportFile, ImportResult, export_lines, import_lines
from memoryd.app.turns import TurnService
from memoryd.app.writeback import BackgroundWriter, QuietGate
from memoryd.config import MemorydSettings
from memoryd.domain import runtime_settings
from memoryd.domain.models import Actor, Source
from memoryd.domain.rules import DEFAULT_LIMITS, Limits
from memoryd.extraction.facade import ExtractionService
from memoryd.models.embedding.base import Embedder
from memoryd.models.rerank.base import Reranker
from memoryd.storage.catalog import Catalog
from memoryd.storage.database import Database
from memoryd.storage.opening import open_database
from memoryd.storage.write_rules import MemoryStore

if TYPE_CHECKING:
    from typing import TypedDict, Unpack

    from memoryd.app.history_formats import History
    from memoryd.extraction.pipeline import PairResult
    from memoryd.extraction.runs import Run
    from memoryd.extraction.scheduler import ProgressCallback, RunCallback, StartCallback
    from memoryd.models.llm.base import LLMProvider

    class ExtractOptions(TypedDict, total=False):  # ExtractionService.extract's keywords
        force: bool
        dry_run: bool
        provider: LLMProvider | None
        on_pair: ProgressCallback | None
        on_pair_start: StartCallback | None
        on_start: RunCallback | None
        ask_questions: int


P = ParamSpec("P")
R = TypeVar("R")
S = TypeVar("S")
T = TypeVar("T")


def utcnow() -> datetime:
    return datetime.now(UTC)


def _via(service: str, method: Callable[Concatenate[S, P], R]) -> Callable[Concatenate[Any, P], R]:
    """A method of ``Memoryd`` that is ``method`` of its service attribute ``service``
    (same name, signature and docstring)."""

    @functools.wraps(method)
    def delegate(self: Any, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return method(getattr(self, service), *args, **kwargs)

    return delegate


class Memoryd:
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
        self._open_lock = threading.RLock()  # see _once
        self.store = MemoryStore(limits, clock, lambda: self.embedder.name)
        self.catalog = Catalog()
        self.quiet = QuietGate()  # chat turns in progress (see memoryd.app.writeback)
        self._writer: BackgroundWriter | None = None
        self.accounts = AccountService(self)
        self.memories = MemoryService(self)
        self.turns = TurnService(self)
        self.chats = ChatService(self)
        self.lifecycle = LifecycleService(self)
        self.audit = AuditService(self)
        self.extraction = ExtractionService(self)

    # wiring ----------------------------------------------------------------
    def _once(self, name: str, make: Callable[[], T]) -> T:
        """The attribute ``name``, made by ``make`` on first use: once per instance, even
        when threads (the writer's pre-embedding, a server's workers) ask at the same time."""
        if getattr(self, name) is None:
            with self._open_lock:
                if getattr(self, name) is None:
                    setattr(self, name, make())
        return cast(T, getattr(self, name))

    @property
    def db(self) -> Database:
        return self._once("_database", lambda: open_database(self.url))

    @property
    def embedder(self) -> Embedder:
        def make() -> Embedder:
            assert self._embedder_factory is not None  # set when none was given
            return self._embedder_factory(self.settings)

        return self._once("_embedder", make)

    @property
    def reranker(self) -> Reranker:
        def make() -> Reranker:
            from memoryd.plugins import pick, reranker_factories

            choice = self._reranker_choice  # a plugin's name, or a Reranker to use as it is
            if isinstance(choice, str):
                made: Reranker = pick("reranker", choice, reranker_factories())(self.embedder)
                return made
            return choice

        return self._once("_reranker", make)

    @property
    def writer(self) -> BackgroundWriter:
        """Writes that need not hold up a reply (``last_used_at``, proxied chats)."""
        return self._once(
            "_writer",
            lambda: BackgroundWriter(
                self.chats.store_pending, self.turns.mark_used, self.chats.warm_history, self.quiet
            ),
        )

    def finish_writes(self) -> None:
        """Write everything the background writer holds and stop its thread (a later
        write starts a new one)."""
        with self._open_lock:
            writer, self._writer = self._writer, None
        if writer is not None:
            writer.close()

    def flush_writes(self) -> None:
        """Write what the background writer holds, if it was started."""
        if self._writer is not None:
            self._writer.flush()

    def close(self) -> None:
        """Finish pending background writes, then release the database."""
        self.finish_writes()
        if self._database is not None:
            self._database.dispose()

    def __enter__(self) -> Memoryd:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # users, workspaces, memberships, instance settings: memoryd.app.accounts ------------
    create_user = _via("accounts", AccountService.create_user)
    get_user = _via("accounts", AccountService.get_user)
    list_users = _via("accounts", AccountService.list_users)
    user_summaries = _via("accounts", AccountService.user_summaries)
    set_role = _via("accounts", AccountService.set_role)
    delete_user = _via("accounts", AccountService.delete_user)
    create_workspace = _via("accounts", AccountService.create_workspace)
    get_workspace = _via("accounts", AccountService.get_workspace)
    has_workspace = _via("accounts", AccountService.has_workspace)
    list_workspaces = _via("accounts", AccountService.list_workspaces)
    delete_workspace = _via("accounts", AccountService.delete_workspace)
    add_member = _via("accounts", AccountService.add_member)
    remove_member = _via("accounts", AccountService.remove_member)
    get_settings = _via("accounts", AccountService.get_settings)
    parse_setting = _via("accounts", AccountService.parse_setting)
    set_setting = _via("accounts", AccountService.set_setting)

    @property
    def memory_enabled(self) -> bool:
        return bool(self.get_settings()[runtime_settings.MEMORY_ENABLED.key])

    # memories: memoryd.app.memories, memoryd.app.lifecycle, memoryd.app.audit ---------------------
    add_memory = _via("memories", MemoryService.add_memory)
    get_memory = _via("memories", MemoryService.get_memory)
    list_memories = _via("memories", MemoryService.list_memories)
    edit_memory = _via("memories", MemoryService.edit_memory)
    delete_memory = _via("memories", MemoryService.delete_memory)
    promote = _via("memories", MemoryService.promote)
    demote = _via("memories", MemoryService.demote)
    purge_expired = _via("lifecycle", LifecycleService.purge_expired)
    upkeep = _via("lifecycle", LifecycleService.upkeep)
    refresh_vectors = _via("lifecycle", LifecycleService.refresh_vectors)
    memory_detail = _via("lifecycle", LifecycleService.memory_detail)
    review_preference = _via("lifecycle", LifecycleService.review_preference)
    review_mode = _via("lifecycle", LifecycleService.review_mode)
    set_review_preference = _via("lifecycle", LifecycleService.set_review_preference)
    list_suggestions = _via("lifecycle", LifecycleService.list_suggestions)
    get_suggestion = _via("lifecycle", LifecycleService.get_suggestion)
    accept_suggestion = _via("lifecycle", LifecycleService.accept_suggestion)
    reject_suggestion = _via("lifecycle", LifecycleService.reject_suggestion)
    list_audit = _via("audit", AuditService.list_audit)
    audit_log = _via("audit", AuditService.audit_log)

    # chat turns and recorded chats: memoryd.app.turns, memoryd.app.chat_log -----------------
    context = _via("turns", TurnService.context)
    language_preference = _via("turns", TurnService.language_preference)
    language = _via("turns", TurnService.language)
    set_language_preference = _via("turns", TurnService.set_language_preference)
    record_chat = _via("chats", ChatService.record_chat)
    record_chat_later = _via("chats", ChatService.record_chat_later)
    store_chat = _via("chats", ChatService.store_chat)
    warm_history = _via("chats", ChatService.warm_history)
    list_chats = _via("chats", ChatService.list_chats)
    get_chat = _via("chats", ChatService.get_chat)
    chat_memories = _via("chats", ChatService.chat_memories)
    chats_using = _via("chats", ChatService.chats_using)
    delete_chat = _via("chats", ChatService.delete_chat)
    delete_chats = _via("chats", ChatService.delete_chats)
    clear_chats = _via("chats", ChatService.clear_chats)
    learns_from_chats = _via("chats", ChatService.learns_from_chats)
    set_learning = _via("chats", ChatService.set_learning)

    # extraction: memoryd.extraction.facade --------------------------------------------
    if TYPE_CHECKING:  # one pair gives its PairResult, all due pairs a Run

        @overload
        def extract(
            self, user_id: int, workspace: str, **options: Unpack[ExtractOptions]
        ) -> PairResult: ...

        @overload
        def extract(
            self, user_id: None = ..., workspace: None = ..., **options: Unpack[ExtractOptions]
        ) -> Run: ...

        def extract(self, *args: Any, **kwargs: Any) -> PairResult | Run: ...

    else:
        extract = _via("extraction", ExtractionService.extract)
    extraction_runs = _via("extraction", ExtractionService.extraction_runs)
    extraction_run = _via("extraction", ExtractionService.extraction_run)
    prune_runs = _via("extraction", ExtractionService.prune_runs)
    extraction_failures = _via("extraction", ExtractionService.extraction_failures)
    start_extraction_scheduler = _via("extraction", ExtractionService.start_extraction_scheduler)

    # export / import -----------------------------------------------------------
    def export_memories(self, user_id: int, *, chats: bool = True) -> list[str]:
        """The user's own choices (first line), memories and recorded chats as JSON lines
        (see ``memoryd.app.transfer``); ``chats=False`` leaves the chats out."""
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
        text, or an ``ImportFile`` from ``memoryd.app.transfer.parse_file``); all or
        nothing. The options are ``memoryd.app.transfer.import_lines``'s."""
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
        ``memoryd.app.history_formats.parse_history``) as the user's chats in ``workspace``;
        a turn already recorded is not recorded again (see ``memoryd.app.history_import``)."""
        return import_history(self, user_id, history, workspace, actor=actor, progress=progress)
