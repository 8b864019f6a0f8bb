"""API keys and memberships are cached per process, yet a change made by another
process (here: a separate ``Memoryd``/``AuthStore`` on the same database) applies to the
very next request."""

from __future__ import annotations

import pytest
from sqlalchemy import event

from memoryd import Memoryd
from memoryd.access.credentials import AuthStore
from memoryd.access.wire import ContextOut
from memoryd.server.routers import context as context_router
from memoryd.server.schemas import ContextRequest
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


def _revoke_elsewhere(world: World, who: str) -> None:
    md, auth = _other_process(world)
    try:
        key_id = auth.list_api_keys(world.ids[who])[0].id
        auth.revoke_api_key(world.ids[who], key_id)
    finally:
        md.close()


def test_a_key_revoked_elsewhere_is_refused_by_the_proxy_on_the_next_request(
    world: World,
) -> None:
    assert _context(world, "alice") == 200  # the key is cached now
    _revoke_elsewhere(world, "alice")
    body = {"model": "gpt-test", "messages": [{"role": "user", "content": "hi"}]}
    response = world.client.post(
        "/v1/chat/completions",
        json=body,
        headers={**world.headers("alice"), "X-Memoryd-Workspace": "alpha"},
    )
    assert response.status_code == 401  # before the (unreachable) upstream is tried
    # and a malformed body from the revoked key is a 401 too, not a 400
    response = world.client.post(
        "/v1/chat/completions", content=b"{", headers=world.headers("alice")
    )
    assert response.status_code == 401


def test_a_request_with_a_revoked_cached_key_marks_no_memory_used(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    uid = world.ids["alice"]
    for i in range(3):
        world.md.add_memory(uid, f"Alpha fact number {i}", workspace="alpha")
    assert _context(world, "alice", "alpha") == 200
    marked: list[list[str]] = []
    monkeypatch.setattr(world.md.writer, "touch", lambda ids, now: marked.append(ids))
    _revoke_elsewhere(world, "alice")
    assert _context(world, "alice", "alpha") == 401
    assert marked == []


def test_a_request_with_a_cached_key_reads_the_database_once(world: World) -> None:
    """The key's check rides on the turn's own statement: one transaction per request."""
    assert _context(world, "bob", "alpha") == 200
    assert _context(world, "bob", "alpha") == 200  # key, membership, workspace cached
    begins: list[object] = []

    def count(conn: object) -> None:
        begins.append(conn)

    event.listen(world.md.db.engine, "begin", count)
    try:
        assert _context(world, "bob", "alpha") == 200
    finally:
        event.remove(world.md.db.engine, "begin", count)
    assert len(begins) == 1


def test_the_context_answer_is_the_schemas_json(world: World) -> None:
    """The route serialises the turn directly; it must say what ``ContextOut`` says."""
    uid = world.ids["alice"]
    world.md.add_memory(uid, "Lives in Zürich — «quotes» and emoji 🎉")
    world.md.add_memory(uid, "Trip to Lyon", expires_at="2999-01-01")
    for i in range(7):  # more than 5: reranked, with scores
        world.md.add_memory(uid, f"The alpha project uses tool {i}", workspace="alpha")
    body = {
        "message": "Which tool does alpha use?",
        "workspace": "alpha",
        "history": [{"role": "assistant", "content": "Tell me more."}],
        "system_prompt": "You are helpful.",
        "incognito": True,  # nothing marked: both answers see the same rows
    }
    response = world.client.post("/api/v1/context", json=body, headers=world.headers("alice"))
    assert response.status_code == 200
    state = world.app.state.memoryd
    user = world.md.get_user(uid)
    turn = context_router.choose(state, user, ContextRequest(**body))
    expected = ContextOut.of(turn, body["system_prompt"])
    assert response.content == expected.model_dump_json(by_alias=True).encode()
    assert len(expected.memories) == 7 and expected.memories[-1].score is not None
