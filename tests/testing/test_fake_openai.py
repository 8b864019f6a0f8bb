"""Tests for memoryd.testing.FakeOpenAIServer, driven by the official clients."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import anthropic
import httpx
import openai
import pytest

from memoryd.testing import FakeOpenAIServer, Reply

MESSAGES: list[Any] = [{"role": "user", "content": "Remember that I like tea."}]


@pytest.fixture
def srv() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def client(srv: FakeOpenAIServer) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=srv.base_url, api_key="x", max_retries=0, timeout=5.0) as c:
        yield c


def test_base_url_is_loopback(srv: FakeOpenAIServer) -> None:
    assert srv.base_url == f"http://127.0.0.1:{srv.port}/v1"


def test_json_reply(srv: FakeOpenAIServer, client: openai.OpenAI) -> None:
    srv.script(Reply.json({"facts": ["likes tea"]}))
    resp = client.chat.completions.create(model="gpt-test", messages=MESSAGES)
    assert resp.object == "chat.completion"
    assert resp.model == "gpt-test"
    choice = resp.choices[0]
    assert choice.message.role == "assistant"
    assert choice.finish_reason == "stop"
    assert json.loads(choice.message.content or "") == {"facts": ["likes tea"]}
    assert resp.usage is not None
    assert resp.usage.completion_tokens == len(choice.message.content or "") // 4
    assert resp.usage.total_tokens == resp.usage.prompt_tokens + resp.usage.completion_tokens


def test_text_reply_with_explicit_usage(srv: FakeOpenAIServer, client: openai.OpenAI) -> None:
    srv.script(Reply.text("not json at all", usage=(123, 7)))
    resp = client.chat.completions.create(model="m", messages=MESSAGES)
    assert resp.choices[0].message.content == "not json at all"
    assert resp.usage is not None
    assert (resp.usage.prompt_tokens, resp.usage.completion_tokens) == (123, 7)
    assert resp.usage.total_tokens == 130


def test_script_order_then_default(srv: FakeOpenAIServer, client: openai.OpenAI) -> None:
    srv.script(Reply.text("one"), Reply.text("two"))
    got = [
        client.chat.completions.create(model="m", messages=MESSAGES).choices[0].message.content
        for _ in range(2)
    ]
    assert got == ["one", "two"]
    assert srv.pending == 0
    with pytest.raises(openai.InternalServerError, match="no scripted reply left"):
        client.chat.completions.create(model="m", messages=MESSAGES)
    srv.default = Reply.text("hello")
    assert (
        client.chat.completions.create(model="m", messages=MESSAGES).choices[0].message.content
        == "hello"
    )


def test_error_500(srv: FakeOpenAIServer, client: openai.OpenAI) -> None:
    srv.script(Reply.error(500, "boom"))
    with pytest.raises(openai.InternalServerError) as info:
        client.chat.completions.create(model="m", messages=MESSAGES)
    assert info.value.status_code == 500
    assert isinstance(info.value.body, dict)
    assert info.value.body["message"] == "boom"
    assert info.value.body["type"] == "server_error"


def test_error_429_with_retry_after(srv: FakeOpenAIServer, client: openai.OpenAI) -> None:
    srv.script(Reply.error(429, "slow down", code="rate_limit_exceeded", retry_after=1))
    with pytest.raises(openai.RateLimitError) as info:
        client.chat.completions.create(model="m", messages=MESSAGES)
    assert info.value.response.headers["retry-after"] == "1"
    assert isinstance(info.value.body, dict)
    assert info.value.body["code"] == "rate_limit_exceeded"


def test_delay_beyond_client_timeout(srv: FakeOpenAIServer) -> None:
    srv.script(Reply.delay(5.0, Reply.json({"late": True})), Reply.text("on time"))
    with openai.OpenAI(base_url=srv.base_url, api_key="x", max_retries=0, timeout=0.3) as c:
        with pytest.raises(openai.APITimeoutError):
            c.chat.completions.create(model="m", messages=MESSAGES)
        # The server survived the client hanging up and keeps serving.
        resp = c.chat.completions.create(model="m", messages=MESSAGES)
        assert resp.choices[0].message.content == "on time"


def test_latency_applies_to_every_request(srv: FakeOpenAIServer) -> None:
    """No stopwatch: a client that waits less than the latency times out, every time."""
    srv.latency = 30.0
    srv.default = Reply.text("ok")
    with openai.OpenAI(base_url=srv.base_url, api_key="x", max_retries=0, timeout=0.3) as c:
        for _ in range(2):
            with pytest.raises(openai.APITimeoutError):
                c.chat.completions.create(model="m", messages=MESSAGES)
        srv.latency = 0.0
        assert c.chat.completions.create(model="m", messages=MESSAGES).choices[0].message.content


def test_streaming_reassembles_content(srv: FakeOpenAIServer, client: openai.OpenAI) -> None:
    text = "The quick brown fox jumps over the lazy dog."
    srv.script(Reply.text(text))
    stream = client.chat.completions.create(model="stream-model", messages=MESSAGES, stream=True)
    chunks = list(stream)
    assert len(chunks) >= 4
    assert chunks[0].choices[0].delta.role == "assistant"
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert all(c.object == "chat.completion.chunk" and c.model == "stream-model" for c in chunks)
    content_pieces = [c.choices[0].delta.content for c in chunks if c.choices[0].delta.content]
    assert len(content_pieces) > 1
    assert "".join(content_pieces) == text


def test_streaming_raw_sse_format(srv: FakeOpenAIServer) -> None:
    srv.script(Reply.text("abcdefgh"))
    with httpx.stream(
        "POST",
        f"{srv.base_url}/chat/completions",
        json={"model": "m", "messages": MESSAGES, "stream": True},
    ) as resp:
        assert resp.headers["content-type"].startswith("text/event-stream")
        body = resp.read().decode()
    events = [e for e in body.split("\n\n") if e]
    assert all(e.startswith("data: ") for e in events)
    assert events[-1] == "data: [DONE]"


def test_requests_recorded(srv: FakeOpenAIServer, client: openai.OpenAI) -> None:
    srv.default = Reply.text("ok")
    client.chat.completions.create(model="first", messages=MESSAGES, temperature=0)
    client.chat.completions.create(model="second", messages=[{"role": "user", "content": "hi"}])
    reqs = srv.requests
    assert [r["model"] for r in reqs] == ["first", "second"]
    assert all(r.path == "/v1/chat/completions" and r.method == "POST" for r in reqs)
    assert reqs[0]["messages"] == MESSAGES
    assert reqs[0]["temperature"] == 0
    assert reqs[0].headers["authorization"] == "Bearer x"


def test_responder_inspects_prompt(srv: FakeOpenAIServer, client: openai.OpenAI) -> None:
    def answer(body: dict[str, Any]) -> Reply:
        prompt = body["messages"][-1]["content"]
        return Reply.json({"echo": prompt.upper()})

    srv.script(Reply.text("queued reply is ignored while a responder is set"))
    srv.responder = answer
    resp = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "abc"}])
    assert json.loads(resp.choices[0].message.content or "") == {"echo": "ABC"}
    assert srv.pending == 1


def test_responder_exception_becomes_500(srv: FakeOpenAIServer, client: openai.OpenAI) -> None:
    def broken(body: dict[str, Any]) -> Reply:
        raise KeyError("nope")

    srv.responder = broken
    with pytest.raises(openai.InternalServerError, match="responder raised KeyError"):
        client.chat.completions.create(model="m", messages=MESSAGES)


def test_models_list(srv: FakeOpenAIServer, client: openai.OpenAI) -> None:
    models = client.models.list()
    assert [m.id for m in models.data] == ["fake-model"]
    assert models.data[0].owned_by == "memoryd-fake"
    assert srv.requests[-1].path == "/v1/models"
    assert srv.pending == 0


def test_unknown_path_is_404_json(srv: FakeOpenAIServer) -> None:
    resp = httpx.post(f"{srv.base_url}/embeddings", json={"input": "x"})
    assert resp.status_code == 404
    assert resp.json()["error"]["type"] == "not_found_error"
    assert httpx.get(f"{srv.base_url}/nope").status_code == 404


def test_anthropic_tool_use(srv: FakeOpenAIServer) -> None:
    srv.script(Reply.json({"facts": [{"text": "Likes tea", "scope": "global"}]}, usage=(50, 9)))
    with anthropic.Anthropic(
        base_url=srv.base_url.removesuffix("/v1"), api_key="x", max_retries=0
    ) as c:
        msg = c.messages.create(
            model="claude-test",
            max_tokens=256,
            messages=[{"role": "user", "content": "I like tea."}],
            tools=[
                {
                    "name": "record_facts",
                    "description": "Record facts",
                    "input_schema": {"type": "object", "properties": {"facts": {"type": "array"}}},
                }
            ],
        )
    assert msg.model == "claude-test"
    assert msg.stop_reason == "tool_use"
    block = msg.content[0]
    assert isinstance(block, anthropic.types.ToolUseBlock)
    assert block.name == "record_facts"
    assert block.id == "toolu_1"
    assert block.input == {"facts": [{"text": "Likes tea", "scope": "global"}]}
    assert (msg.usage.input_tokens, msg.usage.output_tokens) == (50, 9)
    assert srv.requests[0].path == "/v1/messages"


def test_anthropic_text_and_error(srv: FakeOpenAIServer) -> None:
    srv.script(Reply.text("plain answer"), Reply.error(529, "overloaded", type="overloaded_error"))
    with anthropic.Anthropic(
        base_url=srv.base_url.removesuffix("/v1"), api_key="x", max_retries=0
    ) as c:
        msg = c.messages.create(
            model="claude-test", max_tokens=64, messages=[{"role": "user", "content": "hi"}]
        )
        assert msg.stop_reason == "end_turn"
        block = msg.content[0]
        assert isinstance(block, anthropic.types.TextBlock)
        assert block.text == "plain answer"
        with pytest.raises(anthropic.APIStatusError) as info:
            c.messages.create(
                model="claude-test", max_tokens=64, messages=[{"role": "user", "content": "hi"}]
            )
        assert info.value.status_code == 529


def test_anthropic_stream_yields_the_scripted_text(srv: FakeOpenAIServer) -> None:
    answer = "A streamed answer, cut into several text deltas."
    srv.script(Reply.text(answer, usage=(12, 7)))
    with (
        anthropic.Anthropic(
            base_url=srv.base_url.removesuffix("/v1"), api_key="x", max_retries=0, timeout=5.0
        ) as c,
        c.messages.stream(
            model="claude-test", max_tokens=64, messages=[{"role": "user", "content": "hi"}]
        ) as stream,
    ):
        pieces = list(stream.text_stream)
        final = stream.get_final_message()
    assert len(pieces) > 1 and "".join(pieces) == answer
    assert final.model == "claude-test"
    assert final.stop_reason == "end_turn"
    assert (final.usage.input_tokens, final.usage.output_tokens) == (12, 7)
    assert srv.requests[0]["stream"] is True


def test_anthropic_stream_event_sequence(srv: FakeOpenAIServer) -> None:
    srv.script(Reply.text("four little pieces of text", finish_reason="length"))
    body = {"model": "m", "max_tokens": 8, "stream": True, "messages": MESSAGES}
    with httpx.stream("POST", f"{srv.base_url}/messages", json=body) as resp:
        assert resp.headers["content-type"].startswith("text/event-stream")
        raw = resp.read().decode()
    events = [block.split("\n") for block in raw.strip().split("\n\n")]
    names = [lines[0].removeprefix("event: ") for lines in events]
    data = [json.loads(lines[1].removeprefix("data: ")) for lines in events]
    assert names == [
        "message_start",
        "content_block_start",
        *["content_block_delta"] * (len(names) - 5),
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert [d["type"] for d in data] == names
    assert "".join(d["delta"]["text"] for d in data[2:-3]) == "four little pieces of text"
    assert data[-2]["delta"]["stop_reason"] == "max_tokens"


def test_anthropic_stream_tool_use(srv: FakeOpenAIServer) -> None:
    facts = {"facts": [{"text": "Likes tea", "scope": "global"}]}
    srv.script(Reply.json(facts))
    with (
        anthropic.Anthropic(
            base_url=srv.base_url.removesuffix("/v1"), api_key="x", max_retries=0, timeout=5.0
        ) as c,
        c.messages.stream(
            model="claude-test",
            max_tokens=256,
            messages=[{"role": "user", "content": "I like tea."}],
            tools=[{"name": "record_facts", "input_schema": {"type": "object"}}],
        ) as stream,
    ):
        final = stream.get_final_message()
    assert final.stop_reason == "tool_use"
    block = final.content[0]
    assert isinstance(block, anthropic.types.ToolUseBlock)
    assert (block.name, block.input) == ("record_facts", facts)


def test_stop_unblocks_delayed_reply() -> None:
    srv = FakeOpenAIServer().start()
    srv.script(Reply.delay(600.0, Reply.text("never")))
    c = openai.OpenAI(base_url=srv.base_url, api_key="x", max_retries=0, timeout=0.2)
    with pytest.raises(openai.APITimeoutError):
        c.chat.completions.create(model="m", messages=MESSAGES)
    # stop() must not wait out the 600 s reply; a minute is room enough on a loaded machine
    stopper = threading.Thread(target=srv.stop, daemon=True)
    stopper.start()
    stopper.join(timeout=60)
    assert not stopper.is_alive(), "stop() waited for the delayed reply"
    c.close()
