"""The LangChain adapters with the real langchain-core, over a real memoryd server: a
chain whose system prompt gets the memory section and whose exchanges are recorded."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langchain_core", reason="needs the 'langchain' extra")

from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.prompt_values import PromptValue
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables import RunnableLambda, RunnablePassthrough

from memoryd import Memoryd
from memoryd.client import MemorydClient
from memoryd.integrations.langchain import (
    MemorydChatMessageHistory,
    MemorydRetriever,
)
from memoryd.testing.live import LiveMemoryd


def test_retriever_returns_the_chat_turns_memories(
    live: LiveMemoryd, client: MemorydClient
) -> None:
    alice = live.ids["alice"]
    retriever = MemorydRetriever(backend=client, user_id=alice, workspace="alpha")
    docs = retriever.invoke("Which database do we use?")
    turn = live.md.context(alice, "alpha", "Which database do we use?")
    assert [d.metadata["id"] for d in docs] == [m.id for m in turn.memories]
    assert [d.metadata["score"] for d in docs[1:]] == [s.score for s in turn.workspace_memories]
    assert docs[0].page_content == "Prefers concise answers"
    assert docs[1].page_content == "The database is PostgreSQL 16"


def test_a_chain_gets_memories_and_its_exchanges_are_recorded(
    live: LiveMemoryd, client: MemorydClient
) -> None:
    alice = live.ids["alice"]
    retriever = MemorydRetriever(backend=client, user_id=alice, workspace="alpha")
    seen: list[PromptValue] = []

    def capture(prompt: PromptValue) -> PromptValue:
        seen.append(prompt)
        return prompt

    prompt = ChatPromptTemplate.from_messages(
        [
            ("system", "You are helpful.\n\n{memories}"),
            MessagesPlaceholder("history"),
            ("human", "{question}"),
        ]
    )
    section = RunnableLambda(
        lambda docs: "\n".join(
            ["## Things I Remember About You", *(f"- {d.page_content}" for d in docs)]
        )
    )
    model = FakeListChatModel(responses=["Postgres 16.", "On Fridays."])
    chain: Any = (
        RunnablePassthrough.assign(memories=(lambda x: x["question"]) | retriever | section)
        | prompt
        | RunnableLambda(capture)
        | model
    )
    history = MemorydChatMessageHistory(client, alice, "alpha")

    def turn(question: str) -> Any:
        """A chat turn: the recorded exchanges as history, then the exchange recorded."""
        answer = chain.invoke({"question": question, "history": history.messages})
        history.add_messages([HumanMessage(question), answer])
        return answer

    first = turn("Which database do we use?")
    second = turn("When do we deploy?")
    assert (first.content, second.content) == ("Postgres 16.", "On Fridays.")

    system = seen[0].to_messages()[0].content
    assert "- The database is PostgreSQL 16" in system
    assert "- Prefers concise answers" in system
    # the second turn saw the first exchange as history, read back from memoryd
    assert [m.content for m in seen[1].to_messages()[1:3]] == [
        "Which database do we use?",
        "Postgres 16.",
    ]
    chats = live.md.list_chats(alice, "alpha")
    assert [(c.prompt, c.response) for c in chats] == [
        ("Which database do we use?", "Postgres 16."),
        ("When do we deploy?", "On Fridays."),
    ]


def test_history_pairs_messages_added_one_at_a_time(
    live: LiveMemoryd, client: MemorydClient
) -> None:
    alice = live.ids["alice"]
    history = MemorydChatMessageHistory(client, alice, "alpha")
    history.add_user_message("I moved to Lisbon")
    assert live.md.list_chats(alice) == []  # nothing to record until the reply arrives
    assert [m.content for m in history.messages] == ["I moved to Lisbon"]
    history.add_ai_message("Noted!")
    assert [(c.prompt, c.response) for c in live.md.list_chats(alice)] == [
        ("I moved to Lisbon", "Noted!")
    ]
    assert [type(m) for m in history.messages] == [HumanMessage, AIMessage]
    with pytest.raises(NotImplementedError):
        history.clear()


def test_the_embedded_library_is_a_backend_too(live: LiveMemoryd) -> None:
    md: Memoryd = live.md
    docs = MemorydRetriever(backend=md, user_id=live.ids["alice"], workspace="alpha").invoke(
        "Where do the logs go?"
    )
    assert "Logs are shipped to Loki" in [d.page_content for d in docs]
