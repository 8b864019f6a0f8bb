"""Issue 12 item 3: a user set up only with the CLI gets workspace memories through the proxy.

The CLI writes to the same database the live server reads (the server's caches follow
through the change counter), and the official ``openai`` client calls the proxy.
"""

from __future__ import annotations

from pathlib import Path

import openai
import pytest
from typer.testing import CliRunner

from memoryd.domain.injection import SECTION_HEADING
from memoryd.testing import FakeOpenAIServer, Reply
from memoryd.testing.live import LiveServer
from support.cli import Cli
from support.server import World

Live = tuple[World, LiveServer]


@pytest.fixture
def cli(live_world: Live, tmp_path: Path) -> Cli:
    return Cli(f"sqlite:///{tmp_path / 'server.db'}", CliRunner())


def cli_user(cli: Cli, name: str) -> str:
    """A user made with the CLI alone; returns their API key."""
    cli.ok("users", "add", name)
    key: str = cli.json("apikey", "create", "--user", name)["key"]
    return key


def client(live: LiveServer, key: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{live.url}/v1", api_key=key, max_retries=0)


def test_cli_member_gets_workspace_memories_by_prefix_and_header(
    live_world: Live, fake_llm: FakeOpenAIServer, cli: Cli
) -> None:
    _, live = live_world
    key = cli_user(cli, "carol")
    cli.ok("workspaces", "add", "kitchen")
    cli.ok("workspaces", "members", "add", "kitchen", "carol")
    cli.ok("memories", "add", "-u", "carol", "--global", "Carol is vegetarian")
    cli.ok("memories", "add", "-u", "carol", "-w", "kitchen", "The oven runs hot")
    fake_llm.script(Reply.text("ok"), Reply.text("ok"))
    messages: list[dict[str, str]] = [{"role": "user", "content": "What do I cook?"}]
    answer = client(live, key).chat.completions.with_raw_response.create(
        model="kitchen/gpt-4o-mini",
        messages=messages,  # type: ignore[arg-type]
    )
    assert answer.headers["X-Memoryd-Memories"] == "2"
    sent = fake_llm.requests[0]
    assert sent["model"] == "gpt-4o-mini"  # the prefix is not forwarded
    assert sent["messages"][0]["content"] == (
        f"{SECTION_HEADING}\n- Carol is vegetarian\n- The oven runs hot"
    )
    client(live, key).chat.completions.create(
        model="gpt-4o-mini",
        messages=messages,  # type: ignore[arg-type]
        extra_headers={"X-Memoryd-Workspace": "kitchen"},
    )
    assert fake_llm.requests[1]["model"] == "gpt-4o-mini"
    assert "The oven runs hot" in fake_llm.requests[1]["messages"][0]["content"]


def test_prefix_naming_a_workspace_of_others_is_refused(
    live_world: Live, fake_llm: FakeOpenAIServer, cli: Cli
) -> None:
    _, live = live_world
    key = cli_user(cli, "dave")
    cli.ok("workspaces", "add", "kitchen")
    for form in (
        {"model": "kitchen/gpt-4o-mini"},
        {"model": "gpt-4o-mini", "extra_headers": {"X-Memoryd-Workspace": "kitchen"}},
    ):
        with pytest.raises(openai.NotFoundError) as refused:
            client(live, key).chat.completions.create(
                messages=[{"role": "user", "content": "hi"}],
                **form,  # type: ignore[arg-type]
            )
        message = refused.value.message
        assert "no workspace 'kitchen' for this user" in message
        assert "memoryd workspaces members add kitchen" in message
    assert fake_llm.requests == []
    # once a member, the same call goes through
    cli.ok("workspaces", "members", "add", "kitchen", "dave")
    fake_llm.script(Reply.text("ok"))
    client(live, key).chat.completions.create(
        model="kitchen/gpt-4o-mini", messages=[{"role": "user", "content": "hi"}]
    )
    assert fake_llm.requests[0]["model"] == "gpt-4o-mini"
