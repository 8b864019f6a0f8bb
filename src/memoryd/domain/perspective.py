"""A memory about "the user" read back in the user's own words, for embedding.

Extraction stores what a user said of themselves in the third person ("I run a dog
obedience school." -> "The user runs a dog obedience school.",
``memoryd.extraction.sentences.memory_form``), so that nobody, the chat model included,
can take the line for the assistant's. To a sentence embedder that subject is noise: every
such memory opens with the same words, which pulls all of a user's memories towards each
other and towards anything about "users", and the messages they must match are written
in the first person ("my thesis") or to the person ("what do you do for fun?"). So the
vector stored for a memory is that of ``first_person(content)`` ("I run a dog obedience
school."); the memory's text stays as written. Measured in ``bench/stored_form.py``
(BENCHMARKS.md, "Retrieval quality", round 18).
"""

from __future__ import annotations

import re

# The version of ``first_person`` stored vectors are made with (the memories table's
# ``vector_form``): a change to what it returns raises it, and vectors made with an older
# one are made again (``Memoryd.refresh_vectors``).
VECTOR_FORM = 1

_QUOTED = re.compile(r'^The user said: "(.*)"$', re.DOTALL)
# adverbs that may stand between "the user" and its verb ("The user also runs ...")
_ADVERB_WORDS = (
    "just really also always usually often never sometimes still recently actually definitely "
    "mostly only currently even absolutely totally especially truly sort kind pretty "
    "already finally once rarely seriously now"
)
ADVERBS = frozenset(_ADVERB_WORDS.split())
# third person -> first person, for the words ``memory_form`` writes after "The user"
_VERBS = {
    "is": "am", "has": "have", "does": "do", "doesn't": "don't", "goes": "go",
    "hasn't": "haven't", "isn't": "am not", "was": "was", "wasn't": "wasn't",
}  # fmt: skip
_PRONOUNS = {
    "they": "I", "they're": "I'm", "they've": "I've", "they'd": "I'd", "they'll": "I'll",
    "them": "me", "their": "my", "theirs": "mine", "themselves": "myself",
}  # fmt: skip
_AFTER_I = {"are": "am", "were": "was", "aren't": "am not", "weren't": "wasn't"}


def first_person(content: str) -> str:
    """``content`` as the user would say it, when it is about "the user"; else as is.

    "The user runs a dog obedience school." -> "I run a dog obedience school."
    "The user's sister is a pole dancer." -> "My sister is a pole dancer."
    'The user said: "We moved the launch to March 28."' -> "We moved the launch to March 28."
    "Prefers concise answers" -> "Prefers concise answers"
    """
    quoted = _QUOTED.match(content)
    if quoted:
        return quoted.group(1)
    if content.startswith("The user's "):
        head, words = ["My"], content[len("The user's ") :].split(" ")
    elif content.startswith("The user "):
        words = content[len("The user ") :].split(" ")
        head = ["I"]
        while len(words) > 1 and words[0].lower() in ADVERBS:
            head.append(words.pop(0))
        head.append(_first_person_verb(words.pop(0)))
    else:
        return content
    out: list[str] = []
    for raw in words:
        word = raw.rstrip(".,!?;:")
        tail, lower = raw[len(word) :], word.lower()
        if lower in _PRONOUNS:
            word = _PRONOUNS[lower]
        elif lower in _AFTER_I and out[-1:] == ["I"] and out[-2:-1] not in (["and"], ["or"]):
            word = _AFTER_I[lower]
        out.append(word + tail)
    return " ".join([*head, *out])


def _first_person_verb(word: str) -> str:
    """The first-person present of a verb ``memory_form`` put in the third person
    (runs -> run, studies -> study, watches -> watch); past forms stay."""
    core = word.rstrip(".,!?;:")
    tail, lower = word[len(core) :], core.lower()
    if lower in _VERBS:
        return _VERBS[lower] + tail
    if lower.endswith("ies") and len(lower) > 4:
        return lower[:-3] + "y" + tail
    if lower.endswith(("sses", "shes", "ches", "xes", "zzes", "oes")):
        return lower[:-2] + tail
    if lower.endswith("s") and not lower.endswith(("ss", "us", "is")):
        return lower[:-1] + tail
    return core + tail
