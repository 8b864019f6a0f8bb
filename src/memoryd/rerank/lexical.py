"""BM25 over the pool of memories being ranked: cheap, exact-word relevance."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

from memoryd.domain.injection import Query
from memoryd.domain.models import Memory

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
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
    words = (w.casefold() for w in _WORD.findall(text))
    return [_stem(w) for w in words if w not in STOPWORDS]


def _stem(word: str) -> str:
    """A tiny suffix stripper: enough to match 'deadlines' with 'deadline'."""
    for suffix in ("ing", "ies", "es", "ed", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


class LexicalReranker:
    name = "lexical"

    def __init__(self, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1 = k1
        self.b = b

    def score(self, query: Query, memories: Sequence[Memory]) -> list[float]:
        docs = [tokenize(m.content) for m in memories]
        if not docs:
            return []
        terms = Counter(tokenize(query.text))
        n = len(docs)
        avg_len = sum(len(d) for d in docs) / n or 1.0
        df = Counter(t for d in docs for t in set(d))
        scores: list[float] = []
        for doc in docs:
            tf = Counter(doc)
            total = 0.0
            for term in terms:
                if term not in tf:
                    continue
                idf = math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5))
                freq = tf[term]
                norm = freq + self.k1 * (1 - self.b + self.b * len(doc) / avg_len)
                total += idf * freq * (self.k1 + 1) / norm
            scores.append(total)
        return scores
