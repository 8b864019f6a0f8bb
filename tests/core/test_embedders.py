"""Embedders as plugins (``register_embedders``), the multilingual e5 (R21), the ``routed``
pair, and stores that change embedder: real models, real databases, whole turns."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from sqlalchemy import select

from memoryd import Memoryd, hookimpl
from memoryd.config import MemorydSettings
from memoryd.domain.errors import InvalidInput
from memoryd.domain.language import is_english
from memoryd.models.embedding.base import embed_memories
from memoryd.models.embedding.e5 import E5Embedder
from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.models.embedding.routed import RoutedEmbedder
from memoryd.models.rerank.embedding import EmbeddingReranker
from memoryd.plugins import embedder_factories, plugin_manager
from memoryd.storage.tables import memories

CHINESE = [
    "我养了一只叫豆豆的柯基犬。",
    "我每周六早上去游泳。",
    "我在上海的一家银行工作。",
    "我对花生过敏。",
    "我女儿明年上小学。",
    "我最喜欢的电影是《千与千寻》。",
    "我每天晚上读半小时书。",
    "我老家在成都。",
]
ENGLISH = [
    "The user's sister lives in Oslo.",
    "The user is learning the cello.",
    "Phoenix ships in Q3.",
    "The user drinks only decaf coffee.",
    "The user's car is a red Volvo.",
    "The user is allergic to penicillin.",
    "The user's daughter starts school next year.",
    "The user runs on Tuesday evenings.",
]


@pytest.fixture(scope="module")
def e5() -> E5Embedder:
    embedder = E5Embedder(models_dir=MemorydSettings().models_path)
    embedder.embed(["warm up"])
    return embedder


def world(md: Memoryd, texts: Sequence[str]) -> tuple[int, dict[str, str]]:
    """A user whose workspace ``w`` holds ``texts``; their ids by text."""
    user = md.create_user("alice")
    md.create_workspace("w", member=user.id)
    ids = {text: md.add_memory(user.id, text, workspace="w").id for text in texts}
    return user.id, ids


def top(md: Memoryd, user_id: int, message: str) -> str:
    turn = md.context(user_id, "w", message, record=False)
    assert turn.fallback_reason is None
    return turn.workspace_memories[0].memory.content


def stored_embedders(md: Memoryd) -> set[str | None]:
    with md.db.read() as repo:
        return {row[0] for row in repo.conn.execute(select(memories.c.embedder))}


# --- the hook ---------------------------------------------------------------------------
class Letters:
    """A toy embedder: how often each letter a-z occurs."""

    name = "letters-v1"
    dimensions = 26

    def __init__(self, settings: MemorydSettings) -> None:
        self.settings = settings

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        rows = np.zeros((len(texts), 26), np.float32)
        for i, text in enumerate(texts):
            for ch in text.lower():
                if "a" <= ch <= "z":
                    rows[i, ord(ch) - 97] += 1
        return rows / np.clip(np.linalg.norm(rows, axis=1, keepdims=True), 1e-9, None)


class LettersPlugin:
    @hookimpl
    def register_embedders(self, register: Callable[[str, Callable[..., Any]], None]) -> None:
        register("letters", Letters)


@pytest.fixture
def letters_plugin() -> Iterator[None]:
    plugin = LettersPlugin()
    plugin_manager().register(plugin, "test-letters-embedder")
    try:
        yield
    finally:
        plugin_manager().unregister(plugin)


def test_builtins_register_through_the_hook() -> None:
    assert {"minilm", "e5", "routed"} <= set(embedder_factories())


def test_a_plugin_embedder_is_chosen_by_name(sqlite_url: str, letters_plugin: None) -> None:
    settings = MemorydSettings(embedder="letters")
    with Memoryd(sqlite_url, settings=settings) as md:
        assert isinstance(md.embedder, Letters) and md.embedder.settings is settings
        user_id, _ = world(md, [f"zzz {i}" for i in range(6)] + ["apple banana"])
        assert top(md, user_id, "banana and apple") == "apple banana"
        assert stored_embedders(md) == {"letters-v1"}


def test_an_unknown_embedder_fails_when_memoryd_is_made(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMORYD_EMBEDDER", "minilm-multilingual")
    with pytest.raises(InvalidInput) as caught:
        Memoryd(sqlite_url)
    message = str(caught.value)
    assert "unknown embedder 'minilm-multilingual'" in message
    assert "e5" in message and "minilm" in message and "routed" in message


def test_the_default_embedder_is_the_documented_one() -> None:
    assert MemorydSettings().embedder in embedder_factories()


# --- e5 ---------------------------------------------------------------------------------
def test_e5_finds_a_chinese_memory_by_a_chinese_question(sqlite_url: str, e5: E5Embedder) -> None:
    with Memoryd(sqlite_url, embedder=e5) as md:
        user_id, _ = world(md, CHINESE)
        assert top(md, user_id, "我的狗叫什么名字？") == "我养了一只叫豆豆的柯基犬。"
        assert top(md, user_id, "我不能吃什么？") == "我对花生过敏。"
        assert top(md, user_id, "你还记得我在哪里上班吗？") == "我在上海的一家银行工作。"


def test_e5_crosses_languages(sqlite_url: str, e5: E5Embedder) -> None:
    with Memoryd(sqlite_url, embedder=e5) as md:
        user_id, _ = world(md, ENGLISH)
        assert top(md, user_id, "Quel instrument est-ce que j'apprends ?") == ENGLISH[1]
        assert top(md, user_id, "Où habite ma sœur ?") == ENGLISH[0]
        assert top(md, user_id, "我对什么药过敏？") == ENGLISH[5]


def test_e5_uses_query_and_passage_forms(e5: E5Embedder) -> None:
    text = "Where does my sister live?"
    query, passage = e5.embed_queries([text])[0], e5.embed([text])[0]
    assert abs(float(np.linalg.norm(query)) - 1) < 1e-4
    assert float(query @ passage) < 0.999  # the "query: " / "passage: " prefixes differ


def test_the_int8_graph_agrees_with_the_c_engine(e5: E5Embedder) -> None:
    assert e5.variant in ("u8s8", "u8u8")  # the derived graph, not the engine
    engine = E5Embedder(quantize="off")
    texts = [*CHINESE[:3], *ENGLISH[:3], "Où habite ma sœur ?", "word " * 900]  # > 1 window
    for form in ("embed", "embed_queries"):
        ours, theirs = getattr(e5, form)(texts), getattr(engine, form)(texts)
        assert engine.variant == "engine"
        assert float((ours * theirs).sum(axis=1).min()) > 0.99


# --- routed -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "english"),
    [
        ("What do you do for fun?", True),  # "do" is Portuguese too
        ("Lumio pricing: €12 per user per month", True),  # "per" is Italian too
        ("Phoenix ships in Q3.", True),  # nothing tells: English
        ("Lunch at Del Taco with Al and the team", True),  # "del", "al" are Italian too
        ("voglio correre un 10k un giorno.", False),  # Italian "un", as French's
        ("Où habite ma sœur ?", False),
        ("¿Dónde vive mi hermana?", False),
        ("Onde mora a minha irmã?", False),
        ("Wo wohnt meine Schwester?", False),
        ("我的狗叫什么名字？", False),
        ("Search for 平創 rentals", False),  # Han in an English line
    ],
)
def test_routing_reads_the_language_erring_towards_english(text: str, english: bool) -> None:
    assert is_english(text) is english


def test_routed_scores_english_turns_as_minilm_and_others_in_e5(
    sqlite_url: str, embedder: MiniLMEmbedder, e5: E5Embedder
) -> None:
    routed = RoutedEmbedder(embedder, e5)
    with Memoryd(sqlite_url, embedder=routed, reranker="embedding") as md:
        user_id, ids = world(md, ENGLISH)
        assert stored_embedders(md) == {routed.name}
        turn = md.context(user_id, "w", "Which instrument am I learning?", record=False)
        # the same scores as MiniLM alone over vectors it stored itself
        mine = [
            replace(m, embedding=vector, embedder=embedder.name)
            for m, vector in zip(
                md.list_memories(user_id, workspace="w"),
                embed_memories(embedder, [m.content for m in md.list_memories(user_id)]),
                strict=True,
            )
        ]
        alone = EmbeddingReranker(embedder).score(turn.query, mine)
        by_id = dict(zip([m.id for m in mine], alone, strict=True))
        for scored in turn.workspace_memories:
            assert scored.score == pytest.approx(by_id[scored.memory.id], abs=1e-5)
        assert top(md, user_id, "Quel instrument est-ce que j'apprends ?") == ENGLISH[1]
        assert turn.workspace_memories[0].memory.id == ids[ENGLISH[1]]


def test_routed_finds_chinese_memories_from_an_english_question(
    sqlite_url: str, embedder: MiniLMEmbedder, e5: E5Embedder
) -> None:
    with Memoryd(sqlite_url, embedder=RoutedEmbedder(embedder, e5)) as md:
        user_id, _ = world(md, CHINESE)
        assert top(md, user_id, "What is my dog called?") == "我养了一只叫豆豆的柯基犬。"
        assert top(md, user_id, "我不能吃什么？") == "我对花生过敏。"


def test_a_turn_that_is_not_english_reads_its_message_with_the_newest_history(
    sqlite_url: str, embedder: MiniLMEmbedder
) -> None:
    """In companion chat no one message carries the turn; a turn scored in e5 (its budget
    is 15 ms) embeds its message together with the newest history message, an English
    turn (5 ms) its message alone."""
    seen: list[str] = []

    class Recorded(E5Embedder):
        def embed_queries(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
            seen.extend(texts)
            return super().embed_queries(texts)

    e5 = Recorded(models_dir=MemorydSettings().models_path)
    with Memoryd(sqlite_url, embedder=RoutedEmbedder(embedder, e5), reranker="hybrid") as md:
        user_id, _ = world(md, CHINESE)
        md.create_workspace("v", member=user_id)
        for text in ENGLISH:
            md.add_memory(user_id, text, workspace="v")
        said = [{"role": "user", "content": "我最近总是很累。"},
                {"role": "assistant", "content": "是工作太忙了吗？"}]  # fmt: skip
        md.context(user_id, "w", "对，还要照顾女儿。", said, record=False)
        assert "对，还要照顾女儿。\n是工作太忙了吗？" in seen and "对，还要照顾女儿。" not in seen
        seen.clear()
        said = [{"role": "user", "content": "I have been so tired lately."},
                {"role": "assistant", "content": "Is work keeping you busy?"}]  # fmt: skip
        md.context(user_id, "v", "Yes, and the cello lessons too.", said, record=False)
        assert seen == []  # MiniLM scored it: e5 embedded nothing


# --- changing embedder ------------------------------------------------------------------
@pytest.mark.parametrize("after", ["e5", "routed"])
def test_a_minilm_store_keeps_working_after_a_switch(
    sqlite_url: str, embedder: MiniLMEmbedder, e5: E5Embedder, after: str
) -> None:
    with Memoryd(sqlite_url, embedder=embedder) as md:
        user_id, _ = world(md, [*ENGLISH, *CHINESE])
        assert stored_embedders(md) == {embedder.name}
    new = e5 if after == "e5" else RoutedEmbedder(embedder, e5)
    with Memoryd(sqlite_url, embedder=new) as md:
        # the turns read what they can, compute the rest (kept for the next turns) ...
        assert top(md, user_id, "Quel instrument est-ce que j'apprends ?") == ENGLISH[1]
        assert top(md, user_id, "我的狗叫什么名字？") == "我养了一只叫豆豆的柯基犬。"
        # ... and the upkeep stores the new embedder's vectors for good
        assert md.refresh_vectors() == len(ENGLISH) + len(CHINESE)
        assert stored_embedders(md) == {new.name}
        assert md.refresh_vectors() == 0
        assert top(md, user_id, "Where does my sister live?") == ENGLISH[0]
        fresh = md.add_memory(user_id, "The user plays chess on Sundays.", workspace="w")
        assert top(md, user_id, "When do I play chess?") == fresh.content
    with Memoryd(sqlite_url, embedder=embedder) as md:  # and back again
        assert md.refresh_vectors() == len(ENGLISH) + len(CHINESE) + 1
        assert top(md, user_id, "Which instrument am I learning?") == ENGLISH[1]


def test_routed_reads_the_minilm_vectors_of_an_older_store(
    sqlite_url: str, embedder: MiniLMEmbedder, e5: E5Embedder
) -> None:
    with Memoryd(sqlite_url, embedder=embedder) as md:
        user_id, _ = world(md, ENGLISH)

    class Counted(E5Embedder):
        calls = 0

        def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
            Counted.calls += len(texts)
            return super().embed(texts)

    with Memoryd(sqlite_url, embedder=RoutedEmbedder(embedder, Counted())) as md:
        assert top(md, user_id, "Which instrument am I learning?") == ENGLISH[1]
        assert Counted.calls == 0  # an English turn: the stored MiniLM vectors serve
        assert top(md, user_id, "Quel instrument est-ce que j'apprends ?") == ENGLISH[1]
        assert Counted.calls == len(ENGLISH)  # the e5 half, computed once ...
        assert top(md, user_id, "Où habite ma sœur ?") == ENGLISH[0]
        assert Counted.calls == len(ENGLISH)  # ... and kept
