"""Request and response bodies of the REST API (they make the OpenAPI schema).

Request models forbid unknown fields, so a typo is a 422 rather than a silent no-op.
Content rules (length, one line, no markup) are checked by the domain, not duplicated here.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Annotated, Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field, model_validator

from memoryd.app.transfer_preferences import Preferences
from memoryd.domain.models import AuditEntry, Chat, Memory, Suggestion, UsedMemory, User, Workspace

Name = Field(min_length=1, max_length=200)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


# memories -------------------------------------------------------------------------
EXPIRY_HELP = (
    "Remember until: a date (YYYY-MM-DD, kept to the end of that day, UTC) or an ISO 8601 "
    "time. Once passed, the memory is never injected and is deleted after the "
    "expired_grace_days setting."
)


class MemoryCreate(Strict):
    content: str = Field(max_length=10_000, description="One line of plain text, ≤500 chars.")
    scope: Literal["global", "workspace"] | None = Field(
        default=None, description="Default: 'workspace' when a workspace is given, else global."
    )
    workspace: str | None = Field(default=None, max_length=64)
    expires_at: str | None = Field(default=None, max_length=64, description=EXPIRY_HELP)


class MemoryEdit(Strict):
    content: str | None = Field(default=None, max_length=10_000)
    expires_at: str | None = Field(
        default=None,
        max_length=64,
        description=EXPIRY_HELP + " Send null to remove the expiry; leave it out to keep it.",
    )


class Demote(Strict):
    workspace: str = Field(min_length=1, max_length=64)


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


class ScopeUsage(BaseModel):
    scope: Literal["global", "workspace"]
    workspace: str | None
    count: int
    limit: int
    full: bool


class MemoryList(BaseModel):
    memories: list[MemoryOut]
    scopes: list[ScopeUsage]


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
        return cls(
            id=entry.id,
            memory_id=entry.memory_id,
            action=entry.action.value,
            actor=entry.actor,
            before=entry.before,
            after=entry.after,
            at=entry.at.isoformat(),
        )


# users, keys, workspaces ---------------------------------------------------------------
class UserOut(BaseModel):
    id: int
    name: str
    role: Literal["admin", "default"]

    @classmethod
    def of(cls, user: User) -> UserOut:
        return cls(id=user.id, name=user.name, role=user.role.value)


ReviewMode = Literal["off", "updates", "everything"]
ReviewChoice = Literal["default", "off", "updates", "everything"]
# memoryd.domain.language.LANGUAGE_CHOICES and PREFERENCE_CHOICES (test_catalogue.py)
Language = Literal["auto", "en", "fr", "es", "de", "pt", "it", "id", "zh", "ja", "ko"]
LanguageChoice = Literal[
    "default", "auto", "en", "fr", "es", "de", "pt", "it", "id", "zh", "ja", "ko"
]


class UserOverview(UserOut):
    """A user as the admin panel lists them."""

    global_memories: int = Field(description="Global memories stored.")
    workspace_memories: int = Field(description="Workspace memories stored, all workspaces.")
    workspaces: list[str] = Field(description="Slugs the user can use (all, for an admin).")
    learn_from_chats: bool = Field(
        description="The user's own switch: off, extraction never reads their chats."
    )
    memory_review: ReviewChoice = Field(
        description="The user's own review mode, or default (the instance's setting)."
    )


class Me(UserOut):
    workspaces: list[WorkspaceOut]
    auth: str
    learn_from_chats: bool = Field(
        description="Off: your chats are recorded but memoryd never learns from them."
    )
    memory_review: ReviewChoice = Field(
        description="Your own choice of which extraction changes wait for your review: off,"
        " updates (changes to existing memories), everything (new memories too), or default"
        " (the instance's setting)."
    )
    memory_review_effective: ReviewMode = Field(
        description="The review mode extraction uses for your memories now."
    )
    language: LanguageChoice = Field(
        description="Your own language for the injected heading and the web UI: a language"
        " code, auto (the language of each message) or default (the server's MEMORYD_LANGUAGE)."
    )
    language_effective: Language = Field(
        description="The language choice in force for you now: yours, else the server's."
    )


class MePatch(Strict):
    """Give one or more."""

    learn_from_chats: bool | None = None
    memory_review: ReviewChoice | None = None
    language: LanguageChoice | None = None

    @model_validator(mode="after")
    def _something(self) -> MePatch:
        if self.learn_from_chats is None and self.memory_review is None and not self.language:
            raise ValueError("give learn_from_chats, memory_review, language or several")
        return self


class UserCreate(Strict):
    name: str = Field(min_length=1, max_length=64)
    role: Literal["admin", "default"] = "default"
    password: str | None = Field(default=None, max_length=1024)
    workspaces: list[str] = Field(default_factory=list, max_length=100)


class UserEdit(Strict):
    role: Literal["admin", "default"] | None = None
    password: str | None = Field(default=None, max_length=1024)


class PasswordChange(Strict):
    current_password: str = Field(max_length=1024)
    new_password: str = Field(max_length=1024)
    revoke_api_keys: bool = Field(
        default=False,
        description="Also revoke every API key of this user (browser sessions always end).",
    )


class ApiKeyCreate(Strict):
    name: str = Field(min_length=1, max_length=100)


class ApiKeyOut(BaseModel):
    id: str
    user_id: int
    name: str
    prefix: str
    created_at: str
    last_used_at: str | None
    revoked: bool


class NewApiKeyOut(ApiKeyOut):
    key: str = Field(description="The secret; shown this once, store it now.")


class WorkspaceOut(BaseModel):
    slug: str
    name: str

    @classmethod
    def of(cls, workspace: Workspace) -> WorkspaceOut:
        return cls(slug=workspace.slug, name=workspace.name)


class WorkspaceCreate(Strict):
    slug: str = Field(min_length=1, max_length=64)
    name: str | None = Field(default=None, max_length=200)


# chats and context ---------------------------------------------------------------------
class ChatCreate(Strict):
    workspace: str = Field(min_length=1, max_length=64)
    prompt: str
    response: str
    memory_ids: list[Annotated[str, Field(max_length=32)]] = Field(
        default_factory=list,
        max_length=100,
        description="The memories your app injected (e.g. from /api/v1/context), in order.",
    )


class UsedMemoryOut(BaseModel):
    """A memory injected into a chat; ``deleted`` (and no content) once it was deleted."""

    id: str
    deleted: bool
    content: str | None
    scope: Literal["global", "workspace"] | None
    workspace: str | None

    @classmethod
    def of(cls, used: UsedMemory) -> UsedMemoryOut:
        memory = used.memory
        if memory is None:
            return cls(id=used.id, deleted=True, content=None, scope=None, workspace=None)
        return cls(
            id=used.id,
            deleted=False,
            content=memory.content,
            scope=memory.scope.value,
            workspace=memory.workspace,
        )


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
            id=chat.id,
            user_id=chat.user_id,
            workspace=chat.workspace,
            prompt=chat.prompt,
            response=chat.response,
            created_at=chat.created_at.isoformat(),
            memory_processed=chat.memory_processed,
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


class ChatsDeleted(BaseModel):
    deleted: int = Field(description="How many recorded chats were deleted.")


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


class SuggestionAccept(Strict):
    content: str | None = Field(
        default=None, max_length=10_000, description="Your own wording (edit, then accept)."
    )
    expires_at: str | None = Field(default=None, max_length=64, description=EXPIRY_HELP)
    scope: Literal["global", "workspace"] | None = Field(
        default=None,
        description="Where a new memory goes: global, or workspace (the one its chats were "
        "in, 'origin'); left out, where extraction put it. A change to a memory stays where "
        "that memory is.",
    )


class HistoryMessage(BaseModel):
    model_config = ConfigDict(extra="allow")
    role: str = Field(max_length=32)
    content: str | list[Any] | None = None


class ContextRequest(Strict):
    message: str = Field(max_length=200_000)
    workspace: str | None = Field(default=None, max_length=64)
    history: list[HistoryMessage] = Field(default_factory=list, max_length=1000)
    system_prompt: str | None = Field(
        default=None, max_length=200_000, description="Your base system prompt, if any."
    )
    incognito: bool = Field(
        default_factory=bool,  # False; a factory keeps it optional in generated clients
        description="An incognito turn: the memories' last-used times are left alone "
        "(and you should not record the exchange).",
    )


class ChosenMemory(MemoryOut):
    score: float | None


class ContextOut(BaseModel):
    enabled: bool
    section: str
    system_prompt: str
    memories: list[ChosenMemory]
    reranker: str | None
    fallback_reason: str | None


# settings, transfer --------------------------------------------------------------------
class SettingsOut(BaseModel):
    model_config = ConfigDict(extra="allow")
    memory_enabled: bool
    memory_auto_extraction: bool
    extraction_provider: str = ""
    extraction_model: str = ""


class SettingsPatch(BaseModel):
    """Any runtime setting by name; unknown names and bad values are a 422."""

    model_config = ConfigDict(extra="allow")
    memory_enabled: bool | None = None
    memory_auto_extraction: bool | None = None
    extraction_provider: str | None = Field(
        default=None, max_length=100, description="openai, anthropic, local or a plugin's"
    )
    extraction_model: str | None = Field(default=None, max_length=200)


class ImportedPreferences(BaseModel):
    """The user's own choices an import set (a choice the file leaves out is null)."""

    learn_from_chats: bool | None = None
    memory_review: ReviewChoice | None = None
    language: LanguageChoice | None = None

    @classmethod
    def of(cls, preferences: Preferences | None) -> ImportedPreferences | None:
        if preferences is None:
            return None
        return cls(
            learn_from_chats=preferences.learn_from_chats,
            memory_review=cast("ReviewChoice | None", preferences.memory_review),
            language=cast("LanguageChoice | None", preferences.language),
        )


class ImportOut(BaseModel):
    created: int
    updated: int
    skipped_duplicates: int
    unchanged: int = Field(
        default=0,
        description="Lines naming one of the user's memories exactly as it is stored: not"
        " counted as updated, and no audit entry.",
    )
    workspaces_created: list[str]
    preferences: ImportedPreferences | None = Field(
        default=None,
        description="The choices the file's preferences line set; null when the file has"
        " none or the import was asked not to (preferences=false).",
    )
    chats_created: int = Field(
        default=0, description="Recorded chats the file added (each with a new id)."
    )
    chats_skipped: int = Field(
        default=0,
        description="The file's chats already recorded (same workspace, time, prompt and"
        " reply), not added twice.",
    )


class HistoryImportOut(BaseModel):
    """A history import started by ``POST /api/v1/history-imports``, and how far it got."""

    id: str
    state: Literal["running", "done", "failed"]
    format: Literal["chatgpt", "claude", "openwebui"]
    workspace: str
    conversations: int
    total: int = Field(description="Turns in the file (the user's messages with their answers).")
    done: int = Field(description="Turns looked at so far: recorded + already + skipped.")
    recorded: int = Field(description="Turns recorded as new chats.")
    already: int = Field(description="Turns recorded before (same workspace, time, text).")
    skipped: int = Field(description="Turns without text, without a time, or too long.")
    error: str | None = Field(default=None, description="Why a failed import stopped.")


class ErrorDetail(BaseModel):
    model_config = ConfigDict(extra="allow")  # e.g. scope and limit of a full scope
    type: str = Field(description="not_found, scope_full, duplicate_memory, invalid_input, ...")
    message: str = Field(description="What went wrong, for a person to read.")
    code: str | None = None


class ErrorOut(BaseModel):
    """Every error answer of the API and the proxy (see memoryd.server.errors)."""

    error: ErrorDetail


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorOut, "description": description}
    for status, description in (
        (401, "No or a wrong API key / session"),
        (403, "Not allowed"),
        (404, "No such user, workspace or memory (for this caller)"),
        (409, "A full scope, a duplicate, or a name already taken"),
        (422, "Invalid input"),
    )
}


class Health(BaseModel):
    status: Literal["ok"]
    database: str
    version: str


Me.model_rebuild()
