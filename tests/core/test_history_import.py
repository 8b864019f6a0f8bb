"""Bringing a chat history from ChatGPT, Claude and Open WebUI (issue 38, item 4): the
sample exports (``support.history``) parse into the turns a person sees in each product, and
import as recorded chats in order at their original times, once (on SQLite and
PostgreSQL)."""

from __future__ import annotations

import json

import pytest

from memoryd import InvalidInput, Memoryd
from memoryd.app.history_formats import parse_history
from memoryd.app.history_import import HistoryImport, import_history
from support.history import EXPECTED, FILES, sample


@pytest.mark.parametrize("name", FILES)
def test_each_export_parses_into_the_turns_the_product_shows(name: str) -> None:
    history = parse_history(sample(name))  # the format told from the file
    assert history.format == name
    assert len(history.conversations) == 2
    assert [(t.prompt, t.response, t.created_at) for t in history.turns] == EXPECTED[name]
    assert len({t.key for t in history.turns}) == 3
    assert parse_history(sample(name), name) == history  # the same when named


def test_turn_keys_come_from_the_export_ids() -> None:
    keys = [t.key for t in parse_history(sample("claude")).turns]
    assert keys == [
        "0b6a7c1e-2f3d-4e5f-8a9b-0c1d2e3f4a5b:c1-h1",
        "0b6a7c1e-2f3d-4e5f-8a9b-0c1d2e3f4a5b:c1-h2",
        "9e8d7c6b-5a4f-4e3d-2c1b-0a9f8e7d6c5b:c2-h1",
    ]


def test_open_webui_without_a_branch_tree_reads_the_message_list() -> None:
    items = json.loads(sample("openwebui"))
    del items[0]["chat"]["history"]
    history = parse_history(json.dumps(items))
    assert [t.prompt for t in history.turns] == [p for p, _, _ in EXPECTED["openwebui"]]


@pytest.mark.parametrize(
    ("text", "fmt", "message"),
    [
        ("{not json", None, "the file is not JSON (line 1, column 2"),
        ('{"title": "x"}', None, "expected a list of conversations"),
        ('[{"title": "x"}]', None, "has no 'mapping', 'chat_messages' or 'chat'"),
        ("[]", None, "the file holds no conversations"),
        ('[{"mapping": []}]', None, "conversation 1 of the ChatGPT export: 'mapping' must"),
        ('[{"uuid": "u", "chat_messages": {}}]', "claude", "'chat_messages' must be a list"),
        ('[{"chat": {"title": "t"}}]', None, "neither 'messages' nor 'history.messages'"),
        ('[{"mapping": {}}]', "claude", "conversation 1 of the Claude export"),
        ("[]", "bard", "unknown history format 'bard'"),
    ],
)
def test_a_malformed_file_is_one_clear_error(text: str, fmt: str | None, message: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        parse_history(text, fmt)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def _world(md: Memoryd) -> int:
    md.create_workspace("journal")
    return md.create_user("alice").id


@pytest.mark.parametrize("name", FILES)
def test_each_export_imports_once_in_order_at_its_times(any_md: Memoryd, name: str) -> None:
    uid = _world(any_md)
    history = parse_history(sample(name))
    first = any_md.import_history(uid, history, "journal")
    assert (first.conversations, first.recorded, first.already, first.skipped) == (2, 3, 0, 0)
    chats = any_md.list_chats(uid, "journal")
    assert [(c.prompt, c.response, c.created_at) for c in chats] == EXPECTED[name]
    assert not any(c.memory_processed for c in chats)  # extraction reads them, as any chat

    again = any_md.import_history(uid, parse_history(sample(name)), "journal")
    assert (again.recorded, again.already, again.skipped) == (0, 3, 0)
    assert again.summary().endswith("0 turns recorded, 3 already there, 0 skipped (nothing new)")
    assert [c.id for c in any_md.list_chats(uid, "journal")] == [c.id for c in chats]


def test_an_interrupted_import_continues_where_it_stopped(md: Memoryd) -> None:
    uid = _world(md)
    history = parse_history(sample("claude"))
    seen: list[int] = []

    def stop_after_first_batch(now: HistoryImport) -> None:
        seen.append(now.done)
        if now.done:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        import_history(md, uid, history, "journal", progress=stop_after_first_batch, batch_turns=2)
    assert [c.prompt for c in md.list_chats(uid)] == [p for p, _, _ in EXPECTED["claude"][:2]]

    counts: list[tuple[int, int]] = []
    rest = import_history(
        md,
        uid,
        history,
        "journal",
        progress=lambda n: counts.append((n.done, n.total)),
        batch_turns=2,
    )
    assert (rest.recorded, rest.already) == (1, 2)
    assert counts == [(0, 3), (2, 3), (3, 3)]
    assert [(c.prompt, c.created_at) for c in md.list_chats(uid)] == [
        (p, at) for p, _, at in EXPECTED["claude"]
    ]


def test_turns_without_text_or_time_are_skipped_and_counted(md: Memoryd) -> None:
    uid = _world(md)
    items = json.loads(sample("openwebui"))
    messages = items[1]["chat"]["messages"]
    messages.append({"id": "b3", "role": "user", "content": "", "timestamp": 1717491700})
    messages.append({"id": "b4", "role": "user", "content": "When?", "timestamp": "soon"})
    del items[1]["created_at"]
    done = md.import_history(uid, parse_history(json.dumps(items)), "journal")
    assert (done.recorded, done.already, done.skipped) == (3, 0, 2)


def test_a_user_who_does_not_learn_gets_the_chats_processed(md: Memoryd) -> None:
    uid = _world(md)
    md.set_learning(uid, False)
    md.import_history(uid, parse_history(sample("chatgpt")), "journal")
    assert all(c.memory_processed for c in md.list_chats(uid))


def test_a_missing_workspace_records_nothing(md: Memoryd) -> None:
    uid = md.create_user("alice").id
    with pytest.raises(Exception, match="no workspace 'nowhere'"):
        md.import_history(uid, parse_history(sample("claude")), "nowhere")
    assert md.list_chats(uid) == []
