"""API keys and memberships are cached per process, yet a change made by another
process (here: a separate ``Memoryd``/``AuthStore`` on the same database) applies to the
very next request."""

from __future__ import annotations

from memoryd import Memoryd
from memoryd.server.auth import AuthStore
from support.server import World


def _other_process(world: World) -> tuple[Memoryd, AuthStore]:
    md = Memoryd(world.md.url, embedder=world.md.embedder)
    return md, AuthStore(md.db)


def _context(world: World, who: str, workspace: str | None = None) -> int:
    body = {"message": "hello", "workspace": workspace}
    response = world.client.post("/api/v1/context", json=body, headers=world.headers(who))
    return response.status_code


def test_a_key_revoked_elsewhere_is_refused_on_the_next_request(world: World) -> None:
    assert _context(world, "alice") == 200
    assert _context(world, "alice") == 200  # now served from the cache
    md, auth = _other_process(world)
    try:
        key_id = auth.list_api_keys(world.ids["alice"])[0].id
        auth.revoke_api_key(world.ids["alice"], key_id)
    finally:
        md.close()
    response = world.client.post(
        "/api/v1/context", json={"message": "hi"}, headers=world.headers("alice")
    )
    assert response.status_code == 401
    assert "revoked" in response.json()["error"]["message"]


def test_a_membership_removed_elsewhere_applies_to_the_next_request(world: World) -> None:
    assert _context(world, "bob", "alpha") == 200
    assert _context(world, "bob", "alpha") == 200
    md, auth = _other_process(world)
    try:
        auth.remove_member("alpha", world.ids["bob"])
    finally:
        md.close()
    assert _context(world, "bob", "alpha") == 404


def test_a_role_change_elsewhere_applies_to_the_next_request(world: World) -> None:
    listing = world.client.get("/api/v1/users", headers=world.headers("bob"))
    assert listing.status_code == 403
    md, _ = _other_process(world)
    try:
        md.set_role(world.ids["bob"], "admin")
    finally:
        md.close()
    listing = world.client.get("/api/v1/users", headers=world.headers("bob"))
    assert listing.status_code == 200
