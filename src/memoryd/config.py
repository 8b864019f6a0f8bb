"""Process configuration from the environment: one pydantic-settings class.

Run-time switches that admins flip (``memory_enabled`` ...) are not here: they live in
the database (``memoryd.domain.runtime_settings``) so every process sees the same value.
"""

from __future__ import annotations

from pathlib import Path

import platformdirs
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


def default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir("memoryd", appauthor=False))


class MemorydSettings(BaseSettings):
    """Environment variables (prefix ``MEMORYD_``) that configure a memoryd process."""

    model_config = SettingsConfigDict(env_prefix="MEMORYD_", extra="ignore")

    data_dir: Path = Field(default_factory=default_data_dir)
    database_url: str | None = None
    reranker: str = "hybrid"

    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{self.data_dir / 'memoryd.db'}"
