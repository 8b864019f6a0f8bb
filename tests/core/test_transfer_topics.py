"""An export carries each tagged memory's topics and an import restores them, so a moved
user's memories need no tagging again; an older file imports untagged, and a line with
bad topics is refused with its number and nothing imported."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from memoryd import InvalidInput, Memoryd
from memoryd.domain.topics import shown_labels
from memoryd.embedding.minilm import MiniLMEmbedder
from support.topics import tag


def _tagged(md: Memoryd) -> int:
    md.create_workspace("phoenix")
    uid = md.create_user("alice").id
    garden = md.add_memory(uid, "Grows roses in the garden")
    md.add_memory(uid, "Prefers concise answers")  # left untagged
    ships = md.add_memory(uid, "Phoenix ships in Q3", workspace="phoenix")
    tag(md, garden.id, ["hobbies", "home"])
    tag(md, ships.id, [])  # tagged, no topic found
    return uid


def _topics(md: Memoryd, uid: int) -> dict[str, list[str] | None]:
    return {m.content: None if m.topics is None else list(m.topics) for m in md.list_memories(uid)}


EXPECTED = {
    "Grows roses in the garden": ["hobbies", "home"],
    "Prefers concise answers": None,
    "Phoenix ships in Q3": [],
}


def test_topics_go_to_another_instance_and_back_byte_for_byte(
    any_md: Memoryd, other_db_url: str, embedder: MiniLMEmbedder
) -> None:
    uid = _tagged(any_md)
    exported = any_md.export_memories(uid)
    lines = {r["content"]: r for r in (json.loads(x) for x in exported[1:])}
    assert lines["Grows roses in the garden"]["topics"] == ["hobbies", "home"]
    assert lines["Phoenix ships in Q3"]["topics"] == []
    assert "topics" not in lines["Prefers concise answers"]  # untagged: as before topics
    with Memoryd(other_db_url, embedder=embedder) as other:
        target = other.create_user("alice").id
        other.import_memories(target, exported)
        assert _topics(other, target) == EXPECTED
        assert other.export_memories(target) == exported


def test_an_older_line_keeps_the_topics_of_the_same_text_and_drops_them_for_new_text(
    any_md: Memoryd,
) -> None:
    uid = _tagged(any_md)
    older = [json.loads(x) for x in any_md.export_memories(uid)[1:]]
    for record in older:
        record.pop("topics", None)
        if record["content"] == "Phoenix ships in Q3":
            record["content"] = "Phoenix ships in Q4"
    result = any_md.import_memories(uid, [json.dumps(r) for r in older])
    assert (result.created, result.updated) == (0, 3)
    assert _topics(any_md, uid) == {
        "Grows roses in the garden": ["hobbies", "home"],  # same words: still true
        "Prefers concise answers": None,
        "Phoenix ships in Q4": None,  # new words: the background pass tags them again
    }


def test_a_line_sets_the_topics_of_a_memory_it_updates(any_md: Memoryd) -> None:
    uid = _tagged(any_md)
    records = [json.loads(x) for x in any_md.export_memories(uid)[1:]]
    for record in records:
        record["topics"] = ["work"] if record["content"] == "Phoenix ships in Q3" else []
    any_md.import_memories(uid, [json.dumps(r) for r in records])
    assert _topics(any_md, uid) == {
        "Grows roses in the garden": [],
        "Prefers concise answers": [],
        "Phoenix ships in Q3": ["work"],
    }


def test_a_hand_written_line_may_name_topics(md: Memoryd) -> None:
    uid = md.create_user("alice").id
    line = {"content": "Plays the cello", "topics": ["music", "hobbies"]}
    md.import_memories(uid, [json.dumps(line)])
    [memory] = md.list_memories(uid)
    assert memory.topics == ("hobbies", "music")  # stored in the list's order


@pytest.mark.parametrize(
    ("topics", "message"),
    [
        ("music", r"line 2: topics must be a list of topic keys"),
        ([1], r"line 2: topics must be a list of topic keys"),
        (["cooking"], r"line 2: unknown topic 'cooking' \(topics: hobbies, work, "),
        (["Music"], r"line 2: unknown topic 'Music'"),
        (["music", "music"], r"line 2: topics names a topic twice"),
        (["work", "music", "pets", "home"], r"line 2: at most 3 topics, not 4"),
    ],
)
def test_bad_topics_are_refused_with_the_line_and_nothing_changes(
    md: Memoryd, topics: object, message: str
) -> None:
    uid = _tagged(md)
    before = md.export_memories(uid)
    good = json.dumps({"content": "Plays the cello"})
    bad = json.dumps({"content": "Reads sci-fi", "topics": topics})
    with pytest.raises(InvalidInput, match=message):
        md.import_memories(uid, [good, bad])
    assert md.export_memories(uid) == before


def test_the_export_format_doc_lists_every_topic_as_people_see_it() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text("utf-8")
    rows = re.findall(r"^\| `([a-z]+)` \| ([^|]+) \|$", doc, flags=re.M)
    listed = {key: label.strip() for key, label in rows if key in shown_labels()}
    assert listed == shown_labels()
    assert list(listed) == list(shown_labels())  # in the list's order
