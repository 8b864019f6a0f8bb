"""What a remote app needs from ``Memoryd`` is on ``MemorydClient`` under the same names,
arguments and types (the review queue, one chat, a memory's detail included), the
methods docs/clients.md lists are the client's, and every way a call can fail ends in one
of the documented exceptions with a message a person can act on.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import anyio
import pytest

from memoryd import Memoryd
from memoryd.client import AsyncMemorydClient, MemorydClient, NotAuthenticated, ServerError
from memoryd.domain.errors import DuplicateMemory, InvalidScope, NotFound, PermissionDenied
from memoryd.domain.models import SuggestionStatus
from memoryd.testing.live import LiveMemoryd
from support.lifecycle import file_suggestion
from support.raw_upstream import RawUpstream, response

ROOT = Path(__file__).resolve().parents[2]
# Library-only keyword arguments: who acts is the API key's user, on the server's side,
# only extraction says which chats a memory came from, and the server decides which
# workspaces' audit entries the key's user may still see, and the quota of workspaces a
# default user may join.
SERVER_SIDE = {
    "actor", "confirm", "member", "protected_ids", "quota", "source_chat_ids", "visible_in",
    "workspace_quota",
}  # fmt: skip
# What a remote app does with memoryd, named as the library names it.
REMOTE = [
    "whoami",
    "get_user",
    "list_users",
    "create_user",
    "list_workspaces",
    "get_workspace",
    "create_workspace",
    "add_memory",
    "get_memory",
    "list_memories",
    "edit_memory",
    "delete_memory",
    "promote",
    "demote",
    "memory_detail",
    "audit_log",
    "list_audit",
    "context",
    "record_chat",
    "list_chats",
    "get_chat",
    "delete_chat",
    "clear_chats",
    "learns_from_chats",
    "set_learning",
    "review_preference",
    "review_mode",
    "set_review_preference",
    "language_preference",
    "language",
    "set_language_preference",
    "list_suggestions",
    "get_suggestion",
    "accept_suggestion",
    "reject_suggestion",
    "get_settings",
    "set_setting",
    "export_memories",
    "import_memories",
]


def parameters(method: object) -> dict[str, inspect.Parameter]:
    found = inspect.signature(method).parameters  # type: ignore[arg-type]
    return {n: p for n, p in found.items() if n not in SERVER_SIDE | {"self"}}


@pytest.mark.parametrize("name", [n for n in REMOTE if n != "whoami"])
@pytest.mark.parametrize("client_class", [MemorydClient, AsyncMemorydClient])
def test_the_client_takes_the_librarys_arguments(name: str, client_class: type) -> None:
    """A call written for the library works on the client: the same positional
    arguments in the same order, every keyword, the same defaults."""
    library, client = parameters(getattr(Memoryd, name)), parameters(getattr(client_class, name))
    positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert [n for n, p in library.items() if p.kind is positional] == [
        n for n, p in client.items() if p.kind is positional
    ][: sum(p.kind is positional for p in library.values())]
    for n, p in library.items():
        assert n in client, f"{client_class.__name__}.{name} lacks {n}"
        assert client[n].default == p.default, f"{name}({n}=...) defaults differ"
    assert set(client) == set(library), f"{client_class.__name__}.{name} takes more"


def test_the_docs_list_the_clients_methods() -> None:
    text = (ROOT / "docs" / "clients.md").read_text()
    listed = re.search(r"^Methods: (.*?)\.\s", text, re.S | re.M)
    assert listed is not None, "docs/clients.md lost its 'Methods:' list"
    documented = set(re.findall(r"`(\w+)`", listed.group(1)))
    public = {n for n, _ in inspect.getmembers(MemorydClient, inspect.isfunction)}
    public = {n for n in public if not n.startswith("_") and n != "close"}
    assert documented == public
    assert set(REMOTE) <= public


def test_the_review_queue_goes_through_the_client_like_the_library(live: LiveMemoryd) -> None:
    alice = live.ids["alice"]
    tea = live.md.add_memory(alice, "Prefers tea")
    create = file_suggestion(live.md, alice, "Works on Phoenix", workspace="alpha")
    update = file_suggestion(live.md, alice, "Prefers green tea", tea.id)
    doomed = file_suggestion(live.md, alice, "Likes long answers")
    with MemorydClient(live.url, live.keys["alice"]) as client:
        assert client.list_suggestions(alice) == live.md.list_suggestions(alice)
        assert [s.id for s in client.list_suggestions(alice)] == [create, update, doomed]
        assert client.get_suggestion(alice, update) == live.md.get_suggestion(alice, update)
        made = client.accept_suggestion(alice, create, content="Works on Phoenix and Atlas")
        assert made == live.md.get_memory(alice, made.id)
        assert (made.workspace, made.content) == ("alpha", "Works on Phoenix and Atlas")
        revised = client.accept_suggestion(alice, update, expires_at="2099-01-01")
        assert (revised.id, revised.content) == (tea.id, "Prefers green tea")
        assert revised.expires_at is not None
        rejected = client.reject_suggestion(alice, doomed)
        assert rejected == live.md.get_suggestion(alice, doomed)
        assert rejected.status is SuggestionStatus.REJECTED
        assert client.list_suggestions(alice) == []
        decided = client.list_suggestions(alice, None)
        assert decided == live.md.list_suggestions(alice, None) and len(decided) == 3
        assert client.list_suggestions(alice, "accepted") == live.md.list_suggestions(
            alice, "accepted"
        )
        with pytest.raises(NotFound, match="no suggestion 'nope' for this user"):
            client.get_suggestion(alice, "nope")
        with pytest.raises(NotFound):
            client.accept_suggestion(alice, "nope")
    with MemorydClient(live.url, live.keys["bob"]) as other, pytest.raises(NotFound):
        other.reject_suggestion(live.ids["bob"], create)  # alice's: not found for bob
    with MemorydClient(live.url, live.keys["admin"]) as admin:
        again = file_suggestion(live.md, alice, "Works on Phoenix and Atlas", workspace="alpha")
        with pytest.raises(DuplicateMemory):  # accepting is a write like any other
            admin.accept_suggestion(alice, again)
        assert admin.list_suggestions(alice) == live.md.list_suggestions(alice)


def test_one_chat_and_a_memorys_detail_like_the_library(live: LiveMemoryd) -> None:
    alice = live.ids["alice"]
    tea = live.md.add_memory(alice, "Prefers tea")
    with MemorydClient(live.url, live.keys["alice"]) as client:
        chat = client.record_chat(alice, "alpha", "Tea or coffee?", "Tea.", memory_ids=[tea.id])
        assert client.get_chat(alice, chat.id) == live.md.get_chat(alice, chat.id) == chat
        client.edit_memory(alice, tea.id, "Prefers green tea")
        detail = client.memory_detail(alice, tea.id)
        assert detail == live.md.memory_detail(alice, tea.id)
        assert [e.action.value for e in detail.history] == ["create", "update"]
        client.delete_chat(alice, chat.id)
        with pytest.raises(NotFound, match=f"no chat {chat.id} for this user"):
            client.get_chat(alice, chat.id)
        with pytest.raises(PermissionDenied):
            client.get_chat(live.ids["bob"], chat.id)


def test_a_bad_scope_is_the_librarys_invalid_scope(live: LiveMemoryd, tmp_path: Path) -> None:
    with Memoryd(f"sqlite:///{tmp_path / 'lib.db'}", embedder=live.md.embedder) as md:
        user = md.create_user("carol").id
        with pytest.raises(InvalidScope) as library:
            md.add_memory(user, "A fact", scope="everywhere")
    alice = live.ids["alice"]
    with MemorydClient(live.url, live.keys["alice"]) as client:
        with pytest.raises(InvalidScope) as remote:
            client.add_memory(alice, "A fact", scope="everywhere")
        assert str(remote.value) == str(library.value)
        with pytest.raises(InvalidScope):
            client.list_memories(alice, scope="everywhere")
        assert client.list_memories(alice, scope="GLOBAL") == []


def test_a_revoked_key_raises_not_authenticated_at_once(live: LiveMemoryd) -> None:
    key = live.auth.create_api_key(live.ids["bob"], "app")
    with MemorydClient(live.url, key.secret) as client:
        assert client.whoami().name == "bob"
        live.auth.revoke_api_key(live.ids["bob"], key.key.id)
        with pytest.raises(NotAuthenticated, match=r"^invalid or revoked API key$"):
            client.list_memories(live.ids["bob"])


def test_a_server_that_does_not_answer_in_time_is_a_server_error() -> None:
    with RawUpstream() as silent:
        silent.reply(10.0)  # takes the request, answers nothing for 10 s
        url = f"http://127.0.0.1:{silent.port}"
        late = "did not answer GET /api/v1/me in time"
        with (
            MemorydClient(url, "mdk_x", timeout=0.3) as client,
            pytest.raises(ServerError, match=late),
        ):
            client.whoami()

        async def main() -> None:
            async with AsyncMemorydClient(url, "mdk_x", timeout=0.3) as client:
                await client.whoami()

        with pytest.raises(ServerError, match="a change may still have been made"):
            anyio.run(main)


def test_an_answer_that_is_not_memoryds_is_a_server_error() -> None:
    with RawUpstream() as gateway:
        url = f"http://127.0.0.1:{gateway.port}"
        gateway.reply(response("502 Bad Gateway", b"<h1>bad gateway</h1>", "text/html"))
        with MemorydClient(url, "mdk_x") as client, pytest.raises(ServerError) as caught:
            client.whoami()
        assert caught.value.status == 502
        assert "HTTP 502" in str(caught.value) and "bad gateway" in str(caught.value)
        gateway.reply(response("200 OK", b"not json", "text/plain"))
        with MemorydClient(url, "mdk_x") as client, pytest.raises(ServerError) as odd:
            client.whoami()
        assert "not memoryd's" in str(odd.value)


def test_import_takes_a_files_whole_text_like_the_library(live: LiveMemoryd) -> None:
    alice, bob = live.ids["alice"], live.ids["bob"]
    live.md.add_memory(alice, "Prefers tea")
    live.md.add_memory(alice, "Phoenix ships in Q3", workspace="alpha")
    text = "\n".join(live.md.export_memories(alice))
    with MemorydClient(live.url, live.keys["bob"]) as client:
        done = client.import_memories(bob, text)
        assert (done.created, done.updated) == (2, 0)
    assert [m.content for m in live.md.list_memories(bob)] == ["Prefers tea", "Phoenix ships in Q3"]


def test_a_base_url_with_the_api_prefix_says_which_endpoint_is_missing(
    live: LiveMemoryd,
) -> None:
    client = MemorydClient(f"{live.url}/api/v1", live.keys["alice"])
    with client, pytest.raises(NotFound) as caught:
        client.whoami()
    assert str(caught.value) == "no endpoint GET /api/v1/api/v1/me on this memoryd server"


def test_the_language_goes_through_the_client_like_the_library(live: LiveMemoryd) -> None:
    alice = live.ids["alice"]
    live.md.add_memory(alice, "Prefers tea")
    with MemorydClient(live.url, live.keys["alice"]) as client:
        assert (client.language_preference(alice), client.language(alice)) == (None, "en")
        client.set_language_preference(alice, "fr")
        assert live.md.language_preference(alice) == "fr" == client.language(alice)
        turn = client.context(alice, "alpha", "Que boire ?")
        assert turn.section.startswith("## Ce dont je me souviens à votre sujet\n")
        expected = live.md.context(alice, "alpha", "Que boire ?")
        assert turn.section == expected.section
        assert turn.system_prompt("Sois bref.") == expected.system_prompt("Sois bref.")
        client.set_language_preference(alice, None)
        assert client.language_preference(alice) is None
