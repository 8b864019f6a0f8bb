"""``memoryd mcp`` as a real process over stdio, driven by the SDK's own client: it acts
for ``--user NAME`` or the local single-user person, applies the same rules, and a bad
``--user`` is one readable line with exit code 2.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.types import TextContent

from memoryd import Memoryd
from memoryd.access.credentials import AuthStore
from memoryd.models.embedding.minilm import MiniLMEmbedder
from support.mcp import TOOLS
from support.processes import memoryd_env


def command(url: str, *args: str) -> list[str]:
    return [sys.executable, "-m", "memoryd.cli.app", "mcp", "--db", url, *args]


def environment() -> dict[str, str]:
    return memoryd_env()


def over_stdio(url: str, args: list[str], body: Callable[[Client], Awaitable[Any]]) -> Any:
    argv = command(url, *args)
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=environment())

    async def main() -> Any:
        async with Client(params) as client:
            return await body(client)

    return anyio.run(main)


def test_stdio_acts_for_the_named_user(tmp_path: Path, embedder: MiniLMEmbedder) -> None:
    url = f"sqlite:///{tmp_path / 'stdio.db'}"
    with Memoryd(url, embedder=embedder) as md:
        alice = md.create_user("alice")
        md.create_workspace("phoenix")
        md.create_workspace("atlas")
        AuthStore(md.db).add_member("phoenix", alice.id)  # a default user: members only (R8)
        for i in range(20):
            md.add_memory(alice.id, f"Phoenix fact number {i}", workspace="phoenix")

    async def body(c: Client) -> dict[str, Any]:
        tools = {t.name for t in (await c.list_tools()).tools}
        made = await c.call_tool("remember", {"content": "Prefers tea", "scope": "global"})
        full = await c.call_tool("remember", {"content": "One more", "workspace": "phoenix"})
        recall = await c.call_tool("recall", {"query": "fact number 7", "workspace": "phoenix"})
        other = await c.call_tool("recall", {"query": "anything", "workspace": "atlas"})
        return {"tools": tools, "made": made, "full": full, "recall": recall, "other": other}

    out = over_stdio(url, ["--user", "alice"], body)
    assert {"remember", "recall", "record_exchange", "forget"} <= out["tools"]
    assert not out["made"].is_error
    assert out["made"].structured_content["user_id"] == alice.id
    assert out["full"].is_error
    assert isinstance(out["full"].content[0], TextContent)
    assert out["full"].content[0].text == (
        "workspace 'phoenix' is full (20 memories); delete one first"
    )
    assert out["other"].is_error
    assert out["other"].content[0].text == "no workspace 'atlas' for this user"
    with Memoryd(url, embedder=embedder) as md:
        turn = md.context(alice.id, "phoenix", "fact number 7")
        assert [m["id"] for m in out["recall"].structured_content["memories"]] == [
            m.id for m in turn.memories
        ]
        assert [m.content for m in md.list_memories(alice.id, scope="global")] == ["Prefers tea"]


def test_stdio_defaults_to_the_local_person(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'local.db'}"

    async def body(c: Client) -> Any:
        return await c.call_tool("list_memories", {})

    result = over_stdio(url, [], body)
    assert not result.is_error
    with Memoryd(url) as md:
        assert [(u.name, u.role.value) for u in md.list_users()] == [("admin", "admin")]


def test_unknown_user_is_one_line_and_exit_2(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'bad.db'}"
    done = subprocess.run(
        command(url, "--user", "nobody"),
        capture_output=True,
        env=environment(),
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.decode().splitlines() == ["error: no user 'nobody'"]
    assert done.stdout == b""


def test_stdio_happy_path_end_to_end(tmp_path: Path, embedder: MiniLMEmbedder) -> None:
    """What an agent host does in one session: initialize, list the tools, remember,
    recall, record the exchange with recall's memories, read the section resource,
    delete the exchange, and send a bad argument."""
    url = f"sqlite:///{tmp_path / 'happy.db'}"
    with Memoryd(url, embedder=embedder) as md:
        bob = md.create_user("bob")
        md.create_workspace("phoenix")
        AuthStore(md.db).add_member("phoenix", bob.id)

    async def body(c: Client) -> dict[str, Any]:
        out: dict[str, Any] = {"server": c.server_info, "instructions": c.instructions}
        out["tools"] = {t.name for t in (await c.list_tools()).tools}
        out["remembered"] = await c.call_tool(
            "remember", {"content": "Phoenix ships in Q3", "workspace": "phoenix"}
        )
        out["recall"] = await c.call_tool(
            "recall", {"query": "When do we ship?", "workspace": "phoenix"}
        )
        ids = [m["id"] for m in out["recall"].structured_content["memories"]]
        out["recorded"] = await c.call_tool(
            "record_exchange",
            {"prompt": "When do we ship?", "response": "In Q3.", "workspace": "phoenix"}
            | {"memory_ids": ids},
        )
        section = await c.read_resource("memoryd://section?workspace=phoenix")
        out["section"] = section.contents[0].text  # type: ignore[union-attr]
        chat_id = out["recorded"].structured_content["id"]
        with Memoryd(url, embedder=embedder) as md:
            out["stored"] = md.list_chats(bob.id)
            out["links"] = md.chat_memories(bob.id, [chat_id])
        out["deleted"] = await c.call_tool("delete_exchange", {"chat_id": chat_id})
        out["again"] = await c.call_tool("delete_exchange", {"chat_id": chat_id})
        out["bad"] = await c.call_tool("remember", {"text": "Phoenix ships in Q3"})
        return out

    out = over_stdio(url, ["--user", "bob"], body)
    assert out["server"].name == "memoryd"
    assert "recall" in out["instructions"]
    assert out["tools"] == TOOLS
    memory = out["remembered"].structured_content
    assert (memory["user_id"], memory["workspace"]) == (bob.id, "phoenix")
    recalled = out["recall"].structured_content
    assert [m["id"] for m in recalled["memories"]] == [memory["id"]]
    assert recalled["section"] == "## Things I Remember About You\n- Phoenix ships in Q3"
    assert out["section"] == recalled["section"]
    chat = out["recorded"].structured_content
    assert [m["id"] for m in chat["memories"]] == [memory["id"]]
    assert [(c.id, c.prompt, c.response) for c in out["stored"]] == [
        (chat["id"], "When do we ship?", "In Q3.")
    ]
    assert [u.id for u in out["links"][chat["id"]]] == [memory["id"]]
    assert out["deleted"].structured_content == {"id": chat["id"], "deleted": True}
    assert out["again"].is_error
    assert out["again"].content[0].text == f"no chat {chat['id']} for this user"
    assert out["bad"].is_error
    assert out["bad"].content[0].text == "invalid arguments for remember: content: Field required"
    with Memoryd(url, embedder=embedder) as md:
        assert md.list_chats(bob.id) == []
        assert [m.content for m in md.list_memories(bob.id)] == ["Phoenix ships in Q3"]
