"""The code-side rules that need no LLM: reading the models' answers
(``memoryd.extraction.schema``) and what they may do (``memoryd.extraction.decide``).

Vectors are made by hand (unit vectors at a chosen angle) so each similarity threshold
is tested exactly, without an embedder.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime

import numpy as np
import pytest

from memoryd.domain.models import Memory, Scope, Source, Vector
from memoryd.extraction.decide import (
    DUPLICATE_SIMILARITY,
    RELATED_SIMILARITY,
    CheckedFact,
    Names,
    Relation,
    adds_details,
    plan_changes,
    relate,
    subject_problem,
    verify_facts,
)
from memoryd.extraction.schema import Fact, read_selection, read_verdicts
from memoryd.extraction.sentences import Sentence

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def at(similarity: float, side: int = 1) -> Vector:
    """A unit vector whose cosine with ``at(1.0)`` is ``similarity``; two vectors on
    different sides have the product of their similarities as their cosine."""
    vector = np.zeros(12, dtype=np.float32)
    vector[0], vector[side] = similarity, math.sqrt(max(0.0, 1 - similarity**2))
    return vector


def stored(content: str, scope: Scope = Scope.WORKSPACE, n: int = 1) -> Memory:
    return Memory(
        id=f"id{n}",
        user_id=1,
        scope=scope,
        workspace=None if scope is Scope.GLOBAL else "lab",
        content=content,
        source=Source.USER,
        created_at=T0,
        updated_at=T0,
        embedding=at(1.0),
    )


def sentence(n: int, text: str = "I said something.", chat_id: int = 7) -> Sentence:
    return Sentence(n, text, chat_id, text)


def fact(text: str, similarity: float, scope: Scope = Scope.WORKSPACE, n: int = 1) -> CheckedFact:
    """A checked fact whose cosine with every ``stored`` memory is ``similarity``."""
    return CheckedFact(text, scope, sentence(n, chat_id=10 + n), at(similarity, n))


def test_new_details_are_told_apart_from_rewording() -> None:
    old = "Atlas must be live for its first customers by March 14."
    assert adds_details("Atlas must be live for its first customers by March 28.", old)
    assert adds_details("Atlas must be live for its first customers in Berlin.", old)
    assert not adds_details("Atlas must be live for first customers by March 14", old)
    assert not adds_details("The user prefers Polars instead of pandas.",
                            "The user prefers Polars over pandas.")  # fmt: skip


def test_the_observer_answer_is_read_number_by_number() -> None:
    answer = {"person": [2, 2, 9, "3", True, None], "project": [1, 2, 0, -1]}
    chosen, problems = read_selection(answer, 3)
    # a number in both lists is a person fact; a repeat counts once
    assert chosen == {1: Scope.WORKSPACE, 2: Scope.GLOBAL}
    assert len(problems) == 6 and "person: no sentence number 9" in problems
    assert read_selection({"person": "1, 2", "project": []}, 3) == ({}, ["person: not a list"])


def test_the_reflector_answer_is_read_pair_by_pair() -> None:
    answer = {
        "verdicts": [
            {"pair": 1, "verdict": " Replaces "},
            {"pair": 1, "verdict": "same"},  # the first answer for a pair wins
            {"pair": 2, "verdict": "merge"},
            {"pair": 3, "verdict": "same"},
            {"verdict": "same"},
            "2: same",
        ]
    }
    verdicts, problems = read_verdicts(answer, 2)
    assert verdicts == {1: "replaces"}
    assert problems == [
        "verdicts[2]: unknown verdict 'merge'",
        "verdicts[3]: no usable pair number",
        "verdicts[4]: no usable pair number",
        "verdicts[5]: no usable pair number",
    ]


@pytest.mark.parametrize(
    ("text", "names", "problem"),
    [
        ("The user adopted a third cat.", Names(), None),
        ("The user's dog is named Rex.", Names(), None),
        ("The user's name is Ana.", Names(own=frozenset({"ana"})), None),
        ("The user thinks you are funny.", Names(), "about the other speaker"),
        ("I adopted a third cat.", Names(), "first person"),
        ('The user said: "Oh John, my sister dances."', Names(frozenset({"john"})), "names John"),
        ("The user's name is Mel.", Names(own=frozenset({"ana"})), "never said was theirs"),
        ("The user is Mel.", Names(), "never said was theirs"),
        ("The user thanked Lucas for the review.", Names(frozenset({"lucas"})), "names Luca"),
        # a word the user opened a line with ("Now, ...") is no name where it is a word
        ("The user's son is much better now.", Names(frozenset({"now"})), None),
        ("The user's rule: additionally, use Black.", Names(frozenset({"additionally"})), None),
        ('The user said: "Indeed, we ship on Fridays."', Names(frozenset({"indeed"})), None),
        ('The user loves the song "My Heart Will Go On".', Names(), None),  # a title's "My"
    ],
)
def test_who_a_fact_is_about(text: str, names: Names, problem: str | None) -> None:
    found = subject_problem(text, names)
    assert found == problem if problem is None else problem in (found or "")


def test_verify_keeps_facts_about_the_user_and_drops_secrets_without_repeating_them() -> None:
    sentences = [sentence(1), sentence(2), sentence(3), sentence(4)]
    facts = [
        Fact(1, "The user adopted a third cat.", Scope.GLOBAL),
        Fact(2, "The user's password is Rye&Honey!2024.", Scope.GLOBAL),
        Fact(3, "The user thinks you are funny.", Scope.GLOBAL),
        Fact(4, "   ", Scope.WORKSPACE),
    ]
    kept, rejected = verify_facts(facts, sentences, {"Rye&Honey!2024"}, Names())
    assert [(text, s.number) for text, _, s in kept] == [("The user adopted a third cat.", 1)]
    assert len(rejected) == 3 and all(r.startswith("sentence ") for r in rejected)
    assert "Rye&Honey" not in " ".join(rejected)


def test_relate_drops_repeats_and_pairs_related_facts_with_their_memory() -> None:
    memory = stored("The lab uses Slurm 22.")
    facts = [
        fact("The lab uses Slurm 22.", 0.5, n=1),  # same text: already stored
        fact("The lab is using Slurm 22.", DUPLICATE_SIMILARITY + 0.01, n=2),  # no new detail
        fact("The lab uses Slurm 23.", 0.99, n=3),  # a new detail: the Reflector decides
        fact("The lab uses Slurm 23 now.", 0.99, n=4),  # repeats fact 3 (cosine 0.98)
        fact("Jobs queue on the gpu partition.", RELATED_SIMILARITY + 0.01, n=5),
        fact("Experiments run on Fridays.", RELATED_SIMILARITY - 0.01, n=6),
    ]
    relations, rejected = relate(facts, [memory])
    assert [(r.fact.text, r.stored is not None) for r in relations] == [
        ("The lab uses Slurm 23.", True),
        ("Jobs queue on the gpu partition.", True),
        ("Experiments run on Fridays.", False),
    ]
    assert [r.split(":")[0] for r in rejected] == ["fact 1", "fact 2", "fact 4"]


def test_plan_follows_verdicts_and_never_updates_a_memory_twice() -> None:
    memory = stored("The lab uses Slurm 22.")
    relations = [
        Relation(fact("The lab uses Slurm 23.", 0.7, n=1), memory, 0.7),
        Relation(fact("The lab uses Slurm 24.", 0.7, n=2), memory, 0.7),
        Relation(fact("The lab uses Slurm now.", 0.7, n=3), memory, 0.7),
        Relation(fact("The lab is in Porto.", 0.7, n=4), memory, 0.7),
        Relation(fact("The lab uses Slurm 25.", 0.95, n=5), memory, 0.95),  # no verdict
    ]
    verdicts = {1: "replaces", 2: "replaces", 3: "same", 4: "separate"}
    plan = plan_changes(relations, verdicts, {Scope.GLOBAL: 5, Scope.WORKSPACE: 20})
    assert [(c.text, c.target is memory, c.chat_id) for c in plan.changes] == [
        ("The lab uses Slurm 23.", True, 11),
        ("The lab is in Porto.", False, 14),
    ]
    assert len(plan.rejected) == 3 and plan.not_stored == []


def test_plan_files_a_person_fact_in_the_workspace_when_global_is_full() -> None:
    relations = [
        Relation(fact(f"The user {what}.", 0.0, Scope.GLOBAL, n=n))
        for n, what in enumerate(["adopted a third cat", "ran a marathon", "keeps bees"], 1)
    ]
    project = Relation(fact("Phoenix ships in Q3.", 0.0, Scope.WORKSPACE, n=4))
    plan = plan_changes([*relations, project], {}, {Scope.GLOBAL: 1, Scope.WORKSPACE: 1})
    assert [(c.scope, c.note) for c in plan.changes] == [
        (Scope.GLOBAL, ""),
        (Scope.WORKSPACE, "global full, filed in this workspace"),
    ]
    assert plan.not_stored == [
        "not stored: global full: The user keeps bees.",
        "not stored: workspace full: Phoenix ships in Q3.",
    ]
    assert plan.changes[1].describe() == (
        "create workspace: The user ran a marathon. (global full, filed in this workspace)"
    )
