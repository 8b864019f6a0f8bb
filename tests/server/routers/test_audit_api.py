"""``GET /api/v1/audit`` and ``GET /api/v1/users/{id}/audit`` on a real server on loopback,
over SQLite and PostgreSQL: a user reads their whole audit log page by page (deleted
memories, chat deletions and imports included), never another user's and never the
memories of a workspace they have left; an admin reads anyone's; a bad cursor or filter
is a 4xx that says what is wrong.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.testing.live import LiveServer
from support.audit import STORY, Story, tell_story
from support.server import World, build_world, make_settings

# alice is no member of gamma: what she sees of STORY (secret and gone stay in gamma)
SHOWN = [("create", "tea"), *STORY[1:3], *STORY[4:6], *STORY[8:]]


class Served:
    def __init__(self, world: World, live: LiveServer, story: Story) -> None:
        self.world, self.live, self.story = world, live, story

    def get(self, who: str | None, path: str, **params: Any) -> httpx.Response:
        headers = self.world.headers(who)
        return httpx.get(f"{self.live.url}{path}", params=params, headers=headers, timeout=30)

    def read(self, who: str, path: str = "/api/v1/audit", **params: Any) -> list[dict[str, Any]]:
        answer = self.get(who, path, **params)
        assert answer.status_code == 200, answer.text
        entries: list[dict[str, Any]] = answer.json()
        return entries

    def told(self, entries: list[dict[str, Any]]) -> list[tuple[str, str]]:
        names = self.story.names([e["memory_id"] for e in entries])
        return [(e["action"], n) for e, n in zip(entries, names, strict=True)]

    def every_page(self, who: str, path: str = "/api/v1/audit", **params: Any) -> list[Any]:
        limit = int(params.pop("limit"))
        found: list[dict[str, Any]] = []
        cursor: dict[str, Any] = {}
        while True:
            page = self.read(who, path, limit=limit, **params, **cursor)
            found += page
            if len(page) < limit:
                return found
            cursor = {"before": page[-1]["id"]}


@pytest.fixture
def served(tmp_path: Path, embedder: MiniLMEmbedder, db_url: str) -> Iterator[Served]:
    world = build_world(make_settings(tmp_path, database_url=db_url), embedder)
    ids = world.ids
    story = tell_story(world.md, ids["alice"], ids["bob"], ids["admin"], kept="alpha", left="gamma")
    with LiveServer(world.app) as live:
        yield Served(world, live, story)
    world.md.close()


def test_a_user_reads_their_whole_log_page_by_page(served: Served) -> None:
    newest = served.read("alice")
    assert served.told(newest) == SHOWN[::-1]
    for limit in (1, 3, 8):
        assert served.every_page("alice", limit=limit) == newest
    deleted = newest[0]  # the admin deleted tea last
    assert deleted["actor"] == f"admin:{served.story.admin}" and deleted["after"] is None
    assert deleted["before"]["content"] == "Prefers tea"
    chats = next(e for e in newest if e["action"] == "delete_chats")
    assert chats["memory_id"] == "" and chats["before"]["workspaces"] == {"alpha": 1, "gamma": 1}
    assert "secret words" not in str(newest)
    assert newest[1]["actor"] == f"import:{served.story.alice}"
    assert set(newest[0]) == {"id", "memory_id", "action", "actor", "before", "after", "at"}
    # the library's answer for the same reader, field for field
    library = served.world.md.list_audit(served.story.alice, visible_in={"alpha", "beta"})
    assert [(e.id, e.at.isoformat(), e.before) for e in library] == [
        (e["id"], e["at"], e["before"]) for e in newest
    ]


def test_only_their_own_and_only_where_they_still_belong(served: Served) -> None:
    bobs = served.read("bob")
    assert [e["after"]["content"] for e in bobs] == ["Bob's own fact"]
    story, auth = served.story, served.world.auth
    assert served.read("alice", memory_id=story.ids["secret"]) == []
    assert served.read("bob", memory_id=story.ids["tea"]) == []
    auth.remove_member("alpha", story.alice)  # what was in alpha goes out of reach
    left = [e for e in SHOWN[::-1] if e[1] != "plans"]
    assert served.told(served.read("alice")) == [("change_setting", ""), *left]
    auth.add_member("alpha", story.alice)
    auth.add_member("gamma", story.alice)  # and what is in gamma comes into reach
    membership = [("change_setting", "")] * 3  # each change of membership, newest first
    assert served.told(served.read("alice")) == [*membership, *STORY[::-1]]


def test_an_admin_reads_anyones_log(served: Served) -> None:
    story = served.story
    path = f"/api/v1/users/{story.alice}/audit"
    everything = served.read("admin", path)
    assert served.told(everything) == STORY[::-1]
    assert served.every_page("admin", path, limit=4) == everything
    secret = served.read("admin", path, memory_id=story.ids["secret"])
    assert served.told(secret) == [("create", "secret")]
    assert served.told(served.read("admin", path, workspace="gamma", action="delete")) == [
        ("delete", "gone")
    ]
    refused = served.get("alice", f"/api/v1/users/{story.bob}/audit")
    assert refused.status_code == 403
    assert served.get("alice", path).status_code == 403  # even her own, by that route
    missing = served.get("admin", "/api/v1/users/999999/audit")
    assert missing.status_code == 404


def test_filters(served: Served) -> None:
    story = served.story
    deletions = served.read("alice", action=["delete", "delete_chats"])
    assert served.told(deletions) == [("delete", "tea"), ("delete_chats", "")]
    assert served.told(served.read("alice", actor="import")) == [("create", "imported")]
    assert served.told(served.read("alice", actor=f"admin:{story.admin}")) == [("delete", "tea")]
    assert served.told(served.read("alice", workspace="alpha")) == [
        ("delete_chats", ""),
        ("update", "plans"),
        ("create", "plans"),
    ]
    newest = served.read("alice")
    since = newest[2]["at"]
    later = [e for e in newest if datetime.fromisoformat(e["at"]) >= datetime.fromisoformat(since)]
    assert served.read("alice", since=since) == later
    assert served.read("alice", since="2000-01-01") == newest
    assert served.told(served.read("alice", memory_id=story.ids["vim"])) == [
        ("promote", "vim"),
        ("create", "vim"),
    ]


@pytest.mark.parametrize(
    ("params", "status", "said"),
    [
        ({"before": 0}, 422, "query.before: Input should be greater than or equal to 1"),
        ({"before": "abc"}, 422, "query.before: Input should be a valid integer"),
        ({"before": 2**31}, 422, "query.before: Input should be less than or equal to"),
        ({"limit": 1001}, 422, "query.limit: Input should be less than or equal to 1000"),
        ({"action": "erase"}, 422, "query.action.0: Input should be 'create', 'update'"),
        ({"actor": "robot"}, 422, "unknown actor 'robot': use one of user, admin, extraction"),
        ({"since": "yesterday"}, 422, "invalid since 'yesterday': use a date (YYYY-MM-DD)"),
        ({"workspace": "Not A Slug"}, 422, "invalid workspace slug 'Not A Slug'"),
        ({"workspace": "gamma"}, 404, "no workspace 'gamma' for this user"),
        ({"workspace": "nowhere"}, 404, "no workspace 'nowhere' for this user"),
        ({"memory_id": "x" * 65}, 422, "query.memory_id: String should have at most 64"),
    ],
)
def test_a_bad_cursor_or_filter_says_what_is_wrong(
    served: Served, params: dict[str, Any], status: int, said: str
) -> None:
    answer = served.get("alice", "/api/v1/audit", **params)
    assert answer.status_code == status, answer.text
    assert answer.json()["error"]["message"].startswith(said)


def test_anonymous_callers_are_refused(served: Served) -> None:
    answer = served.get(None, "/api/v1/audit")
    assert answer.status_code == 401
    assert "sign in or send an API key" in answer.json()["error"]["message"]
