"""Sign-in, sessions, CSRF, API keys, first start and single-user mode."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from memoryd import Memoryd
from memoryd.access.credentials import AuthStore
from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.server.app import create_app, first_start
from memoryd.storage.tables import api_keys, user_credentials
from support.server import FAST_HASHER, USER_PASSWORD, World, make_settings


def login(client: TestClient, name: str, password: str, next: str = "/") -> object:
    page = client.get("/login")
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert token is not None
    return client.post(
        "/login",
        data={"name": name, "password": password, "csrf_token": token.group(1), "next": next},
        follow_redirects=False,
    )


def test_login_sets_a_safe_session_cookie_and_logout_ends_it(world: World) -> None:
    client = world.client
    assert client.get("/", follow_redirects=False).headers["location"].startswith("/login")
    response = login(client, "alice", USER_PASSWORD, next="/chat/alpha")
    assert response.status_code == 303  # type: ignore[attr-defined]
    assert response.headers["location"] == "/chat/alpha"  # type: ignore[attr-defined]
    cookie = response.headers["set-cookie"]  # type: ignore[attr-defined]
    assert "memoryd_session=" in cookie
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Secure" not in cookie
    page = client.get("/chat/alpha")
    assert page.status_code == 200 and "alice" in page.text
    csrf = re.search(r'data-csrf="([^"]+)"', page.text)
    assert csrf is not None
    assert client.get("/api/v1/me").json()["name"] == "alice"
    old_session = client.cookies["memoryd_session"]
    client.post("/logout", data={"csrf_token": csrf.group(1)}, follow_redirects=False)
    # The server must end the session itself: replaying the old cookie is refused.
    client.cookies.clear()
    replay = {"Cookie": f"memoryd_session={old_session}"}
    assert client.get("/api/v1/me", headers=replay).status_code == 401
    assert client.get("/chat/alpha", headers=replay, follow_redirects=False).status_code == 303


def test_wrong_password_and_forged_login_form_refused(world: World) -> None:
    wrong = login(world.client, "alice", "not-the-password")
    assert wrong.status_code == 401  # type: ignore[attr-defined]
    assert "Wrong user name or password" in wrong.text  # type: ignore[attr-defined]
    nobody = login(world.client, "nobody", "whatever-password")
    assert nobody.status_code == 401  # type: ignore[attr-defined]
    forged = world.client.post(
        "/login", data={"name": "alice", "password": USER_PASSWORD, "csrf_token": "guess"}
    )
    assert forged.status_code == 401
    assert "memoryd_session" not in world.client.cookies


def test_open_redirect_after_login_is_refused(world: World) -> None:
    response = login(world.client, "alice", USER_PASSWORD, next="//evil.example/x")
    assert response.headers["location"] == "/"  # type: ignore[attr-defined]


def test_secure_cookie_when_configured(tmp_path: Path, embedder: MiniLMEmbedder) -> None:
    settings = make_settings(tmp_path, cookie_secure=True)
    md = Memoryd(settings=settings, embedder=embedder)
    auth = AuthStore(md.db, hasher=FAST_HASHER)
    first_start(md, auth, settings)
    with TestClient(create_app(md, settings, auth=auth)) as client:
        cookie = login(client, "admin", "admin-password-1").headers["set-cookie"]  # type: ignore[attr-defined]
    assert "Secure" in cookie


def test_forms_need_the_session_csrf_token(world: World) -> None:
    login(world.client, "alice", USER_PASSWORD)
    refused = world.client.post("/ui/memories", data={"content": "sneaky", "csrf_token": "x"})
    assert refused.status_code == 403
    assert world.md.list_memories(world.ids["alice"]) == []


def test_passwords_and_keys_are_stored_hashed(world: World) -> None:
    with world.md.db.read() as repo:
        hashes = repo.conn.execute(select(user_credentials.c.password_hash)).scalars().all()
        key_rows = repo.conn.execute(select(api_keys)).all()
    assert hashes and all(h.startswith("$argon2id$") for h in hashes)
    assert all(USER_PASSWORD not in h for h in hashes)
    stored = " ".join(str(tuple(r)) for r in key_rows)
    assert all(secret not in stored for secret in world.keys.values())


def test_api_key_created_once_listed_without_secret_and_revoked(world: World) -> None:
    created = world.call("alice", "POST", "/api/v1/api-keys", json={"name": "my app"}).json()
    secret = created["key"]
    assert secret.startswith("mdk_")
    assert (
        world.client.get("/api/v1/me", headers={"Authorization": f"Bearer {secret}"}).json()["name"]
        == "alice"
    )
    listed = world.call("alice", "GET", "/api/v1/api-keys").json()
    assert secret not in str(listed)
    assert world.call("bob", "DELETE", f"/api/v1/api-keys/{created['id']}").status_code == 404
    revoked = world.call("alice", "DELETE", f"/api/v1/api-keys/{created['id']}")
    assert revoked.json()["revoked"] is True
    after = world.client.get("/api/v1/me", headers={"X-API-Key": secret})
    assert after.status_code == 401


def test_password_change_needs_the_current_one(world: World) -> None:
    wrong = world.call(
        "alice",
        "POST",
        "/api/v1/me/password",
        json={"current_password": "nope-nope", "new_password": "brand-new-pass"},
    )
    assert wrong.status_code == 422
    ok = world.call(
        "alice",
        "POST",
        "/api/v1/me/password",
        json={"current_password": USER_PASSWORD, "new_password": "brand-new-pass"},
    )
    assert ok.status_code == 204
    assert world.auth.authenticate("alice", "brand-new-pass") is not None
    assert world.auth.authenticate("alice", USER_PASSWORD) is None


def test_first_start_creates_admin_with_random_password_once(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    settings = make_settings(tmp_path, admin_password=None)
    md = Memoryd(settings=settings, embedder=embedder)
    auth = AuthStore(md.db, hasher=FAST_HASHER)
    message = first_start(md, auth, settings)
    assert message is not None
    password = re.search(r"password (\S+)", message)
    assert password is not None
    assert auth.authenticate("admin", password.group(1)) is not None
    assert first_start(md, auth, settings) is None
    assert [u.name for u in md.list_users()] == ["admin"]


def test_first_start_does_not_take_over_a_user_called_admin(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    settings = make_settings(tmp_path)
    md = Memoryd(settings=settings, embedder=embedder)
    squatter = md.create_user("admin")
    auth = AuthStore(md.db, hasher=FAST_HASHER)
    auth.set_password(squatter.id, "squatter-password")
    assert first_start(md, auth, settings) == (
        "created admin 'admin2' with the password from MEMORYD_ADMIN_PASSWORD"
    )
    assert md.get_user("admin").role.value == "default"
    assert auth.authenticate("admin", "squatter-password") is not None


def test_single_user_mode_needs_no_login_and_answers_only_to_localhost(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    settings = make_settings(tmp_path, single_user=True, admin_password=None)
    md = Memoryd(settings=settings, embedder=embedder)
    app = create_app(md, settings, auth=AuthStore(md.db, hasher=FAST_HASHER))
    local = ("127.0.0.1", 50000)
    with TestClient(app, base_url="http://127.0.0.1:8765", client=local) as client:
        me = client.get("/api/v1/me").json()
        assert (me["name"], me["role"], me["auth"]) == ("admin", "admin", "single_user")
        page = client.get("/admin")
        assert page.status_code == 200
        csrf = re.search(r'data-csrf="([^"]+)"', page.text)
        assert csrf is not None
        refused = client.post("/api/v1/memories", json={"content": "x"})
        assert refused.status_code == 403  # a page elsewhere cannot write without the token
        made = client.post(
            "/api/v1/memories", json={"content": "x"}, headers={"X-CSRF-Token": csrf.group(1)}
        )
        assert made.status_code == 201
    with TestClient(app, base_url="http://attacker.example", client=local) as rebound:
        assert rebound.get("/api/v1/me").status_code == 403


@pytest.mark.parametrize("path", ["/health", "/openapi.json", "/docs", "/login"])
def test_public_pages(world: World, path: str) -> None:
    assert world.client.get(path).status_code == 200
