"""Export and import carry the user's own choices (learning from chats, review mode,
language)."""

from __future__ import annotations

import json

import pytest

from memoryd import InvalidInput, Memoryd, ScopeFull
from memoryd.app.transfer_preferences import Preferences
from memoryd.models.embedding.minilm import MiniLMEmbedder

DEFAULTS = (
    '{"preferences": {"language": "default", "learn_from_chats": true, "memory_review": "default"}}'
)


def _seed(md: Memoryd) -> int:
    md.create_workspace("phoenix")
    uid = md.create_user("alice").id
    md.add_memory(uid, "Prefers concise answers")
    md.add_memory(uid, "Phoenix ships in Q3", workspace="phoenix")
    return uid


def _choices(md: Memoryd, uid: int) -> tuple[bool, str | None, str | None]:
    return md.learns_from_chats(uid), md.review_preference(uid), md.language_preference(uid)


def test_moving_a_user_carries_their_choices_byte_for_byte(
    any_md: Memoryd, other_db_url: str, embedder: MiniLMEmbedder
) -> None:
    uid = _seed(any_md)
    any_md.set_learning(uid, False)
    any_md.set_review_preference(uid, "everything")
    any_md.set_language_preference(uid, "fr")
    exported = any_md.export_memories(uid)
    assert exported[0] == (
        '{"preferences": {"language": "fr", "learn_from_chats": false, '
        '"memory_review": "everything"}}'
    )
    with Memoryd(other_db_url, embedder=embedder) as fresh:
        target = fresh.create_user("alice").id
        assert _choices(fresh, target) == (True, None, None)
        result = fresh.import_memories(target, exported)
        assert result.created == 2
        assert result.preferences == Preferences(False, "everything", "fr")
        assert _choices(fresh, target) == (False, "everything", "fr")
        assert "\n".join(fresh.export_memories(target)) == "\n".join(exported)


def test_default_choices_round_trip_too(
    any_md: Memoryd, other_db_url: str, embedder: MiniLMEmbedder
) -> None:
    uid = any_md.create_user("alice").id
    exported = any_md.export_memories(uid)
    assert exported == [DEFAULTS]  # a user with no memories still has choices
    with Memoryd(other_db_url, embedder=embedder) as fresh:
        target = fresh.create_user("alice").id
        fresh.set_learning(target, False)
        fresh.set_review_preference(target, "updates")
        fresh.set_language_preference(target, "auto")
        fresh.import_memories(target, exported)
        assert _choices(fresh, target) == (True, None, None)  # "default" follows the instance
        assert fresh.export_memories(target) == exported


def test_an_old_export_without_the_line_changes_no_choice(any_md: Memoryd) -> None:
    uid = _seed(any_md)
    old_format = any_md.export_memories(uid)[1:]
    for memory in any_md.list_memories(uid):
        any_md.delete_memory(uid, memory.id)
    any_md.set_learning(uid, False)
    any_md.set_review_preference(uid, "updates")
    result = any_md.import_memories(uid, old_format)
    assert result.created == 2 and result.preferences is None
    assert _choices(any_md, uid) == (False, "updates", None)


def test_preferences_false_keeps_the_choices_the_user_has(any_md: Memoryd) -> None:
    uid = _seed(any_md)
    exported = any_md.export_memories(uid)  # learning on, review default
    any_md.set_learning(uid, False)
    any_md.set_review_preference(uid, "everything")
    result = any_md.import_memories(uid, exported, preferences=False)
    assert result.unchanged == 2 and result.preferences is None
    assert _choices(any_md, uid) == (False, "everything", None)


def test_a_hand_written_line_may_set_one_choice_and_come_last(any_md: Memoryd) -> None:
    uid = any_md.create_user("alice").id
    any_md.set_learning(uid, False)
    lines = ['{"content": "Prefers tea"}', "", '{"preferences": {"memory_review": "updates"}}']
    result = any_md.import_memories(uid, lines)
    assert result.preferences == Preferences(memory_review="updates")
    assert _choices(any_md, uid) == (False, "updates", None)  # learning left as it was
    assert [m.content for m in any_md.list_memories(uid)] == ["Prefers tea"]


def test_importing_learning_off_closes_the_chats_waiting(any_md: Memoryd) -> None:
    uid = _seed(any_md)
    waiting = any_md.record_chat(uid, "phoenix", "I moved to Oslo", "Noted")
    assert not waiting.memory_processed
    any_md.import_memories(uid, ['{"preferences": {"learn_from_chats": false}}'])
    assert [c.memory_processed for c in any_md.list_chats(uid)] == [True]


BAD_PREFERENCES = [
    (
        '{"preferences": {"learn_from_chats": false, "colour": "blue"}}',
        "line 2: unknown preference 'colour' (known: learn_from_chats, memory_review, language)",
    ),
    (
        '{"preferences": {"language": "klingon"}}',
        "line 2: unknown language 'klingon': use default, auto, en, fr,",
    ),
    (
        '{"preferences": {"learn_from_chats": "no"}}',
        "line 2: learn_from_chats must be true or false, not 'no'",
    ),
    (
        '{"preferences": {"learn_from_chats": 0}}',
        "line 2: learn_from_chats must be true or false, not 0",
    ),
    (
        '{"preferences": {"learn_from_chats": false, "memory_review": "sometimes"}}',
        "line 2: unknown memory_review 'sometimes': use default, off, updates, everything",
    ),
    (
        '{"preferences": {"memory_review": "OFF"}}',
        "line 2: unknown memory_review 'OFF'",
    ),
    (
        '{"preferences": {"memory_review": null}}',
        "line 2: unknown memory_review None",
    ),
    ('{"preferences": [false]}', "line 2: preferences must be an object"),
    (
        '{"preferences": {"learn_from_chats": false}, "content": "Likes jazz"}',
        "line 2: a preferences line holds only \"preferences\", not 'content'",
    ),
]


@pytest.mark.parametrize(("line", "message"), BAD_PREFERENCES)
def test_a_malformed_preferences_line_refuses_the_whole_file(
    any_md: Memoryd, line: str, message: str
) -> None:
    uid = _seed(any_md)
    before = any_md.export_memories(uid)
    with pytest.raises(InvalidInput) as refused:
        any_md.import_memories(uid, ['{"content": "Likes jazz"}', line])
    assert str(refused.value).startswith(message)
    assert any_md.export_memories(uid) == before  # no memory, no choice changed


def test_two_preferences_lines_are_refused(any_md: Memoryd) -> None:
    uid = _seed(any_md)
    before = any_md.export_memories(uid)
    lines = [
        '{"preferences": {"learn_from_chats": false}}',
        '{"content": "Likes jazz"}',
        '{"preferences": {"memory_review": "off"}}',
    ]
    with pytest.raises(InvalidInput, match=r"^line 3: a second preferences line \(the first is"):
        any_md.import_memories(uid, lines)
    assert any_md.export_memories(uid) == before


def test_an_import_refused_for_its_memories_sets_no_choice(any_md: Memoryd) -> None:
    uid = _seed(any_md)
    before = any_md.export_memories(uid)
    too_many = [json.dumps({"content": f"global fact {i}"}) for i in range(5)]
    with pytest.raises(ScopeFull, match="nothing was imported"):
        any_md.import_memories(uid, ['{"preferences": {"learn_from_chats": false}}', *too_many])
    assert any_md.export_memories(uid) == before
    assert _choices(any_md, uid) == (True, None, None)
