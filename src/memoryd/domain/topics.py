"""The fixed list of conversation topics a memory can be tagged with (issue 10).

An embedding carries poorly the world knowledge that decides which of many plausible
memories answers a broad question ("What do you like to do for fun?": "I grow roses in
my garden." is a hobby, "I fantasize about taking over the world." is not). An LLM knows
it, so each memory gets 1 to 3 of these topics, written once, in the background, by the
extraction LLM (``memoryd.extraction.topics``); the answer bank then tells which topics
answer questions like the message (``memoryd.rerank.answer_bank``). The list is fixed:
the shipped bank's topic directions are fitted on it, in this order. Changing it means
rebuilding the bank (``bench/build_answer_bank.py``) and re-tagging every memory.

A memory's ``topics`` is ``None`` until it is tagged (and again after its text changes),
and an empty tuple when the LLM gave no usable topics. People see a topic by its label,
capitalised (``shown_labels``, ``in_words``); an import file names topics by their keys
(``parse_keys``).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from memoryd.domain.errors import InvalidInput

# (key stored with the memory, the words the LLM is shown)
TOPICS: tuple[tuple[str, str], ...] = (
    ("hobbies", "hobbies and free time"),
    ("work", "work and career"),
    ("school", "school and education"),
    ("family", "family and relationships"),
    ("pets", "pets and animals"),
    ("food", "food and drink"),
    ("music", "music"),
    ("sports", "sports and fitness"),
    ("media", "books, films and tv"),
    ("home", "home and where they live"),
    ("travel", "travel and places"),
    ("health", "health and body"),
    ("beliefs", "beliefs and personality"),
    ("plans", "plans, goals and wishes"),
    ("possessions", "possessions and money"),
    ("looks", "looks and clothes"),
    ("technology", "technology and games"),
    ("past", "past and life events"),
)
KEYS: tuple[str, ...] = tuple(key for key, _ in TOPICS)
LABELS: tuple[str, ...] = tuple(label for _, label in TOPICS)
MAX_TOPICS = 3
_INDEX = {key: i for i, key in enumerate(KEYS)}
_BY_LABEL = {label: key for key, label in TOPICS}


def key_of(label: str) -> str | None:
    """The key of a topic given by its words (as the LLM answers), or None."""
    return _BY_LABEL.get(label.strip().lower())


def encode(topics: Iterable[str] | None) -> str | None:
    """The stored form: known keys in list order, comma-separated; None stays None."""
    if topics is None:
        return None
    wanted = set(topics)
    return ",".join(key for key in KEYS if key in wanted)


def decode(stored: str | None) -> tuple[str, ...] | None:
    """Keys from the stored form; unknown keys (from a newer list) are dropped."""
    if stored is None:
        return None
    return tuple(key for key in stored.split(",") if key in _INDEX)


@lru_cache(maxsize=4096)
def positions(topics: tuple[str, ...]) -> tuple[int, ...]:
    """``indices`` of a memory's topics, remembered (a turn asks for the same few)."""
    return tuple(indices(topics))


def indices(topics: Iterable[str]) -> list[int]:
    """Positions of known keys in ``KEYS`` (the columns of the bank's topic directions)."""
    return [_INDEX[key] for key in topics if key in _INDEX]


def _shown(label: str) -> str:
    shown = " ".join("TV" if word == "tv" else word for word in label.split(" "))
    return shown[:1].upper() + shown[1:]


_SHOWN = {key: _shown(label) for key, label in TOPICS}


def shown_labels() -> dict[str, str]:
    """Each key with its label as people read it ("Hobbies and free time"), list order."""
    return dict(_SHOWN)


def in_words(topics: Iterable[str] | None) -> str:
    """A memory's topics for people: "Not tagged yet" (None), "None" (tagged, no topic
    found), else the labels ("Hobbies and free time, Music")."""
    if topics is None:
        return "Not tagged yet"
    shown = [_SHOWN[key] for key in topics if key in _SHOWN]
    return ", ".join(shown) if shown else "None"


def parse_keys(value: Any) -> tuple[str, ...]:
    """Topics given by their keys (an import line's ``topics``): a list of at most
    ``MAX_TOPICS`` different known keys, exact and lower case; InvalidInput otherwise."""
    if not isinstance(value, list) or not all(isinstance(key, str) for key in value):
        raise InvalidInput('topics must be a list of topic keys, like ["hobbies", "music"]')
    for key in value:
        if key not in _INDEX:
            raise InvalidInput(f"unknown topic {key!r} (topics: {', '.join(KEYS)})")
    if len(set(value)) != len(value):
        raise InvalidInput("topics names a topic twice")
    if len(value) > MAX_TOPICS:
        raise InvalidInput(f"at most {MAX_TOPICS} topics, not {len(value)}")
    return tuple(value)
