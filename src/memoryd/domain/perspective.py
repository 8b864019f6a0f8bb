"""A memory about "the user" read back in the user's own words, for embedding.

Extraction stores what a user said of themselves in the third person ("The user runs a
dog obedience school."), so that nobody, the chat model included, can take the line for
the assistant's. To a sentence embedder that shared subject is noise that pulls all of a
user's memories towards each other, while the messages they must match are written in
the first person or to the person. So the vector stored for a memory is that of
``first_person(content)`` ("I run a dog obedience school."); the memory's text stays as
written. "User prefers ..." as apps write it reads back the same way; a "user" that
names a thing ("User interviews are on Fridays.") stays as written (docs/reranking.md,
"What a memory is scored by"; measured in docs/retrieval-history.md, rounds 18-19).
"""

from __future__ import annotations

import re

# The version of ``first_person`` stored vectors are made with (the memories table's
# ``vector_form``): a change to what it returns raises it, and vectors made with an older
# one are made again (``Memoryd.refresh_vectors``).
VECTOR_FORM = 2  # 1: "The user ..." only (0019); 2: "User ..." too, things left (0020)

_QUOTED = re.compile(r'^The user said: "(.*)"$', re.DOTALL)
# "The user", "the user", "User" or "user" opening the text, possessive or not
_SUBJECT = re.compile(r"^(?:the )?user(?P<possessive>'s)? (?=\S)", re.IGNORECASE)
# words after "user" that make it part of a thing's name, not the person
_THING_WORDS = (
    "interface interfaces experience research base data feedback testing story stories "
    "setting settings account accounts session sessions role roles group groups id ids "
    "name names agent agents profile profiles manual manuals guide guides journey journeys "
    "permission permissions interview interviews survey surveys persona personas flow flows "
    "preferences input inputs metrics growth engagement acquisition retention onboarding "
    "adoption satisfaction count table tables model models type types level levels access "
    "login logins password passwords error errors request requests review reviews event "
    "events management segment segments analytics behavior behaviour activity activities "
    "agreement agreements license licenses documentation docs directory list lists "
    "question questions avatar avatars space spaces quota quotas"
)
THING_WORDS = frozenset(_THING_WORDS.split())
# ... and after "user's" ("User's guide: ...")
OWNED_THINGS = frozenset({"guide", "guides", "manual", "manuals", "handbook"})
# adverbs that may stand between "the user" and its verb ("The user also runs ...")
_ADVERB_WORDS = (
    "just really also always usually often never sometimes still recently actually definitely "
    "mostly only currently even absolutely totally especially truly sort kind pretty "
    "already finally once rarely seriously now first later then soon"
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
    "User prefers dark mode." -> "I prefer dark mode."
    "User interviews are on Fridays." -> "User interviews are on Fridays."
    "Prefers concise answers" -> "Prefers concise answers"
    """
    quoted = _QUOTED.match(content)
    if quoted:
        return quoted.group(1)
    subject = _SUBJECT.match(content)
    if subject is None:
        return content
    words = content[subject.end() :].split(" ")
    possessive = bool(subject.group("possessive"))
    if not _about_the_person(words[0], possessive):
        return content
    if possessive:
        head = ["My"]
    else:
        head = ["I"]
        while len(words) > 1 and words[0].lower() in ADVERBS:
            head.append(words.pop(0))
        head.append(_first_person_verb(words.pop(0)))
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


def _about_the_person(word: str, possessive: bool) -> bool:
    """Whether the word after a leading "user" leaves that "user" the person: not a word
    that names a thing with it ("User interviews ...", "User's guide ..."), nor a name
    ("User Bob ...")."""
    core = word.rstrip(".,!?;:").lower()
    if possessive:
        return core not in OWNED_THINGS
    return core not in THING_WORDS and not (word[:1].isupper() and core != "i")


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
