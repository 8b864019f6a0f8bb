"""Export and import of a user's memories as JSON lines (R12).

One memory per line, keys sorted, UTF-8, ordered by scope, workspace, creation time and id,
so exporting, importing into an empty database and exporting again gives the same bytes.
An import is all or nothing: one bad line or a scope over its limit changes nothing.
"""

from __future__ import annotations

import json
import re
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memoryd.domain.errors import InvalidContent, InvalidInput, ScopeFull
from memoryd.domain.models import Actor, AuditAction, Memory, Scope, Source
from memoryd.domain.rules import content_key, normalize_content, resolve_scope, scope_label
from memoryd.storage.repository import vector_bytes

if TYPE_CHECKING:
    from collections.abc import Iterable

    from memoryd.service import Memoryd

_ID = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
FIELDS = (
    "content",
    "created_at",
    "id",
    "last_used_at",
    "scope",
    "source",
    "source_chat_ids",
    "updated_at",
    "workspace",
)


def memory_line(memory: Memory) -> str:
    record = {
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
    return json.dumps(record, sort_keys=True, ensure_ascii=False)


def export_lines(md: Memoryd, user_id: int) -> list[str]:
    memories = md.list_memories(user_id)
    memories.sort(key=lambda m: (m.scope.value, m.workspace or "", m.created_at, m.id))
    return [memory_line(m) for m in memories]


@dataclass
class ImportResult:
    created: int = 0
    updated: int = 0
    skipped_duplicates: int = 0
    workspaces_created: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Record:
    line: int
    id: str
    scope: Scope
    workspace: str | None
    content: str
    source: Source
    created_at: datetime
    updated_at: datetime
    last_used_at: datetime | None
    source_chat_ids: list[int]


def _time(value: Any, name: str, line: int, *, optional: bool = False) -> datetime | None:
    if value is None and optional:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except (TypeError, ValueError):
        raise InvalidInput(f"line {line}: {name} is not an ISO 8601 time") from None
    if parsed.tzinfo is None:
        raise InvalidInput(f"line {line}: {name} has no time zone")
    return parsed


def parse_line(text: str, line: int) -> _Record:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"line {line}: not JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise InvalidInput(f"line {line}: expected a JSON object")
    missing = [k for k in FIELDS if k not in data]
    if missing:
        raise InvalidInput(f"line {line}: missing {', '.join(missing)}")
    if not isinstance(data["id"], str) or not _ID.match(data["id"]):
        raise InvalidInput(f"line {line}: invalid id {data['id']!r}")
    try:
        scope, workspace = resolve_scope(data["scope"], data["workspace"])
        content = normalize_content(data["content"])
        source = Source(data["source"])
    except (InvalidContent, InvalidInput, ValueError) as exc:
        raise InvalidInput(f"line {line}: {exc}") from None
    except Exception as exc:
        raise InvalidInput(f"line {line}: {exc}") from None
    chats = data["source_chat_ids"]
    if not isinstance(chats, list) or not all(
        isinstance(c, int) and not isinstance(c, bool) for c in chats
    ):
        raise InvalidInput(f"line {line}: source_chat_ids must be a list of integers")
    created = _time(data["created_at"], "created_at", line)
    updated = _time(data["updated_at"], "updated_at", line)
    assert created is not None and updated is not None
    return _Record(
        line=line,
        id=data["id"],
        scope=scope,
        workspace=workspace,
        content=content,
        source=source,
        created_at=created,
        updated_at=updated,
        last_used_at=_time(data["last_used_at"], "last_used_at", line, optional=True),
        source_chat_ids=chats,
    )


def import_lines(md: Memoryd, user_id: int, lines: Iterable[str], actor: Actor) -> ImportResult:
    records = [parse_line(t, n) for n, t in enumerate(lines, start=1) if t.strip()]
    seen = Counter(r.id for r in records)
    repeated = [i for i, n in seen.items() if n > 1]
    if repeated:
        raise InvalidInput(f"memory id {repeated[0]!r} appears more than once")
    vectors = md.embedder.embed([r.content for r in records])
    result = ImportResult()
    with md.db.write() as repo:
        md.store.require_user(repo, user_id, lock=True)
        for record, vector in zip(records, vectors, strict=True):
            workspace_id = None
            if record.workspace:
                workspace_id = repo.workspace_id(record.workspace)
                if workspace_id is None:
                    repo.insert_workspace(record.workspace, record.workspace, md.clock())
                    workspace_id = repo.workspace_id(record.workspace)
                    result.workspaces_created.append(record.workspace)
            key = content_key(record.content)
            owner = repo.owner_of(record.id)
            memory_id = record.id if owner in (None, user_id) else None
            duplicate = repo.find_duplicate(user_id, record.scope, workspace_id, key)
            if duplicate and duplicate != memory_id:
                result.skipped_duplicates += 1
                continue
            values = {
                "scope": record.scope.value,
                "workspace_id": workspace_id,
                "content": record.content,
                "content_key": key,
                "source": record.source.value,
                "created_at": record.created_at,
                "updated_at": record.updated_at,
                "last_used_at": record.last_used_at,
                "source_chats": record.source_chat_ids,
                "embedding": vector_bytes(vector),
                "embedder": md.embedder.name,
            }
            before = repo.get_memory(memory_id) if owner == user_id and memory_id else None
            if before is not None and memory_id is not None:
                repo.update_memory(memory_id, values)
                action = AuditAction.UPDATE
                result.updated += 1
            else:
                memory_id = memory_id or uuid.uuid4().hex
                repo.insert_memory({"id": memory_id, "user_id": user_id, **values})
                action = AuditAction.CREATE
                result.created += 1
            after = repo.get_memory(memory_id)
            repo.add_audit(
                memory_id=memory_id,
                user_id=user_id,
                action=action,
                actor=actor.label,
                before=before.to_dict() if before else None,
                after=after.to_dict() if after else None,
                now=md.clock(),
            )
        _check_limits(md, repo.list_memories(user_id))
    return result


def _check_limits(md: Memoryd, memories: list[Memory]) -> None:
    counts = Counter((m.scope, m.workspace) for m in memories)
    for (scope, workspace), count in counts.items():
        limit = md.limits.for_scope(scope)
        if count > limit:
            raise ScopeFull(
                f"import would put {count} memories in {scope_label(scope, workspace)} "
                f"(limit {limit}); nothing was imported",
                scope=scope.value,
                limit=limit,
            )
