"""The web UI's form posts (``/ui/*``) and pages for every role, and a check that every
route the app serves is covered by a role test.

The ``/ui/*`` routes are outside the OpenAPI schema, so neither the REST role matrix
(``test_access.py``) nor the schema fuzz run sees them. Here: anonymous posts get 401; a
default user's posts on their own things succeed, while the admin forms, another user's
``user_id``, another user's memory id and another user's API key are refused with an
error message and leave the database exactly as it was; the admin succeeds everywhere.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from html import unescape
from typing import Any
from urllib.parse import quote

import fastapi.routing
import pytest
from fastapi import FastAPI
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support.lifecycle import file_suggestion
from support.server import World
from support.web import flash_of, get_page

from .test_access import CASES, snapshot

Form = dict[str, str]


@dataclass
class FormCase:
    """One form post. ``prepare(world, who)`` makes what it needs and returns the path
    arguments and the form fields."""

    path: str
    prepare: Callable[[World, str], tuple[dict[str, Any], Form]]
    admin_only: bool = False


def fields(**form: str) -> Callable[[World, str], tuple[dict[str, Any], Form]]:
    return lambda world, who: ({}, dict(form))


def own_memory(operation: str, **form: str) -> Callable[[World, str], tuple[dict[str, Any], Form]]:
    def prepare(world: World, who: str) -> tuple[dict[str, Any], Form]:
        user = world.ids[who]
        count = len(world.md.list_memories(user))
        workspace = None if operation == "demote" else "alpha"
        memory = world.md.add_memory(user, f"web fact of {who} {count}", workspace=workspace)
        return {"memory_id": memory.id, "operation": operation}, dict(form)

    return prepare


def own_key(world: World, who: str) -> tuple[dict[str, Any], Form]:
    key = world.auth.create_api_key(world.ids[who], "temp").key.id
    return {"key_id": key}, {"confirmed": "yes"}


def known_password(world: World, who: str) -> tuple[dict[str, Any], Form]:
    world.auth.set_password(world.ids[who], "known-password-1")
    return {}, {"current_password": "known-password-1", "new_password": "a-new-password"}


def own_suggestion(decision: str) -> Callable[[World, str], tuple[dict[str, Any], Form]]:
    def prepare(world: World, who: str) -> tuple[dict[str, Any], Form]:
        user = world.ids[who]
        count = len(world.md.list_suggestions(user, "all"))
        suggestion = file_suggestion(world.md, user, f"web suggestion of {who} {count}")
        return {"suggestion_id": suggestion, "decision": decision}, {}

    return prepare


def waiting_queue(**form: str) -> Callable[[World, str], tuple[dict[str, Any], Form]]:
    """A suggestion waiting in the user's queue, for Accept all and Reject all."""

    def prepare(world: World, who: str) -> tuple[dict[str, Any], Form]:
        user = world.ids[who]
        count = len(world.md.list_suggestions(user, "all"))
        file_suggestion(world.md, user, f"queued suggestion of {who} {count}")
        return {}, dict(form)

    return prepare


def own_chat(world: World, who: str) -> tuple[dict[str, Any], Form]:
    chat = world.md.record_chat(world.ids[who], "alpha", f"web chat of {who}", "ok")
    return {"chat_id": chat.id}, {"workspace": "alpha", "confirmed": "yes"}


def bob_in(world: World, who: str) -> tuple[dict[str, Any], Form]:
    return {}, {"user_id": str(world.ids["bob"]), "workspace": "gamma"}


def bob_retry(world: World, who: str) -> tuple[dict[str, Any], Form]:
    return {}, {"user_id": str(world.ids["bob"]), "workspace": "alpha"}


def new_user(**form: str) -> Callable[[World, str], tuple[dict[str, Any], Form]]:
    """A fresh default user to change or delete (so each run has its own)."""

    def prepare(world: World, who: str) -> tuple[dict[str, Any], Form]:
        user = world.md.create_user(f"temp{len(world.md.list_users())}")
        return {"user_id": user.id}, dict(form)

    return prepare


def new_workspace(world: World, who: str) -> tuple[dict[str, Any], Form]:
    slug = f"temp{len(world.md.list_workspaces())}"
    world.md.create_workspace(slug)
    world.md.add_memory(world.ids["bob"], "lives in the doomed workspace", workspace=slug)
    return {"slug": slug}, {"confirmed": "yes"}


def bob_out_of_alpha(world: World, who: str) -> tuple[dict[str, Any], Form]:
    world.auth.add_member("alpha", world.ids["bob"])
    return {}, {"user_id": str(world.ids["bob"]), "workspace": "alpha"}


FORM_CASES = [
    FormCase("/ui/memories", fields(content="typed in the web UI", workspace="alpha")),
    FormCase("/ui/memories/{memory_id}/{operation}", own_memory("edit", content="edited")),
    FormCase("/ui/memories/{memory_id}/{operation}", own_memory("delete", confirmed="yes")),
    FormCase("/ui/memories/{memory_id}/{operation}", own_memory("promote")),
    FormCase("/ui/memories/{memory_id}/{operation}", own_memory("demote", workspace="alpha")),
    FormCase("/ui/suggestions/{suggestion_id}/{decision}", own_suggestion("accept")),
    FormCase("/ui/suggestions/{suggestion_id}/{decision}", own_suggestion("reject")),
    FormCase("/ui/suggestions/accept-all", waiting_queue()),
    FormCase("/ui/suggestions/reject-all", waiting_queue(confirmed="yes")),
    FormCase("/ui/memories/{memory_id}/{operation}", own_memory("report", confirmed="yes")),
    FormCase("/ui/api-keys", fields(name="web key")),
    FormCase("/ui/api-keys/{key_id}/revoke", own_key),
    FormCase("/ui/password", known_password),
    FormCase("/ui/learning", fields(learn="off")),  # a change: "on" again changes nothing
    FormCase("/ui/review", fields(mode="updates")),
    FormCase("/ui/language", fields(language="fr")),
    FormCase("/ui/chats/{chat_id}/delete", own_chat),
    FormCase("/ui/chats/clear", own_chat),
    FormCase(
        "/ui/facts", lambda world, who: ({}, {"facts": f"- listed by {who}", "workspace": "alpha"})
    ),
    # admin only
    FormCase("/ui/settings", fields(memory_auto_extraction="on"), admin_only=True),
    FormCase("/ui/users", fields(name="carol", password="carol-password-1"), admin_only=True),
    FormCase("/ui/workspaces", fields(slug="delta"), admin_only=True),
    FormCase("/ui/members", bob_in, admin_only=True),
    FormCase("/ui/members/remove", bob_out_of_alpha, admin_only=True),
    FormCase("/ui/users/{user_id}/role", new_user(role="admin"), admin_only=True),
    FormCase("/ui/users/{user_id}/password", new_user(password="reset-pass-1"), admin_only=True),
    FormCase("/ui/users/{user_id}/delete", new_user(confirmed="yes"), admin_only=True),
    FormCase("/ui/workspaces/{slug}/delete", new_workspace, admin_only=True),
    FormCase("/ui/extraction/retry", bob_retry, admin_only=True),
    FormCase("/ui/extraction/run", fields(), admin_only=True),
]

# Pages: (path, what a default user gets, what the admin gets).
PAGES = [
    ("/", 303, 303),
    ("/chat/alpha", 200, 200),
    ("/admin", 303, 200),
    ("/admin?tab=workspaces", 303, 200),
    ("/admin/runs/{run_id}", 303, 200),
    ("/activity", 200, 200),
    ("/import", 200, 200),
    ("/admin/users/{user_id}/activity", 303, 200),
]

# Parts of pages a script reads again (a status, never a redirect to a page):
# (path, anonymous, a default user, the admin).
FRAGMENTS = [("/admin/extraction-runs", 401, 403, 200)]

# Served routes whose access is checked elsewhere, or that are public on purpose.
ELSEWHERE = {
    ("GET", "/health"): "public liveness probe",
    ("GET", "/openapi.json"): "public schema (test_openapi_fuzz.py reads it)",
    ("GET", "/docs"): "public schema page",
    ("GET", "/docs/oauth2-redirect"): "public schema page",
    ("GET", "/redoc"): "public schema page",
    ("ANY", "/static"): "public stylesheet and script",
    ("ANY", "/static-offline-docs"): "public Swagger UI and ReDoc files",
    ("ANY", "/mcp"): "tests/mcp/test_mcp_http.py (an API key, not a session, is needed)",
    ("GET", "/login"): "test_auth.py",
    ("POST", "/login"): "test_auth.py",
    ("POST", "/logout"): "test_auth.py (the old cookie is refused after logout)",
    ("POST", "/v1/chat/completions"): "test_proxy.py (key needed, per-user memories)",
    ("GET", "/v1/models"): "test_proxy.py",
    ("GET", "/activity/history/{memory_id}"): "test_memory_history_web.py (401, 404, 200)",
    ("GET", "/chat/{slug}/used"): "test_chat_page_web.py (401, 404, 200)",
    ("POST", "/ui/markdown"): "test_chat_page_web.py (401, 403 without the CSRF token, 200)",
    ("POST", "/ui/history-imports"): "test_history_import_api.py (401, a workspace not theirs)",
    ("GET", "/ui/history-imports/{job_id}"): "test_history_import_api.py (401, 404, 200)",
    ("GET", "/admin/users/{user_id}/activity/history/{memory_id}"): (
        "test_memory_history_web.py (401, 403 for a default user, 404, 200)"
    ),
}


def served_routes(app: FastAPI) -> set[tuple[str, str]]:
    """(method, path template) of every route the app answers; mounts and whole ASGI
    apps (any method) as ``ANY``."""
    walk = getattr(fastapi.routing, "iter_route_contexts", None)
    routes: list[Any] = list(walk(app.routes)) if walk else list(app.routes)
    served = set()
    for route in routes:
        methods = getattr(route, "methods", None) or {"ANY"}
        served |= {(m, route.path) for m in methods if m != "HEAD"}
    return served


def rest_template(path: str) -> str:
    return (
        path.replace("{mid}", "{memory_id}")
        .replace("{uid}", "{user_id}")
        .replace("{kid}", "{key_id}")
        .replace("{sid}", "{suggestion_id}")
        .replace("{cid}", "{chat_id}")
        .replace("{rid}", "{run_id}")
        .replace("{hid}", "{import_id}")
        .replace("/alpha/retry", "/{workspace}/retry")
        .replace("/workspaces/alpha", "/workspaces/{slug}")
    )


def test_every_served_route_is_covered_by_a_role_test(world: World) -> None:
    covered = {(c.method, rest_template(c.path.split("?")[0])) for c in CASES}
    covered |= {("POST", c.path) for c in FORM_CASES}
    covered |= {("GET", "/chat/{slug}" if "/chat/" in p else p.split("?")[0]) for p, _, _ in PAGES}
    covered |= {("GET", path) for path, *_ in FRAGMENTS}
    covered |= set(ELSEWHERE)
    served = served_routes(world.app)
    assert ("POST", "/ui/members") in served  # the walk sees the form routes
    assert served - covered == set(), sorted(served - covered)


# posting forms ---------------------------------------------------------------------------
def post_form(world: World, who: str | None, path: str, form: Form) -> Any:
    headers: dict[str, str] = {}
    if who is not None:
        session = world.auth.create_session(world.ids[who], 1)
        headers["Cookie"] = f"memoryd_session={session.token}"
        form = {**form, "csrf_token": session.csrf_token, "next": "/"}
    response = world.client.post(path, data=form, headers=headers, follow_redirects=False)
    world.client.cookies.clear()
    wait_for_ui_extraction()
    return response


def wait_for_ui_extraction() -> None:
    """An extraction form starts a background run; let it finish before going on."""
    deadline = time.monotonic() + 30
    while any(t.name == "memoryd-ui-extraction" for t in threading.enumerate()):
        assert time.monotonic() < deadline, "the UI extraction run did not finish"
        time.sleep(0.02)


def changed_tables(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    return sorted(name for name in before if before[name] != after[name])


@pytest.mark.parametrize("case", FORM_CASES, ids=lambda c: c.path)
def test_anonymous_form_posts_get_401_and_change_nothing(world: World, case: FormCase) -> None:
    args, form = case.prepare(world, "alice")
    before = snapshot(world)
    response = post_form(world, None, case.path.format(**args), form)
    assert response.status_code == 401, response.text
    assert snapshot(world) == before


def shows_a_secret(case: FormCase, response: Any) -> bool:
    """A new API key is shown in the page itself (200), never carried by a redirect's
    cookie; True after checking that for the key-creating form."""
    if case.path != "/ui/api-keys":
        return False
    assert response.status_code == 200, response.text
    assert "mdk_" in response.text and "mdk_" not in response.headers.get("set-cookie", "")
    return True


def test_default_user_is_refused_the_admin_forms_and_succeeds_on_their_own(world: World) -> None:
    for case in FORM_CASES:
        args, form = case.prepare(world, "alice")
        before = snapshot(world)
        response = post_form(world, "alice", case.path.format(**args), form)
        if shows_a_secret(case, response):
            assert changed_tables(before, snapshot(world)), case.path
            continue
        assert response.status_code == 303, (case.path, response.text)
        flash = flash_of(response)
        if case.admin_only:
            assert flash["level"] == "error" and "admin" in flash["text"], (case.path, flash)
            assert snapshot(world) == before, case.path
        else:
            assert flash["level"] == "ok", (case.path, form, flash)
            assert changed_tables(before, snapshot(world)), case.path


def test_admin_succeeds_on_every_form(world: World) -> None:
    for case in FORM_CASES:
        args, form = case.prepare(world, "admin")
        before = snapshot(world)
        response = post_form(world, "admin", case.path.format(**args), form)
        if not shows_a_secret(case, response):
            assert response.status_code == 303, (case.path, response.text)
            assert flash_of(response)["level"] == "ok", (case.path, flash_of(response))
        if "/extraction/" not in case.path:  # a run with nothing due writes nothing
            assert changed_tables(before, snapshot(world)), case.path


def bob_memory(world: World, workspace: str | None = "alpha") -> str:
    count = len(world.md.list_memories(world.ids["bob"]))
    return world.md.add_memory(world.ids["bob"], f"bob's fact {count}", workspace=workspace).id


OPERATIONS: list[tuple[str, Form]] = [
    ("edit", {"content": "rewritten by alice"}),
    ("delete", {"confirmed": "yes"}),
    ("delete", {}),  # not asked first: refused
    ("promote", {}),
    ("demote", {"workspace": "alpha"}),
]


def test_default_user_cannot_post_another_users_memories(world: World) -> None:
    alice, bob = world.ids["alice"], world.ids["bob"]
    bob_global = world.md.add_memory(bob, "bob's global fact").id
    attempts: list[tuple[str, Form]] = [
        ("/ui/memories", {"content": "planted in bob", "user_id": str(bob)}),
        ("/ui/memories", {"content": "planted", "workspace": "alpha", "user_id": str(bob)}),
    ]
    for operation, form in OPERATIONS:
        target = bob_global if operation == "demote" else bob_memory(world)
        # another user's memory id: once as alice's own, once naming bob as the owner
        attempts.append((f"/ui/memories/{target}/{operation}", form))
        attempts.append((f"/ui/memories/{target}/{operation}", {**form, "user_id": str(bob)}))
    bob_key = world.auth.create_api_key(bob, "bob's key").key.id
    attempts.append((f"/ui/api-keys/{bob_key}/revoke", {}))
    for path, form in attempts:
        before = snapshot(world)
        response = post_form(world, "alice", path, form)
        assert response.status_code == 303, (path, form, response.text)
        assert flash_of(response)["level"] == "error", (path, form, flash_of(response))
        assert snapshot(world) == before, (path, form)
    assert world.md.list_memories(alice) == []


def test_admin_can_post_another_users_memories(world: World) -> None:
    bob = world.ids["bob"]
    response = post_form(
        world, "admin", "/ui/memories", {"content": "added for bob", "user_id": str(bob)}
    )
    assert flash_of(response)["level"] == "ok"
    edited = bob_memory(world)
    response = post_form(
        world,
        "admin",
        f"/ui/memories/{edited}/edit",
        {"content": "fixed by the admin", "user_id": str(bob)},
    )
    assert flash_of(response)["level"] == "ok"
    contents = sorted(m.content for m in world.md.list_memories(bob))
    assert contents == ["added for bob", "fixed by the admin"]
    assert world.md.list_memories(world.ids["admin"]) == []


# pages -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("path", "as_user", "as_admin"), PAGES)
def test_pages_for_every_role(world: World, path: str, as_user: int, as_admin: int) -> None:
    if "{run_id}" in path:
        path = path.format(run_id=world.md.extract().id)
    path = path.replace("{user_id}", str(world.ids["bob"]))
    anonymous = get_page(world, None, path)
    assert anonymous.status_code == 303
    assert anonymous.headers["location"].startswith("/login?next=")
    user = get_page(world, "alice", path)
    assert user.status_code == as_user
    admin = get_page(world, "admin", path)
    assert admin.status_code == as_admin
    if path.startswith("/admin"):
        assert user.headers["location"] == "/?denied=1"
        assert "admin panel is for admins" in flash_of(user)["text"]
    if path == "/admin":
        assert 'action="/ui/users"' in admin.text


@pytest.mark.parametrize(("path", "anonymous", "as_user", "as_admin"), FRAGMENTS)
def test_page_fragments_for_every_role(
    world: World, path: str, anonymous: int, as_user: int, as_admin: int
) -> None:
    assert get_page(world, None, path).status_code == anonymous
    refused = get_page(world, "alice", path)
    assert refused.status_code == as_user and "admins" in refused.text
    run = world.md.extract()
    admin = get_page(world, "admin", path)
    assert admin.status_code == as_admin
    assert f'data-run-id="{run.id}"' in admin.text and "<html" not in admin.text


def test_a_refused_add_carries_the_text_back_and_odd_flash_cookies_are_ignored(
    world: World,
) -> None:
    typed = "# 見出し is not a memory " + "é" * 400
    form = {"content": typed, "workspace": "alpha", "draft_field": "add-me-scope-alpha"}
    response = post_form(world, "alice", "/ui/memories", form)
    assert flash_of(response)["level"] == "error"
    session = world.auth.create_session(world.ids["alice"], 1)
    cookie = f"memoryd_session={session.token}; memoryd_flash={response.cookies['memoryd_flash']}"
    page = world.client.get("/chat/alpha", headers={"Cookie": cookie})
    assert page.status_code == 200
    assert 'id="add-me-scope-alpha"' in page.text and typed in page.text
    for odd in ["not json", "{}", "[1]", '[{"level": "error", "text": "x", "draft": "%%"}]']:
        cookie = f"memoryd_session={session.token}; memoryd_flash={quote(odd)}"
        assert world.client.get("/chat/alpha", headers={"Cookie": cookie}).status_code == 200
    world.client.cookies.clear()


def test_a_default_user_cannot_open_a_workspace_they_are_not_in(world: World) -> None:
    page = get_page(world, "bob", "/chat/beta")
    assert (page.status_code, page.headers["location"]) == (303, "/?missing=1")
    assert flash_of(page)["level"] == "error"


# deleting without JavaScript ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("case", "who", "asked"),
    [
        (
            FormCase("/ui/memories/{memory_id}/{operation}", own_memory("delete")),
            "alice",
            "Delete this memory? “web fact of alice 0”",
        ),
        (
            FormCase("/ui/api-keys/{key_id}/revoke", own_key),
            "alice",
            "Revoke the key “temp”? Programs using it stop working.",
        ),
        (
            FormCase("/ui/users/{user_id}/delete", new_user()),
            "admin",
            "Delete the user temp3 with their 0 memories and all their chats?",
        ),
        (
            FormCase("/ui/workspaces/{slug}/delete", new_workspace),
            "admin",
            "Delete the workspace temp3 with every memory and chat in it?",
        ),
    ],
    ids=["memory", "api key", "user", "workspace"],
)
def test_a_deletion_sent_without_its_confirmation_asks_on_a_page(
    world: World, case: FormCase, who: str, asked: str
) -> None:
    """Without JavaScript no dialog asks, so the server does: the same question on a page,
    with the same form to send again (confirmed=yes) and a Cancel link back."""
    args, form = case.prepare(world, who)
    form = {k: v for k, v in form.items() if k != "confirmed"}
    path = case.path.format(**args)
    before = snapshot(world)
    session = world.auth.create_session(world.ids[who], 1)
    fields = {**form, "csrf_token": session.csrf_token, "next": "/chat/alpha?panel=keys"}
    cookie = {"Cookie": f"memoryd_session={session.token}"}
    page = world.client.post(path, data=fields, headers=cookie, follow_redirects=False)
    world.client.cookies.clear()
    assert page.status_code == 200, page.text
    assert snapshot(world) == before
    assert asked in unescape(page.text)
    assert f'<form method="post" action="{path}"' in page.text
    assert '<input type="hidden" name="confirmed" value="yes">' in page.text
    assert '<input type="hidden" name="next" value="/chat/alpha?panel=keys">' in page.text
    assert 'href="/chat/alpha?panel=keys" autofocus>Cancel</a>' in page.text
    fields["confirmed"] = "yes"
    done = world.client.post(path, data=fields, headers=cookie, follow_redirects=False)
    world.client.cookies.clear()
    assert done.status_code == 303 and flash_of(done)["level"] == "ok", done.text
    assert changed_tables(before, snapshot(world))


def test_a_deletion_that_is_not_allowed_is_refused_before_asking(world: World) -> None:
    bob_fact = bob_memory(world)
    user = world.md.create_user("temp-doomed")
    for who, path in (
        ("alice", f"/ui/memories/{bob_fact}/delete"),  # not hers: its text is never shown
        ("alice", f"/ui/users/{user.id}/delete"),
        ("admin", "/ui/workspaces/no-such-workspace/delete"),
    ):
        response = post_form(world, who, path, {})
        assert response.status_code == 303, (path, response.text)
        assert flash_of(response)["level"] == "error", path


# fuzzing the forms ---------------------------------------------------------------------------
FIELD_NAMES = [
    "content", "workspace", "scope", "user_id", "name", "password", "current_password",
    "new_password", "slug", "memory_enabled", "memory_auto_extraction", "extraction_provider",
    "admin", "next", "role", "draft_field", "expires_at", "expires_was", "memory_review",
    "expired_grace_days", "run_retention_days", "confirmed",
]  # fmt: skip
FORM_PATHS = sorted({c.path for c in FORM_CASES})


@pytest.mark.parametrize("path", FORM_PATHS)
@pytest.mark.parametrize("who", ["alice", "admin"])
def test_fuzzed_form_posts_never_get_a_server_error(world: World, who: str, path: str) -> None:
    """The schema fuzz run cannot see these routes; here every form gets random fields
    (and random path parts), and the answer is a redirect or a 4xx, never a 5xx."""
    memory = world.md.add_memory(world.ids[who], "fuzz target", workspace="alpha")
    known = ["", "0", "1", "2", "3", "-1", "999", "abc", "alpha", "on", "yes", memory.id]
    value = st.one_of(st.sampled_from(known), st.text(max_size=30))
    operations = st.sampled_from(["edit", "delete", "promote", "demote", "nope"])
    decisions = st.sampled_from(["accept", "reject", "nope"])
    waiting = file_suggestion(world.md, world.ids[who], "fuzz suggestion")
    ids = st.one_of(value, st.just(waiting))

    @given(
        parts=st.fixed_dictionaries(
            {
                "memory_id": value,
                "operation": operations,
                "key_id": value,
                "suggestion_id": ids,
                "decision": decisions,
                "chat_id": value,
            }
            | {"user_id": value, "slug": value}
        ),
        form=st.dictionaries(st.sampled_from(FIELD_NAMES), value, max_size=6),
    )
    @settings(
        max_examples=25,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def run(parts: dict[str, str], form: Form) -> None:
        target = path.format(**{k: quote(v, safe="") or "x" for k, v in parts.items()})
        response = post_form(world, who, target, form)
        assert response.status_code < 500, (target, form, response.text)

    run()
