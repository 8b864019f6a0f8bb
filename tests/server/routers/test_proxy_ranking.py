"""The proxy with more workspace memories than fit in a turn: the reranker (the real MiniLM
embedder) picks the five that answer the last user message, out of twenty; the turn is
the last of several user messages, whose content is a list of typed parts; and two users
with memories in the same workspace never see each other's."""

from __future__ import annotations

from typing import Any

import openai

from memoryd.domain.injection import SECTION_HEADING
from memoryd.testing import FakeOpenAIServer, Reply
from memoryd.testing.live import LiveServer
from support.server import World

from .test_proxy import wait_for_chats

Live = tuple[World, LiveServer]

# Each user's five facts about the billing service's database; the two users' differ only
# in the figures, so a leak of the other user's would rank as high as one's own.
ALICE_RELEVANT = [
    "The billing service keeps its invoices in a PostgreSQL 16 database",
    "The billing service's database connection pool is capped at 20 connections",
    "The billing service's database schema is migrated with Alembic before each deploy",
    "The billing service gets its database password from BILLING_DB_PASSWORD",
    "The billing service's database logs queries slower than 200 ms",
]
BOB_RELEVANT = [
    "The billing service keeps its invoices in a PostgreSQL 15 database",
    "The billing service's database connection pool is capped at 50 connections",
    "The billing service's database schema is migrated with Flyway before each deploy",
    "The billing service gets its database password from Vault",
    "The billing service's database logs queries slower than 500 ms",
]
UNRELATED = [
    "The team's stand-up meeting is at 9:30 every weekday",
    "The office plants are watered on Mondays",
    "The mobile app is written in Kotlin and Swift",
    "Design reviews happen in Figma",
    "The company holiday party is in December",
    "The marketing site is built with Astro",
    "Support tickets are triaged in Zendesk",
    "The logo uses the colour teal",
    "New hires get a MacBook and a standing desk",
    "The on-call rotation changes every Tuesday",
    "The team mascot is a penguin called Pebble",
    "The coffee machine is on the third floor",
    "Customer interviews are recorded with consent",
    "The recruiting pipeline lives in Greenhouse",
    "Quarterly planning happens in the first week of the quarter",
]
QUESTION = [
    "Which database does billing use, ",
    "and how are its migrations and slow queries handled?",
]


def seed(world: World, who: str, relevant: list[str], global_fact: str) -> None:
    """Twenty workspace memories, the relevant five in the middle of the creation order (so
    neither "newest first" nor "oldest first" would pick them), and one global memory."""
    user = world.ids[who]
    for text in [*UNRELATED[:8], *relevant, *UNRELATED[8:]]:
        world.md.add_memory(user, text, workspace="alpha")
    world.md.add_memory(user, global_fact)
    assert len(world.md.list_memories(user, workspace="alpha")) == 20


def conversation() -> list[dict[str, Any]]:
    """Earlier user turns about nothing in memory, then the turn as a list of text parts."""
    return [
        {"role": "system", "content": "You are the team's assistant."},
        {"role": "user", "content": "Good morning! I have a question about our setup."},
        {"role": "assistant", "content": "Sure, ask away."},
        {"role": "user", "content": "Thanks for the help yesterday with the release."},
        {"role": "assistant", "content": "You're welcome."},
        {"role": "user", "content": [{"type": "text", "text": part} for part in QUESTION]},
    ]


def injected(request: Any) -> list[str]:
    """The memory lines the upstream got in its system message."""
    system = request["messages"][0]
    assert system["role"] == "system"
    head, heading, section = system["content"].partition(SECTION_HEADING)
    assert heading and head == "You are the team's assistant.\n\n", system["content"]
    return [line[2:] for line in section.strip().splitlines() if line.startswith("- ")]


def ask(world: World, live: LiveServer, who: str) -> Any:
    client = openai.OpenAI(base_url=f"{live.url}/v1", api_key=world.keys[who], max_retries=0)
    return client.chat.completions.with_raw_response.create(
        model="alpha/gpt-test", messages=conversation()
    )


def test_only_the_relevant_five_of_twenty_are_injected_and_users_stay_apart(
    live_world: Live, fake_llm: FakeOpenAIServer
) -> None:
    world, live = live_world
    seed(world, "alice", ALICE_RELEVANT, "Alice prefers short answers")
    seed(world, "bob", BOB_RELEVANT, "Bob prefers answers with examples")
    fake_llm.script(Reply.text("Alice's answer"), Reply.text("Bob's answer"))

    for who, relevant, global_fact, others in (
        ("alice", ALICE_RELEVANT, "Alice prefers short answers", BOB_RELEVANT),
        ("bob", BOB_RELEVANT, "Bob prefers answers with examples", ALICE_RELEVANT),
    ):
        raw = ask(world, live, who)
        assert raw.headers["X-Memoryd-Memories"] == "6"
        lines = injected(fake_llm.requests[-1])
        assert lines[0] == global_fact  # global memories always come first
        assert sorted(lines[1:]) == sorted(relevant), (who, lines)
        assert not set(lines) & set(others)
        assert "Bob" not in " ".join(lines) if who == "alice" else "Alice" not in " ".join(lines)
        # the rest of the conversation goes upstream untouched
        assert fake_llm.requests[-1]["messages"][1:] == conversation()[1:]
        # the recorded prompt is the turn (the last user message), its parts joined
        chats = wait_for_chats(world, who, 1)
        assert [c.prompt for c in chats] == ["".join(QUESTION)]


def test_the_turn_not_the_history_picks_the_memories(
    live_world: Live, fake_llm: FakeOpenAIServer
) -> None:
    """The same twenty memories; a turn about the weekly routine after the billing question
    brings the routine in and leaves most of the billing facts out."""
    world, live = live_world
    seed(world, "alice", ALICE_RELEVANT, "Alice prefers short answers")
    fake_llm.script(Reply.text("ok"))
    messages = [
        *conversation()[:-1],
        {"role": "user", "content": "".join(QUESTION)},
        {"role": "assistant", "content": "PostgreSQL 16, migrated with Alembic."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Different topic: when is our daily stand-up meeting, "},
                {"type": "text", "text": "and which day does the on-call rotation change?"},
            ],
        },
    ]
    client = openai.OpenAI(base_url=f"{live.url}/v1", api_key=world.keys["alice"], max_retries=0)
    client.chat.completions.create(model="alpha/gpt-test", messages=messages)
    lines = injected(fake_llm.requests[-1])
    assert "The team's stand-up meeting is at 9:30 every weekday" in lines
    assert "The on-call rotation changes every Tuesday" in lines
    assert len(set(lines) & set(ALICE_RELEVANT)) < len(ALICE_RELEVANT)
    prompts = [c.prompt for c in wait_for_chats(world, "alice", 1)]
    assert prompts == [
        "Different topic: when is our daily stand-up meeting, "
        "and which day does the on-call rotation change?"
    ]
