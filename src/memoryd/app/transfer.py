"""Export and import of a user's memories, own choices and recorded chats as JSON lines (R12).

The format is docs/cli.md's ("memoryd export and memoryd import"). An import is all or
nothing, and planned before it costs anything: the count per scope is checked against the
limits in a read transaction before a line is embedded, embedding runs outside the write
transaction, and the chats are staged in short transactions of their own
(``memoryd.app.transfer_chats``), so no other writer waits long.
"""

from __future__ import annotations

import json
import re
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from memoryd.app.memberships import change_membership
from memoryd.app.transfer_chats import (
    ChatRecord,
    check_chat_ids,
    check_links_in_file,
    check_links_on_target,
    export_chat_lines,
    is_chat,
    link_chats,
    parse_chat,
    publish_chats,
    staged_chats,
)
from memoryd.app.transfer_preferences import (
    apply_preferences,
    is_preferences,
    parse_preferences,
    preferences_line,
    read_preferences,
)
from memoryd.domain.errors import InvalidInput, ScopeFull
from memoryd.domain.models import Actor, AuditAction, Memory, Scope, Source
from memoryd.domain.results import ImportResult as ImportResult  # re-exported: it was defined here
from memoryd.domain.results import Preferences
from memoryd.domain.rules import content_key, normalize_content, resolve_scope, scope_label
from memoryd.extraction.questions import parse_prompt
from memoryd.extraction.questions import parse_stored as parse_questions
from memoryd.models.embedding.base import embed_memories, embed_queries
from memoryd.storage import derived
from memoryd.storage.vectors import vector_columns

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable

    from memoryd.app.backends import Backends
    from memoryd.storage.repository import Repository

_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")
EARLIEST = datetime(2000, 1, 1, tzinfo=UTC)
LATEST = datetime.max.replace(tzinfo=UTC)
FUTURE_SLACK = timedelta(days=1)  # clocks of two machines may disagree a little
REQUIRED = ("content",)


def memory_line(memory: Memory, question_prompt: int | None = None) -> str:
    """One memory's line; ``question_prompt``: the version of the prompt that wrote its
    questions (1 when not given)."""
    record: dict[str, Any] = {
        "id": memory.id,
        "scope": memory.scope.value,
        "workspace": memory.workspace,
        "content": memory.content,
        "source": memory.source.value,
        "created_at": memory.created_at.isoformat(),
        "updated_at": memory.updated_at.isoformat(),
        "last_used_at": memory.last_used_at.isoformat() if memory.last_used_at else None,
        "source_chat_ids": list(memory.source_chat_ids),
    }
    if memory.expires_at is not None:  # optional: lines without it never expire
        record["expires_at"] = memory.expires_at.isoformat()
    if memory.questions is not None:  # optional: lines without it import unasked
        record["questions"] = list(memory.questions)
        record["question_prompt"] = question_prompt or 1
    return json.dumps(record, sort_keys=True, ensure_ascii=False)


def export_lines(md: Backends, user_id: int, *, chats: bool = True) -> list[str]:
    """The user's preferences line, their memories, then (unless ``chats=False``) their
    recorded chats, all read in one transaction."""
    md.flush_writes()  # exchanges this process still holds are written first
    with md.db.read() as repo:
        md.store.require_user(repo, user_id)
        preferences = read_preferences(repo, user_id)
        memories = repo.list_memories(user_id)
        prompts = derived.versions(repo.conn, user_id, derived.QUESTIONS)
        chat_lines = export_chat_lines(repo, user_id) if chats else []
    memories.sort(key=lambda m: (m.scope.value, m.workspace or "", m.created_at, m.id))
    return [
        preferences_line(preferences),
        *(memory_line(m, prompts.get(m.id)) for m in memories),
        *chat_lines,
    ]


@dataclass(frozen=True)
class _Record:
    line: int
    id: str | None  # None: a hand-written line, the memory gets a new id
    scope: Scope
    workspace: str | None
    content: str
    source: Source
    created_at: datetime | None  # None: the time of the import
    updated_at: datetime | None
    last_used_at: datetime | None
    source_chat_ids: list[int]
    expires_at: datetime | None = None
    questions: tuple[str, ...] | None = None  # None: the line has none
    question_prompt: int = 1  # the version of the prompt that wrote them


def _time(value: Any, name: str, *, latest: datetime | None = None) -> datetime | None:
    """A time from a line: ISO 8601 with a zone, after 2000 and not in the future (not
    after ``latest`` when given: an expiry may lie in the future)."""
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except (TypeError, ValueError):
        raise InvalidInput(f"{name} is not an ISO 8601 time") from None
    if parsed.tzinfo is None:
        raise InvalidInput(f"{name} has no time zone")
    if not EARLIEST <= parsed <= (latest or datetime.now(UTC) + FUTURE_SLACK):
        raise InvalidInput(f"{name} {value} is not a plausible time")
    return parsed


@dataclass(frozen=True)
class ImportFile:
    """An import file, checked: its memory lines, its preferences line (if any) and its
    chat lines."""

    records: list[_Record]
    preferences: Preferences | None
    chats: list[ChatRecord] = field(default_factory=list)

    def workspaces(self, *, chats: bool = True) -> set[str]:
        """The workspaces the memory lines (and, with ``chats``, the chat lines) name."""
        named = {r.workspace for r in self.records if r.workspace}
        return named | {c.workspace for c in self.chats} if chats else named


def parse_file(lines: Iterable[str] | str) -> ImportFile:
    """Check every line (numbered from 1, blank ones skipped); InvalidInput names the first
    bad one. Refused too: a memory or chat id twice, a second preferences line, a chat
    linking a memory line of another workspace. A whole file given as one string is split
    into its lines at LF only (never at U+2028 or U+0085, which a JSON string may hold)."""
    if isinstance(lines, str):
        lines = lines.split("\n")
    elif isinstance(lines, bytes):
        raise InvalidInput("import takes text (the file's lines or its whole text), not bytes")
    records: list[_Record] = []
    chats: list[ChatRecord] = []
    preferences: Preferences | None = None
    preferences_at = 0
    for line, text in enumerate(lines, start=1):
        try:
            if not isinstance(text, str):
                raise InvalidInput(f"a line is text, not {type(text).__name__}")
            if not text.strip():
                continue
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                raise InvalidInput(f"not JSON ({exc.msg})") from None
            if not isinstance(data, dict):
                raise InvalidInput("expected a JSON object")
            if is_chat(data):
                chats.append(parse_chat(data, line, _time))
            elif not is_preferences(data):
                records.append(_record(data, line))
            elif preferences is None:
                preferences, preferences_at = parse_preferences(data), line
            else:
                raise InvalidInput(
                    f"a second preferences line (the first is line {preferences_at});"
                    " a file holds at most one"
                )
        except InvalidInput as exc:
            raise InvalidInput(f"line {line}: {exc}") from None
    seen = Counter(r.id for r in records if r.id is not None)
    repeated = [i for i, n in seen.items() if n > 1]
    if repeated:
        raise InvalidInput(f"memory id {repeated[0]!r} appears more than once")
    check_chat_ids(chats)
    check_links_in_file(chats, {r.id: (r.line, r.workspace) for r in records if r.id})
    return ImportFile(records, preferences, chats)


def _record(data: dict[str, Any], line: int) -> _Record:
    """A decoded memory line (the file's ``line``), or InvalidInput saying what is wrong."""
    missing = [k for k in REQUIRED if k not in data]
    if missing:
        raise InvalidInput(f"missing {', '.join(missing)}")
    memory_id = data.get("id")
    if memory_id is not None and (not isinstance(memory_id, str) or not _ID.fullmatch(memory_id)):
        raise InvalidInput(f"invalid id {memory_id!r}")
    workspace = data.get("workspace")
    if workspace is not None and not isinstance(workspace, str):
        raise InvalidInput("workspace must be a slug or null")
    try:
        scope, workspace = resolve_scope(data.get("scope"), workspace)
        content = normalize_content(data["content"])
        source = Source(data.get("source", Source.IMPORT.value))
    except Exception as exc:  # InvalidScope, InvalidContent, an unknown source...
        raise InvalidInput(str(exc)) from None
    chats = data.get("source_chat_ids", [])
    if not isinstance(chats, list) or not all(
        isinstance(c, int) and not isinstance(c, bool) for c in chats
    ):
        raise InvalidInput("source_chat_ids must be a list of integers")
    questions = None if data.get("questions") is None else parse_questions(data["questions"])
    prompt = data.get("question_prompt")
    if prompt is not None:
        if questions is None:
            raise InvalidInput("question_prompt without questions")
        prompt = parse_prompt(prompt)
    created = _time(data.get("created_at"), "created_at")
    updated = _time(data.get("updated_at"), "updated_at")
    return _Record(
        line=line,
        id=memory_id,
        scope=scope,
        workspace=workspace,
        content=content,
        source=source,
        created_at=created,
        updated_at=updated or created,
        last_used_at=_time(data.get("last_used_at"), "last_used_at"),
        source_chat_ids=chats,
        # past LATEST an expiry has no UTC time to store
        expires_at=_time(data.get("expires_at"), "expires_at", latest=LATEST),
        questions=questions,
        question_prompt=prompt or 1,
    )


def _plan_counts(
    md: Backends,
    repo: Repository,
    user_id: int,
    records: list[_Record],
    protected_ids: Collection[str],
) -> Counter[tuple[Scope, str | None]]:
    """How many memories each scope would hold after the import, without writing."""
    final: dict[str, tuple[Scope, str | None]] = {}
    keys: dict[tuple[Scope, str | None, str], str] = {}
    now = md.clock()
    expired: set[str] = set()  # hold no slot (see docs/memories.md)
    for memory in repo.list_memories(user_id):
        final[memory.id] = (memory.scope, memory.workspace)
        keys.setdefault((memory.scope, memory.workspace, content_key(memory.content)), memory.id)
        if memory.is_expired(now):
            expired.add(memory.id)
    for record in records:
        place = (record.scope, record.workspace)
        ours = record.id is not None and record.id in final and record.id not in protected_ids
        duplicate = keys.get((*place, content_key(record.content)))
        if duplicate and duplicate != (record.id if ours else None):
            continue
        memory_id = record.id if ours and record.id is not None else f"new:{record.line}"
        final[memory_id] = place
        keys[(*place, content_key(record.content))] = memory_id
        if record.expires_at is not None and record.expires_at <= now:
            expired.add(memory_id)
        else:
            expired.discard(memory_id)
    return Counter(place for memory_id, place in final.items() if memory_id not in expired)


def _source_chats(
    ids: list[int], targets: dict[int, int], given: int, others: Collection[int]
) -> list[int]:
    """A memory's source chats as ids of the target (see the module doc)."""
    found = (targets.get(i, i if i <= given and i not in others else None) for i in ids)
    return list(dict.fromkeys(i for i in found if i is not None))


def import_lines(
    md: Backends,
    user_id: int,
    lines: Iterable[str] | str | ImportFile,
    actor: Actor,
    *,
    protected_ids: Collection[str] = (),
    preferences: bool = True,
    chats: bool = True,
    workspace_quota: int | None = None,
) -> ImportResult:
    """Load JSON lines for ``user_id`` (or a file ``parse_file`` already checked); all or
    nothing. ``workspace_quota``: the most workspaces the user may belong to once the
    import created the ones it names (counted in the import's transaction).

    ``protected_ids`` are memories of this user the importer may not touch (they sit in a
    workspace the user no longer belongs to): a line naming one creates a new memory
    instead, as a line naming another user's memory does, so nothing tells them apart.
    ``preferences=False`` leaves the user's choices as they are even when the file has a
    preferences line (which must still be well formed). ``chats=False`` adds none of the
    file's chats (whose lines must still be well formed).
    """
    parsed = lines if isinstance(lines, ImportFile) else parse_file(lines)
    records = parsed.records
    chat_records = parsed.chats if chats else []
    in_file = {c.id for c in chat_records if c.id is not None}
    with md.db.read() as repo:
        md.store.require_user(repo, user_id)
        memory_ids = {r.id for r in records if r.id is not None}
        check_links_on_target(repo, user_id, chat_records, memory_ids, protected_ids)
        _refuse_over_limits(md, _plan_counts(md, repo, user_id, records, protected_ids))
    vectors = embed_memories(md.embedder, [r.content for r in records])
    question_rows = [
        embed_queries(md.embedder, r.questions) if r.questions else None for r in records
    ]
    result = ImportResult()
    now = md.clock()
    # the chats first, in short transactions of their own, then the rest in one, which
    # publishes them (memoryd.storage.import_staging); staged chats go when it ends
    with staged_chats(md.db, user_id, chat_records, now) as staged, md.db.write() as repo:
        md.store.require_user(repo, user_id, lock=True)
        # the source chats not in the file that are another user's on the target
        named = {c for r in records for c in r.source_chat_ids if c not in in_file}
        others = repo.chats_of_others(user_id, named) if named else set()
        # each workspace written to; missing ones are created (in file order) with the
        # user as their member (in their audit log, by ``actor``)
        workspace_ids: dict[str, int] = {}
        slugs = [r.workspace for r in records if r.workspace] + [c.workspace for c in chat_records]
        for slug in dict.fromkeys(slugs):
            workspace_id = repo.workspace_id(slug)
            if workspace_id is None:
                repo.insert_workspace(slug, slug, md.clock())
                change_membership(
                    repo, slug, user_id, True, actor, md.clock(), quota=workspace_quota
                )
                result.workspaces_created.append(slug)
                workspace_id = repo.workspace_id(slug)
            assert workspace_id is not None
            workspace_ids[slug] = workspace_id
        learns = repo.learns_from_chats(user_id, lock=True)
        if preferences and parsed.preferences and parsed.preferences.learn_from_chats is not None:
            learns = parsed.preferences.learn_from_chats
        publish_chats(repo, staged, learns=bool(learns))
        result.chats_created, result.chats_skipped = len(staged.inserted), staged.skipped
        memory_targets: dict[str, str] = {}
        for record, vector, rows in zip(records, vectors, question_rows, strict=True):
            workspace_id = workspace_ids[record.workspace] if record.workspace else None
            key = content_key(record.content)
            owner = repo.owner_of(record.id) if record.id is not None else None
            mine = owner == user_id and record.id not in protected_ids
            memory_id = record.id if owner is None or mine else None
            duplicate = repo.find_duplicate(user_id, record.scope, workspace_id, key)
            if duplicate and duplicate != memory_id:
                result.skipped_duplicates += 1
                if record.id is not None:
                    memory_targets[record.id] = duplicate
                continue
            values = {
                "scope": record.scope.value,
                "workspace_id": workspace_id,
                "content": record.content,
                "content_key": key,
                "source": record.source.value,
                "created_at": record.created_at or now,
                "updated_at": record.updated_at or now,
                "last_used_at": record.last_used_at,
                "source_chats": _source_chats(
                    record.source_chat_ids, staged.targets, staged.given, others
                ),
                **vector_columns(vector, md.embedder.name),
                "expires_at": record.expires_at,
            }
            before = repo.get_memory(memory_id) if mine and memory_id else None
            if before is not None and memory_id is not None:
                repo.update_memory(memory_id, values)
            else:
                memory_id = memory_id or uuid.uuid4().hex
                repo.insert_memory({"id": memory_id, "user_id": user_id, **values})
            if record.id is not None:
                memory_targets[record.id] = memory_id
            if before is not None and before.content != record.content:
                derived.forget(repo.conn, [memory_id])  # derived from the old text
            if record.questions is not None:  # the line's, whatever is stored
                derived.forget(repo.conn, [memory_id], derived.QUESTIONS)
                derived.put(
                    repo.conn, memory_id, key, derived.QUESTIONS, record.question_prompt,
                    record.questions, rows, md.embedder.name,
                )  # fmt: skip
            after = repo.get_memory(memory_id)
            if after == before:  # the line says what is stored: no change to count or log
                result.unchanged += 1
                continue
            result.created += before is None
            result.updated += before is not None
            action = AuditAction.CREATE if before is None else AuditAction.UPDATE
            md.store.audit(repo, action, actor, before, after, md.clock())
        link_chats(repo, user_id, staged.inserted, memory_targets, protected_ids)
        now = md.clock()  # count again: a concurrent write may have won
        live = [m for m in repo.list_memories(user_id) if not m.is_expired(now)]
        _refuse_over_limits(md, Counter((m.scope, m.workspace) for m in live))
        if preferences and parsed.preferences is not None:
            apply_preferences(repo, user_id, parsed.preferences, actor, md.clock())
            result.preferences = parsed.preferences
    return result


def _refuse_over_limits(md: Backends, counts: Counter[tuple[Scope, str | None]]) -> None:
    for (scope, workspace), count in sorted(counts.items(), key=lambda i: (i[0][0], i[0][1] or "")):
        limit = md.limits.for_scope(scope)
        if count > limit:
            raise ScopeFull(
                f"import would put {count} memories in {scope_label(scope, workspace)} "
                f"(limit {limit}); nothing was imported",
                scope=scope.value,
                limit=limit,
            )
