"""What an app sees through the adapters when memoryd cannot help: the backend's own
exception (``ServerError`` for a server that is down, ``NotAuthenticated`` for a bad key),
never a turn that silently lacks its memories or an exchange silently not recorded; and
the async client as a backend where the framework is async.
"""

from __future__ import annotations

import anyio
import pytest
from sqlalchemy.ext.asyncio import create_async_engine

pytest.importorskip("langchain_core", reason="needs the 'langchain' extra")
pytest.importorskip("llama_index.core", reason="needs the 'llamaindex' extra")

from langchain_core.messages import AIMessage, HumanMessage
from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.memory import Memory

from memoryd.client import AsyncMemorydClient, MemorydClient, NotAuthenticated, ServerError
from memoryd.integrations.langchain import MemorydChatMessageHistory, MemorydRetriever
from memoryd.integrations.llamaindex import MemorydMemoryBlock
from memoryd.testing.live import LiveMemoryd
from support.tcp_proxy import TcpProxy


def words(text: str) -> list[str]:
    return text.split()


def test_a_chat_history_whose_server_goes_away(live: LiveMemoryd) -> None:
    alice = live.ids["alice"]
    proxy = TcpProxy("127.0.0.1", live.port)
    try:
        with MemorydClient(f"http://127.0.0.1:{proxy.port}", live.keys["alice"]) as client:
            history = MemorydChatMessageHistory(client, alice, "alpha")
            history.add_user_message("I moved to Lisbon")
            retriever = MemorydRetriever(backend=client, user_id=alice, workspace="alpha")
            with proxy.outage():
                with pytest.raises(ServerError, match="cannot reach memoryd at"):
                    history.messages  # noqa: B018 - reading it is the call under test
                with pytest.raises(ServerError):
                    history.add_ai_message("Noted!")
                with pytest.raises(ServerError):
                    retriever.invoke("Where do I live?")
            assert live.md.list_chats(alice) == []
            history.add_ai_message("Noted!")  # the same call again, once it is back
            assert [(c.prompt, c.response) for c in live.md.list_chats(alice)] == [
                ("I moved to Lisbon", "Noted!")
            ]
            assert [m.content for m in history.messages] == ["I moved to Lisbon", "Noted!"]
    finally:
        proxy.close()


def test_a_wrong_key_is_not_authenticated_through_the_adapters(live: LiveMemoryd) -> None:
    alice = live.ids["alice"]
    with MemorydClient(live.url, "mdk_wrong") as client:
        history = MemorydChatMessageHistory(client, alice, "alpha")
        with pytest.raises(NotAuthenticated, match="invalid or revoked API key"):
            history.add_messages([HumanMessage("Hi"), AIMessage("Hello")])
        block = MemorydMemoryBlock(backend=client, user_id=alice, workspace="alpha")
        memory = Memory.from_defaults(session_id="k", tokenizer_fn=words, memory_blocks=[block])
        memory.put(ChatMessage(role=MessageRole.USER, content="Where do the logs go?"))
        with pytest.raises(NotAuthenticated):
            memory.get()


def test_clear_is_refused_and_says_how_to_delete_the_chats(
    live: LiveMemoryd, client: MemorydClient
) -> None:
    alice = live.ids["alice"]
    history = MemorydChatMessageHistory(client, alice, "alpha")
    history.add_messages([HumanMessage("I moved to Lisbon"), AIMessage("Noted!")])
    with pytest.raises(NotImplementedError, match=rf"clear_chats\({alice}, 'alpha'\)"):
        history.clear()
    assert len(live.md.list_chats(alice)) == 1
    assert client.clear_chats(alice, "alpha") == 1


def test_the_async_client_is_a_backend_for_async_frameworks(
    live: LiveMemoryd, client: MemorydClient
) -> None:
    alice = live.ids["alice"]
    expected = MemorydRetriever(backend=client, user_id=alice, workspace="alpha").invoke("Logs?")

    async def main() -> tuple[list[str], str]:
        async with AsyncMemorydClient(live.url, live.keys["alice"]) as remote:
            retriever = MemorydRetriever(backend=remote, user_id=alice, workspace="alpha")
            docs = await retriever.ainvoke("Logs?")
            block = MemorydMemoryBlock(backend=remote, user_id=alice, workspace="alpha")
            # LlamaIndex keeps its chat history in async SQLite; the engine is ours so it
            # is closed in this event loop, not left to a thread after the loop is gone
            engine = create_async_engine("sqlite+aiosqlite:///:memory:")
            try:
                memory = Memory.from_defaults(
                    session_id="a",
                    token_limit=2000,
                    tokenizer_fn=words,
                    memory_blocks=[block],
                    async_engine=engine,
                )
                await memory.aput(ChatMessage(role=MessageRole.USER, content="Where do logs go?"))
                system = (await memory.aget())[0].content or ""
            finally:
                await engine.dispose()
            return [d.metadata["id"] for d in docs], system

    ids, system = anyio.run(main)
    assert ids == [d.metadata["id"] for d in expected]
    assert live.md.context(alice, "alpha", "Where do logs go?").section in system
    remote = AsyncMemorydClient(live.url, live.keys["alice"])
    with pytest.raises(TypeError, match="not an AsyncMemorydClient"):
        MemorydChatMessageHistory(remote, alice, "alpha")
    with pytest.raises(TypeError, match="ainvoke"):
        MemorydRetriever(backend=remote, user_id=alice, workspace="alpha").invoke("Logs?")
    anyio.run(remote.aclose)
