"""The JSON forms of memories, chats, suggestions, audit entries and a turn's memories:
the REST API answers with them (its OpenAPI schema), the MCP tools return them, and the
web UI renders a memory's detail from the same form memoryd.js reads from the API.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

from memoryd.access.memories import Overview, ScopeUsage
from memoryd.domain.models import AuditEntry, Chat, Memory, Suggestion, UsedMemory, json_ready

if TYPE_CHECKING:
    from memoryd.domain.injection import Turn
    from memoryd.domain.results import MemoryDetail as Detail


class MemoryOut(BaseModel):
    id: str
    user_id: int
    scope: Literal["global", "workspace"]
    workspace: str | None
    content: str
    source: str
    created_at: str
    updated_at: str
    last_used_at: str | None
    source_chat_ids: list[int]
    expires_at: str | None = None
    expired: bool = Field(default=False, description="Past its expiry: never injected.")
    run_id: str | None = Field(default=None, description="The extraction run that made it.")
    questions: list[str] | None = Field(
        default=None,
        description="Questions the extraction LLM wrote that it answers (they help choose "
        "it for a message asking them); null until asked, [] when the answer held none.",
    )

    @classmethod
    def of(cls, memory: Memory, now: datetime | None = None) -> MemoryOut:
        return cls(**memory.to_dict(), expired=memory.is_expired(now or datetime.now(UTC)))


class MemoryList(BaseModel):
    memories: list[MemoryOut]
    scopes: list[ScopeUsage]

    @classmethod
    def of(cls, listing: Overview) -> MemoryList:
        now = datetime.now(UTC)
        return cls(memories=[MemoryOut.of(m, now) for m in listing.memories], scopes=listing.scopes)


class AuditOut(BaseModel):
    """One entry of the audit log: a change to a memory, a deletion of chats, or a change
    of one of the user's settings."""

    id: int = Field(description="The entry's id; ids only grow (the paging cursor).")
    memory_id: str = Field(
        description="The memory changed; empty for delete_chats and change_setting."
    )
    action: str = Field(
        description="create, update, delete, promote, demote, delete_chats or change_setting."
    )
    actor: str = Field(
        description="Who: user:<id>, admin:<id>, admin (the command line), "
        "extraction:<run id>, import:<id> or system."
    )
    before: dict[str, Any] | None = Field(
        description="The memory before the change (for delete_chats: count, workspaces and "
        "chat_ids, never the text; for change_setting: setting, workspace (null: the whole "
        "account) and value); null for a create."
    )
    after: dict[str, Any] | None = Field(
        description="The memory after (for change_setting: the setting's new value, as in "
        "before); null for a delete."
    )
    at: str

    @classmethod
    def of(cls, entry: AuditEntry) -> AuditOut:
        return cls(**json_ready(entry, "id memory_id action actor before after at"))


class UsedMemoryOut(BaseModel):
    """A memory injected into a chat; ``deleted`` (and no content) once it was deleted."""

    id: str
    deleted: bool
    content: str | None
    scope: Literal["global", "workspace"] | None
    workspace: str | None

    @classmethod
    def of(cls, used: UsedMemory) -> UsedMemoryOut:
        if used.memory is None:
            return cls(id=used.id, deleted=True, content=None, scope=None, workspace=None)
        return cls(id=used.id, deleted=False, **json_ready(used.memory, "content scope workspace"))


class ChatOut(BaseModel):
    id: int
    user_id: int
    workspace: str
    prompt: str
    response: str
    created_at: str
    memory_processed: bool
    memories: list[UsedMemoryOut] = Field(
        default_factory=list, description="The memories injected into this chat, in order."
    )

    @classmethod
    def of(cls, chat: Chat, memories: Sequence[UsedMemory] = ()) -> ChatOut:
        return cls(
            **json_ready(chat, "id user_id workspace prompt response created_at memory_processed"),
            memories=[UsedMemoryOut.of(m) for m in memories],
        )


class MemoryDetail(MemoryOut):
    """One memory with where it came from and everything that happened to it."""

    created_by: str | None = Field(
        description="Who created it, as in the audit log: user:<id>, admin:<id>, "
        "extraction:<run id>, import:<id>."
    )
    source_chats: list[ChatOut] = Field(
        description="The chats it was extracted from that are still stored."
    )
    deleted_source_chat_ids: list[int] = Field(
        default_factory=list,
        description="The ids of chats it was extracted from that are no longer stored: "
        "deleted since, or recorded on another server before an import.",
    )
    hidden_source_chats: int = Field(
        default=0,
        description="How many of the chats it was extracted from are in workspaces the "
        "caller cannot open (one the user left, say): counted here, never shown, as "
        "the chat routes do not show them either.",
    )
    history: list[AuditOut]

    @classmethod
    def of_detail(cls, detail: Detail) -> MemoryDetail:
        return cls(
            **MemoryOut.of(detail.memory).model_dump(),
            created_by=detail.created_by,
            source_chats=[ChatOut.of(c) for c in detail.source_chats],
            deleted_source_chat_ids=list(detail.deleted_source_chat_ids),
            hidden_source_chats=detail.hidden_source_chats,
            history=[AuditOut.of(e) for e in detail.history],
        )


class SuggestionOut(BaseModel):
    id: str
    user_id: int
    kind: Literal["create", "update"]
    scope: Literal["global", "workspace"]
    workspace: str | None
    content: str
    status: Literal["pending", "accepted", "rejected"]
    target_id: str | None = Field(description="The memory an update would change.")
    target_content: str | None = Field(description="That memory's text when suggested.")
    expires_at: str | None
    source_chat_ids: list[int]
    run_id: str | None
    created_at: str
    decided_at: str | None
    memory_id: str | None = Field(description="The memory written when it was accepted.")
    origin: str | None = Field(
        default=None,
        description="The workspace its chats were in: where accepting with scope "
        "'workspace' puts it (null when those chats are deleted).",
    )

    @classmethod
    def of(cls, suggestion: Suggestion) -> SuggestionOut:
        return cls(**suggestion.to_dict())


class ChosenMemory(MemoryOut):
    score: float | None


class ContextOut(BaseModel):
    enabled: bool
    section: str
    system_prompt: str
    memories: list[ChosenMemory]
    reranker: str | None
    fallback_reason: str | None

    @classmethod
    def of(cls, turn: Turn, system_prompt: str | None = None) -> ContextOut:
        return cls(
            enabled=turn.enabled,
            section=turn.section,
            system_prompt=turn.system_prompt(system_prompt),
            memories=[
                ChosenMemory(**s.memory.to_dict(), score=s.score)
                for s in (*turn.global_memories, *turn.workspace_memories)
            ],
            reranker=turn.reranker,
            fallback_reason=turn.fallback_reason,
        )
