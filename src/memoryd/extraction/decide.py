"""What the model's answers may actually do: rules decided in code, not by the model.

Pure functions over the batch's data (docs/extraction.md, "The pipeline", steps 4 to 6):
``verify_facts`` keeps a fact only if it is about the user, free of secrets, valid and
not a one-off request (a standing rule is kept as the user's rule); ``relate`` finds each
fact's nearest stored memory (near-duplicates are dropped, related pairs go to the
Reflector by number: it never sees ids); ``plan_changes`` turns them into creates and
updates within the free slots, recording what cannot be stored.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from memoryd.domain.errors import InvalidContent
from memoryd.domain.language import SECOND_PERSON, STANDING
from memoryd.domain.models import Memory, Scope, Vector
from memoryd.domain.rules import content_key, normalize_content
from memoryd.extraction.english_form import QUOTED
from memoryd.extraction.instructions import instruction_reason, standing_rule
from memoryd.extraction.schema import Fact
from memoryd.extraction.secrets import secret_reason
from memoryd.extraction.sentences import Sentence

# Cosine similarity (MiniLM, L2-normalised) at which two facts say the same thing.
# Measured: paraphrases 0.95-0.99; "...by March 14" vs "...by March 28" 0.99 (so a
# near-duplicate with new details is a candidate update); related facts 0.55-0.8.
DUPLICATE_SIMILARITY = 0.9
# From here a new fact may revise a stored memory: the Reflector is asked.
RELATED_SIMILARITY = 0.6

_WORD = re.compile(r"[\w'’.:/-]+")
_FILLER_WORDS = (
    "a an the is are was were be been to of in on at for by with and or but not no it its "
    "this that these those user user's users their they them he she his her now still also "
    "instead rather than over always usually prefers prefer likes like wants want uses use "
    "using has have had from into as so very enjoys enjoy loves love"
)
_FILLER = frozenset(_FILLER_WORDS.split())
# "me", "our" ... left in an English memory: "... tell me the next step", "our discussion"
_FIRST_PERSON_WORD = re.compile(
    r"\b(?:I|[Mm]e|[Mm]y|[Mm]ine|[Mm]yself|[Ww]e|[Oo]urs?|us)\b(?![-.]\w)(?<!My(?= [A-Z]))"
)  # "My" before a capital is a title's: "My Sister's Keeper"
_FIRST_PERSON_START = re.compile(r"^(?:i|i'm|i've|i'd|i'll|my|me|we|our)\b", re.IGNORECASE)
_OPENS = ("", ".", "!", "?", ":", '"', "“", "«", "(", "—", "-")  # what a line or quote opens after
# A fact that states the user's own name, e.g. "Is named Mel", "User's name is Mel".
_USER_PREFIX = r"(?i:(?:the\s+)?user(?:'s|’s)?\s+)?"
_OWN_NAME = re.compile(
    rf"^{_USER_PREFIX}(?i:name\s+is|is\s+named|is\s+called|goes\s+by)\s+([A-Z][a-z]+)"
    rf"|^{_USER_PREFIX}(?i:is)\s+([A-Z][a-z]+)\s*[.!]?$"
)


def _informative_words(text: str) -> set[str]:
    words = {w.strip(".:/-'’").casefold() for w in _WORD.findall(text)}
    return {w for w in words if w and w not in _FILLER}


def _base(word: str) -> str:
    """A word without a possessive or plural "s" (Ana's -> ana, runs -> run)."""
    word = re.sub(r"['’]s$", "", word)
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def _written_names(text: str) -> set[str]:
    """The capitalised words of ``text`` that open no sentence or quote: names ("... with
    Lucas"), not a word the user opened with ("Now, ...", "Additionally, ...") that reads
    as one where it opens a line, nor the same word inside one ("... right now")."""
    return {
        _base(word.group().casefold())
        for word in re.finditer(r"[^\W\d_][\w'’]*", text)
        if word.group()[0].isupper() and text[: word.start()].rstrip()[-1:] not in _OPENS
    }


def adds_details(new: str, old: str) -> bool:
    """Whether ``new`` states something ``old`` does not (a new number, name or word)."""
    return bool(_informative_words(new) - _informative_words(old))


@dataclass(frozen=True)
class CheckedFact:
    """A fact that passed ``verify_facts``, with its vector and where it came from."""

    text: str
    scope: Scope
    sentence: Sentence
    vector: Vector = field(repr=False, compare=False)


@dataclass(frozen=True)
class Names:
    """Who is who in the batch: names the user addressed, names they said are theirs."""

    addressed: frozenset[str] = frozenset()
    own: frozenset[str] = frozenset()


def subject_problem(
    text: str, names: Names, rule: bool = False, language: str = "en"
) -> str | None:
    """Why ``text`` is not a fact about the user, or None. A standing ``rule`` of the
    user's may speak to "you": the one it binds ("always start your names with 'x_'").
    The second person is looked for in the memory's ``language``; the first person in an
    English memory only: the rewrite checks the other languages' own ("I genitori
    dell'utente ..." opens with an Italian article)."""
    if not rule and SECOND_PERSON[language].search(text):
        return "about the other speaker"
    if language == "en" and (
        _FIRST_PERSON_START.match(text)
        or (not rule and not text.startswith(QUOTED) and _FIRST_PERSON_WORD.search(text))
    ):
        return "written in the first person, so it would read as the assistant's"
    named = sorted(_written_names(text) & {_base(n) for n in names.addressed})
    if named:
        return f"names {named[0].title()}, whom the user was talking to"
    match = _OWN_NAME.match(text.strip())
    if match:
        name = (match.group(1) or match.group(2) or "").casefold()
        if name and name not in names.own:
            return "gives the user a name they never said was theirs"
    return None


def verify_facts(
    facts: Sequence[Fact],
    sentences: Sequence[Sentence],
    known_secrets: set[str],
    names: Names,
    extra_patterns: Sequence[str] = (),
) -> tuple[list[tuple[str, Fact, Sentence]], list[str]]:
    """The facts that are valid content, free of secrets, about the user and not an
    instruction to the assistant, as (stored text, fact, the sentence it came from)."""
    kept: list[tuple[str, Fact, Sentence]] = []
    rejected: list[str] = []
    for fact in facts:
        where = f"sentence {fact.sentence}"
        try:
            text = normalize_content(fact.text)
        except InvalidContent as exc:
            rejected.append(f"{where}: {exc}")
            continue
        reason = secret_reason(text, known_secrets, extra_patterns=extra_patterns)
        if reason:
            rejected.append(f"{where}: dropped, {reason}")
            continue
        sentence = sentences[fact.sentence - 1]
        if instruction_reason(sentence.text):
            rule, why = standing_rule(sentence.text, text)
            if rule is None:
                rejected.append(f"{where}: {why}: {sentence.text}")
                continue
            text = rule
        # another language's rule is a note ("L'utilisateur veut que tu ..."), told apart
        # by its sentence's "always" / "from now on"
        binds = text.startswith("The user's rule:") or (
            sentence.language != "en" and bool(STANDING.search(sentence.text))
        )
        problem = subject_problem(text, names, binds, sentence.language)
        if problem:
            rejected.append(f"{where}: {problem}: {text}")
            continue
        kept.append((text, fact, sentence))
    return kept, rejected


@dataclass(frozen=True)
class Relation:
    """A kept fact and the stored memory it may revise (asked of the Reflector)."""

    fact: CheckedFact
    stored: Memory | None = None
    similarity: float = -1.0


def relate(
    facts: Sequence[CheckedFact], stored: Sequence[Memory]
) -> tuple[list[Relation], list[str]]:
    """Each new fact with its nearest related stored memory; repeats are dropped here."""
    with_vectors = [m for m in stored if m.embedding is not None]
    matrix = np.stack([np.asarray(m.embedding) for m in with_vectors]) if with_vectors else None
    relations: list[Relation] = []
    rejected: list[str] = []
    accepted: list[CheckedFact] = []
    for index, fact in enumerate(facts, 1):
        where = f"fact {index}"
        if any(
            float(np.dot(fact.vector, seen.vector)) >= DUPLICATE_SIMILARITY
            or content_key(seen.text) == content_key(fact.text)
            for seen in accepted
        ):
            rejected.append(f"{where}: repeats an earlier fact of this batch: {fact.text}")
            continue
        relation = Relation(fact)
        if matrix is not None:
            scores = matrix @ np.asarray(fact.vector, dtype=np.float32)
            best = int(np.argmax(scores))
            nearest, similarity = with_vectors[best], float(scores[best])
            if content_key(nearest.content) == content_key(fact.text) or (
                similarity >= DUPLICATE_SIMILARITY and not adds_details(fact.text, nearest.content)
            ):
                rejected.append(f"{where}: a stored memory already says this: {fact.text}")
                continue
            if similarity >= RELATED_SIMILARITY:
                relation = Relation(fact, nearest, similarity)
        accepted.append(fact)
        relations.append(relation)
    return relations, rejected


@dataclass(frozen=True)
class Change:
    """One write the apply step will try: a create (target None) or an update."""

    text: str
    scope: Scope
    target: Memory | None = None
    note: str = ""
    chat_id: int | None = None

    def describe(self) -> str:
        if self.target is None:
            note = f" ({self.note})" if self.note else ""
            return f"create {self.scope.value}: {self.text}{note}"
        return f"update {self.target.id[:8]} ({self.target.content}) -> {self.text}"


@dataclass
class Plan:
    changes: list[Change] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    not_stored: list[str] = field(default_factory=list)


def default_verdict(relation: Relation) -> str:
    """What code decides when the Reflector gave no (usable) verdict for a pair."""
    if relation.similarity >= DUPLICATE_SIMILARITY:
        return "replaces"  # the same fact with new details (relate() kept it for those)
    return "separate"


def plan_changes(
    relations: Sequence[Relation], verdicts: Mapping[int, str], free_slots: Mapping[Scope, int]
) -> Plan:
    """Turn related facts and the Reflector's verdicts into the writes code allows.

    ``verdicts`` maps a relation's position among the related ones (1-based, as shown to
    the Reflector) to "same", "replaces" or "separate".
    """
    plan = Plan()
    free = dict(free_slots)
    targeted: set[str] = set()
    pair = 0
    for relation in relations:
        fact = relation.fact
        verdict = "separate"
        if relation.stored is not None:
            pair += 1
            verdict = verdicts.get(pair) or default_verdict(relation)
        if verdict == "same":
            plan.rejected.append(f"the Reflector found this already stored: {fact.text}")
            continue
        if verdict == "replaces" and relation.stored is not None:
            target = relation.stored
            if target.id in targeted:
                plan.rejected.append(f"a second update of the same memory: {fact.text}")
                continue
            targeted.add(target.id)
            plan.changes.append(
                Change(fact.text, target.scope, target, chat_id=fact.sentence.chat_id)
            )
            continue
        scope, note = fact.scope, ""
        if free.get(scope, 0) <= 0 and scope is Scope.GLOBAL and free.get(Scope.WORKSPACE, 0) > 0:
            scope, note = Scope.WORKSPACE, "global full, filed in this workspace"
        if free.get(scope, 0) <= 0:
            plan.not_stored.append(f"not stored: {scope.value} full: {fact.text}")
            continue
        free[scope] -= 1
        plan.changes.append(Change(fact.text, scope, note=note, chat_id=fact.sentence.chat_id))
    return plan
