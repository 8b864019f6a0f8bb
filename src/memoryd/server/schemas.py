"""Request and response bodies of the REST API (they make the OpenAPI schema).

Request models forbid unknown fields, so a typo is a 422 rather than a silent no-op.
Content rules (length, one line, no markup) are checked by the domain, not duplicated here.
The forms of memories, chats, suggestions and audit entries that MCP and the web UI show
too are ``memoryd.access.wire``'s.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from memoryd.domain.models import User, Workspace


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


# users, keys, workspaces ---------------------------------------------------------------
class UserOut(BaseModel):
    id: int
    name: str
    role: Literal["admin", "default"]

    @classmethod
    def of(cls, user: User) -> UserOut:
        return cls(id=user.id, name=user.name, role=user.role.value)


ReviewMode = Literal["off", "updates", "everything"]
ReviewChoice = Literal["default", ReviewMode]
# memoryd.domain.language.LANGUAGE_CHOICES and PREFERENCE_CHOICES (test_catalogue.py)
Language = Literal["auto", "en", "fr", "es", "de", "pt", "it", "id", "zh", "ja", "ko"]
LanguageChoice = Literal["default", Language]


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


class ImportedPreferences(BaseModel):
    """The user's own choices an import set (a choice the file leaves out is null)."""

    learn_from_chats: bool | None = None
    memory_review: ReviewChoice | None = None
    language: LanguageChoice | None = None


class MePatch(ImportedPreferences, Strict):
    """Give one or more."""

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


class ChatsDeleted(BaseModel):
    deleted: int = Field(description="How many recorded chats were deleted.")


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
