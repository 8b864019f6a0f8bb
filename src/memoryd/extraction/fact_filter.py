"""A learned filter: does a user's first-person sentence state a lasting fact about them?

A 1.5B model asked "which of these sentences are worth remembering?" says yes to nearly
all of them ("I love the beat", "I'm doing well, thanks"). This filter, a logistic
regression over the sentence's MiniLM vector (``data/fact-filter.json``, made by
``bench/train_fact_filter.py`` from the dev split of Synthetic-Persona-Chat only), keeps
the sentences that read like facts a person would put on a profile -- who they are, what
they do and have, where they live, what they like -- before the model is asked at all.
It costs one dot product per sentence on vectors computed anyway.

It applies only to first-person sentences: a sentence stating the user's name, and
impersonal or "we" sentences about a project, go to the model unfiltered.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

FILE = "fact-filter.json"
# Probability from which a sentence counts as a fact (the classes were weighted equally
# in training, so 0.5 is the model's own boundary).
THRESHOLD = 0.5


@cache
def _model() -> tuple[np.ndarray, float]:
    data = json.loads(resources.files("memoryd.data").joinpath(FILE).read_text("utf-8"))
    return np.asarray(data["weights"], dtype=np.float32), float(data["bias"])


def fact_probability(vectors: Any) -> np.ndarray:
    """For each sentence vector (rows of a matrix), the probability that it states a
    lasting fact."""
    if not len(vectors):
        return np.zeros(0, dtype=np.float32)
    weights, bias = _model()
    logits = np.asarray(vectors, dtype=np.float32) @ weights + bias
    return np.asarray(1.0 / (1.0 + np.exp(-logits)), dtype=np.float32)
