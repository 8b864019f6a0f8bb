"""Process configuration from the environment: one pydantic-settings class.

Run-time switches that admins flip (``memory_enabled`` ...) are not here: they live in
the database (``memoryd.domain.runtime_settings``) so every process sees the same value.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import platformdirs
from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from memoryd.domain.interval import parse_interval


def default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir("memoryd", appauthor=False))


class MemorydSettings(BaseSettings):
    """Environment variables (prefix ``MEMORYD_``) that configure a memoryd process."""

    model_config = SettingsConfigDict(env_prefix="MEMORYD_", extra="ignore")

    data_dir: Path = Field(default_factory=default_data_dir)
    # where the re-quantised embedder and local LLM files live; None: <data_dir>/models
    models_dir: Path | None = None
    database_url: str | None = None
    reranker: str = "hybrid"
    # the embedder, by its plugin name: "routed" (MiniLM for English turns, e5 for the
    # others), "minilm" or "e5" (docs/reranking.md, "Embedders")
    embedder: str = "routed"
    # the embedding graph: "auto" (re-quantised, kernel measured here), "u8s8", "u8u8", "off"
    embedder_quantize: Literal["auto", "u8s8", "u8u8", "off"] = "auto"

    # the server (``memoryd serve``, docs/server.md)
    single_user: bool = False
    admin_password: str | None = None
    cookie_secure: bool | None = None  # None: Secure when the request came over https
    session_days: int = 14
    # security limits (docs/security.md)
    max_request_bytes: int = Field(default=6_000_000, ge=1024)
    # an import over HTTP (chat histories included): streamed to a temporary file
    max_import_bytes: int = Field(default=100_000_000, ge=1024)
    body_timeout_s: float = Field(default=60.0, gt=0)  # to receive a request's whole body
    login_attempts: int = Field(default=5, ge=1)  # free failures per account and address
    login_concurrency: int = Field(default=1, ge=1)  # password checks (Argon2) at once
    proxy_upstream_url: str | None = None  # default: the extraction LLM settings
    proxy_upstream_key: str | None = None
    proxy_provider: str | None = None  # "openai" (any compatible server), "anthropic", "local"
    proxy_model: str | None = None  # model the web chat page asks for
    proxy_timeout_s: float = 600.0

    # LLM used by extraction (issue 3); see docs/extraction.md
    llm_provider: str | None = None
    llm_model: str | None = None
    llm_base_url: str | None = None
    llm_api_key: SecretStr | None = None
    # seconds per LLM call, for every provider: openai, anthropic and the bundled local model
    llm_timeout: float = Field(default=120.0, gt=0)
    llm_threads: int | None = Field(default=None, ge=1)  # local model; default half the cores
    extraction_interval: str = Field(
        default="3hr",
        validation_alias=AliasChoices("MEMORY_EXTRACTION_INTERVAL", "extraction_interval"),
    )
    idle_threshold_ms: int = Field(
        default=1_200_000,
        ge=0,
        validation_alias=AliasChoices("MEMORY_IDLE_THRESHOLD_MS", "idle_threshold_ms"),
    )
    extraction_min_messages: int = Field(default=5, ge=1)
    extraction_batch_chats: int = Field(default=16, ge=1, le=100)
    extraction_max_attempts: int = Field(default=5, ge=1)
    extraction_backoff_seconds: float = Field(default=300.0, gt=0)
    # memories a run asks the questions they answer after its pairs, 2 LLM calls each (0: off)
    question_memories_per_run: int = Field(default=50, ge=0)

    @field_validator("extraction_interval")
    @classmethod
    def _check_interval(cls, value: str) -> str:
        parse_interval(value)
        return value

    @property
    def models_path(self) -> Path:
        """The models directory: ``models_dir``, or ``<data_dir>/models`` when unset."""
        return self.models_dir or self.data_dir / "models"

    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{self.data_dir / 'memoryd.db'}"


def environment_error(exc: ValidationError) -> str | None:
    """One line naming the environment variable(s) ``MemorydSettings`` refused, or None
    when the error is not about these settings."""
    if exc.title != MemorydSettings.__name__:
        return None
    fields = MemorydSettings.model_fields
    problems = []
    for error in exc.errors(include_url=False):
        name = str(error["loc"][0]) if error["loc"] else ""
        field = fields.get(name)
        alias = field.validation_alias if field is not None else None
        if isinstance(alias, AliasChoices):
            variable = str(alias.choices[0])
        else:
            variable = f"MEMORYD_{name.upper()}" if field is not None else name
        message = str(error["msg"]).removeprefix("Value error, ")
        if variable in message:  # a validator of ours already named the variable
            problems.append(message)
        else:
            problems.append(f"{variable}={error.get('input')!r}: {message}")
    return "invalid environment: " + "; ".join(problems)
