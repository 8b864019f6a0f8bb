"""What the Reflector's answer may actually do: rules decided in code, not by the model.

Pure functions over the batch's data (no I/O), so each rule is easy to test:
handles map back only to this user's memories in the allowed scopes; near-duplicates of
stored memories (embedding similarity) are skipped, or become an update when they carry
new details; secrets and content that breaks the core's rules are dropped; creates never
exceed the free slots. Every item rejected says why, alone, and the rest goes ahead.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from memoryd.domain.errors import InvalidContent
from memoryd.domain.models import Memory, Scope, Vector
from memoryd.domain.rules import content_key, normalize_content
from memoryd.extraction.schema import Candidate
from memoryd.extraction.secrets import secret_reason

# Cosine similarity (MiniLM, L2-normalised) at which two facts say the same thing.
# Measured: paraphrases 0.95-0.99; "...by March 14" vs "...by March 28" 0.99 (so a
# near-duplicate with new details is an update); related but distinct facts 0.55-0.8.
DUPLICATE_SIMILARITY = 0.9
# An "update" with no usable handle revises the closest stored memory above this.
UPDATE_SIMILARITY = 0.6
# An update must still be about its target: below this the model aimed at the wrong
# memory (a 1.5B model turned "Atlas must be live by March 14" into "The user is named
# Atlas-Billing", similarity 0.53), and the fact is treated as new instead. Real
# revisions measured 0.68-0.72 ("moves to GitHub Actions" vs "uses Jenkins" only 0.41:
# kept as a new fact, the stale one stays). Across scopes the bar is higher.
RELATED_SIMILARITY = 0.55
RELATED_SIMILARITY_OTHER_SCOPE = 0.65

_WORD = re.compile(r"[\w'’.:/-]+")
_FILLER_WORDS = (
    "a an the is are was were be been to of in on at for by with and or but not no it its "
    "this that these those user user's users their they them he she his her now still also "
    "instead rather than over always usually prefers prefer likes like wants want uses use "
    "using has have had from into as so very"
)
_FILLER = frozenset(_FILLER_WORDS.split())


def handles_for(memories: Sequence[Memory]) -> dict[str, Memory]:
    """Short per-batch names for stored memories: G1.. global, W1.. workspace."""
    handles: dict[str, Memory] = {}
    counters = {Scope.GLOBAL: 0, Scope.WORKSPACE: 0}
    for memory in sorted(memories, key=lambda m: (m.scope is Scope.WORKSPACE, m.created_at)):
        counters[memory.scope] += 1
        prefix = "G" if memory.scope is Scope.GLOBAL else "W"
        handles[f"{prefix}{counters[memory.scope]}"] = memory
    return handles


def _informative_words(text: str) -> set[str]:
    words = {w.strip(".:/-'’").casefold() for w in _WORD.findall(text)}
    return {w for w in words if w and w not in _FILLER}


def _base(word: str) -> str:
    """A word without a possessive or plural "s" (Ana's -> ana, runs -> run)."""
    word = re.sub(r"['’]s$", "", word)
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


# Share of a fact's words the user must have written: small models pad their answers with
# phrases from the prompt ("The user's job is [User's job]", "never uses jokes or moods").
MIN_GROUNDING = 0.5
_STEM = 5


class Grounding:
    """The words a batch's user wrote, to check that a fact comes from them."""

    def __init__(self, texts: Sequence[str]) -> None:
        words: set[str] = set()
        for text in texts:
            for word in _informative_words(text):
                words.add(_base(word))
                words.update(_base(part) for part in re.split(r"[-_/.]", word) if part)
        self.words = words
        self.stems = {w[:_STEM] for w in words if len(w) >= _STEM}

    def share(self, text: str) -> float:
        """The share of ``text``'s informative words found (or stem-matched) in the batch."""
        words = {_base(w) for w in _informative_words(text)}
        if not words:
            return 1.0
        found = sum(
            1 for w in words if w in self.words or (len(w) >= _STEM and w[:_STEM] in self.stems)
        )
        return found / len(words)


def adds_details(new: str, old: str) -> bool:
    """Whether ``new`` states something ``old`` does not (a new number, name or word)."""
    return bool(_informative_words(new) - _informative_words(old))


@dataclass(frozen=True)
class Change:
    """One write the apply step will try: a create (target None) or an update."""

    text: str
    scope: Scope
    target: Memory | None = None
    note: str = ""
    vector: Vector | None = field(default=None, repr=False, compare=False)

    def describe(self) -> str:
        if self.target is None:
            return f"create {self.scope.value}: {self.text}"
        return f"update {self.target.id[:8]} ({self.target.content}) -> {self.text}"


@dataclass
class Plan:
    changes: list[Change] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)


def clean_candidates(
    candidates: Sequence[Candidate], known_secrets: set[str], grounding: Grounding | None = None
) -> tuple[list[Candidate], list[str]]:
    """Drop Observer candidates that hold secrets, break the content rules, or state what
    the user never wrote (with ``grounding``)."""
    kept: list[Candidate] = []
    rejected: list[str] = []
    for index, candidate in enumerate(candidates, 1):
        try:
            text = normalize_content(candidate.text)
        except InvalidContent as exc:
            rejected.append(f"candidate {index}: {exc}")
            continue
        reason = secret_reason(text, known_secrets)
        if reason:
            rejected.append(f"candidate {index}: dropped, {reason}")
            continue
        if grounding is not None and grounding.share(text) < MIN_GROUNDING:
            rejected.append(f"candidate {index}: not stated by the user in these chats: {text}")
            continue
        kept.append(Candidate(text, candidate.scope, candidate.action, candidate.target))
    return kept, rejected


def plan_changes(
    decisions: Sequence[Candidate],
    vectors: Sequence[Vector],
    handles: Mapping[str, Memory],
    known_secrets: set[str],
    free_slots: Mapping[Scope, int],
) -> Plan:
    """Turn the Reflector's decisions into the writes code allows.

    ``vectors[i]`` is the embedding of ``normalize_content(decisions[i].text)`` when that
    text is valid (any vector otherwise); stored memories carry their own embeddings.
    """
    plan = Plan()
    stored = [m for m in handles.values() if m.embedding is not None]
    matrix = np.stack([np.asarray(m.embedding) for m in stored]) if stored else None
    free = dict(free_slots)
    targeted: set[str] = set()
    accepted: list[tuple[Vector, str]] = []

    for index, (decision, vector) in enumerate(zip(decisions, vectors, strict=True), 1):
        where = f"item {index}"
        try:
            text = normalize_content(decision.text)
        except InvalidContent as exc:
            plan.rejected.append(f"{where}: {exc}")
            continue
        reason = secret_reason(text, known_secrets)
        if reason:
            plan.rejected.append(f"{where}: dropped, {reason}")
            continue
        if any(
            float(np.dot(vector, seen)) >= DUPLICATE_SIMILARITY or key == content_key(text)
            for seen, key in accepted
        ):
            plan.rejected.append(f"{where}: repeats an earlier item of this batch")
            continue

        nearest: Memory | None = None
        similarity = -1.0
        if matrix is not None:
            scores = matrix @ np.asarray(vector, dtype=np.float32)
            best = int(np.argmax(scores))
            nearest, similarity = stored[best], float(scores[best])

        target: Memory | None = None
        if decision.action == "update" and decision.target:
            target = handles.get(decision.target)
            if target is None:
                plan.rejected.append(
                    f"{where}: update names {decision.target!r}, which is not a memory "
                    "shown in this batch"
                )
                continue
        elif decision.action == "update" and nearest and similarity >= UPDATE_SIMILARITY:
            target = nearest
        elif nearest is not None and similarity >= DUPLICATE_SIMILARITY:
            if not adds_details(text, nearest.content):
                plan.rejected.append(f"{where}: near-duplicate of a stored memory; skipped")
                continue
            target = nearest  # same fact with new details: revise it in place

        if target is not None and target.embedding is not None:
            relatedness = float(np.dot(np.asarray(target.embedding), vector))
            bar = (
                RELATED_SIMILARITY
                if decision.scope is target.scope
                else RELATED_SIMILARITY_OTHER_SCOPE
            )
            if relatedness < bar:
                target = None
                if nearest is not None and similarity >= DUPLICATE_SIMILARITY:
                    plan.rejected.append(f"{where}: near-duplicate of a stored memory; skipped")
                    continue

        if target is not None:
            if content_key(target.content) == content_key(text):
                plan.rejected.append(f"{where}: the memory already says this; skipped")
                continue
            if target.id in targeted:
                plan.rejected.append(f"{where}: a second update of the same memory; skipped")
                continue
            targeted.add(target.id)
            plan.changes.append(Change(text, target.scope, target, vector=vector))
        else:
            if free.get(decision.scope, 0) <= 0:
                plan.rejected.append(f"{where}: no free {decision.scope.value} slot; skipped")
                continue
            free[decision.scope] -= 1
            plan.changes.append(Change(text, decision.scope, vector=vector))
        accepted.append((vector, content_key(text)))
    return plan
