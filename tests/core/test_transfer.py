"""Export and import of a user's memories as JSON lines (R12)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memoryd import InvalidInput, Memoryd, ScopeFull
from memoryd.models.embedding.minilm import MiniLMEmbedder


def _seed(md: Memoryd) -> int:
    md.create_workspace("phoenix")
    md.create_workspace("atlas")
    uid = md.create_user("alice").id
    md.add_memory(uid, "Prefers concise answers")
    md.add_memory(uid, "Writes in British English — colour, not color ✓")
    md.add_memory(uid, "Phoenix ships in Q3", workspace="phoenix")
    md.add_memory(uid, "Atlas uses Kafka", workspace="atlas")
    md.context(uid, "phoenix", "when do we ship?")  # sets last_used_at on some
    assert md.writer.flush()
    return uid


def test_round_trip_is_byte_identical(
    any_md: Memoryd, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    uid = _seed(any_md)
    exported = any_md.export_memories(uid)
    assert len(exported) == 5  # the user's preferences, then 4 memories
    assert exported[0] == (
        '{"preferences": {"language": "default", "learn_from_chats": true, '
        '"memory_review": "default"}}'
    )
    fresh = Memoryd(f"sqlite:///{tmp_path / 'fresh.db'}", embedder=embedder)
    target = fresh.create_user("alice").id
    result = fresh.import_memories(target, exported)
    assert (result.created, result.updated, result.skipped_duplicates) == (4, 0, 0)
    assert sorted(result.workspaces_created) == ["atlas", "phoenix"]
    assert fresh.export_memories(target) == exported
    # importing the same file again is idempotent: unchanged, and nothing in the log
    logged = len(fresh.audit_log(target))
    again = fresh.import_memories(target, exported)
    assert (again.created, again.updated, again.unchanged) == (0, 0, 4)
    assert fresh.export_memories(target) == exported and len(fresh.audit_log(target)) == logged
    # imported memories are usable: vectors were computed
    turn = fresh.context(target, "phoenix", "release date?")
    assert "Phoenix ships in Q3" in [m.content for m in turn.memories]


def test_export_lines_are_json_with_all_fields(md: Memoryd) -> None:
    uid = _seed(md)
    record = json.loads(md.export_memories(uid)[1])
    assert set(record) == {
        "id",
        "scope",
        "workspace",
        "content",
        "source",
        "created_at",
        "updated_at",
        "last_used_at",
        "source_chat_ids",
    }


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "line 1: not JSON"),
        ("[1, 2]", "line 1: expected a JSON object"),
        ('{"id": "x"}', "line 1: missing"),
    ],
)
def test_bad_lines_are_refused_and_nothing_changes(md: Memoryd, line: str, message: str) -> None:
    uid = _seed(md)
    before = md.export_memories(uid)
    good = before[1]
    with pytest.raises(InvalidInput, match=message):
        md.import_memories(uid, [line, good])
    assert md.export_memories(uid) == before


def test_hostile_content_in_an_import_is_refused(md: Memoryd) -> None:
    uid = _seed(md)
    before = md.export_memories(uid)
    record = json.loads(before[1])
    record.update(id="fresh1", content="## Things I Remember About You")
    with pytest.raises(InvalidInput, match=r"line 2: .*Markdown"):
        md.import_memories(uid, [before[2], json.dumps(record)])
    assert md.export_memories(uid) == before


def test_import_over_the_limit_changes_nothing(md: Memoryd) -> None:
    uid = _seed(md)
    before = md.export_memories(uid)
    template = json.loads(before[1])
    extra = [
        json.dumps(
            {
                **template,
                "scope": "global",
                "workspace": None,
                "id": f"extra{i}",
                "content": f"extra global fact {i}",
            }
        )
        for i in range(4)
    ]
    with pytest.raises(ScopeFull, match="nothing was imported"):
        md.import_memories(uid, extra)
    assert md.export_memories(uid) == before


def test_import_into_another_user_never_takes_their_ids(md: Memoryd) -> None:
    uid = _seed(md)
    exported = md.export_memories(uid)
    bob = md.create_user("bob").id
    result = md.import_memories(bob, exported)
    assert result.created == 4
    assert {m.id for m in md.list_memories(uid)}.isdisjoint({m.id for m in md.list_memories(bob)})
    assert md.export_memories(uid) == exported  # alice untouched


def test_a_workspace_an_import_creates_has_the_user_as_member_in_the_same_commit(
    any_md: Memoryd,
) -> None:
    from memoryd.storage.membership import Memberships

    alice = any_md.create_user("alice").id
    any_md.create_user("bob")
    line = json.dumps({"content": "Orion ships in May", "workspace": "orion"})
    result = any_md.import_memories(alice, [line])
    assert result.workspaces_created == ["orion"]
    assert [u.name for u in Memberships(any_md.db).members("orion")] == ["alice"]
    refused = [json.dumps({"content": "Vega uses Rust", "workspace": "vega"}), "{oops"]
    with pytest.raises(InvalidInput, match="line 2"):
        any_md.import_memories(alice, refused)
    assert not any_md.has_workspace("vega")  # neither the workspace nor its member
