"""An English sentence of the user's as a memory about them, written by code, not a model.

"I run a dog obedience school." becomes "The user runs a dog obedience school.", and "my"
/ "me" inside become "their" / "them", so a memory cannot be read as the assistant's
words. A sentence without "I" or "my" is quoted or, when it is impersonal ("Phoenix ships
in Q3."), kept as it is. Pure functions, no I/O.
"""

from __future__ import annotations

import re

from memoryd.domain.perspective import ADVERBS as _ADVERBS
from memoryd.extraction.sentences import (
    EMPHASIS,
    EN_FIRST_PERSON,
    EN_SECOND_PERSON,
    LEAD_IN,
    own_name,
)

# agreement or laughter closing a sentence: "I love hiking too!", "I'm engaged lol"
_CLOSING = re.compile(
    r"[\s,]+(?:too|as well|also|myself|lol|haha+|lmao)(?=\s*[.!]*$)", re.IGNORECASE
)
_SUBJECT_VERBS = {
    "am": "is", "'m": "is", "have": "has", "'ve": "has", "do": "does", "don't": "doesn't",
    "go": "goes", "was": "was", "had": "had", "can": "can", "can't": "can't", "will": "will",
    "'ll": "will", "would": "would", "'d": "would", "could": "could", "should": "should",
    "haven't": "hasn't", "didn't": "didn't", "did": "did", "wasn't": "wasn't", "won't": "won't",
    "must": "must", "might": "might", "may": "may", "cannot": "cannot", "used": "used",
}  # fmt: skip
_IRREGULAR_PAST_WORDS = (
    "went was were had did got made took saw came grew bought ran began left met lost won "
    "spent thought felt found gave knew told became kept brought built sold taught caught "
    "fought wrote drove rode ate drank sang swam flew broke chose wore hurt put set read "
    "quit fell held heard paid sent sat stood understood meant slept lent dealt led fed shot "
    "spoke stole woke forgot drew threw hid dug hung struck swore tore bent burnt learnt "
    "dreamt sought fled shook swept wept lit rang rose forgave overcame said lay froze blew "
    "stuck sank stung swung clung flung spun slid bit shone sprang"
)
_IRREGULAR_PAST = frozenset(_IRREGULAR_PAST_WORDS.split())
# present verbs that end in "ed" ("I need", "I proceed")
_PRESENT_ED_WORDS = "need feed proceed succeed exceed bleed breed speed seed heed embed shed"
_PRESENT_ED = frozenset(_PRESENT_ED_WORDS.split())


def is_past(verb: str) -> bool:
    """Whether the English ``verb`` is a past form ("moved", "went"; not "need")."""
    lower = verb.lower()
    return lower in _IRREGULAR_PAST or (lower.endswith("ed") and lower not in _PRESENT_ED)


_INNER = {
    "i": "they", "i'm": "they're", "i've": "they've", "i'd": "they'd", "i'll": "they'll",
    "me": "them", "my": "their", "mine": "theirs", "myself": "themselves",
}  # fmt: skip


def _third_person(verb: str) -> str:
    """``verb`` (first person, present) for "the user" (run -> runs, study -> studies);
    a mark after it stays after it ("have." -> "has.")."""
    lower = verb.lower().rstrip(".,!?;:")
    mark = verb[len(lower) :]
    if lower in _SUBJECT_VERBS:
        return _SUBJECT_VERBS[lower] + mark
    if is_past(lower):
        return lower + mark
    if lower.endswith(("s", "sh", "ch", "x", "z", "o")):
        return lower + "es" + mark
    if lower.endswith("y") and len(lower) > 2 and lower[-2] not in "aeiou":
        return lower[:-1] + "ies" + mark
    return lower + "s" + mark


def _inner_pronouns(words: list[str]) -> list[str]:
    out: list[str] = []
    for at, raw in enumerate(words):
        word = raw.rstrip(".,!?;:")
        tail = raw[len(word) :]
        lower = word.lower().replace("’", "'")
        after = words[at + 1] if at + 1 < len(words) else ""
        if lower in ("am", "was") and out and out[-1] == "they":
            word = "are" if lower == "am" else "were"
        elif word == "My" and after[:1].isupper():
            pass  # a title inside the sentence: "My Sister's Keeper", "My Chemical Romance"
        elif lower in _INNER:
            word = _INNER[lower]
        out.append(word + tail)
    return out


QUOTED = "The user said: "
_SPACED_MARK = re.compile(r"\s+(?=[,.!?;:](?:\s|$))")  # "hunting ." as text is tokenised


def memory_form(sentence: str) -> str:
    """A user's sentence as a memory that cannot be misread as the assistant's.

    "My sister is a pole dancer." -> "The user's sister is a pole dancer."
    "Last week I went to a parade." -> "Last week the user went to a parade."
    Sentences with no I / I'm / My are quoted instead:
    'The user said: "We moved the launch to March 28."'
    """
    name = own_name(sentence)
    if name:
        return f"The user's name is {name}."
    text = _SPACED_MARK.sub("", EMPHASIS.sub(r"\1", sentence.strip()))  # "hi , i ..."
    text = re.sub(r"[\s,;:]+([.!?…]*)$", r"\1", text)  # "slow , ."
    text = LEAD_IN.sub("", text).strip()
    text = _CLOSING.sub("", text)
    text = re.sub(r"[.…]*\s*!+$", ".", text).rstrip()
    if text and text.rstrip("\"'”’)]")[-1:] not in (".", "!", "?", "…"):
        text += "."
    words = text.replace("’", "'").split(" ")
    if not words or not words[0]:
        return f'{QUOTED}"{sentence.strip()}"'
    lowered = {w.lower().strip(".,!?;:") for w in words}
    if not lowered & (EN_FIRST_PERSON | EN_SECOND_PERSON):
        return text  # impersonal: "Phoenix ships in Q3."
    at = next((i for i, w in enumerate(words) if w.lower().strip(".,!?;:") in _OPENERS), None)
    if at is None:
        return f'{QUOTED}"{sentence.strip()}"'
    lead = words[:at]  # "Last week I went ...": what comes before the user stays,
    if words[at].lower() != "my" and not any(_sets_the_scene(w) for w in lead):
        lead = []  # but not a remark run into it: "very cool i would love to ..."
    subject = _user_clause(words[at].lower().strip(".,!?;:"), _inner_pronouns(words[at + 1 :]))
    if subject is None:
        return f'{QUOTED}"{sentence.strip()}"'
    if lead:
        return " ".join([*lead, subject[0].lower() + subject[1:]])
    return subject


# Words of what may stand before "I" in a memory: a time, place, condition or reason
# ("Last week I ...", "In Porto I ...", "If I ...", "When I was a kid I ..."), or what
# makes the "I" part of a clause ("... more about what I did")
_SCENE_WORDS = (
    "last next this that ago since when whenever after before during in at on as for "
    "every once now then yesterday today tonight tomorrow recently lately back while "
    "until by from with if unless because years months weeks days growing what which who "
    "whom whose how where why"
)
_SCENE = frozenset(_SCENE_WORDS.split())


def _sets_the_scene(word: str) -> bool:
    word = word.lower().strip(".,!?;:")
    return word in _SCENE or any(c.isdigit() for c in word)


# Verbs after which "to" opens an infinitive: "I like to swim and play tennis" keeps "play"
_TAKES_TO_WORDS = (
    "want like love need try plan hope going used learn learning decided started start "
    "wish prefer hate have got tend trying planning hoping"
)
_TAKES_TO = frozenset(_TAKES_TO_WORDS.split())


# The first-person words a memory can start its user clause at
_OPENERS = frozenset(["i", "i'm", "i've", "i'd", "i'll", "my"])
# Verbs that often share the user as subject after "and": "I work ... and volunteer ..."
_SECOND_VERBS_WORDS = (
    "prefer like love enjoy hate dislike want need have work live play use go own teach "
    "study run write read watch make take try spend volunteer coach collect drive cook "
    "travel sing paint bake grow train speak walk ride visit am do don't"
)
_SECOND_VERBS = frozenset(_SECOND_VERBS_WORDS.split())
# -ly words that are verbs, not adverbs ("I apply", "I reply")
_LY_VERB_WORDS = "apply supply reply rely multiply comply imply ally bully rally fly"
_LY_VERBS = frozenset(_LY_VERB_WORDS.split())


def _is_adverb(word: str, after: str = "") -> bool:
    """Whether ``word`` (before ``after``) is an adverb: "sort" and "kind" only as "sort
    of" ("I sort of like it", not "I sort mine by date")."""
    lower = word.lower()
    if lower in ("sort", "kind"):
        return after.lower() == "of"
    return lower in _ADVERBS or (lower.endswith("ly") and len(lower) > 4 and lower not in _LY_VERBS)


def _user_clause(first: str, rest: list[str]) -> str | None:
    """ "The user ..." for a clause opening with ``first`` ("i", "i'm", "my" ...)."""
    if first == "my":
        return " ".join(["The user's", *rest]) if rest else None
    adverbs = []
    if first == "i":
        while rest and _is_adverb(rest[0], rest[1] if len(rest) > 1 else ""):
            adverbs.append(rest.pop(0).lower())
            if adverbs[-1] in ("sort", "kind"):
                adverbs.append(rest.pop(0).lower())  # its "of"
        if not rest:
            return None
        verb = _third_person(rest[0])
    else:  # "I'm", "I've": the verb is in the contraction ("I'm single and don't ...")
        verb, rest = _SUBJECT_VERBS["'" + first.split("'")[1]], ["", *rest]
    tail = [
        _third_person(w)
        if rest[i - 1].lower() in ("and", "or", "but")
        and w.lower() in _SECOND_VERBS
        and not _infinitive(rest[:i])
        else w
        for i, w in enumerate(rest[1:], 1)
    ]
    return " ".join(["The user", *adverbs, verb, *tail])


def _infinitive(before: list[str]) -> bool:
    """Whether a verb after "and" shares an infinitive's "to" ("I like to swim and play",
    "I want to travel and see the world"), not the user as its subject ("I moved to
    Porto and work at a bank")."""
    lower = ["", *(w.lower().strip(".,!?;:") for w in before), ""]
    return any(
        lower[j] == "to" and (lower[j - 1] in _TAKES_TO or lower[j + 1] in _SECOND_VERBS)
        for j in range(1, len(lower) - 1)
    )
