"""The one interface every embedder implements, and the optional parts some add.

A memory's vector is computed when it is written and stored with the embedder's name, so
a different embedder can be configured later: stored vectors from another embedder are
recomputed when first needed (and made again for good by ``Memoryd.refresh_vectors``).
What is embedded for a memory is its text in the user's own words (``embed_memories``,
``memoryd.domain.perspective``).

Optional parts: an embedder trained with distinct forms for what searches and what is
searched (E5's "query: " / "passage: ") adds ``embed_queries`` (``QueryEmbedder``); one
whose stored vectors hold another's (the ``routed`` embedder's halves) adds
``read_stored(vectors, made_by)``, which ``stored_vector`` asks; one that scores each turn
with one of several embedders adds ``route`` (``Routed``); and one whose cosines are not
those extraction's thresholds were measured on names the embedder that are
(``comparison``, ``comparison_embedder``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from memoryd.domain.models import Vector
from memoryd.domain.perspective import first_person


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors (one row per text)."""

    name: str
    dimensions: int

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]: ...


@runtime_checkable
class QueryEmbedder(Protocol):
    """An embedder with a distinct form for texts that search (a turn, a question)."""

    def embed_queries(self, texts: Sequence[str]) -> npt.NDArray[np.float32]: ...


@runtime_checkable
class Routed(Protocol):
    """An embedder that scores each turn with one of its views, chosen by the turn's texts
    (the message, the history, the memories): vectors of two models cannot be compared,
    so one turn is scored wholly in one of them."""

    other: Embedder  # the view of turns that are not English (their budget is 15 ms, not 5)

    def route(self, texts: Sequence[str]) -> Embedder: ...


def embed_queries(embedder: Embedder, texts: Sequence[str]) -> npt.NDArray[np.float32]:
    """Vectors of texts that look for memories: a turn's parts, a memory's questions."""
    if isinstance(embedder, QueryEmbedder):
        return embedder.embed_queries(texts)
    return embedder.embed(texts)


def stored_vector(embedder: Embedder, vectors: Vector, made_by: str | None) -> Vector | None:
    """What ``embedder`` can compare with its own vectors in a stored vector (or matrix of
    question vectors, one per row) that ``made_by`` made; None when nothing."""
    reader = getattr(embedder, "read_stored", None)  # not isinstance: 20 times a turn
    if reader is not None:
        found: Vector | None = reader(vectors, made_by)
        return found
    if made_by == embedder.name and vectors.shape[-1] == embedder.dimensions:
        return vectors
    return None


def comparison_embedder(embedder: Embedder) -> Embedder:
    """The embedder whose cosines extraction compares facts with (its thresholds,
    ``memoryd.extraction.decide``, were measured on MiniLM's): ``comparison`` when the
    embedder names one, else itself."""
    found = getattr(embedder, "comparison", None)
    return found if isinstance(found, Embedder) else embedder


def embed_memories(embedder: Embedder, contents: Sequence[str]) -> npt.NDArray[np.float32]:
    """The vectors stored for memories with these texts: each text's first-person form
    ("The user runs a dog school." is embedded as "I run a dog school.")."""
    if not contents:
        return np.zeros((0, embedder.dimensions), np.float32)
    return embedder.embed([first_person(text) for text in contents])
