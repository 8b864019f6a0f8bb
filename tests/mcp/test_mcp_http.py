"""MCP over streamable HTTP at /mcp in a real ``memoryd serve`` app, driven by the SDK's
own client: every tool, the rules (R1, R2, R8, R13) with the REST API's messages, the
chat turn's selection for ``recall``, the section resource, and API-key authentication.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from fastapi.testclient import TestClient
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, TextContent

from memoryd import Memoryd
from memoryd.access.credentials import AuthStore
from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.server.app import create_app
from memoryd.testing.live import FAST_HASHER, LiveMemoryd
from support.mcp import TOOLS


@asynccontextmanager
async def session(live: LiveMemoryd, who: str) -> AsyncIterator[Client]:
    http = httpx2.AsyncClient(headers=live.headers(who))
    async with http, Client(streamable_http_client(f"{live.url}/mcp", http_client=http)) as c:
        yield c


def run(live: LiveMemoryd, who: str, body: Callable[[Client], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        async with session(live, who) as client:
            return await body(client)

    return anyio.run(main)


def text(result: CallToolResult) -> str:
    assert isinstance(result.content[0], TextContent)
    return result.content[0].text


def call(live: LiveMemoryd, who: str, tool: str, **args: Any) -> CallToolResult:
    async def body(c: Client) -> CallToolResult:
        return await c.call_tool(tool, args)

    result: CallToolResult = run(live, who, body)
    return result


def ok(live: LiveMemoryd, who: str, tool: str, **args: Any) -> dict[str, Any]:
    result = call(live, who, tool, **args)
    assert not result.is_error, text(result)
    assert result.structured_content is not None
    return result.structured_content


def refused(live: LiveMemoryd, who: str, tool: str, **args: Any) -> str:
    result = call(live, who, tool, **args)
    assert result.is_error, result
    return text(result)


def api(live: LiveMemoryd, who: str, method: str, path: str, **kw: Any) -> httpx.Response:
    return httpx.request(method, f"{live.url}{path}", headers=live.headers(who), **kw)


def test_lists_every_tool_and_the_section_template(live: LiveMemoryd) -> None:
    async def body(c: Client) -> tuple[set[str], list[str]]:
        tools = await c.list_tools()
        templates = await c.list_resource_templates()
        return {t.name for t in tools.tools}, [t.uri_template for t in templates.resource_templates]

    names, templates = run(live, "alice", body)
    assert names == TOOLS
    assert templates == ["memoryd://section{?workspace}"]


def test_memory_lifecycle_through_tools_lands_in_the_core(live: LiveMemoryd) -> None:
    alice = live.ids["alice"]
    made = ok(live, "alice", "remember", content="Phoenix ships in Q3", workspace="alpha")
    assert (made["scope"], made["workspace"]) == ("workspace", "alpha")
    assert [m.content for m in live.md.list_memories(alice)] == ["Phoenix ships in Q3"]

    fetched = ok(live, "alice", "get_memory", memory_id=made["id"])
    assert fetched["content"] == "Phoenix ships in Q3"
    edited = ok(live, "alice", "update_memory", memory_id=made["id"], content="Ships in Q4")
    assert live.md.get_memory(alice, made["id"]).content == edited["content"] == "Ships in Q4"

    promoted = ok(live, "alice", "promote", memory_id=made["id"])
    assert (promoted["scope"], promoted["workspace"]) == ("global", None)
    demoted = ok(live, "alice", "demote", memory_id=made["id"], workspace="beta")
    assert (demoted["scope"], demoted["workspace"]) == ("workspace", "beta")

    listed = ok(live, "alice", "list_memories")
    assert [m["id"] for m in listed["memories"]] == [made["id"]]
    assert {(s["scope"], s["workspace"]) for s in listed["scopes"]} == {
        ("global", None),
        ("workspace", "alpha"),
        ("workspace", "beta"),
    }

    assert ok(live, "alice", "forget", memory_id=made["id"]) == {"id": made["id"], "deleted": True}
    assert live.md.list_memories(alice) == []
    actions = [e.action.value for e in live.md.audit_log(alice, made["id"])]
    assert actions == ["create", "update", "promote", "demote", "delete"]  # R12, actor = alice
    assert {e.actor for e in live.md.audit_log(alice, made["id"])} == {f"user:{alice}"}


def test_remember_until_a_date(live: LiveMemoryd) -> None:
    made = ok(live, "alice", "remember", content="The demo is on Friday", until="2099-01-02")
    assert made["expires_at"] == "2099-01-03T00:00:00+00:00" and made["expired"] is False
    assert "already passed" in refused(
        live, "alice", "remember", content="Old news", until="2020-01-01"
    )


def test_update_memory_changes_the_expiry_the_text_or_both(live: LiveMemoryd) -> None:
    made = ok(live, "alice", "remember", content="The demo is on Friday", until="2099-01-02")
    moved = ok(live, "alice", "update_memory", memory_id=made["id"], until="2099-02-01")
    assert (moved["content"], moved["expires_at"]) == (
        "The demo is on Friday",
        "2099-02-02T00:00:00+00:00",
    )
    both = ok(
        live, "alice", "update_memory", memory_id=made["id"], content="Demo moved", until="never"
    )
    assert (both["content"], both["expires_at"]) == ("Demo moved", None)
    assert live.md.get_memory(live.ids["alice"], made["id"]).expires_at is None
    assert "nothing to change" in refused(live, "alice", "update_memory", memory_id=made["id"])
    assert "already passed" in refused(
        live, "alice", "update_memory", memory_id=made["id"], until="2020-01-01"
    )


def test_refusals_carry_the_rest_apis_messages(live: LiveMemoryd) -> None:
    for i in range(5):
        ok(live, "alice", "remember", content=f"Global fact {i}", scope="global")
    cases: list[tuple[dict[str, Any], str, dict[str, Any]]] = [
        ({"content": "Global fact 0", "scope": "global"}, "/api/v1/memories", {}),  # duplicate
        ({"content": "A sixth fact", "scope": "global"}, "/api/v1/memories", {}),  # R1 full
        ({"content": "## Heading", "workspace": "alpha"}, "/api/v1/memories", {}),  # R13
        ({"content": "x" * 501, "workspace": "alpha"}, "/api/v1/memories", {}),  # R13 length
        ({"content": "Not mine", "workspace": "gamma"}, "/api/v1/memories", {}),  # no such ws
        ({"content": "global", "scope": "workspace"}, "/api/v1/memories", {}),  # scope w/o ws
    ]
    for args, path, _ in cases:
        message = refused(live, "alice", "remember", **args)
        response = api(live, "alice", "POST", path, json=args)
        assert response.status_code in (404, 409, 422)
        assert message == response.json()["error"]["message"], args

    # R2: promoting into a full global scope is refused, with the API's message
    ws = ok(live, "alice", "remember", content="Workspace fact", workspace="alpha")
    message = refused(live, "alice", "promote", memory_id=ws["id"])
    response = api(live, "alice", "POST", f"/api/v1/memories/{ws['id']}/promote")
    assert response.status_code == 409
    assert message == response.json()["error"]["message"]
    assert "full" in message


def test_no_user_reaches_another_users_memories(live: LiveMemoryd) -> None:  # R8
    mine = ok(live, "alice", "remember", content="Alice's secret plan", workspace="beta")
    for tool, args in (
        ("get_memory", {}),
        ("update_memory", {"content": "Hijacked"}),
        ("forget", {}),
        ("promote", {}),
    ):
        message = refused(live, "bob", tool, memory_id=mine["id"], **args)
        assert message == f"no memory {mine['id']!r} for this user"
    assert ok(live, "bob", "list_memories")["memories"] == []
    # bob is not a member of beta: he can neither write nor recall there
    assert refused(live, "bob", "remember", content="x", workspace="beta") == (
        "no workspace 'beta' for this user"
    )
    assert refused(live, "bob", "recall", query="plan", workspace="beta") == (
        "no workspace 'beta' for this user"
    )
    assert live.md.get_memory(live.ids["alice"], mine["id"]).content == "Alice's secret plan"


def test_recall_is_the_chat_turns_selection(live: LiveMemoryd) -> None:
    alice = live.ids["alice"]
    live.md.add_memory(alice, "Prefers concise answers", scope="global")
    facts = [
        "The database is PostgreSQL 16",
        "Deploys go out on Fridays",
        "The frontend is written in Svelte",
        "The team standup is at 9am",
        "Staging lives at staging.example.org",
        "The API is versioned under /v2",
        "Logs are shipped to Loki",
        "Tests run on GitHub Actions",
    ]
    for fact in facts:
        live.md.add_memory(alice, fact, workspace="alpha")
    query = "Which database do we run, and where do logs go?"
    recalled = ok(live, "alice", "recall", query=query, workspace="alpha")
    turn = live.md.context(alice, "alpha", query)
    assert [m["id"] for m in recalled["memories"]] == [m.id for m in turn.memories]
    assert [m["score"] for m in recalled["memories"]] == [
        s.score for s in (*turn.global_memories, *turn.workspace_memories)
    ]
    assert recalled["reranker"] == turn.reranker is not None
    assert recalled["section"] == turn.section
    assert len(recalled["memories"]) == 1 + 5
    assert recalled["memories"][1]["content"] in (facts[0], facts[6])
    rest = api(
        live, "alice", "POST", "/api/v1/context", json={"message": query, "workspace": "alpha"}
    )
    assert [m["id"] for m in rest.json()["memories"]] == [m["id"] for m in recalled["memories"]]


def test_record_exchange_stores_a_chat_for_extraction(live: LiveMemoryd) -> None:
    chat = ok(
        live,
        "alice",
        "record_exchange",
        prompt="I moved to Lisbon",
        response="Noted!",
        workspace="alpha",
    )
    stored = live.md.list_chats(live.ids["alice"], "alpha")
    assert [(c.id, c.prompt, c.memory_processed) for c in stored] == [
        (chat["id"], "I moved to Lisbon", False)
    ]
    assert refused(
        live, "alice", "record_exchange", prompt=" ", response="r", workspace="alpha"
    ) == ("prompt is empty")
    assert refused(live, "bob", "record_exchange", prompt="p", response="r", workspace="beta") == (
        "no workspace 'beta' for this user"
    )


def test_record_exchange_links_the_memories_recall_gave(live: LiveMemoryd) -> None:
    alice, bob = live.ids["alice"], live.ids["bob"]
    fact = live.md.add_memory(alice, "Phoenix ships in Q3", workspace="alpha")
    other = live.md.add_memory(bob, "Bob likes tea", scope="global")
    recalled = ok(live, "alice", "recall", query="When does Phoenix ship?", workspace="alpha")
    ids = [m["id"] for m in recalled["memories"]]
    assert ids == [fact.id]
    chat = ok(
        live,
        "alice",
        "record_exchange",
        prompt="When does Phoenix ship?",
        response="In Q3.",
        workspace="alpha",
        memory_ids=[*ids, other.id],  # another user's memory is never linked
    )
    assert [(m["id"], m["content"]) for m in chat["memories"]] == [(fact.id, "Phoenix ships in Q3")]
    used = live.md.chat_memories(alice, [chat["id"]])[chat["id"]]
    assert [u.id for u in used] == [fact.id]
    assert "memory_ids" in refused(
        live,
        "alice",
        "record_exchange",
        prompt="p",
        response="r",
        workspace="alpha",
        memory_ids=["x" * 33],
    )


def test_delete_exchange_erases_ones_own_chat_only(live: LiveMemoryd) -> None:
    alice, bob = live.ids["alice"], live.ids["bob"]
    chat = ok(live, "alice", "record_exchange", prompt="p", response="r", workspace="alpha")
    bobs = live.md.record_chat(bob, "alpha", "Bob's words", "ok")

    assert ok(live, "alice", "delete_exchange", chat_id=chat["id"]) == {
        "id": chat["id"],
        "deleted": True,
    }
    assert live.md.list_chats(alice) == []
    assert refused(live, "alice", "delete_exchange", chat_id=chat["id"]) == (
        f"no chat {chat['id']} for this user"
    )
    assert refused(live, "alice", "delete_exchange", chat_id=bobs.id) == (
        f"no chat {bobs.id} for this user"
    )
    assert [c.id for c in live.md.list_chats(bob)] == [bobs.id]
    assert "chat_id" in refused(live, "alice", "delete_exchange", chat_id=0)


def test_section_resource_is_the_current_memory_section(live: LiveMemoryd) -> None:
    alice = live.ids["alice"]
    live.md.add_memory(alice, "Prefers concise answers", scope="global")
    live.md.add_memory(alice, "Phoenix ships in Q3", workspace="alpha")

    async def body(c: Client) -> tuple[str, str]:
        plain = await c.read_resource("memoryd://section")
        alpha = await c.read_resource("memoryd://section?workspace=alpha")
        return plain.contents[0].text, alpha.contents[0].text  # type: ignore[union-attr]

    plain, alpha = run(live, "alice", body)
    assert plain == "## Things I Remember About You\n- Prefers concise answers"
    assert alpha == live.md.context(alice, "alpha").section
    assert alpha.endswith("- Phoenix ships in Q3")


def connect_with(live: LiveMemoryd, key: str | None) -> None:
    async def connect() -> None:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"} if key else {})
        async with http, Client(streamable_http_client(f"{live.url}/mcp", http_client=http)) as c:
            await c.list_tools()

    anyio.run(connect)


def sdk_error(live: LiveMemoryd, key: str | None) -> MCPError:
    """The error the SDK's client ends with when the server refuses the key."""
    with pytest.raises(BaseException) as caught:  # an exception group: its leaves are read
        connect_with(live, key)
    found = [e for e in leaves(caught.value) if isinstance(e, MCPError)]
    assert found, caught.value
    return found[0]


def leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for e in exc.exceptions for leaf in leaves(e)]
    return [exc]


@pytest.mark.parametrize(
    ("key", "message"),
    [
        (None, "send an API key (Authorization: Bearer mdk_...)"),
        ("mdk_not_a_real_key", "invalid or revoked API key"),
    ],
)
def test_mcp_needs_a_valid_api_key(live: LiveMemoryd, key: str | None, message: str) -> None:
    headers = {"Accept": "application/json, text/event-stream"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    response = httpx.post(f"{live.url}/mcp", json=body, headers=headers)
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == "Bearer"
    error = response.json()["error"]
    assert error["message"].startswith(message)
    assert error["data"]["type"] == "unauthorized"
    assert "tools" not in response.text
    # the SDK's client shows memoryd's message, not "Server returned an error response"
    assert sdk_error(live, key).error.message.startswith(message)


def test_a_revoked_key_is_refused_at_once_with_the_message(live: LiveMemoryd) -> None:
    key = live.auth.create_api_key(live.ids["bob"], "agent")
    connect_with(live, key.secret)
    live.auth.revoke_api_key(live.ids["bob"], key.key.id)
    assert sdk_error(live, key.secret).error.message == "invalid or revoked API key"


def test_a_browser_session_cookie_is_not_enough(live: LiveMemoryd) -> None:
    session_token = live.auth.create_session(live.ids["alice"], days=1).token
    response = httpx.post(
        f"{live.url}/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
        headers={"Accept": "application/json, text/event-stream"},
        cookies={"memoryd_session": session_token},
    )
    assert response.status_code == 401
    assert "API key" in response.json()["error"]["message"]


def test_the_app_serves_mcp_again_after_a_restart(tmp_path: Path, embedder: MiniLMEmbedder) -> None:
    """An app's lifespan can run more than once (tests, embedding servers)."""
    md = Memoryd(f"sqlite:///{tmp_path / 'twice.db'}", embedder=embedder)
    auth = AuthStore(md.db, hasher=FAST_HASHER)
    key = auth.create_api_key(md.create_user("carol").id, "t").secret
    app = create_app(md, auth=auth)
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"Accept": "application/json, text/event-stream", "Authorization": f"Bearer {key}"}
    for _ in range(2):
        with TestClient(app) as client:
            response = client.post("/mcp", json=body, headers=headers)
            assert response.status_code == 200
            assert {t["name"] for t in response.json()["result"]["tools"]} == TOOLS
    md.close()


def test_bad_arguments_are_named_as_the_rest_api_names_bad_fields(live: LiveMemoryd) -> None:
    long_text = "a long paragraph " * 1000
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("remember", {}, "content: Field required"),
        ("remember", {"content": 5}, "content: Input should be a valid string"),
        (
            "remember",
            {"content": long_text},
            "content: String should have at most 10000 characters",
        ),
        (
            "list_memories",
            {"scope": "everything"},
            "scope: Input should be 'global' or 'workspace'",
        ),
        ("delete_exchange", {"chat_id": -1}, "chat_id: Input should be greater than or equal to 1"),
        (
            "record_exchange",
            {"workspace": "alpha"},
            "prompt: Field required; response: Field required",
        ),
        (
            "record_exchange",
            {"prompt": "p", "response": "r", "workspace": "alpha", "memory_ids": "m1"},
            "memory_ids: Input should be a valid list",
        ),
    ]
    for tool, args, words in cases:
        assert refused(live, "alice", tool, **args) == f"invalid arguments for {tool}: {words}"
    # the values sent are not repeated back, and the server goes on answering
    assert ok(live, "alice", "remember", content="Fine after all")["content"] == "Fine after all"
