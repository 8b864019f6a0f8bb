"""Every REST endpoint for every role: anonymous callers get 401, default users get 403 on
admin endpoints, and each role gets a success where it is allowed. Then malformed input
on every write endpoint: always a 4xx JSON error, and nothing in the database changes.
The web forms and pages, and the check that every served route is covered, are in
``test_web_access.py``."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from sqlalchemy import select

from memoryd.app.history_formats import parse_history
from memoryd.domain.errors import AlreadyExists
from memoryd.domain.models import Actor, Source
from memoryd.extraction.runs import Run, new_run_id, start_run
from memoryd.storage import tables
from support.lifecycle import file_suggestion
from support.server import World


@dataclass
class Case:
    """One endpoint call; ``prepare(world, who)`` makes what it needs and returns path args."""

    method: str
    path: str
    admin_only: bool = False
    body: Any = None
    prepare: Callable[[World, str], dict[str, Any]] | None = None
    content: bytes | None = None


def own_memory(world: World, who: str) -> dict[str, Any]:
    memory = world.md.add_memory(
        world.ids[who],
        f"fact of {who} {len(world.md.list_memories(world.ids[who]))}",
        workspace="alpha",
    )
    return {"mid": memory.id, "uid": world.ids[who]}


def own_global(world: World, who: str) -> dict[str, Any]:
    memory = world.md.add_memory(
        world.ids[who], f"global of {who} {len(world.md.list_memories(world.ids[who]))}"
    )
    return {"mid": memory.id, "uid": world.ids[who]}


def bob_memory(world: World, who: str) -> dict[str, Any]:
    memory = world.md.add_memory(
        world.ids["bob"],
        f"bob fact {len(world.md.list_memories(world.ids['bob']))}",
        workspace="alpha",
    )
    return {"mid": memory.id, "uid": world.ids["bob"]}


def bob_global(world: World, who: str) -> dict[str, Any]:
    memory = world.md.add_memory(
        world.ids["bob"], f"bob global {len(world.md.list_memories(world.ids['bob']))}"
    )
    return {"mid": memory.id, "uid": world.ids["bob"]}


def own_key(world: World, who: str) -> dict[str, Any]:
    return {"kid": world.auth.create_api_key(world.ids[who], "temp").key.id}


def new_user(world: World, who: str) -> dict[str, Any]:
    user = world.md.create_user(f"temp{len(world.md.list_users())}")
    return {"uid": user.id}


def new_workspace(world: World, who: str) -> dict[str, Any]:
    slug = f"temp{len(world.md.list_workspaces())}"
    world.md.create_workspace(slug)
    return {"slug": slug, "uid": world.ids["bob"]}


def member(world: World, who: str) -> dict[str, Any]:
    world.auth.add_member("gamma", world.ids["bob"])
    return {"slug": "gamma", "uid": world.ids["bob"]}


def known_password(world: World, who: str) -> dict[str, Any]:
    world.auth.set_password(world.ids[who], "known-password-1")
    return {}


def own_chat(world: World, who: str) -> dict[str, Any]:
    user = world.md.get_user(world.ids[who])
    if not world.auth.is_member(user, "alpha"):
        world.auth.add_member("alpha", user.id)
    return {"cid": world.md.record_chat(user.id, "alpha", "p", "r").id}


def bob(world: World, who: str) -> dict[str, Any]:
    return {"uid": world.ids["bob"]}


def own_suggestion(world: World, who: str) -> dict[str, Any]:
    user = world.ids[who]
    count = len(world.md.list_suggestions(user, "all"))
    return {"sid": file_suggestion(world.md, user, f"suggested for {who} {count}"), "uid": user}


def bob_suggestion(world: World, who: str) -> dict[str, Any]:
    return own_suggestion(world, "bob")


ACTOR = Actor(Source.USER)
HISTORY = (
    b'[{"uuid": "c1", "name": "empty", "created_at": "2024-04-02T08:15:00Z", "chat_messages": []}]'
)


def own_history_import(world: World, who: str) -> dict[str, Any]:
    """An import of the user's own (started when the one before it has finished)."""
    state = world.app.state.memoryd
    history = parse_history(HISTORY)
    deadline = time.monotonic() + 10
    while True:
        try:
            job = state.history_jobs.start(world.md, world.ids[who], history, "alpha", ACTOR)
        except AlreadyExists:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        else:
            return {"hid": job.id}


def a_run(world: World, who: str) -> dict[str, Any]:
    run = Run(id=new_run_id(), trigger="manual", started_at=world.md.clock())
    start_run(world.md.db, run)
    return {"rid": run.id}


CASES = [
    Case("GET", "/api/v1/me"),
    Case("PATCH", "/api/v1/me", body={"learn_from_chats": True}),
    Case(
        "POST",
        "/api/v1/me/password",
        body={"current_password": "known-password-1", "new_password": "a-new-password"},
        prepare=known_password,
    ),
    Case("GET", "/api/v1/api-keys"),
    Case("POST", "/api/v1/api-keys", body={"name": "k"}),
    Case("DELETE", "/api/v1/api-keys/{kid}", prepare=own_key),
    Case("GET", "/api/v1/memories"),
    Case("POST", "/api/v1/memories", body={"content": "new fact", "workspace": "alpha"}),
    Case("GET", "/api/v1/memories/{mid}", prepare=own_memory),
    Case("PATCH", "/api/v1/memories/{mid}", body={"content": "edited"}, prepare=own_memory),
    Case("DELETE", "/api/v1/memories/{mid}", prepare=own_memory),
    Case("POST", "/api/v1/memories/{mid}/promote", prepare=own_memory),
    Case("POST", "/api/v1/memories/{mid}/demote", body={"workspace": "alpha"}, prepare=own_global),
    Case("GET", "/api/v1/memories/{mid}/history", prepare=own_memory),
    Case("GET", "/api/v1/audit", prepare=own_memory),
    Case("GET", "/api/v1/suggestions"),
    Case("POST", "/api/v1/suggestions/{sid}/accept", prepare=own_suggestion),
    Case("POST", "/api/v1/suggestions/{sid}/reject", prepare=own_suggestion),
    Case("GET", "/api/v1/memories/{mid}/chats", prepare=own_memory),
    Case("GET", "/api/v1/export"),
    Case("POST", "/api/v1/import", content=b""),
    Case("GET", "/api/v1/workspaces"),
    Case("POST", "/api/v1/workspaces", body={"slug": "created-here"}),
    Case("GET", "/api/v1/workspaces/alpha"),
    Case("POST", "/api/v1/chats", body={"workspace": "alpha", "prompt": "p", "response": "r"}),
    Case("GET", "/api/v1/chats"),
    Case("GET", "/api/v1/chats/{cid}", prepare=own_chat),
    Case("DELETE", "/api/v1/chats/{cid}", prepare=own_chat),
    Case("DELETE", "/api/v1/chats?workspace=alpha", prepare=own_chat),
    Case("DELETE", "/api/v1/chats?all=true", prepare=own_chat),
    Case("POST", "/api/v1/context", body={"message": "hello", "workspace": "alpha"}),
    Case("POST", "/api/v1/history-imports?workspace=alpha", content=HISTORY),
    Case("GET", "/api/v1/history-imports/{hid}", prepare=own_history_import),
    # admin only
    Case("GET", "/api/v1/users", admin_only=True),
    Case("GET", "/api/v1/users/overview", admin_only=True),
    Case("POST", "/api/v1/users", admin_only=True, body={"name": "carol"}),
    Case("GET", "/api/v1/users/{uid}", admin_only=True, prepare=bob),
    Case("PATCH", "/api/v1/users/{uid}", admin_only=True, body={"role": "default"}, prepare=bob),
    Case("DELETE", "/api/v1/users/{uid}", admin_only=True, prepare=new_user),
    Case("GET", "/api/v1/users/{uid}/workspaces", admin_only=True, prepare=bob),
    Case("GET", "/api/v1/users/{uid}/memories", admin_only=True, prepare=bob),
    Case(
        "POST",
        "/api/v1/users/{uid}/memories",
        admin_only=True,
        body={"content": "by admin"},
        prepare=bob,
    ),
    Case("GET", "/api/v1/users/{uid}/memories/{mid}", admin_only=True, prepare=bob_memory),
    Case(
        "PATCH",
        "/api/v1/users/{uid}/memories/{mid}",
        admin_only=True,
        body={"content": "fixed"},
        prepare=bob_memory,
    ),
    Case("DELETE", "/api/v1/users/{uid}/memories/{mid}", admin_only=True, prepare=bob_memory),
    Case("POST", "/api/v1/users/{uid}/memories/{mid}/promote", admin_only=True, prepare=bob_memory),
    Case(
        "POST",
        "/api/v1/users/{uid}/memories/{mid}/demote",
        admin_only=True,
        body={"workspace": "alpha"},
        prepare=bob_global,
    ),
    Case("GET", "/api/v1/users/{uid}/memories/{mid}/history", admin_only=True, prepare=bob_memory),
    Case("GET", "/api/v1/users/{uid}/audit", admin_only=True, prepare=bob_memory),
    Case("GET", "/api/v1/users/{uid}/suggestions", admin_only=True, prepare=bob),
    Case(
        "POST",
        "/api/v1/users/{uid}/suggestions/{sid}/accept",
        admin_only=True,
        prepare=bob_suggestion,
    ),
    Case(
        "POST",
        "/api/v1/users/{uid}/suggestions/{sid}/reject",
        admin_only=True,
        prepare=bob_suggestion,
    ),
    Case("GET", "/api/v1/users/{uid}/memories/{mid}/chats", admin_only=True, prepare=bob_memory),
    Case("GET", "/api/v1/users/{uid}/export", admin_only=True, prepare=bob),
    Case("POST", "/api/v1/users/{uid}/import", admin_only=True, content=b"", prepare=bob),
    Case("DELETE", "/api/v1/workspaces/{slug}", admin_only=True, prepare=new_workspace),
    Case("GET", "/api/v1/workspaces/alpha/members", admin_only=True),
    Case("PUT", "/api/v1/workspaces/{slug}/members/{uid}", admin_only=True, prepare=new_workspace),
    Case("DELETE", "/api/v1/workspaces/{slug}/members/{uid}", admin_only=True, prepare=member),
    Case("GET", "/api/v1/settings", admin_only=True),
    Case("GET", "/api/v1/settings/schema", admin_only=True),
    Case("PATCH", "/api/v1/settings", admin_only=True, body={"memory_enabled": True}),
    Case("GET", "/api/v1/extraction/runs", admin_only=True),
    Case("GET", "/api/v1/extraction/runs/{rid}", admin_only=True, prepare=a_run),
    Case("GET", "/api/v1/extraction/failures", admin_only=True),
    Case("GET", "/api/v1/extraction/parked", admin_only=True),
    Case("POST", "/api/v1/extraction/parked/{uid}/alpha/retry", admin_only=True, prepare=bob),
    Case("POST", "/api/v1/extraction/run", admin_only=True, body={}),
]


def call(world: World, who: str | None, case: Case) -> Any:
    args = case.prepare(world, who or "alice") if case.prepare else {}
    path = case.path.format(**args)
    kwargs: dict[str, Any] = {}
    if case.body is not None:
        kwargs["json"] = case.body
    if case.content is not None:
        kwargs["content"] = case.content
        kwargs["headers"] = {"Content-Type": "application/x-ndjson"}
    return world.call(who, case.method, path, **kwargs)


def test_anonymous_callers_get_401_everywhere(world: World) -> None:
    for case in CASES:
        response = call(world, None, case)
        assert response.status_code == 401, (case.method, case.path, response.text)
        assert response.json()["error"]["type"] == "unauthorized"


def test_default_user_gets_403_on_admin_endpoints_and_success_on_their_own(world: World) -> None:
    world.md.add_memory(world.ids["bob"], "Bob's safe fact")
    before = world.md.list_memories(world.ids["bob"])
    for case in CASES:
        response = call(world, "alice", case)
        if case.admin_only:
            assert response.status_code == 403, (case.path, response.text)
            assert response.json()["error"]["type"] == "forbidden"
        else:
            assert response.status_code in (200, 201, 202, 204), (case.path, response.text)
    assert [m for m in world.md.list_memories(world.ids["bob"]) if m in before] == before


def test_admin_succeeds_everywhere(world: World) -> None:
    for case in CASES:
        response = call(world, "admin", case)
        assert response.status_code in (200, 201, 202, 204), (case.method, case.path, response.text)


def test_session_cookie_writes_need_the_csrf_header(world: World) -> None:
    session = world.auth.create_session(world.ids["alice"], 1)
    world.client.cookies.set("memoryd_session", session.token)
    try:
        assert world.client.get("/api/v1/me").json()["auth"] == "session"
        body = {"content": "via the browser"}
        refused = world.client.post("/api/v1/memories", json=body)
        assert (refused.status_code, refused.json()["error"]["code"]) == (403, "csrf")
        accepted = world.client.post(
            "/api/v1/memories", json=body, headers={"X-CSRF-Token": session.csrf_token}
        )
        assert accepted.status_code == 201
        cross_site = world.client.post(
            "/api/v1/memories",
            json={"content": "other"},
            headers={"X-CSRF-Token": session.csrf_token, "Origin": "https://evil.example"},
        )
        assert cross_site.status_code == 403
    finally:
        world.client.cookies.clear()
    assert [m.content for m in world.md.list_memories(world.ids["alice"])] == ["via the browser"]


# malformed input ----------------------------------------------------------------------------
def snapshot(world: World) -> dict[str, Any]:
    with world.md.db.read() as repo:
        conn = repo.conn
        # a key's last use is recorded on every authenticated request, refused or not
        columns = {
            name: [c for c in table.c if (name, c.name) != ("api_keys", "last_used_at")]
            for name, table in tables.metadata.tables.items()
            if name not in ("sessions",)
        }
        return {
            name: sorted(map(repr, conn.execute(select(*cols)).all()))
            for name, cols in columns.items()
        }


BAD_BODIES: list[tuple[str, str, Any]] = [
    ("POST", "/api/v1/memories", {"content": 5}),
    ("POST", "/api/v1/memories", {"content": "ok", "scope": "galaxy"}),
    ("POST", "/api/v1/memories", {"content": "ok", "scope": "workspace"}),
    ("POST", "/api/v1/memories", {"content": "ok", "scope": "global", "workspace": "alpha"}),
    ("POST", "/api/v1/memories", {"content": "line\u202eevil"}),
    ("POST", "/api/v1/memories", {"content": "ok", "extra": 1}),
    ("POST", "/api/v1/memories", {"content": "ok", "workspace": "NO SUCH"}),
    ("POST", "/api/v1/memories", []),
    ("POST", "/api/v1/memories", "not json"),
    ("PATCH", "/api/v1/memories/{mid}", {"content": ""}),
    ("PATCH", "/api/v1/memories/{mid}", {"content": None}),
    ("PATCH", "/api/v1/memories/nope", {"content": "fine"}),
    ("POST", "/api/v1/memories", {"content": "ok", "expires_at": "friday"}),
    ("POST", "/api/v1/memories", {"content": "ok", "expires_at": "2020-01-01"}),
    ("POST", "/api/v1/memories", {"content": "ok", "expires_at": 5}),
    ("PATCH", "/api/v1/memories/{mid}", {"expires_at": "2020-01-01"}),
    ("PATCH", "/api/v1/memories/{mid}", {}),
    ("POST", "/api/v1/suggestions/nope/accept", None),
    ("POST", "/api/v1/suggestions/nope/reject", None),
    ("POST", "/api/v1/suggestions/nope/accept", {"content": "x", "extra": 1}),
    ("POST", "/api/v1/memories/{mid}/demote", {"workspace": "alpha"}),
    ("POST", "/api/v1/memories/{mid}/demote", {}),
    ("POST", "/api/v1/memories/{gid}/demote", {"workspace": "no-such"}),
    ("POST", "/api/v1/memories/{gid}/promote", None),
    ("POST", "/api/v1/import", "{not json"),
    ("POST", "/api/v1/import", '{"id": "x"}'),
    ("POST", "/api/v1/workspaces", {"slug": "Bad Slug"}),
    ("POST", "/api/v1/workspaces", {"slug": "alpha"}),
    ("POST", "/api/v1/workspaces", {}),
    ("POST", "/api/v1/chats", {"workspace": "alpha", "prompt": "", "response": "r"}),
    ("POST", "/api/v1/chats", {"workspace": "nowhere", "prompt": "p", "response": "r"}),
    ("POST", "/api/v1/chats", {"workspace": "alpha", "prompt": 3, "response": "r"}),
    ("DELETE", "/api/v1/chats", None),
    ("DELETE", "/api/v1/chats?all=false", None),
    ("DELETE", "/api/v1/chats?workspace=alpha&all=true", None),
    ("DELETE", "/api/v1/chats?workspace=nowhere", None),
    ("DELETE", "/api/v1/chats/999999", None),
    ("DELETE", "/api/v1/chats/0", None),
    ("POST", "/api/v1/context", {"message": 3}),
    ("POST", "/api/v1/context", {"message": "hi", "workspace": "nowhere"}),
    ("POST", "/api/v1/context", {"message": "hi", "history": "nope"}),
    ("POST", "/api/v1/api-keys", {"name": ""}),
    ("POST", "/api/v1/api-keys", {"name": "a\nb"}),
    ("DELETE", "/api/v1/api-keys/nope", None),
    ("POST", "/api/v1/me/password", {"current_password": "x", "new_password": "short"}),
    ("POST", "/api/v1/users", {"name": "bad name!"}),
    ("POST", "/api/v1/users", {"name": "alice"}),
    ("POST", "/api/v1/users", {"name": "dave", "password": "short"}),
    ("POST", "/api/v1/users", {"name": "erin", "workspaces": ["nowhere"]}),
    ("POST", "/api/v1/users", {"name": "fred", "role": "root"}),
    ("PATCH", "/api/v1/users/{alice}", {"role": "superuser"}),
    ("PATCH", "/api/v1/users/{alice}", {"password": "short"}),
    ("PATCH", "/api/v1/users/{admin}", {"role": "default"}),
    ("DELETE", "/api/v1/users/{admin}", None),
    ("DELETE", "/api/v1/users/0", None),
    ("PATCH", "/api/v1/settings", {"memory_enabled": "maybe"}),
    ("PATCH", "/api/v1/settings", {"no_such_setting": True}),
    ("PATCH", "/api/v1/settings", {"memory_enabled": False, "no_such_setting": True}),
    ("PATCH", "/api/v1/settings", {}),
    ("PATCH", "/api/v1/settings", {"run_retention_days": -1}),
    ("PATCH", "/api/v1/settings", {"run_retention_days": "forever"}),
    ("PUT", "/api/v1/workspaces/alpha/members/999", None),
    ("PUT", "/api/v1/workspaces/nowhere/members/{alice}", None),
    ("DELETE", "/api/v1/workspaces/gamma/members/{alice}", None),
    ("DELETE", "/api/v1/workspaces/nowhere", None),
    ("POST", "/api/v1/extraction/run", {"user_id": 1}),
    ("POST", "/api/v1/extraction/run", {"force": "sometimes"}),
    ("POST", "/api/v1/extraction/parked/999/alpha/retry", None),
    ("POST", "/api/v1/users/999/memories", {"content": "x"}),
]


@pytest.mark.parametrize("who", ["alice", "admin"])
def test_malformed_writes_get_4xx_and_change_nothing(world: World, who: str) -> None:
    alice = world.ids["alice"]
    workspace_memory = world.md.add_memory(alice, "alpha fact", workspace="alpha")
    global_memory = world.md.add_memory(alice, "global fact")
    if who == "admin":
        workspace_memory = world.md.add_memory(world.ids["admin"], "admin alpha", workspace="alpha")
        global_memory = world.md.add_memory(world.ids["admin"], "admin global")
    for i in range(4):
        world.md.add_memory(world.ids[who], f"filler {i}")
    before = snapshot(world)
    ids = {
        "mid": workspace_memory.id,
        "gid": global_memory.id,
        "alice": alice,
        "admin": world.ids["admin"],
    }
    for method, path, body in BAD_BODIES:
        if "/users" in path and who != "admin" and "/me/" not in path:
            continue  # the admin-only routes were checked for 403 above
        if (
            any(p in path for p in ("/settings", "/extraction", "/members", "/workspaces/nowhere"))
            and who != "admin"
        ):
            continue
        kwargs: dict[str, Any] = {}
        if isinstance(body, str):
            kwargs = {"content": body.encode(), "headers": {"Content-Type": "application/json"}}
        elif body is not None:
            kwargs = {"json": body}
        response = world.call(who, method, path.format(**ids), **kwargs)
        assert 400 <= response.status_code < 500, (method, path, body, response.text)
        error = response.json()["error"]
        assert error["message"] and error["type"], (path, body)
    assert snapshot(world) == before
