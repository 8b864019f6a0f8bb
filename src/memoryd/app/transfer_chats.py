"""The user's recorded chats as lines of an export, so moving elsewhere keeps the history.

docs/cli.md ("The user's recorded chats") gives the fields. A line's ``id`` only ties the
file together: an import gives each chat a new id and rewrites the links to where each
line went. A chat links only what a turn in its workspace could have injected; an import
naming anything else is refused, and an export leaves such links out. An id naming
another user's memory is dropped like one naming none, so the answer never tells.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memoryd.app.chat_log import check_chat
from memoryd.domain.errors import InvalidInput
from memoryd.domain.injection import injectable_into
from memoryd.domain.rules import validate_slug
from memoryd.storage import import_staging
from memoryd.storage.chat_erasure import batches, highest_given_chat_id
from memoryd.storage.import_staging import BATCH_ROWS

if TYPE_CHECKING:
    from memoryd.domain.models import Chat
    from memoryd.storage.database import Database
    from memoryd.storage.repository import Repository

CHAT = "chat"
ID, WORKSPACE, PROMPT, RESPONSE = "id", "workspace", "prompt", "response"
CREATED, PROCESSED, MEMORIES = "created_at", "memory_processed", "memory_ids"
KNOWN = (CREATED, ID, MEMORIES, PROCESSED, PROMPT, RESPONSE, WORKSPACE)
REQUIRED = (WORKSPACE, PROMPT)
MAX_MEMORY_ID = 32
_ChatKey = tuple[str, datetime, str, str]  # workspace, time, prompt, reply


@dataclass(frozen=True)
class ChatRecord:
    """A checked chat line."""

    line: int
    id: int | None  # None: written by hand, nothing can name it
    workspace: str
    prompt: str
    response: str
    created_at: datetime | None  # None: the time of the import
    processed: bool
    memory_ids: tuple[str, ...]


def is_chat(data: dict[str, Any]) -> bool:
    return CHAT in data


def chat_line(chat: Chat, memory_ids: Sequence[str]) -> str:
    record = {
        ID: chat.id,
        WORKSPACE: chat.workspace,
        PROMPT: chat.prompt,
        RESPONSE: chat.response,
        CREATED: chat.created_at.isoformat(),
        PROCESSED: chat.memory_processed,
        MEMORIES: list(memory_ids),
    }
    return json.dumps({CHAT: record}, sort_keys=True, ensure_ascii=False)


def export_chat_lines(repo: Repository, user_id: int) -> list[str]:
    """The user's chats, oldest first, inside the caller's read transaction; each names
    the memories it may link (see the module doc) and the ids of deleted ones."""
    found = repo.list_chats(user_id)  # ordered by created_at, id
    links = repo.chat_memory_ids([c.id for c in found])
    wanted = {i for ids in links.values() for i in ids}
    own = repo.memories_by_id(user_id, wanted)
    others = repo.memories_of_others(user_id, wanted - own.keys())

    def kept(memory_id: str, workspace: str) -> bool:
        memory = own.get(memory_id)
        if memory is None:  # a tombstone, unless the id is another user's memory now
            return memory_id not in others
        return injectable_into(memory, workspace)

    return [chat_line(c, [i for i in links.get(c.id, []) if kept(i, c.workspace)]) for c in found]


def parse_chat(
    data: dict[str, Any], line: int, parse_time: Callable[[Any, str], datetime | None]
) -> ChatRecord:
    """A decoded chat line (the file's ``line``), or InvalidInput saying what is wrong."""
    others = sorted(k for k in data if k != CHAT)
    if others:
        raise InvalidInput(f'a chat line holds only "chat", not {others[0]!r}')
    chat = data[CHAT]
    if not isinstance(chat, dict):
        raise InvalidInput('chat must be an object with "workspace" and "prompt"')
    unknown = sorted(k for k in chat if k not in KNOWN)
    if unknown:
        raise InvalidInput(f"unknown chat field {unknown[0]!r} (known: {', '.join(KNOWN)})")
    missing = [k for k in REQUIRED if k not in chat]
    if missing:
        raise InvalidInput(f"chat is missing {', '.join(missing)}")
    chat_id = chat.get(ID)
    if chat_id is not None and (
        not isinstance(chat_id, int) or isinstance(chat_id, bool) or chat_id < 1
    ):
        raise InvalidInput("chat id must be a positive whole number")
    workspace = validate_slug(chat[WORKSPACE])
    prompt, response = chat[PROMPT], chat.get(RESPONSE, "")
    check_chat(prompt, response, "chat ")
    processed = chat.get(PROCESSED, False)
    if not isinstance(processed, bool):
        raise InvalidInput(f"{PROCESSED} must be true or false")
    memory_ids = chat.get(MEMORIES, [])
    if not isinstance(memory_ids, list) or not all(
        isinstance(i, str) and 0 < len(i) <= MAX_MEMORY_ID for i in memory_ids
    ):
        raise InvalidInput(f"{MEMORIES} must be a list of memory ids")
    return ChatRecord(
        line=line,
        id=chat_id,
        workspace=workspace,
        prompt=prompt,
        response=response,
        created_at=parse_time(chat.get(CREATED), CREATED),
        processed=processed,
        memory_ids=tuple(dict.fromkeys(memory_ids)),
    )


def check_chat_ids(records: Sequence[ChatRecord]) -> None:
    seen: dict[int, int] = {}  # chat id -> its first line
    for record in records:
        if record.id is not None and seen.setdefault(record.id, record.line) != record.line:
            raise InvalidInput(
                f"line {record.line}: chat id {record.id} is also on line {seen[record.id]}"
            )


def _link_refused(chat: ChatRecord, memory_id: str, why: str) -> InvalidInput:
    return InvalidInput(
        f"line {chat.line}: the chat links memory {memory_id!r}, {why}; a chat in workspace "
        f"{chat.workspace!r} links only global memories and memories of {chat.workspace!r}"
    )


def check_links_in_file(
    records: Sequence[ChatRecord], places: Mapping[str, tuple[int, str | None]]
) -> None:
    """Refuse a chat line linking a memory line of the same file (``places``: memory id ->
    its line and workspace) that lies in another workspace than the chat."""
    for chat in records:
        for memory_id in chat.memory_ids:
            place = places.get(memory_id)
            if place is not None and place[1] not in (None, chat.workspace):
                line, workspace = place
                raise _link_refused(chat, memory_id, f"which line {line} puts in {workspace!r}")


def check_links_on_target(
    repo: Repository,
    user_id: int,
    records: Sequence[ChatRecord],
    in_file: Collection[str],
    out_of_reach: Collection[str] = (),
) -> None:
    """Refuse a chat line linking one of the user's memories the file does not hold that
    is no link of this chat: one ``out_of_reach`` (the ``protected_ids`` of
    ``memoryd.app.transfer.import_lines``) or one in another workspace -- in the same words,
    so neither tells the importer which it is. An id naming no memory of the user's is not
    refused, whether it names another user's memory or none: linking drops it, so the
    answer never says whether someone else's memory has that id."""
    wanted = {i for c in records for i in c.memory_ids if i not in in_file}
    if not wanted:
        return
    own = repo.memories_by_id(user_id, wanted)
    barred = own.keys() & set(out_of_reach)
    for chat in records:
        for memory_id in chat.memory_ids:
            if memory_id in in_file:
                continue
            memory = own.get(memory_id)
            if memory_id in barred or (
                memory is not None and not injectable_into(memory, chat.workspace)
            ):
                why = "which is not a memory of yours this chat can link"
                raise _link_refused(chat, memory_id, why)


@dataclass(frozen=True)
class StagedChats:
    """An import's chats, staged (``staged_chats``) and waiting for its last transaction."""

    import_id: str
    targets: dict[int, int]  # each line's chat id on the target, by the line's id
    skipped: int  # lines already on the target, or twice in the file
    inserted: list[tuple[int, ChatRecord]]  # each staged chat's id with its line
    given: int  # the highest chat id the target had given before (``highest_given_chat_id``)


@contextmanager
def staged_chats(
    db: Database, user_id: int, records: Sequence[ChatRecord], now: datetime
) -> Iterator[StagedChats]:
    """Stage the chats not on the target yet (new ids, in file order) for the body to
    publish (``publish_chats``), in write transactions of ``BATCH_ROWS`` each, so no
    other writer waits long (``memoryd.storage.import_staging``). When the body ends,
    however it ends, the staged rows are deleted -- and those of imports whose process
    died -- in short transactions."""
    import_id = uuid.uuid4().hex
    try:
        with db.read() as repo:  # before the staged chats' ids are given
            given = highest_given_chat_id(repo.conn)
            known = _existing(repo, user_id, records)
        new: dict[_ChatKey, ChatRecord] = {}  # a chat already there, or twice in the file, once
        for record in records:
            if (key := _key(record, now)) not in known:
                new.setdefault(key, record)
        staged = list(new.values())
        ids: list[int] = []
        for start in range(0, len(staged), BATCH_ROWS):
            batch = staged[start : start + BATCH_ROWS]
            with db.write() as repo:  # one short transaction per batch
                reserved = import_staging.reserve_chat_ids(repo.conn, len(batch))
                rows = [
                    {
                        "seq": start + n,
                        "chat_id": chat_id,
                        "user_id": user_id,
                        "workspace": r.workspace,
                        "prompt": r.prompt,
                        "response": r.response,
                        "created_at": r.created_at or now,
                        "memory_processed": r.processed,
                        "staged_at": now,
                    }
                    for n, (r, chat_id) in enumerate(zip(batch, reserved, strict=True))
                ]
                import_staging.stage(repo.conn, import_id, rows)
            ids.extend(reserved)
        known.update(zip(new, ids, strict=True))
        targets = {r.id: known[_key(r, now)] for r in records if r.id is not None}
        inserted = list(zip(ids, staged, strict=True))
        yield StagedChats(import_id, targets, len(records) - len(staged), inserted, given)
    finally:
        drop_staged(db, import_id, now)


def publish_chats(repo: Repository, staged: StagedChats, *, learns: bool) -> None:
    """Copy the staged chats into the user's chats, in the import's last write
    transaction; those of a user who does not let extraction learn from their chats arrive
    processed. InvalidInput if some went (an import stalled past
    ``import_staging.STALE``): the transaction then rolls back and nothing is imported."""
    wanted = len(staged.inserted)
    copied = import_staging.publish(repo.conn, staged.import_id, learns=learns) if wanted else 0
    if copied != wanted:
        raise InvalidInput(
            f"the import's chats were cleared while it waited ({copied} of {wanted} left);"
            " nothing was imported, try again"
        )


def drop_staged(db: Database, import_id: str, now: datetime) -> None:
    """Delete the import's staged chats, and those of imports whose process died, in
    short transactions (``memoryd.storage.import_staging``)."""
    with db.read() as repo:
        dead = import_staging.stale(repo.conn, now)
    for stale_id in (import_id, *dead):
        while True:
            with db.write() as repo:
                if import_staging.drop(repo.conn, stale_id) == 0:
                    break


def _existing(repo: Repository, user_id: int, records: Sequence[ChatRecord]) -> dict[_ChatKey, int]:
    """The user's chats at the (workspace, time) of some line, by their key (the first
    when several have it); the text is read only for those, never for the whole history."""
    slugs = {
        workspace_id: slug
        for slug in {r.workspace for r in records}
        if (workspace_id := repo.workspace_id(slug)) is not None
    }
    if not slugs:
        return {}
    wanted = {(r.workspace, r.created_at) for r in records if r.created_at}
    by_id: dict[int, tuple[str, datetime]] = {}
    for chat_id, workspace_id, created_at in repo.chat_times(user_id, list(slugs)):
        if (slugs[workspace_id], created_at) in wanted:
            by_id[chat_id] = (slugs[workspace_id], created_at)
    found: dict[_ChatKey, int] = {}
    for part in batches(by_id):
        for chat in repo.list_chats(user_id, ids=part):
            found.setdefault((*by_id[chat.id], chat.prompt, chat.response), chat.id)
    return found


def _key(record: ChatRecord, now: datetime) -> _ChatKey:
    return (record.workspace, record.created_at or now, record.prompt, record.response)


def link_chats(
    repo: Repository,
    user_id: int,
    inserted: Sequence[tuple[int, ChatRecord]],
    memory_targets: dict[str, str],
    out_of_reach: Collection[str] = (),
) -> None:
    """Link each inserted chat to its injected memories as they are on the target (see the
    module doc). ``check_links_on_target`` refused the file's bad links before; what a
    concurrent write changed since is dropped here rather than linked: a memory that is
    not the user's, that the importer may not reach (``protected_ids`` of
    ``memoryd.app.transfer.import_lines``), or that lies in another workspace."""
    wanted = {memory_targets.get(i, i): None for _, record in inserted for i in record.memory_ids}
    owned = repo.memories_by_id(user_id, wanted) if wanted else {}
    owned = {i: m for i, m in owned.items() if i not in out_of_reach}

    def linked(record: ChatRecord) -> list[str]:
        ids = (memory_targets.get(i, i) for i in record.memory_ids)
        return [i for i in ids if i in owned and injectable_into(owned[i], record.workspace)]

    # in few statements: this runs in the import's last transaction
    repo.link_many_chats([(chat_id, linked(record)) for chat_id, record in inserted])
