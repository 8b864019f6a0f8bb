"""BM25 over the pool of memories being ranked: cheap, exact-word relevance.

Chinese and Japanese are written without spaces between words, and Korean joins its
particles to them, so a run of Han, kana or Hangul is counted as its overlapping pairs of
characters ("圣诞派对" -> 圣诞, 诞派, 派对): that matches the words two texts share
without a dictionary. Read as one word, such a run matched only an identical run, and
BM25 found nothing in Chinese (MADial-Bench's Chinese dev turns: BM25 alone 0.23 recall@5,
with pairs 0.74; BENCHMARKS.md, "Retrieval per genre").
A memory's words (and each query part's) are counted once per process and kept in a
bounded cache keyed by the text, so a turn only tokenises its new message (tokenising 20
memories and the whole query cost 0.7 ms a turn).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

from memoryd.domain.injection import Query
from memoryd.domain.models import Memory

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# Han (with the compatibility block), hiragana and katakana, Hangul syllables
_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+")
# Words so common in chat that matching them says nothing about relevance.
# fmt: off
STOPWORDS = frozenset((
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "can", "could", "did", "do", "does",
    "for", "from", "had", "has", "have", "how", "i", "i'm", "in", "is", "it", "its", "me", "my",
    "of", "on", "or", "our", "so", "that", "the", "their", "them", "there", "these", "they",
    "this", "to", "us", "was", "we", "were", "what", "when", "where", "which", "who", "why",
    "will", "with", "would", "you", "your", "about", "any", "all", "am", "just", "should",
    "then", "than", "been", "being", "into", "up", "out", "if", "no", "not", "yes", "ok",
    "okay", "please", "thanks"
))
# fmt: on


def tokenize(text: str) -> list[str]:
    terms: list[str] = []
    for word in _WORD.findall(text):
        word = word.casefold()
        start = 0
        for run in _UNSPACED.finditer(word):  # "meet在北京" -> meet, 北京
            _add_word(terms, word[start : run.start()])
            terms.extend(_pairs(run.group()))
            start = run.end()
        _add_word(terms, word[start:])
    return terms


def _add_word(terms: list[str], word: str) -> None:
    if word and word not in STOPWORDS:
        terms.append(_stem(word))


def _pairs(chars: str) -> list[str]:
    """A run of unspaced script as its overlapping character pairs (one character alone)."""
    return [chars[i : i + 2] for i in range(len(chars) - 1)] or [chars]


def _stem(word: str) -> str:
    """A tiny suffix stripper: enough to match 'deadlines' with 'deadline'."""
    for suffix in ("ing", "ies", "es", "ed", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def _count(text: str) -> tuple[Counter[str], int]:
    words = tokenize(text)
    return Counter(words), len(words)


class TermCounts:
    """Each text's term frequencies and length, computed once (bounded LRU, thread-safe)."""

    def __init__(self, size: int = 16384) -> None:
        self._count = lru_cache(maxsize=size)(_count)

    def __len__(self) -> int:
        return self._count.cache_info().currsize

    def __call__(self, text: str) -> tuple[Counter[str], int]:
        return self._count(text)


class LexicalReranker:
    name = "lexical"

    def __init__(self, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1 = k1
        self.b = b
        self.counts = TermCounts()

    def score(self, query: Query, memories: Sequence[Memory]) -> list[float]:
        docs = [self.counts(m.content) for m in memories]
        if not docs:
            return []
        terms: Counter[str] = Counter()
        for part in query.parts:  # history parts recur turn after turn: counted once
            terms.update(self.counts(part)[0])
        n = len(docs)
        avg_len = sum(length for _, length in docs) / n or 1.0
        df = Counter(t for tf, _ in docs for t in tf)
        idf = {
            term: math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5))
            for term in terms
            if term in df
        }
        k1, b = self.k1, self.b
        scores: list[float] = []
        for tf, length in docs:
            total = 0.0
            for term in terms:
                if term not in tf:
                    continue
                freq = tf[term]
                norm = freq + k1 * (1 - b + b * length / avg_len)
                total += idf[term] * freq * (k1 + 1) / norm
            scores.append(total)
        return scores
