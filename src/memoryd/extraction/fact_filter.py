"""A learned filter: does a user's first-person sentence state a lasting fact about them?

A 1.5B model asked "which of these sentences are worth remembering?" says yes to nearly
all of them ("I love the beat", "I'm doing well, thanks"). This filter, a logistic
regression over the sentence's MiniLM vector (``data/fact-filter.json``, made by
``bench/train_fact_filter.py`` from the dev split of Synthetic-Persona-Chat only), keeps
the sentences that read like facts a person would put on a profile -- who they are, what
they do and have, where they live, what they like -- before the model is asked at all.
It costs one dot product per sentence on vectors computed anyway.

It applies only to first-person small talk of the kind it was trained on. Sentences
the persona data has few of go to the model unfiltered: the user's name, impersonal or
"we" sentences about a project, and sentences about how to answer, work, tools or other
named things or numbers ("I prefer concise answers", "I use Python 3.12 and Poetry",
"I own the backend for Atlas") -- the filter would wrongly set those aside.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

FILE = "fact-filter.json"
# Words of instructions, work and preferences: the filter never saw enough of these.
_BEYOND_TRAINING = re.compile(
    r"\b(?:prefer|prefers|preferred|please|answer|answers|reply|replies|respond|explain|"
    r"use|uses|using|work|works|working|job|team|project|deadline|manager|colleague|"
    r"client|customer|allergic|allergy|call me|remind|format|language|code)\b",
    re.IGNORECASE,
)
# Probability from which a sentence counts as a fact (the classes were weighted equally
# in training, so 0.5 is the model's own boundary).
THRESHOLD = 0.5


@cache
def _model() -> tuple[np.ndarray, float]:
    data = json.loads(resources.files("memoryd.data").joinpath(FILE).read_text("utf-8"))
    return np.asarray(data["weights"], dtype=np.float32), float(data["bias"])


def applies_to(sentence: str) -> bool:
    """Whether the filter may judge ``sentence`` (see the module doc)."""
    if _BEYOND_TRAINING.search(sentence) or any(ch.isdigit() for ch in sentence):
        return False
    words = sentence.split()
    return not any(w[:1].isupper() and w.strip(".,!?") not in _NOT_NAMES for w in words[1:])


_NOT_NAMES = frozenset({"I", "I'm", "I've", "I'd", "I'll", "I’m"})


def fact_probability(vectors: Any) -> np.ndarray:
    """For each sentence vector (rows of a matrix), the probability that it states a
    lasting fact."""
    if not len(vectors):
        return np.zeros(0, dtype=np.float32)
    weights, bias = _model()
    logits = np.asarray(vectors, dtype=np.float32) @ weights + bias
    return np.asarray(1.0 / (1.0 + np.exp(-logits)), dtype=np.float32)
