"""The OpenAI-compatible proxy, driven by the official ``openai`` client against a real
uvicorn server, with FakeOpenAIServer as the upstream model."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import openai
import pytest

from memoryd.domain.injection import SECTION_HEADING
from memoryd.models.llm.openai_provider import OpenAIProvider
from memoryd.server.upstream import ProviderUpstream
from memoryd.testing import FakeOpenAIServer, Reply
from memoryd.testing.live import LiveServer
from support.server import World

Live = tuple[World, LiveServer]


def client_for(world: World, live: LiveServer, who: str, **kwargs: Any) -> openai.OpenAI:
    return openai.OpenAI(
        base_url=f"{live.url}/v1", api_key=world.keys[who], max_retries=0, **kwargs
    )


def only_marker_recorded(
    world: World, live: LiveServer, fake_llm: FakeOpenAIServer, who: str
) -> list[str]:
    """Proof that an earlier exchange was not recorded, without a fixed sleep: send one that
    is recorded, wait (with a deadline) until it is in the database, then return every
    prompt recorded for ``who``. Recording runs after each answer, in arrival order, so by
    the time the marker is stored an earlier exchange had its turn."""
    fake_llm.script(Reply.text("marker answer"))
    client_for(world, live, who).chat.completions.create(
        model="alpha/gpt-test", messages=[{"role": "user", "content": "marker"}]
    )
    deadline = time.monotonic() + 10
    while not any(c.prompt == "marker" for c in world.md.list_chats(world.ids[who])):
        assert time.monotonic() < deadline, "the marker exchange was never recorded"
        time.sleep(0.02)
    return [c.prompt for c in world.md.list_chats(world.ids[who])]


def wait_for_chats(world: World, who: str, count: int) -> list[Any]:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        chats = world.md.list_chats(world.ids[who])
        if len(chats) >= count:
            return chats
        time.sleep(0.02)
    return world.md.list_chats(world.ids[who])


def test_memories_injected_into_existing_system_message_and_exchange_recorded(
    live_world: Live, fake_llm: FakeOpenAIServer
) -> None:
    world, live = live_world
    alice = world.ids["alice"]
    world.md.add_memory(alice, "Alice is vegetarian")
    world.md.add_memory(alice, "Alice's project uses Rust", workspace="alpha")
    fake_llm.script(Reply.text("Try a lentil curry."))
    client = client_for(world, live, "alice")
    answer = client.chat.completions.create(
        model="gpt-test",
        messages=[
            {"role": "system", "content": "You are helpful."},
            {"role": "user", "content": "What should I cook tonight?"},
        ],
        extra_headers={"X-Memoryd-Workspace": "alpha"},
    )
    assert answer.choices[0].message.content == "Try a lentil curry."
    sent = fake_llm.requests[0]
    assert sent["model"] == "gpt-test"
    system = sent["messages"][0]
    assert system["role"] == "system"
    assert system["content"] == (
        f"You are helpful.\n\n{SECTION_HEADING}\n- Alice is vegetarian\n- Alice's project uses Rust"
    )
    assert sent["messages"][1] == {"role": "user", "content": "What should I cook tonight?"}
    assert world.keys["alice"] not in str(sent.headers)  # the memoryd key stays here
    chats = wait_for_chats(world, "alice", 1)
    assert [(c.workspace, c.prompt, c.response) for c in chats] == [
        ("alpha", "What should I cook tonight?", "Try a lentil curry.")
    ]


def test_system_message_added_when_absent_and_model_prefix_selects_workspace(
    live_world: Live, fake_llm: FakeOpenAIServer
) -> None:
    world, live = live_world
    world.md.add_memory(world.ids["bob"], "Bob deploys on Fridays", workspace="alpha")
    fake_llm.script(Reply.text("ok"))
    client = client_for(world, live, "bob")
    client.chat.completions.create(
        model="alpha/gpt-test", messages=[{"role": "user", "content": "When do I deploy?"}]
    )
    sent = fake_llm.requests[0]
    assert sent["model"] == "gpt-test"
    assert sent["messages"][0] == {
        "role": "system",
        "content": f"{SECTION_HEADING}\n- Bob deploys on Fridays",
    }
    assert wait_for_chats(world, "bob", 1)[0].workspace == "alpha"


def test_streamed_answer_relayed_byte_for_byte_and_recorded(
    live_world: Live, fake_llm: FakeOpenAIServer
) -> None:
    world, live = live_world
    answer = "Streaming works in four little pieces."
    fake_llm.script(Reply.text(answer), Reply.text(answer))
    body = {
        "model": "gpt-test",
        "stream": True,
        "messages": [{"role": "user", "content": "Say something"}],
    }
    direct = httpx.post(f"{fake_llm.base_url}/chat/completions", json=body).content
    via_proxy = httpx.post(
        f"{live.url}/v1/chat/completions",
        json=body,
        headers={**world.headers("alice"), "X-Memoryd-Workspace": "beta"},
    )
    assert via_proxy.status_code == 200
    assert via_proxy.headers["content-type"].startswith("text/event-stream")

    def normalise(raw: bytes) -> bytes:  # ids and timestamps differ between two replies
        import re

        return re.sub(rb'"(id|created)": ("[^"]*"|\d+)', b"", raw)

    assert normalise(via_proxy.content) == normalise(direct)
    chats = wait_for_chats(world, "alice", 1)
    assert [(c.workspace, c.response) for c in chats] == [("beta", answer)]


def test_stream_with_openai_client(live_world: Live, fake_llm: FakeOpenAIServer) -> None:
    world, live = live_world
    world.md.add_memory(world.ids["alice"], "Alice's cat is called Miso")
    fake_llm.responder = lambda body: Reply.text(
        "Your cat Miso!" if "Miso" in body["messages"][0]["content"] else "I don't know."
    )
    client = client_for(world, live, "alice")
    stream = client.chat.completions.create(
        model="alpha/gpt-test",
        messages=[{"role": "user", "content": "What is my cat's name?"}],
        stream=True,
    )
    text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    assert text == "Your cat Miso!"
    assert wait_for_chats(world, "alice", 1)[0].response == "Your cat Miso!"


@pytest.mark.parametrize("stream", [False, True])
def test_upstream_error_comes_back_with_its_status(
    live_world: Live, fake_llm: FakeOpenAIServer, stream: bool
) -> None:
    world, live = live_world
    fake_llm.script(Reply.error(429, "slow down", code="rate_limit_exceeded"))
    client = client_for(world, live, "alice")
    with pytest.raises(openai.RateLimitError) as caught:
        client.chat.completions.create(
            model="alpha/gpt-test",
            messages=[{"role": "user", "content": "hi"}],
            stream=stream,
        )
    assert caught.value.status_code == 429
    assert caught.value.body["message"] == "slow down"  # type: ignore[index]
    assert only_marker_recorded(world, live, fake_llm, "alice") == ["marker"]


def test_upstream_unreachable_is_502(live_world: Live, fake_llm: FakeOpenAIServer) -> None:
    world, live = live_world
    from memoryd.server.upstream import OpenAIUpstream

    world.app.state.memoryd.upstream = OpenAIUpstream("http://127.0.0.1:9/v1")
    client = client_for(world, live, "alice")
    with pytest.raises(openai.APIStatusError) as caught:
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    assert caught.value.status_code == 502


def test_bad_key_and_foreign_workspace_refused(
    live_world: Live, fake_llm: FakeOpenAIServer
) -> None:
    world, live = live_world
    bad = openai.OpenAI(base_url=f"{live.url}/v1", api_key="mdk_wrong", max_retries=0)
    with pytest.raises(openai.AuthenticationError):
        bad.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    client = client_for(world, live, "bob")  # bob is not in beta
    with pytest.raises(openai.NotFoundError):
        client.chat.completions.create(
            model="m",
            messages=[{"role": "user", "content": "hi"}],
            extra_headers={"X-Memoryd-Workspace": "beta"},
        )
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(model="m", messages=[])
    assert fake_llm.requests == []


def test_unknown_prefix_is_part_of_the_model_name(
    live_world: Live, fake_llm: FakeOpenAIServer
) -> None:
    world, live = live_world
    fake_llm.script(Reply.text("ok"))
    client = client_for(world, live, "bob")
    client.chat.completions.create(
        model="meta-llama/Llama-3-8B", messages=[{"role": "user", "content": "hi"}]
    )
    assert fake_llm.requests[0]["model"] == "meta-llama/Llama-3-8B"
    # no workspace: nothing to record
    assert only_marker_recorded(world, live, fake_llm, "bob") == ["marker"]


def test_memory_disabled_injects_nothing(live_world: Live, fake_llm: FakeOpenAIServer) -> None:
    world, live = live_world
    world.md.add_memory(world.ids["alice"], "Alice likes tea")
    world.md.set_setting("memory_enabled", False)
    fake_llm.script(Reply.text("ok"))
    messages = [{"role": "user", "content": "hi"}]
    client_for(world, live, "alice").chat.completions.create(model="m", messages=messages)
    assert fake_llm.requests[0]["messages"] == messages


def test_models_listed_from_upstream(live_world: Live, fake_llm: FakeOpenAIServer) -> None:
    world, live = live_world
    models = client_for(world, live, "alice").models.list()
    assert [m.id for m in models.data] == ["fake-model"]


@pytest.mark.parametrize("stream", [False, True])
def test_provider_upstream_wrapped_as_openai(
    live_world: Live, fake_llm: FakeOpenAIServer, stream: bool
) -> None:
    """A non-OpenAI upstream goes through LLMProvider; here the SDK-based provider."""
    world, live = live_world
    world.app.state.memoryd.upstream = ProviderUpstream(
        lambda model: OpenAIProvider(model=model, base_url=fake_llm.base_url, api_key="k")
    )
    world.md.add_memory(world.ids["alice"], "Alice lives in Lyon")
    fake_llm.script(Reply.text("Bonjour from Lyon"))
    client = client_for(world, live, "alice")
    request = {
        "model": "alpha/some-model",
        "messages": [{"role": "user", "content": "Where do I live?"}],
    }
    if stream:
        chunks = list(client.chat.completions.create(**request, stream=True))
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        assert chunks[-1].choices[0].finish_reason == "stop"
    else:
        text = client.chat.completions.create(**request).choices[0].message.content or ""
    assert text == "Bonjour from Lyon"
    assert fake_llm.requests[0]["model"] == "some-model"
    assert "Alice lives in Lyon" in fake_llm.requests[0]["messages"][0]["content"]
    assert wait_for_chats(world, "alice", 1)[0].response == "Bonjour from Lyon"


def anthropic_upstream(world: World, fake_llm: FakeOpenAIServer) -> None:
    from memoryd.server.upstream import resolve_upstream

    settings = world.md.settings.model_copy(
        update={"proxy_provider": "anthropic", "proxy_upstream_url": fake_llm.base_url}
    )
    world.app.state.memoryd.upstream = resolve_upstream(settings)


def test_anthropic_upstream(live_world: Live, fake_llm: FakeOpenAIServer) -> None:
    world, live = live_world
    anthropic_upstream(world, fake_llm)
    world.md.add_memory(world.ids["alice"], "Alice plays the cello")
    fake_llm.script(Reply.text("Practice the cello."))
    answer = client_for(world, live, "alice").chat.completions.create(
        model="alpha/claude-test", messages=[{"role": "user", "content": "Hobby ideas?"}]
    )
    assert answer.choices[0].message.content == "Practice the cello."
    sent = fake_llm.requests[0]
    assert sent.path == "/v1/messages"
    assert sent["model"] == "claude-test"
    assert "Alice plays the cello" in sent["system"]


def test_anthropic_upstream_streamed(live_world: Live, fake_llm: FakeOpenAIServer) -> None:
    """A streamed chat through the provider path: Anthropic's events upstream, OpenAI's
    chunks to the client, recorded once the whole answer reached it."""
    world, live = live_world
    anthropic_upstream(world, fake_llm)
    world.md.add_memory(world.ids["alice"], "Alice plays the cello")
    answer = "Practice the cello every morning, then try a duet."
    fake_llm.script(Reply.text(answer))
    body = {
        "model": "alpha/claude-test",
        "stream": True,
        "messages": [{"role": "user", "content": "Hobby ideas?"}],
    }
    with httpx.stream(
        "POST", f"{live.url}/v1/chat/completions", json=body, headers=world.headers("alice")
    ) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        raw = response.read().decode()
    events = [e.removeprefix("data: ") for e in raw.strip().split("\n\n")]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert all(c["object"] == "chat.completion.chunk" for c in chunks)
    pieces = [c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"]]
    assert len([p for p in pieces if p]) > 1 and "".join(pieces) == answer
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"
    sent = fake_llm.requests[0]
    assert (sent.path, sent["stream"], sent["model"]) == ("/v1/messages", True, "claude-test")
    assert "Alice plays the cello" in sent["system"]
    assert wait_for_chats(world, "alice", 1)[0].response == answer


@pytest.mark.parametrize("key_from", ["proxy_upstream_key", "llm_api_key"])
def test_provider_upstream_with_an_api_key_sends_it(
    live_world: Live, fake_llm: FakeOpenAIServer, key_from: str
) -> None:
    """A provider upstream with a key once answered every request with 502 ('str' object
    has no attribute 'get_secret_value')."""
    world, live = live_world
    from pydantic import SecretStr

    from memoryd.server.upstream import resolve_upstream

    key = "sk-ant-test-123"
    settings = world.md.settings.model_copy(
        update={
            "proxy_provider": "anthropic",
            "proxy_upstream_url": fake_llm.base_url,
            key_from: SecretStr(key) if key_from == "llm_api_key" else key,
        }
    )
    world.app.state.memoryd.upstream = resolve_upstream(settings)
    fake_llm.script(Reply.text("Hello with a key."))
    answer = client_for(world, live, "alice").chat.completions.create(
        model="alpha/claude-test", messages=[{"role": "user", "content": "Hi"}]
    )
    assert answer.choices[0].message.content == "Hello with a key."
    headers = fake_llm.requests[0].headers
    assert key in (
        headers.get("x-api-key"),
        headers.get("authorization", "").removeprefix("Bearer "),
    )
