"""REST API of the memory lifecycle: expires_at on create and edit, expired memories
never injected (context and proxy), a memory's detail, and the review queue's routes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import openai

from memoryd.domain.injection import SECTION_HEADING
from memoryd.testing import FakeOpenAIServer, Reply
from memoryd.testing.live import LiveServer
from support.lifecycle import expire_now, file_suggestion
from support.server import World

Live = tuple[World, LiveServer]


def later(days: int = 10) -> str:
    return (datetime.now(UTC) + timedelta(days=days)).date().isoformat()


def test_create_and_edit_expiry(world: World) -> None:
    day = later()
    made = world.call(
        "alice", "POST", "/api/v1/memories", json={"content": "Demo on Friday", "expires_at": day}
    )
    assert made.status_code == 201, made.text
    memory = made.json()
    end = datetime.fromisoformat(day).replace(tzinfo=UTC) + timedelta(days=1)
    assert datetime.fromisoformat(memory["expires_at"]) == end
    assert memory["expired"] is False
    path = f"/api/v1/memories/{memory['id']}"
    kept = world.call("alice", "PATCH", path, json={"content": "Demo on Friday at 10"})
    assert kept.json()["expires_at"] == memory["expires_at"]  # left out: kept
    cleared = world.call("alice", "PATCH", path, json={"expires_at": None})
    assert cleared.json()["expires_at"] is None
    assert cleared.json()["content"] == "Demo on Friday at 10"
    bad = world.call("alice", "PATCH", path, json={"expires_at": "friday"})
    assert bad.status_code == 422 and "YYYY-MM-DD" in bad.json()["error"]["message"]
    past = world.call(
        "alice", "POST", "/api/v1/memories", json={"content": "x", "expires_at": "2020-01-01"}
    )
    assert past.status_code == 422 and "already passed" in past.json()["error"]["message"]
    empty = world.call("alice", "PATCH", path, json={})
    assert empty.status_code == 422 and "nothing to change" in empty.json()["error"]["message"]


def test_expired_memory_is_listed_as_expired_holds_no_slot_and_is_not_injected(
    world: World,
) -> None:
    alice = world.ids["alice"]
    gone = world.md.add_memory(alice, "Demo is on Friday", expires_at=later())
    world.md.add_memory(alice, "Likes green tea")
    expire_now(world.md, gone.id)
    listing = world.call("alice", "GET", "/api/v1/memories").json()
    expired = {m["content"]: m["expired"] for m in listing["memories"]}
    assert expired == {"Demo is on Friday": True, "Likes green tea": False}
    [usage] = [s for s in listing["scopes"] if s["scope"] == "global"]
    assert usage["count"] == 1  # the expired one holds no slot
    turn = world.call(
        "alice", "POST", "/api/v1/context", json={"workspace": "alpha", "message": "demo?"}
    ).json()
    assert [m["content"] for m in turn["memories"]] == ["Likes green tea"]


def test_proxy_never_injects_an_expired_memory(
    live_world: Live, fake_llm: FakeOpenAIServer
) -> None:
    world, live = live_world
    alice = world.ids["alice"]
    gone = world.md.add_memory(alice, "Demo is on Friday", workspace="alpha", expires_at=later())
    world.md.add_memory(alice, "Alice is vegetarian")
    expire_now(world.md, gone.id)
    fake_llm.script(Reply.text("ok"))
    client = openai.OpenAI(base_url=f"{live.url}/v1", api_key=world.keys["alice"], max_retries=0)
    reply = client.chat.completions.with_raw_response.create(
        model="alpha/gpt-test", messages=[{"role": "user", "content": "When is the demo?"}]
    )
    assert reply.headers["X-Memoryd-Memories"] == "1"
    system = fake_llm.requests[0]["messages"][0]["content"]
    assert system == f"{SECTION_HEADING}\n- Alice is vegetarian"


def test_memory_detail_with_history_and_source_chats(world: World) -> None:
    alice = world.ids["alice"]
    chat = world.md.record_chat(alice, "alpha", "I play the cello.", "Nice")
    memory = world.md.add_memory(alice, "Plays the cello", source_chat_ids=[chat.id])
    world.md.edit_memory(alice, memory.id, "Plays the cello well")
    detail = world.call("alice", "GET", f"/api/v1/memories/{memory.id}")
    assert detail.status_code == 200, detail.text
    body = detail.json()
    assert body["content"] == "Plays the cello well" and body["created_by"] == f"user:{alice}"
    assert [c["prompt"] for c in body["source_chats"]] == ["I play the cello."]
    assert [h["action"] for h in body["history"]] == ["create", "update"]
    assert world.call("bob", "GET", f"/api/v1/memories/{memory.id}").status_code == 404
    admin = world.call("admin", "GET", f"/api/v1/users/{alice}/memories/{memory.id}")
    assert admin.status_code == 200 and admin.json()["history"] == body["history"]


def test_review_queue_routes(world: World) -> None:
    alice = world.ids["alice"]
    porto = world.md.add_memory(alice, "Lives in Porto")
    update_id = file_suggestion(world.md, world.ids["alice"], "Moved to Lisbon", porto.id)
    listed = world.call("alice", "GET", "/api/v1/suggestions")
    assert listed.status_code == 200
    [item] = listed.json()
    assert (item["kind"], item["target_content"], item["content"]) == (
        "update",
        "Lives in Porto",
        "Moved to Lisbon",
    )
    assert world.call("bob", "GET", "/api/v1/suggestions").json() == []
    other = world.call("bob", "POST", f"/api/v1/suggestions/{update_id}/accept")
    assert other.status_code == 404
    accepted = world.call(
        "alice",
        "POST",
        f"/api/v1/suggestions/{update_id}/accept",
        json={"content": "Lives in Lisbon", "expires_at": later(30)},
    )
    assert accepted.status_code == 200, accepted.text
    assert accepted.json()["id"] == porto.id and accepted.json()["content"] == "Lives in Lisbon"
    assert accepted.json()["expires_at"] is not None
    again = world.call("alice", "POST", f"/api/v1/suggestions/{update_id}/accept")
    assert again.status_code == 422 and "already accepted" in again.json()["error"]["message"]

    create_id = file_suggestion(world.md, world.ids["alice"], "Plays chess")
    rejected = world.call("admin", "POST", f"/api/v1/users/{alice}/suggestions/{create_id}/reject")
    assert rejected.status_code == 200 and rejected.json()["status"] == "rejected"
    everything = world.call("alice", "GET", "/api/v1/suggestions", params={"status": "all"})
    assert {s["status"] for s in everything.json()} == {"accepted", "rejected"}


def test_accepting_into_a_full_scope_is_a_clear_409(world: World) -> None:
    alice = world.ids["alice"]
    for n in range(5):
        world.md.add_memory(alice, f"Global fact {n}")
    waiting = file_suggestion(world.md, world.ids["alice"], "Plays chess")
    full = world.call("alice", "POST", f"/api/v1/suggestions/{waiting}/accept")
    assert full.status_code == 409 and "full" in full.json()["error"]["message"]
    assert [s.id for s in world.md.list_suggestions(alice)] == [waiting]  # still waiting


def test_review_setting_is_validated(world: World) -> None:
    ok = world.call("admin", "PATCH", "/api/v1/settings", json={"memory_review": "updates"})
    assert ok.status_code == 200, ok.text
    assert world.md.get_settings()["memory_review"] == "updates"
    bad = world.call("admin", "PATCH", "/api/v1/settings", json={"memory_review": "sometimes"})
    assert bad.status_code == 422 and "off, updates, everything" in bad.text
