"""REST API: which memories answered a chat (``memories`` on each chat,
``GET /api/v1/memories/{id}/chats``), the "learn from my chats" switch on ``/api/v1/me``
and incognito context turns."""

from __future__ import annotations

from support.server import World


def alices_memories(world: World) -> list[str]:
    alice = world.ids["alice"]
    return [
        world.md.add_memory(alice, "Alice is vegetarian").id,
        world.md.add_memory(alice, "Alpha ships in June", workspace="alpha").id,
    ]


def test_a_chat_shows_the_memories_it_was_given(world: World) -> None:
    first, second = alices_memories(world)
    posted = world.call(
        "alice",
        "POST",
        "/api/v1/chats",
        json={
            "workspace": "alpha",
            "prompt": "Dinner?",
            "response": "Curry.",
            "memory_ids": [second, first],
        },
    )
    assert posted.status_code == 201, posted.text
    chat = posted.json()
    assert [(m["id"], m["content"], m["deleted"]) for m in chat["memories"]] == [
        (second, "Alpha ships in June", False),
        (first, "Alice is vegetarian", False),
    ]
    one = world.call("alice", "GET", f"/api/v1/chats/{chat['id']}").json()
    assert one["memories"] == chat["memories"]
    listed = world.call("alice", "GET", "/api/v1/chats").json()
    assert [c["memories"] for c in listed] == [chat["memories"]]
    used_in = world.call("alice", "GET", f"/api/v1/memories/{first}/chats")
    assert used_in.status_code == 200
    assert [c["id"] for c in used_in.json()] == [chat["id"]]


def test_deleted_memory_is_a_tombstone_and_its_chat_list_is_gone(world: World) -> None:
    first, second = alices_memories(world)
    chat = world.call(
        "alice",
        "POST",
        "/api/v1/chats",
        json={
            "workspace": "alpha",
            "prompt": "hi",
            "response": "hello",
            "memory_ids": [first, second],
        },
    ).json()
    assert world.call("alice", "DELETE", f"/api/v1/memories/{first}").status_code == 204
    again = world.call("alice", "GET", f"/api/v1/chats/{chat['id']}").json()
    assert again["memories"][0] == {
        "id": first,
        "deleted": True,
        "content": None,
        "scope": None,
        "workspace": None,
    }
    assert again["memories"][1]["content"] == "Alpha ships in June"
    gone = world.call("alice", "GET", f"/api/v1/memories/{first}/chats")
    assert gone.status_code == 404


def test_memory_chats_newest_first_with_a_limit(world: World) -> None:
    first, _ = alices_memories(world)
    ids = [
        world.md.record_chat(world.ids["alice"], "alpha", f"q{n}", "a", memory_ids=[first]).id
        for n in range(3)
    ]
    world.md.record_chat(world.ids["alice"], "alpha", "unrelated", "a")
    got = world.call("alice", "GET", f"/api/v1/memories/{first}/chats?limit=2").json()
    assert [c["id"] for c in got] == ids[::-1][:2]
    assert world.call("alice", "GET", f"/api/v1/memories/{first}/chats?limit=0").status_code == 422


def test_others_cannot_see_a_chat_or_a_memorys_chats(world: World) -> None:
    first, _ = alices_memories(world)
    chat = world.md.record_chat(world.ids["alice"], "alpha", "hi", "hello", memory_ids=[first])
    assert world.call("bob", "GET", f"/api/v1/chats/{chat.id}").status_code == 404
    assert world.call("bob", "GET", f"/api/v1/memories/{first}/chats").status_code == 404
    assert world.call("alice", "GET", "/api/v1/chats/999999").status_code == 404
    admin = world.call("admin", "GET", f"/api/v1/users/{world.ids['alice']}/memories/{first}/chats")
    assert [c["id"] for c in admin.json()] == [chat.id]


def test_bad_memory_ids_are_a_422(world: World) -> None:
    bad = world.call(
        "alice",
        "POST",
        "/api/v1/chats",
        json={"workspace": "alpha", "prompt": "hi", "response": "x", "memory_ids": "abc"},
    )
    assert bad.status_code == 422
    too_many = world.call(
        "alice",
        "POST",
        "/api/v1/chats",
        json={"workspace": "alpha", "prompt": "hi", "response": "x", "memory_ids": ["a"] * 101},
    )
    assert too_many.status_code == 422
    assert world.md.list_chats(world.ids["alice"]) == []


def test_learning_switch_on_me(world: World) -> None:
    assert world.call("alice", "GET", "/api/v1/me").json()["learn_from_chats"] is True
    world.md.record_chat(world.ids["alice"], "alpha", "I moved to Lisbon.", "Nice!")
    off = world.call("alice", "PATCH", "/api/v1/me", json={"learn_from_chats": False})
    assert off.status_code == 200, off.text
    assert off.json()["learn_from_chats"] is False
    assert world.md.list_chats(world.ids["alice"], processed=False) == []
    posted = world.call(
        "alice",
        "POST",
        "/api/v1/chats",
        json={"workspace": "alpha", "prompt": "p", "response": "r"},
    ).json()
    assert posted["memory_processed"] is True
    assert world.md.learns_from_chats(world.ids["bob"]) is True  # only Alice's switch
    bad = world.call("alice", "PATCH", "/api/v1/me", json={"learn_from_chats": "sometimes"})
    assert bad.status_code == 422
    unknown = world.call("alice", "PATCH", "/api/v1/me", json={"learn": False})
    assert unknown.status_code == 422
    on = world.call("alice", "PATCH", "/api/v1/me", json={"learn_from_chats": True})
    assert on.json()["learn_from_chats"] is True


def test_my_own_review_mode_on_me(world: World) -> None:
    alice = world.ids["alice"]
    mine = world.call("alice", "GET", "/api/v1/me").json()
    assert (mine["memory_review"], mine["memory_review_effective"]) == ("default", "off")
    world.md.set_setting("memory_review", "updates")
    assert world.call("alice", "GET", "/api/v1/me").json()["memory_review_effective"] == "updates"
    chosen = world.call("alice", "PATCH", "/api/v1/me", json={"memory_review": "everything"})
    assert chosen.status_code == 200, chosen.text
    assert (chosen.json()["memory_review"], chosen.json()["memory_review_effective"]) == (
        "everything",
        "everything",
    )
    assert chosen.json()["learn_from_chats"] is True  # left as it was
    assert world.md.review_mode(alice) == "everything"
    assert world.md.review_mode(world.ids["bob"]) == "updates"  # only Alice's choice
    both = world.call(
        "alice", "PATCH", "/api/v1/me", json={"memory_review": "off", "learn_from_chats": False}
    ).json()
    assert (both["memory_review_effective"], both["learn_from_chats"]) == ("off", False)
    for bad in ({"memory_review": "sometimes"}, {}, {"memory_review": None}):
        refused = world.call("alice", "PATCH", "/api/v1/me", json=bad)
        assert refused.status_code == 422, bad
    empty = world.call("alice", "PATCH", "/api/v1/me", json={})
    assert "give learn_from_chats, memory_review, language or several" in empty.text
    assert world.md.review_preference(alice) == "off"  # nothing changed by a refusal
    back = world.call("alice", "PATCH", "/api/v1/me", json={"memory_review": "default"}).json()
    assert (back["memory_review"], back["memory_review_effective"]) == ("default", "updates")
    assert world.md.review_preference(alice) is None


def test_incognito_context_leaves_last_used_alone(world: World) -> None:
    alices_memories(world)
    body = {"message": "Dinner?", "workspace": "alpha", "incognito": True}
    got = world.call("alice", "POST", "/api/v1/context", json=body).json()
    assert len(got["memories"]) == 2
    world.md.writer.flush()
    assert all(m.last_used_at is None for m in world.md.list_memories(world.ids["alice"]))
    world.call("alice", "POST", "/api/v1/context", json={**body, "incognito": False})
    world.md.writer.flush()
    assert all(m.last_used_at for m in world.md.list_memories(world.ids["alice"]))


def test_a_memory_out_of_the_users_reach_is_not_shown_on_her_chats(world: World) -> None:
    alice = world.ids["alice"]
    first, in_alpha = alices_memories(world)
    in_beta = world.md.add_memory(alice, "The beta launch code is 7781", workspace="beta").id
    posted = world.call(
        "alice",
        "POST",
        "/api/v1/chats",
        json={"workspace": "alpha", "prompt": "hi", "response": "ok", "memory_ids": [in_beta]},
    )
    assert posted.json()["memories"] == []  # a turn in alpha cannot have injected it
    chat = world.md.record_chat(alice, "alpha", "Dinner?", "Curry.", memory_ids=[first, in_alpha])
    world.md.demote(alice, first, "beta")  # moved where she is about to lose access
    world.auth.remove_member("beta", alice)
    shown = world.call("alice", "GET", f"/api/v1/chats/{chat.id}").json()
    assert [m["id"] for m in shown["memories"]] == [in_alpha]
    listed = world.call("alice", "GET", "/api/v1/chats?workspace=alpha").json()
    assert all(m["id"] != first for c in listed for m in c["memories"])
    session = world.auth.create_session(alice, 1)
    world.client.cookies.clear()
    page = world.client.get("/chat/alpha", headers={"Cookie": f"memoryd_session={session.token}"})
    assert page.status_code == 200 and "Alpha ships in June" in page.text
    assert "Alice is vegetarian" not in page.text


def test_chats_page_back_from_the_newest(world: World) -> None:
    alice = world.ids["alice"]
    for n in range(7):
        world.md.record_chat(alice, "alpha" if n % 2 else "beta", f"said {n}", "ok")

    def page(**params: object) -> list[dict[str, object]]:
        got = world.call("alice", "GET", "/api/v1/chats", params={"limit": 3, **params})
        assert got.status_code == 200, got.text
        return list(got.json())

    newest = page()
    older = page(before=newest[0]["id"])
    oldest = page(before=older[0]["id"])
    assert [c["prompt"] for c in oldest + older + newest] == [f"said {n}" for n in range(7)]
    assert [c["prompt"] for c in oldest] == ["said 0"]
    assert page(before=oldest[0]["id"]) == []
    alpha = page(workspace="alpha", limit=2)
    assert [c["prompt"] for c in page(workspace="alpha", limit=2, before=alpha[0]["id"])] == [
        "said 1"
    ]
    world.md.delete_chat(alice, int(str(older[0]["id"])))
    gone = world.call("alice", "GET", "/api/v1/chats", params={"before": older[0]["id"]})
    assert gone.status_code == 404 and "no chat" in gone.json()["error"]["message"]
    bobs = world.md.record_chat(world.ids["bob"], "alpha", "Bob's", "ok").id
    assert world.call("alice", "GET", f"/api/v1/chats?before={bobs}").status_code == 404
