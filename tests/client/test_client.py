"""``MemorydClient`` and ``AsyncMemorydClient`` against a real ``memoryd serve``: the
library's names, return values and exceptions, so an app swaps one line to move from the
embedded library to a server.
"""

from __future__ import annotations

import importlib.util
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import pytest

from memoryd import Memoryd
from memoryd.app.transfer_preferences import Preferences
from memoryd.client import AsyncMemorydClient, MemorydClient, NotAuthenticated, ServerError
from memoryd.domain.errors import (
    DuplicateMemory,
    InvalidContent,
    InvalidInput,
    InvalidScope,
    NotFound,
    PermissionDenied,
    ScopeFull,
)
from memoryd.domain.models import Chat
from memoryd.testing.live import LiveMemoryd, free_port

ROOT = Path(__file__).resolve().parents[2]
FACTS = [
    "The database is PostgreSQL 16",
    "Deploys go out on Fridays",
    "The frontend is written in Svelte",
    "The team standup is at 9am",
    "Logs are shipped to Loki",
    "Tests run on GitHub Actions",
    "The API is versioned under /v2",
]


def chat_app(memory: Any, user_id: int) -> tuple[list[str], str, list[str]]:
    """A tiny app written against the library's API; it runs on either backend."""
    memory.add_memory(user_id, "Prefers concise answers", scope="global")
    for fact in FACTS:
        memory.add_memory(user_id, fact, workspace="alpha")
    turn = memory.context(
        user_id,
        workspace="alpha",
        message="Which database?",
        history=[{"role": "user", "content": "hi"}],
    )
    memory.record_chat(user_id, workspace="alpha", prompt="Which database?", response="Postgres")
    listed = [m.content for m in memory.list_memories(user_id, workspace="alpha")]
    return [m.content for m in turn.memories], turn.system_prompt("Be brief."), listed


def test_the_same_app_runs_on_the_library_and_the_client(live: LiveMemoryd, tmp_path: Path) -> None:
    with Memoryd(f"sqlite:///{tmp_path / 'embedded.db'}", embedder=live.md.embedder) as md:
        md.create_workspace("alpha")
        embedded = chat_app(md, md.create_user("alice").id)
    with MemorydClient(live.url, live.keys["alice"]) as client:
        served = chat_app(client, live.ids["alice"])
    assert served == embedded
    assert served[0][0] == "Prefers concise answers" and len(served[0]) == 6
    assert [c.prompt for c in live.md.list_chats(live.ids["alice"])] == ["Which database?"]


def test_answers_are_the_librarys_objects(live: LiveMemoryd) -> None:
    alice = live.ids["alice"]
    with MemorydClient(live.url, live.keys["alice"]) as client:
        made = client.add_memory(alice, "Phoenix ships in Q3", workspace="beta")
        assert made == live.md.get_memory(alice, made.id)
        assert client.get_memory(alice, made.id) == made
        assert client.list_memories(alice) == live.md.list_memories(alice)
        edited = client.edit_memory(alice, made.id, "Phoenix ships in Q4")
        assert edited == live.md.get_memory(alice, made.id)
        assert client.promote(alice, made.id) == live.md.get_memory(alice, made.id)
        assert client.demote(alice, made.id, "alpha").workspace == "alpha"
        assert client.audit_log(alice, made.id) == live.md.audit_log(alice, made.id)
        lines = client.export_memories(alice)
        assert lines == live.md.export_memories(alice)
        client.delete_memory(alice, made.id)
        assert client.list_memories(alice) == []
        result = client.import_memories(alice, lines)
        assert (result.created, result.updated) == (1, 0)
        assert [json.loads(x)["content"] for x in client.export_memories(alice)[1:]] == [
            "Phoenix ships in Q4"
        ]
        chat = client.record_chat(alice, "alpha", "I moved to Lisbon", "Noted")
        assert client.list_chats(alice) == live.md.list_chats(alice) == [chat]
        assert client.whoami() == client.get_user(alice) == live.md.get_user(alice)
        assert {w.slug for w in client.list_workspaces()} == {"alpha", "beta"}


def test_expiry_goes_through_the_client_like_the_library(live: LiveMemoryd) -> None:
    alice = live.ids["alice"]
    with MemorydClient(live.url, live.keys["alice"]) as client:
        made = client.add_memory(alice, "The demo is on Friday", "global", expires_at="2099-01-02")
        assert made.expires_at == datetime(2099, 1, 3, tzinfo=UTC)
        assert made == live.md.get_memory(alice, made.id)
        kept = client.edit_memory(alice, made.id, "The demo is on Friday at 10")
        assert kept.expires_at == made.expires_at  # left out: kept
        cleared = client.edit_memory(alice, made.id, expires_at=None)
        assert cleared.expires_at is None and cleared.content == kept.content
        with pytest.raises(InvalidInput, match="already passed"):
            client.edit_memory(alice, made.id, expires_at="2020-01-01")


def test_context_is_the_librarys_turn(live: LiveMemoryd) -> None:
    alice = live.ids["alice"]
    live.md.add_memory(alice, "Prefers concise answers", scope="global")
    for fact in FACTS:
        live.md.add_memory(alice, fact, workspace="alpha")
    history = [{"role": "assistant", "content": "We ship logs somewhere"}]
    expected = live.md.context(alice, "alpha", "Where do the logs go?", history)
    with MemorydClient(live.url, live.keys["alice"]) as client:
        turn = client.context(alice, "alpha", "Where do the logs go?", history)
    assert [(s.memory.id, s.score) for s in turn.workspace_memories] == [
        (s.memory.id, s.score) for s in expected.workspace_memories
    ]
    assert [s.memory.id for s in turn.global_memories] == [
        s.memory.id for s in expected.global_memories
    ]
    assert turn.section == expected.section
    assert turn.system_prompt("Base.") == expected.system_prompt("Base.")
    assert turn.query == expected.query
    assert turn.reranker == expected.reranker is not None


def test_refusals_raise_the_librarys_exceptions(live: LiveMemoryd) -> None:
    alice, bob = live.ids["alice"], live.ids["bob"]
    with MemorydClient(live.url, live.keys["alice"]) as client:
        for i in range(5):
            client.add_memory(alice, f"Global fact {i}", scope="global")
        with pytest.raises(ScopeFull) as full:
            client.add_memory(alice, "A sixth one", scope="global")
        assert (full.value.scope, full.value.limit) == ("global", 5)
        assert str(full.value) == "global is full (5 memories); delete one first"
        with pytest.raises(DuplicateMemory):
            client.add_memory(alice, "global fact 0", scope="global")
        with pytest.raises(InvalidContent):
            client.add_memory(alice, "# A heading", workspace="alpha")
        with pytest.raises(InvalidScope):
            client.add_memory(alice, "No workspace given", scope="workspace")
        ws = client.add_memory(alice, "Workspace fact", workspace="alpha")
        with pytest.raises(ScopeFull):
            client.promote(alice, ws.id)  # R2
        with pytest.raises(PermissionDenied):  # a default user reaches no one else
            client.list_memories(bob)
        with pytest.raises(PermissionDenied):
            client.context(bob, "alpha", "hi")
    with MemorydClient(live.url, live.keys["bob"]) as client, pytest.raises(NotFound):
        client.get_memory(bob, ws.id)  # alice's memory id: not found for bob (R8)
    with MemorydClient(live.url, "mdk_wrong") as client, pytest.raises(NotAuthenticated):
        client.list_memories(alice)
    unreachable = f"http://127.0.0.1:{free_port()}"
    with MemorydClient(unreachable, "mdk_x") as client, pytest.raises(ServerError):
        client.whoami()


def test_an_admin_works_on_any_users_memories(live: LiveMemoryd) -> None:
    alice = live.ids["alice"]
    with MemorydClient(live.url, live.keys["admin"]) as admin:
        made = admin.add_memory(alice, "Added by the admin", scope="global")
        assert admin.list_memories(alice) == [made]
        assert admin.get_user("alice") == live.md.get_user(alice)
    assert made.user_id == alice
    assert live.md.audit_log(alice, made.id)[0].actor == f"admin:{live.ids['admin']}"


def test_my_own_choices_go_through_the_client_like_the_library(live: LiveMemoryd) -> None:
    alice = live.ids["alice"]
    with MemorydClient(live.url, live.keys["alice"]) as client:
        assert client.learns_from_chats(alice) is live.md.learns_from_chats(alice) is True
        client.record_chat(alice, "alpha", "I moved to Lisbon.", "Nice!")
        assert client.set_learning(alice, False) == 1
        assert live.md.learns_from_chats(alice) is client.learns_from_chats(alice) is False
        assert client.set_learning(alice, True) == 0 and live.md.learns_from_chats(alice)
        assert (client.review_preference(alice), client.review_mode(alice)) == (None, "off")
        client.set_review_preference(alice, "updates")
        assert live.md.review_preference(alice) == client.review_preference(alice) == "updates"
        live.md.set_setting("memory_review", "everything")
        client.set_review_preference(alice, None)
        assert (client.review_preference(alice), client.review_mode(alice)) == (None, "everything")
        with pytest.raises(InvalidInput):
            client.set_review_preference(alice, "sometimes")
        with pytest.raises(PermissionDenied):
            client.set_learning(live.ids["bob"], False)
        assert live.md.learns_from_chats(live.ids["bob"]) is True


def test_deleting_my_chats_goes_through_the_client_like_the_library(live: LiveMemoryd) -> None:
    alice, bob = live.ids["alice"], live.ids["bob"]
    bobs = live.md.record_chat(bob, "alpha", "Bob's words", "ok")
    with MemorydClient(live.url, live.keys["alice"]) as client:
        doomed = client.record_chat(alice, "alpha", "delete me", "ok")
        for n in range(2):
            client.record_chat(alice, "alpha", f"alpha {n}", "ok")
        client.record_chat(alice, "beta", "beta 0", "ok")
        assert client.delete_chat(alice, doomed.id) == 1
        with pytest.raises(NotFound, match=f"no chat {doomed.id} for this user"):
            client.delete_chat(alice, doomed.id)
        with pytest.raises(NotFound, match=f"no chat {bobs.id} for this user"):
            client.delete_chat(alice, bobs.id)
        with pytest.raises(PermissionDenied):
            client.clear_chats(bob)
        assert client.clear_chats(alice, "alpha") == 2
        assert [c.prompt for c in client.list_chats(alice)] == ["beta 0"]
        assert client.clear_chats(alice) == 1
        assert client.list_chats(alice) == live.md.list_chats(alice) == []
    assert [c.id for c in live.md.list_chats(bob)] == [bobs.id]


def test_export_and_import_carry_my_choices_like_the_library(live: LiveMemoryd) -> None:
    alice = live.ids["alice"]
    live.md.add_memory(alice, "Prefers concise answers")
    live.md.set_learning(alice, False)
    live.md.set_review_preference(alice, "everything")
    with MemorydClient(live.url, live.keys["alice"]) as client:
        exported = client.export_memories(alice)
        assert exported == live.md.export_memories(alice)
        client.set_learning(alice, True)
        kept = client.import_memories(alice, exported, preferences=False)
        assert kept.preferences is None and client.learns_from_chats(alice) is True
        applied = client.import_memories(alice, exported)
        assert applied.preferences == Preferences(False, "everything", "default")
        assert (client.learns_from_chats(alice), client.review_preference(alice)) == (
            False,
            "everything",
        )
        with pytest.raises(InvalidInput, match="line 1: unknown memory_review 'never'"):
            client.import_memories(alice, ['{"preferences": {"memory_review": "never"}}'])
    assert live.md.review_preference(alice) == "everything"


def test_export_and_import_carry_my_chats_like_the_library(live: LiveMemoryd) -> None:
    alice = live.ids["alice"]
    tea = live.md.add_memory(alice, "Prefers tea")
    live.md.record_chat(alice, "alpha", "Tea or coffee?", "Tea.", memory_ids=[tea.id])
    with MemorydClient(live.url, live.keys["alice"]) as client:
        exported = client.export_memories(alice)
        assert exported == live.md.export_memories(alice)
        assert client.export_memories(alice, chats=False) == exported[:-1]
        client.clear_chats(alice)
        skipped = client.import_memories(alice, exported, chats=False)
        assert (skipped.unchanged, skipped.updated, skipped.chats_created) == (1, 0, 0)
        assert client.list_chats(alice) == []
        added = client.import_memories(alice, exported)
        assert (added.chats_created, added.chats_skipped) == (1, 0)
        [chat] = client.list_chats(alice)
        assert chat.prompt == "Tea or coffee?"
        assert [u.id for u in live.md.chat_memories(alice, [chat.id])[chat.id]] == [tea.id]


def test_text_with_unicode_line_breaks_round_trips_through_the_client(live: LiveMemoryd) -> None:
    """An export's lines end at LF only, on the server and in the client: a chat whose
    text holds U+2028 or U+0085 stays one line, and comes back as it was."""
    alice = live.ids["alice"]
    prompt, reply = "first\u2028second\x85third", "reply\u2029with\rbreaks\x0c"
    tea = live.md.add_memory(alice, "Prefers\u2028tea")  # folded into a space when stored
    live.md.record_chat(alice, "alpha", prompt, reply, memory_ids=[tea.id])
    with MemorydClient(live.url, live.keys["alice"]) as client:
        exported = client.export_memories(alice)
        assert exported == live.md.export_memories(alice) and len(exported) == 3
        client.clear_chats(alice)
        client.delete_memory(alice, tea.id)
        added = client.import_memories(alice, exported)
        assert (added.created, added.chats_created) == (1, 1)
        assert client.import_memories(alice, "\n".join(exported)).chats_skipped == 1
        [chat] = client.list_chats(alice)
        assert (chat.prompt, chat.response) == (prompt, reply)
        assert [m.content for m in client.list_memories(alice)] == ["Prefers tea"]

    async def twin() -> list[str]:
        async with AsyncMemorydClient(live.url, live.keys["alice"]) as client:
            return await client.export_memories(alice)

    assert anyio.run(twin) == live.md.export_memories(alice)


def test_a_source_chat_out_of_reach_is_counted_in_the_clients_detail(live: LiveMemoryd) -> None:
    alice = live.ids["alice"]
    said = live.md.record_chat(alice, "alpha", "I moved to Lisbon", "Nice.")
    secret = live.md.record_chat(alice, "beta", "Beta's launch code is TANGO-19", "Noted.")
    memory = live.md.add_memory(alice, "Lives in Lisbon", source_chat_ids=[said.id, secret.id])
    live.auth.remove_member("beta", alice)
    with MemorydClient(live.url, live.keys["alice"]) as client:
        detail = client.memory_detail(alice, memory.id)
    assert [c.prompt for c in detail.source_chats] == ["I moved to Lisbon"]
    assert detail.hidden_source_chats == 1 and detail.deleted_source_chat_ids == ()
    assert live.md.memory_detail(alice, memory.id).hidden_source_chats == 0  # the library


def test_the_async_twin_gives_the_same_answers(live: LiveMemoryd) -> None:
    alice = live.ids["alice"]
    for fact in FACTS:
        live.md.add_memory(alice, fact, workspace="alpha")

    async def main() -> tuple[list[str], list[str]]:
        async with AsyncMemorydClient(live.url, live.keys["alice"]) as client:
            made = await client.add_memory(alice, "Async fact", workspace="beta")
            assert made == live.md.get_memory(alice, made.id)
            turn = await client.context(alice, "alpha", "Which database?")
            with pytest.raises(DuplicateMemory):
                await client.add_memory(alice, "Async fact", workspace="beta")
            return [m.id for m in turn.memories], [m.id for m in await client.list_memories(alice)]

    ids, listed = anyio.run(main)
    with MemorydClient(live.url, live.keys["alice"]) as client:
        assert ids == [m.id for m in client.context(alice, "alpha", "Which database?").memories]
        assert listed == [m.id for m in client.list_memories(alice)]


def test_the_sync_client_is_generated_from_the_async_one() -> None:
    pytest.importorskip("unasync", reason="the generator needs unasync (dev extra)")
    path = ROOT / "scripts" / "generate_sync_client.py"
    spec = importlib.util.spec_from_file_location("generate_sync_client", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    committed = (ROOT / "src" / "memoryd" / "client" / "_sync" / "client.py").read_text()
    assert committed == module.sync_source(), "run: python scripts/generate_sync_client.py"


def test_list_chats_reads_past_the_apis_page_of_1000(live: LiveMemoryd) -> None:
    alice = live.ids["alice"]
    lines = [
        json.dumps(
            {
                "chat": {
                    "created_at": f"2026-01-01T00:{n // 60:02d}:{n % 60:02d}+00:00",
                    "id": n + 1,
                    "memory_ids": [],
                    "memory_processed": True,
                    "prompt": f"said {n}",
                    "response": "ok",
                    "workspace": "alpha" if n % 2 else "beta",
                }
            }
        )
        for n in range(1005)
    ]
    live.md.import_memories(alice, lines)  # one transaction, nothing to embed
    every = live.md.list_chats(alice)
    assert len(every) == 1005
    with MemorydClient(live.url, live.keys["alice"]) as client:
        assert client.list_chats(alice) == every
        assert client.list_chats(alice, "alpha") == live.md.list_chats(alice, "alpha")

    async def read() -> list[Chat]:
        async with AsyncMemorydClient(live.url, live.keys["alice"]) as client:
            return await client.list_chats(alice)

    assert anyio.run(read) == every
