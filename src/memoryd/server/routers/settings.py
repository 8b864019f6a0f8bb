"""Run-time settings (R7), for admins: any setting ``memoryd.domain.runtime_settings``
defines. A change is all or nothing: every value is parsed before any is stored.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from memoryd.domain import runtime_settings
from memoryd.domain.errors import InvalidInput
from memoryd.server.deps import AdminUser, State
from memoryd.server.schemas import SettingsOut, SettingsPatch

router = APIRouter(prefix="/api/v1/settings", tags=["settings"])


@router.get("", response_model=SettingsOut, summary="Current settings (admin)")
def get_settings(state: State, _: AdminUser) -> dict[str, Any]:
    return state.md.get_settings()


@router.get("/schema", summary="What each setting means (admin)")
def describe_settings(_: AdminUser) -> dict[str, dict[str, Any]]:
    return {
        key: {"default": spec.default, "description": spec.description}
        for key, spec in runtime_settings.SETTINGS.items()
    }


@router.patch("", response_model=SettingsOut, summary="Change settings (admin)")
def patch_settings(state: State, _: AdminUser, body: SettingsPatch) -> dict[str, Any]:
    changes = {k: v for k, v in body.model_dump(exclude_unset=True).items() if v is not None}
    if not changes:
        raise InvalidInput('no setting given; send e.g. {"memory_enabled": false}')
    parsed = {key: state.md.parse_setting(key, value) for key, value in changes.items()}
    for key, value in parsed.items():
        state.md.set_setting(key, value)
    return state.md.get_settings()
