"""Changes to a user's settings through the REST API land in their audit log, read back
with ``GET /api/v1/audit`` on a real server on loopback, over SQLite and PostgreSQL:
``PATCH /me`` (their own learning switch and review mode), ``PATCH /users/{id}`` (an
admin's role change) and an admin's import with a preferences line; each real change is
one ``change_setting`` entry naming who made it, a repeated value none; the action filter
takes it and a misspelt one is a 422 listing the actions there are.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.testing.live import LiveServer
from support.server import World, build_world, make_settings


class Served:
    def __init__(self, world: World, live: LiveServer) -> None:
        self.world, self.live = world, live

    def call(self, who: str, method: str, path: str, **kwargs: Any) -> httpx.Response:
        headers = {**self.world.headers(who), **kwargs.pop("headers", {})}
        url = f"{self.live.url}{path}"
        return httpx.request(method, url, headers=headers, timeout=30, **kwargs)

    def settings_log(self, who: str, path: str = "/api/v1/audit") -> list[dict[str, Any]]:
        answer = self.call(who, "GET", path, params={"action": "change_setting"})
        assert answer.status_code == 200, answer.text
        entries: list[dict[str, Any]] = answer.json()
        return entries


def told(entries: list[dict[str, Any]]) -> list[tuple[str, object, object, str]]:
    """(setting, old, new, actor) of each entry, as the API gives them (newest first)."""
    return [
        (e["after"]["setting"], e["before"]["value"], e["after"]["value"], e["actor"])
        for e in entries
    ]


@pytest.fixture
def served(tmp_path: Path, embedder: MiniLMEmbedder, db_url: str) -> Iterator[Served]:
    world = build_world(make_settings(tmp_path, database_url=db_url), embedder)
    with LiveServer(world.app) as live:
        yield Served(world, live)
    world.md.close()


def test_my_own_choices_are_in_my_log_once_per_change(served: Served) -> None:
    alice = served.world.ids["alice"]
    choices = {"learn_from_chats": False, "memory_review": "updates"}
    assert served.call("alice", "PATCH", "/api/v1/me", json=choices).status_code == 200
    assert served.call("alice", "PATCH", "/api/v1/me", json=choices).status_code == 200
    entries = served.settings_log("alice")
    assert told(entries) == [
        ("memory_review", "default", "updates", f"user:{alice}"),
        ("learn_from_chats", True, False, f"user:{alice}"),
    ]
    newest = entries[0]
    assert newest["action"] == "change_setting" and newest["memory_id"] == ""
    assert newest["before"] == {"setting": "memory_review", "workspace": None, "value": "default"}
    assert served.settings_log("bob") == []  # never anyone else's
    # the whole log has them too, and a workspace filter leaves them out
    everything = served.call("alice", "GET", "/api/v1/audit").json()
    assert [e["id"] for e in everything] == [e["id"] for e in entries]
    alpha = served.call("alice", "GET", "/api/v1/audit", params={"workspace": "alpha"})
    assert alpha.status_code == 200 and alpha.json() == []


def test_an_admins_role_change_and_import_name_the_admin(served: Served) -> None:
    ids = served.world.ids
    alice, admin = ids["alice"], ids["admin"]
    path = f"/api/v1/users/{alice}"
    assert served.call("admin", "PATCH", path, json={"role": "admin"}).status_code == 200
    assert served.call("admin", "PATCH", path, json={"role": "admin"}).status_code == 200
    new_password = {"password": "another-password-1"}
    assert served.call("admin", "PATCH", path, json=new_password).status_code == 200
    lines = [
        json.dumps(
            {
                "preferences": {
                    "language": "default",
                    "learn_from_chats": False,
                    "memory_review": "default",
                }
            }
        ),
        json.dumps({"content": "Reads science fiction"}),
    ]
    imported = served.call(
        "admin",
        "POST",
        f"{path}/import",
        content="\n".join(lines).encode(),
        headers={"Content-Type": "application/x-ndjson"},
    )
    assert imported.status_code == 200, imported.text
    expected = [
        ("learn_from_chats", True, False, f"admin:{admin}"),  # the review mode stayed
        ("role", "default", "admin", f"admin:{admin}"),
    ]
    assert told(served.settings_log("admin", f"{path}/audit")) == expected
    assert told(served.settings_log("alice")) == expected  # she reads her own
    assert served.settings_log("admin") == []  # not in the admin's own log


def test_a_misspelt_action_is_a_422_naming_the_new_one(served: Served) -> None:
    answer = served.call("alice", "GET", "/api/v1/audit", params={"action": "change_settings"})
    assert answer.status_code == 422
    assert "'change_setting'" in answer.text
