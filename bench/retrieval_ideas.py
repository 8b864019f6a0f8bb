"""Every reranker idea measured for issue 10, kept or not, for ``retrieval_quality.py --ideas``.

The shipped rerankers live in ``memoryd.rerank``; the scorers here are the ones that were
measured and not shipped (or shipped in another form), kept so BENCHMARKS.md's ideas
tables can be re-run. The rule for keeping an idea: the highest recall@5 on the dev split
of the labelled persona set with no recall@5 loss on the hand-written set; test splits are
only reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from build_answer_bank import rebank
from retrieval_quality import Case, Scorer, evaluate, mean

from memoryd.domain.injection import Query
from memoryd.domain.models import Memory
from memoryd.embedding.minilm import MiniLMEmbedder
from memoryd.rerank import EmbeddingReranker, HybridReranker, LexicalReranker, QueryEncoder
from memoryd.rerank.answer_bank import AnswerBank, load_bank
from memoryd.rerank.embedding import memory_vectors, part_weights, question_focus


def print_ideas(ideas: dict[str, Scorer], sets: dict[str, list[Case]]) -> None:
    print(
        "\n## Every idea tried for issue 10: recall@5 / MRR per set"
        " (choose on dev, with no loss on the hand-written set; test is only reported)"
    )
    print(f"{'idea':<64}" + "".join(f"{name:>16}" for name in sets))
    for label, scorer in ideas.items():
        cells = ""
        for cases in sets.values():
            recall, _, mrr = mean(evaluate(scorer, cases), cases)
            cells += f"{recall:.3f} / {mrr:.3f}".rjust(16)
        print(f"{label:<64}{cells}", flush=True)


# --- ideas that were measured and not shipped (or shipped in another form) ---------------
class Focused:
    """The query with its message cut to its questions when the rest are short remarks;
    ``keep_message`` adds the whole message as the newest history part."""

    def __init__(self, inner: Scorer, words: int, *, keep_message: bool) -> None:
        self.inner, self.words, self.keep = inner, words, keep_message

    def score(self, query: Query, memories: Sequence[Memory]) -> Sequence[float]:
        focused = question_focus(query.message, self.words)
        if focused != query.message:
            history = (*query.history, query.message) if self.keep else query.history
            query = Query(focused, history)
        return self.inner(query, memories)


class Rrf:
    """Reciprocal rank fusion of the dense ranking and the BM25 ranking (no score scales)."""

    def __init__(self, dense: EmbeddingReranker, lexical_weight: float) -> None:
        self.dense, self.lexical, self.weight = dense, LexicalReranker(), lexical_weight

    def score(self, query: Query, memories: Sequence[Memory]) -> list[float]:
        a = np.asarray(self.dense.score(query, memories))
        b = np.asarray(self.lexical.score(query, memories))
        rank_a, rank_b = np.argsort(np.argsort(-a)), np.argsort(np.argsort(-b))
        fused = 1 / (60 + rank_a) + self.weight * np.where(b > 0, 1 / (60 + rank_b), 0) + 1e-6 * a
        return [float(x) for x in fused]


class ZScoredParts(EmbeddingReranker):
    """Each part's cosines standardised over the pool before the weighted sum."""

    def score(self, query: Query, memories: Sequence[Memory]) -> list[float]:
        matrix = memory_vectors(self.embedder, memories)
        parts = np.stack(self.encoder.vectors(query.parts))
        cos = matrix @ parts.T
        z = (cos - cos.mean(axis=0)) / (cos.std(axis=0) + 1e-6)
        return [
            float(x)
            for x in z @ np.asarray(part_weights(query, self.message_weight, self.history_decay))
        ]


class PoolCentred(EmbeddingReranker):
    """Memory vectors minus the pool's mean vector (removes what all memories share)."""

    def score(self, query: Query, memories: Sequence[Memory]) -> list[float]:
        matrix = memory_vectors(self.embedder, memories)
        centred = matrix - matrix.mean(axis=0)
        centred /= np.linalg.norm(centred, axis=1, keepdims=True)
        shadow = [
            Memory(
                m.id,
                m.user_id,
                m.scope,
                m.workspace,
                m.content,
                m.source,
                m.created_at,
                m.updated_at,
                embedding=v,
                embedder=self.embedder.name,
            )
            for m, v in zip(memories, centred, strict=True)
        ]
        return super().score(query, shadow)


class Feedback:
    """Pseudo-relevance feedback: add the top memories' vectors to the query, rescore."""

    def __init__(self, dense: EmbeddingReranker, k: int, beta: float) -> None:
        self.dense, self.k, self.beta = dense, k, beta

    def score(self, query: Query, memories: Sequence[Memory]) -> list[float]:
        first = np.asarray(self.dense.score(query, memories))
        matrix = memory_vectors(self.dense.embedder, memories)
        centroid = matrix[np.argsort(-first)[: self.k]].mean(axis=0)
        return [float(x) for x in first + self.beta * (matrix @ centroid)]


class Mmr:
    """Maximal marginal relevance: each next pick trades score against likeness to picks."""

    def __init__(self, inner: HybridReranker, lam: float) -> None:
        self.inner, self.lam = inner, lam

    def score(self, query: Query, memories: Sequence[Memory]) -> list[float]:
        base = np.asarray(self.inner.score(query, memories))
        matrix = memory_vectors(self.inner.dense.embedder, memories)
        span = float(base.max() - base.min()) or 1.0
        rel = (base - base.min()) / span
        picked: list[int] = []
        out = np.zeros(len(memories))
        for rank in range(len(memories)):
            left = [i for i in range(len(memories)) if i not in picked]
            sim = (matrix[left] @ matrix[picked].T).max(axis=1) if picked else np.zeros(len(left))
            best = left[int(np.argmax(self.lam * rel[left] - (1 - self.lam) * sim))]
            picked.append(best)
            out[best] = len(memories) - rank
        return [float(x) for x in out]


class MessageBoostedLexical(LexicalReranker):
    """BM25 that counts the current message's words twice."""

    def score(self, query: Query, memories: Sequence[Memory]) -> list[float]:
        both = super().score(query, memories)
        own = super().score(Query(query.message), memories) if query.message else [0.0] * len(both)
        return [a + b for a, b in zip(both, own, strict=True)]


@dataclass(frozen=True)
class Round3Bank(AnswerBank):
    """The answer bank of round 3: instead of the nearest example's fitted direction, each
    memory gains ``likeness`` x the mean of its ``top`` best cosines with the answers of
    every example question like the message (at most ``neighbours``)."""

    neighbours: int = 100
    top: int = 5
    likeness: float = 1.5

    def boost(
        self, question: np.ndarray, memories: np.ndarray, topics: Any = None
    ) -> np.ndarray | None:
        sims = self.questions @ question
        near = np.flatnonzero(sims >= self.floor)
        if not len(near):
            return None
        near = near[np.argsort(-sims[near])[: self.neighbours]]
        ids = np.unique(
            np.concatenate([self.answer_ids[self.offsets[i] : self.offsets[i + 1]] for i in near])
        )
        cosines = memories @ self.answers.T
        top = min(self.top, len(ids))
        gained = self.likeness * np.partition(cosines[:, ids], -top, axis=1)[:, -top:].mean(axis=1)
        if self.asked_weight:
            gained += self.asked_weight * self.asked_like(cosines, question)
        return gained


def round3_hybrid(embedder: MiniLMEmbedder) -> HybridReranker:
    """The default of issue 10's third round: the round-3 answer bank, both sides."""
    bank = load_bank(embedder.name, embedder.dimensions)
    assert bank is not None, "the shipped bank is for the bundled embedder"
    return HybridReranker(
        EmbeddingReranker(embedder, bank=rebank(Round3Bank, bank), question_weight=None)
    )


class AnswerDirection:
    """The answer bank read another way: the unit mean of each near example's answers,
    mixed by how near it is, and every memory gains its cosine with that direction."""

    def __init__(
        self, inner: HybridReranker, bank: AnswerBank, floor: float, neighbours: int, weight: float
    ) -> None:
        self.inner, self.bank, self.floor = inner, bank, floor
        self.neighbours, self.weight = neighbours, weight

    def score(self, query: Query, memories: Sequence[Memory]) -> list[float]:
        base = np.asarray(self.inner.score(query, memories))
        dense = self.inner.dense
        if not query.message:
            return [float(x) for x in base]
        (vector,) = dense.encoder.vectors([question_focus(query.message)])
        sims = self.bank.questions @ vector
        near = np.argsort(-sims)[: self.neighbours]
        near = near[sims[near] >= self.floor]
        if not len(near):
            return [float(x) for x in base]
        centres = []
        for i in near:
            rows = self.bank.answers[
                self.bank.answer_ids[self.bank.offsets[i] : self.bank.offsets[i + 1]]
            ]
            centre = rows.mean(axis=0)
            centres.append(centre / np.linalg.norm(centre))
        direction = (sims[near] - self.floor) @ np.stack(centres)
        direction /= np.linalg.norm(direction)
        matrix = memory_vectors(dense.embedder, memories)
        return [float(x) for x in base + self.weight * (matrix @ direction)]


def ideas(embedder: MiniLMEmbedder) -> dict[str, Scorer]:
    enc = QueryEncoder(embedder, cache_size=1_000_000)  # every query part of every set

    def dense(mw: float, decay: float, share: float, focus: int = 0) -> EmbeddingReranker:
        return EmbeddingReranker(
            embedder,
            enc,
            message_weight=mw,
            history_decay=decay,
            question_weight=None,
            max_share=share,
            remark_words=focus,
        )

    def hybrid(mw: float, decay: float, share: float, lw: float) -> Scorer:
        return HybridReranker(dense(mw, decay, share), lexical_weight=lw).score

    alone = dense(1, 1, 0)
    found: dict[str, Scorer] = {
        "today's hybrid (mean, message 2, history 1; + .15 BM25)": hybrid(2, 1, 0, 0.15),
        "today's embedding alone (no BM25)": dense(2, 1, 0).score,
        "message alone": lambda q, m: alone.score(Query(q.message), m),
    }
    for mw in (1, 3, 5):
        found[f"mean, message weight {mw}, + .15 BM25"] = hybrid(mw, 1, 0, 0.15)
    for decay in (0.7, 0.5):
        found[f"mean, message 2, history decay {decay}, + .15 BM25"] = hybrid(2, decay, 0, 0.15)
    found["max over parts alone"] = dense(1, 1, 1).score
    found["max over parts + .15 BM25"] = hybrid(1, 1, 1, 0.15)
    found["z-scored parts, message 2"] = ZScoredParts(
        embedder, enc, message_weight=2, history_decay=1
    ).score
    found["pool-centred memory vectors, message 2"] = PoolCentred(
        embedder, enc, message_weight=2, history_decay=1, max_share=0, remark_words=0
    ).score
    found["PRF (top 3, beta .5) on today's embedding"] = Feedback(dense(2, 1, 0), 3, 0.5).score
    found["PRF (top 1, beta .3) on today's embedding"] = Feedback(dense(2, 1, 0), 1, 0.3).score
    for share in (0.3, 0.5, 0.7):
        for lw in (0, 0.05, 0.1, 0.15):
            found[f"blend: {1 - share:g} mean (5, decay .5) + {share:g} max, + {lw:g} BM25"] = (
                hybrid(5, 0.5, share, lw)
            )
    found["blend .5/.5 (3, decay .5) + .15 BM25"] = hybrid(3, 0.5, 0.5, 0.15)
    found["blend .5/.5 (5, decay .5) + .15 BM25, message words x2"] = HybridReranker(
        dense(5, 0.5, 0.5), MessageBoostedLexical(), lexical_weight=0.15
    ).score
    found["MMR lambda .7 over the new default"] = Mmr(
        HybridReranker(dense(5, 0.5, 0.5), None, 0.15), 0.7
    ).score
    found["MMR lambda .9 over the new default"] = Mmr(
        HybridReranker(dense(5, 0.5, 0.5), None, 0.15), 0.9
    ).score
    # second round (the clean view): what the message is made of, and how BM25 is fused
    blend = HybridReranker(dense(5, 0.5, 0.5), lexical_weight=0.15).score
    found["RRF: 1/(60 + rank) of the blend plus of BM25"] = Rrf(dense(5, 0.5, 0.5), 1.0).score
    found["RRF, BM25 ranks weighing half"] = Rrf(dense(5, 0.5, 0.5), 0.5).score
    for lw in (0.1, 0.25):
        found[f"blend, + {lw:g} BM25"] = hybrid(5, 0.5, 0.5, lw)
    found["blend, message weight 8, + .15 BM25"] = hybrid(8, 0.5, 0.5, 0.15)
    found["blend, history decay .3, + .15 BM25"] = hybrid(5, 0.3, 0.5, 0.15)
    for words in (3, 5, 8):
        found[f"question sentences only, remarks <= {words} words dropped (dense and BM25)"] = (
            Focused(blend, words, keep_message=False).score
        )
    for words in (5, 8):
        found[f"... remarks <= {words} words, whole message kept as a history part"] = Focused(
            blend, words, keep_message=True
        ).score
    found["question sentences only, any other sentences dropped"] = Focused(
        blend, 10_000, keep_message=False
    ).score
    for words in (8, 5):
        found[f"question focus in the embedding only, remarks <= {words} words"] = HybridReranker(
            dense(5, 0.5, 0.5, focus=words), lexical_weight=0.15
        ).score
    for share in (0.5, 0.3):
        for lw in (0.15, 0.1, 0.05):
            found[f"focus (5 words) + blend {1 - share:g} / {share:g}, + {lw:g} BM25"] = (
                HybridReranker(dense(5, 0.5, share, focus=5), lexical_weight=lw).score
            )
    # third round (the labelled set): the answer bank, and the second round's settings again
    bank = load_bank(embedder.name, embedder.dimensions)
    round2 = HybridReranker(dense(5, 0.5, 0.3, focus=5), lexical_weight=0.05)
    found["round 2 default (focus, blend .7 / .3, + .05 BM25), no bank"] = round2.score
    for share in (0, 0.15):
        found[f"round 2 with blend {1 - share:g} / {share:g}"] = HybridReranker(
            dense(5, 0.5, share, focus=5), lexical_weight=0.05
        ).score
    found["round 2 with message weight 12"] = HybridReranker(
        dense(12, 0.5, 0.3, focus=5), lexical_weight=0.05
    ).score
    found["PRF (top 1, beta .3) on round 2"] = Feedback(round2.dense, 1, 0.3).score
    if bank is not None:

        def banked(bank: AnswerBank, question_weight: float | None = None) -> Scorer:
            return HybridReranker(
                EmbeddingReranker(embedder, enc, bank=bank, question_weight=question_weight),
                lexical_weight=0.05,
            ).score

        def round3(**changes: Any) -> AnswerBank:
            return rebank(Round3Bank, bank, **changes)

        for floor, top, weight in (
            (0.7, 2, 1.5),
            (0.75, 2, 1.5),
            (0.75, 5, 0.8),
            (0.75, 5, 1.5),
            (0.75, 5, 2.5),
            (0.8, 5, 1.5),
        ):
            found[f"answer bank, floor {floor:g}, top {top}, weight {weight:g}"] = banked(
                round3(floor=floor, top=top, likeness=weight, asked_weight=0)
            )
        for asked_top, asked_weight in ((3, 0.5), (3, 1.0), (3, 1.5), (8, 1.5)):
            found[
                f"... + the questions of the {asked_top} answers most like each memory,"
                f" weight {asked_weight:g}"
            ] = banked(round3(asked_top=asked_top, asked_weight=asked_weight))
        for floor, weight in ((0.6, 0.5), (0.7, 0.8)):
            found[f"answer direction (centroids), floor {floor:g}, weight {weight:g}"] = (
                AnswerDirection(round2, bank, floor, 20, weight).score
            )
        # fourth round: a fitted answer direction per example instead of the likeness
        for weight in (1.0, 2.0, 3.0):
            found[f"fitted answer direction, weight {weight:g}, + the questions' side"] = banked(
                replace(bank, weight=weight)
            )
        found["fitted answer direction alone (weight 2)"] = banked(replace(bank, asked_weight=0))
        # a question the message replies to weighs as much as the message (1 = as before)
        for weight in (3.0, 5.0, 7.0, 10.0):
            found[f"fitted answer direction, + a question replied to weighing {weight:g}"] = banked(
                bank, weight
            )
    return found
