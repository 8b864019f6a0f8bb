"""REST export/import carry a memory's topics; bad topics are a 422 naming the line."""

from __future__ import annotations

from support.server import World
from support.topics import tag


def test_topics_go_out_and_come_back_over_http(world: World) -> None:
    alice = world.ids["alice"]
    tagged = world.md.add_memory(alice, "Grows roses in the garden")
    tag(world.md, tagged.id, ["hobbies", "home"])
    exported = world.call("alice", "GET", "/api/v1/export").content
    assert b'"topics": ["hobbies", "home"]' in exported
    world.call("alice", "DELETE", f"/api/v1/memories/{tagged.id}")
    imported = world.call("alice", "POST", "/api/v1/import", content=exported)
    assert imported.status_code == 200 and imported.json()["created"] == 1
    shown = world.call("alice", "GET", f"/api/v1/memories/{tagged.id}").json()
    assert shown["topics"] == ["hobbies", "home"]


def test_bad_topics_are_a_422_naming_the_line_and_import_nothing(world: World) -> None:
    alice = world.ids["alice"]
    world.md.add_memory(alice, "Alice speaks Norwegian")
    before = world.call("alice", "GET", "/api/v1/export").content
    cases = {
        '"music"': 'line 2: topics must be a list of topic keys, like ["hobbies", "music"]',
        '["gardening"]': "line 2: unknown topic 'gardening' (topics: hobbies, work, school, "
        "family, pets, food, music, sports, media, home, travel, health, beliefs, plans, "
        "possessions, looks, technology, past)",
        '["work", "music", "pets", "home"]': "line 2: at most 3 topics, not 4",
    }
    for topics, message in cases.items():
        body = '{"content": "Likes jazz"}\n{"content": "Reads a lot", "topics": ' + topics + "}\n"
        refused = world.call("alice", "POST", "/api/v1/import", content=body.encode())
        assert refused.status_code == 422
        assert refused.json()["error"]["type"] == "invalid_input"
        assert refused.json()["error"]["message"] == message
    assert world.call("alice", "GET", "/api/v1/export").content == before
