"""``memoryd mcp`` as a real process over stdio, driven by the SDK's own client: it acts
for ``--user NAME`` or the local single-user person, applies the same rules, and a bad
``--user`` is one readable line with exit code 2.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.types import TextContent

from memoryd import Memoryd
from memoryd.embedding.minilm import MiniLMEmbedder
from memoryd.server.auth import AuthStore


def command(url: str, *args: str) -> list[str]:
    return [sys.executable, "-m", "memoryd.cli.app", "mcp", "--db", url, *args]


def environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("MEMORYD_")}


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
