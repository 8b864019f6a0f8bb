"""Secrets told by what a sentence says around them rather than by their form (R13).

``memoryd.extraction.secrets`` recognises a credential by its label and a disclosing word
("password is X"). Some secrets have neither a telling form nor such a label, and are
recognised here by their context, in every language memoryd serves:

- recovery (seed) phrases: a run of words nearly all from one BIP39 word list (the
  ``mnemonic`` package's), numbered words from one list, a pass phrase given after a
  credential label, or part of a phrase after a word naming it ("words 7 to 12: ...");
- security answers, when the sentence frames a question as a security question (by
  name, as an account-recovery question, or a classic topic asked as a question); a
  mother's maiden name and a topic's value given as on a form count whoever asked, a
  topic narrated ("our first dog was called Rex") is a memory;
- one-time codes, lock codes and a dial's combination, and bare codes after a code word
  that names no public kind of code ("zip code");
- a quoted value after a credential label, unless it is talk.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from mnemonic import Mnemonic
from wordfreq import zipf_frequency

from memoryd.domain.language import LANGUAGES, is_cjk
from memoryd.extraction import secret_questions as questions
from memoryd.extraction import secret_shapes as shapes
from memoryd.extraction import secret_words as lexicon

_I = re.IGNORECASE
_SEED_WINDOW = 12  # the shortest BIP39 phrase
_SEED_HITS = 10  # words of the window that must be in one list (typos, made-up phrases)
_SEED_TOKEN = re.compile(r"[^\W\d_]+", re.UNICODE)


# wordfreq's codes of the lists in alphabets (its CJK ones need a tokenizer we lack).
_WORDFREQ_CODES = {"czech": "cs", "english": "en", "french": "fr", "italian": "it",
                   "portuguese": "pt", "russian": "ru", "spanish": "es",
                   "turkish": "tr"}  # fmt: skip
_FUNCTION_ZIPF = 5.5  # "you", "that", "have": BIP39 words a sentence is made of
_LATIN_LANGUAGES = tuple(lang for lang in LANGUAGES if not is_cjk(lang))
_COMMON_ZIPF = 3.0  # wordfreq's Zipf scale: about once per 10 million words and more


@cache
def _wordlists() -> tuple[tuple[frozenset[str], frozenset[str]], ...]:
    """Each BIP39 list, with its words so common that a sentence, not a random phrase,
    strings them together."""
    lists = []
    for lang in Mnemonic.list_languages():
        # NFKC, as the text is: the Japanese and Korean lists are stored decomposed
        words = frozenset(unicodedata.normalize("NFKC", w) for w in Mnemonic(lang).wordlist)
        code = _WORDFREQ_CODES.get(lang)
        common = frozenset(
            w for w in words if code and zipf_frequency(w, code, "small") >= _FUNCTION_ZIPF
        )
        lists.append((words, common))
    return tuple(lists)


def seed_phrases(text: str) -> list[str]:
    """Runs of 12 words, at least 10 from one BIP39 list, at most two among its most
    common words (three if all 12 are listed), at least 9 different, not in the list's
    own order; and ``numbered_words``."""
    words = _SEED_TOKEN.findall(text.lower())
    found = numbered_words(text)
    for wordlist, common in _wordlists():
        for start in range(len(words) - _SEED_WINDOW + 1):
            window = words[start : start + _SEED_WINDOW]
            listed = [w for w in window if w in wordlist]
            if (
                len(listed) >= _SEED_HITS
                and sum(w in common for w in window) <= 2 + (len(listed) == _SEED_WINDOW)
                and len(set(window)) >= 9
                and listed != sorted(listed)
            ):
                found.append(" ".join(window))
                break
    return found


_NUMBERED = re.compile(r"(?<![\w.])(?P<n>\d{1,2})[.):]?\s*(?P<word>[^\W\d_]+)")
_NUMBERED_RUN = 4


def numbered_words(text: str) -> list[str]:
    """Four or more words of one BIP39 list, each after the next number ("1 jeans 2
    civil 3 mind 4 usage")."""
    found = []
    run: list[str] = []
    last = 0
    for match in _NUMBERED.finditer(text.lower()):
        n = int(match["n"])
        run = [*run, match["word"]] if n == last + 1 and run else [match["word"]]
        last = n
        if len(run) == _NUMBERED_RUN and any(
            all(w in wordlist for w in run) for wordlist, _ in _wordlists()
        ):
            found.append(" ".join(run))
    return found


_SEED_CONTEXT = re.compile(lexicon.SEED_CONTEXT, _I)
_SEED_RUN = 3  # words of a phrase given in part: "last three words of the seed are ..."


def seed_words(text: str) -> list[str]:
    """Part of a recovery phrase: three or more uncommon words of one BIP39 list in a
    row, given after a word naming the phrase ("words 7 to 12: yellow spirit ...")."""
    context = _SEED_CONTEXT.search(text)
    if not context:
        return []
    given = _GIVEN.search(text, context.end())
    if not given:
        return []
    words = list(_SEED_TOKEN.finditer(text.lower(), given.end()))
    found = []
    for wordlist, common in _wordlists():
        run: list[str] = []
        for word in words:
            listed = word.group(0) in wordlist and word.group(0) not in common
            run = [*run, word.group(0)] if listed else []
            if len(run) == _SEED_RUN:
                found.append(" ".join(run))
    return found


_GIVEN = re.compile(
    r"[:=：\d\"“「]|(?<!\w)'|\b(?:are|is|were|was|sont|son|sind|são|sono|est|es|ist|é|è)\b|[是は는은]",
    _I,
)


PHRASE_WORD = re.compile(
    r"phrase|(?<!pass)words|mnemonic|fras[ea]|satz|フレーズ|助记词|助記詞|문구|프레이즈", _I
)
# What gives a pass phrase after its label: a marker, a verb of giving it, a pointer, or
# nothing ("uses the passphrase X").
_GIVES = re.compile(
    rf"{questions.ANSWER_MARKERS}|(?<![\w'’])(?:{lexicon.MARKERS})(?![\w'’])|[👉—–]|[는은は是]|^",
    _I,
)
_FILLERS = map(re.escape, lexicon.DETERMINERS | lexicon.FILLER_WORDS | {*lexicon.NUMBER_WORDS})
_FILLER = re.compile(rf"(?:[^\w\s]+|\s+|\d+(?!\w)|(?:{'|'.join(_FILLERS)})(?![\w'’]))*", _I)
# A pass phrase: plain words joined ("autumn-falcon-harbor-walrus"), a sentence typed as
# a password ("Always trust a goose 88"), or four words no sentence is made of.
_SENTENCE_WORDS = (
    lexicon.DETERMINERS | lexicon.PREPOSITIONS | lexicon.CLAUSE_STARTERS | lexicon.TALK_WORDS
)
_PHRASE_FORMS = re.compile(
    r"[^\W\d_]+(?:[-_.][^\W\d_]+){2,}(?![\w-])|"
    r"(?-i:[A-Z])[^\W\d_]*(?:\s+[^\W\d_]+){2,8}\s+(?P<n>\d{2,4})(?!\S)|"
    r"(?P<words>[^\W\d_]+(?:\s+[^\W\d_]+){3})"
)


def labelled_phrases(text: str) -> list[str]:
    """A pass phrase (``_phrase``) given after a credential or phrase label, in the
    label's sentence or its answer ("what's the passphrase again? oh right — ...")."""
    values = []
    for label in _CREDENTIAL.finditer(text):
        window = re.split(r"(?<=\S)[.!。！](?:\s|$)", text[label.end() : label.end() + 80])[0]
        for given in [] if _NOT_IT.match(text, label.end()) else _GIVES.finditer(window):
            rest = _FILLER.sub("", window[given.end() :], count=1)
            colon = given[0] in (":", "=", "：") and PHRASE_WORD.search(label[0]) is not None
            if value := _phrase(rest, colon):
                values.append(value)
                break
    return values


def _phrase(rest: str, colon: bool) -> str | None:
    """The pass phrase at the start of ``rest`` (``_PHRASE_FORMS``); after a phrase label's
    ``colon``, any three words that are no clause ("seed phrase: le chat dort sous la lune")."""
    given = rest.lower().split()
    if colon and len(given) >= 3 and not lexicon.CLAUSE_WORDS & set(given):
        return rest
    form = _PHRASE_FORMS.match(rest)
    if not form or (form["n"] and NOT_A_CODE_BEFORE.search(rest, 0, form.start("n"))):
        return None
    words = form["words"].lower().split() if form["words"] else []
    return None if any(len(w) < 3 or _sentence_word(w) for w in words) else form[0]


def _sentence_word(word: str) -> bool:
    """A word sentences are made of, not a pass phrase: "is way too long for me"."""
    return word in _SENTENCE_WORDS or common_word(word, _FUNCTION_ZIPF)


# A quoted value: in quotation marks of any language, or in apostrophes set apart from
# words ("is 'never trust a penguin'", not "don't ... it's").
_QUOTED = re.compile(
    r"[「『“\"«‘](?P<value>[^」』”\"»’]{2,60})[」』”\"»’]|(?<!\w)'(?P<single>[^'\n]{2,60})'(?!\w)"
)
_CREDENTIAL = re.compile(
    rf"(?<![\w-])(?:{lexicon.CREDENTIAL_LABELS}|{lexicon.PHRASE_LABELS})(?!\w)|{lexicon.CJK_LABELS}",
    _I,
)


_NOT_IT = re.compile(
    rf"{shapes.COMPOUND.pattern}|\s*(?:hints?|indices?|pistas?|hinweis|dicas?|petunjuk)\b", _I
)


def quoted_values(sentence: str) -> list[str]:
    """A quoted value after a credential label in the same sentence, unless the quote is
    talk: it names a credential itself ("'PIN change pending'"), starts with a talk word
    right after the label ("was 'too similar'"), or is given further on and made of
    common words and small numbers ("it says 'token invalid or expired'"): a pass phrase
    of common words comes right after its label."""
    labels = _CREDENTIAL.finditer(sentence)  # not "PIN pad", nor a hint: "password hint"
    label = next((m for m in labels if not _NOT_IT.match(sentence, m.end())), None)
    if not label:
        return []
    values = []
    for match in _QUOTED.finditer(sentence, label.end()):
        value = match["value"] or match["single"]
        words = value.lower().split()
        talk = words and words[0] in lexicon.TALK_WORDS and not PHRASE_WORD.search(label.group(0))
        if not words or talk or _CREDENTIAL.search(value):
            continue  # a phrase's words may start with any word: "'never trust a penguin'"
        gap = sentence[label.end() : match.start()].lower().split()
        near = len(gap) <= 3 and not lexicon.PREPOSITIONS & set(gap)  # not "phrase to '...'"
        disclosed = near or (len(gap) <= 6 and _DISCLOSED.search(" ".join(gap)))
        right_after = disclosed and not lexicon.TALK_WORDS & set(gap)
        if right_after or not all(_plain(word) for word in words):
            values.append(value)
    return values


def _plain(word: str) -> bool:
    """A common word of the languages or a small number: "and", "2", "expired"."""
    word = word.strip(".,!?;:")
    return (word.isdigit() and len(word) <= 2) or (word.isalpha() and common_word(word))


_TOPIC = re.compile(questions.SECURITY_TOPICS, _I)
_TOPIC_ALONE = re.compile(questions.SECURITY_TOPICS_ALONE, _I)
_TOPIC_WORD = re.compile(rf"(?<!\S)(?:{questions.SECURITY_TOPICS})", _I)  # not "새솔초등학교"
_NAME_TOPIC = re.compile(questions.NAME_TOPICS, _I)
_MAIDEN_NAME = re.compile(lexicon.MOTHERS_MAIDEN_NAME, _I)
_SECOND_PERSON = re.compile(questions.SECOND_PERSON, _I)
_ANSWER_AFTER = re.compile(
    rf"[\"'“«„「『]?(?P<value>[^\s\"”»“」』,.;!?。、'‘’]{{2,}})[\"'”»」』]?\s*(?:{questions.ANSWER_AFTER})",
    _I,
)
_PRONOUNS = frozenset(questions.PRONOUNS.split())
_EXPLICIT = re.compile(r"->|=>|→|=|:|：")  # a form's answer, not a story's
_NAMING = re.compile(questions.NAMING_WORDS, _I)
_SECURITY_CONTEXT = re.compile(
    rf"\b(?:{lexicon.SECURITY_LABELS})\b|{questions.SECURITY_CONTEXT}", _I
)
# The topic asked as a question: a question mark closing the topic's own clause ("name
# of your first pet?", "what was your first car called?"), not one a clause or more on
# ("first concert ... was Coldplay ..., recommend similar bands?").
_TOPIC_QUESTION = re.compile(r"[^,.;:!?。，、！？\n]{0,40}?[?？]")
_NUMBERED_QUESTION = re.compile(r"\bQ\d{1,2}\b")  # "Q1 first concert -> Blur"
_ANSWER_WORD = re.compile(questions.ANSWER_WORDS, _I)
_ANSWER_MARKER = re.compile(questions.ANSWER_MARKERS, _I)
# the answer, after whom it was given to: "I told them Mrs Abernathy"
_ANSWER_VALUE = re.compile(
    rf"\s*(?:(?:{questions.OBJECT_PRONOUNS})\s+)?[\"'“«„「『]?(?P<value>[^\s\"”»“」』,.;!?。、]{{2,}})",
    _I,
)
_BRACKETED = re.compile(r"[(（](?P<value>(?-i:[A-Z])[^()（）,;]{1,30})[)）]")
# Setting a question's answer: "set 'What was your childhood nickname' to Peanut".
_SET_TO = re.compile(r"\b(?:set|changed|switched|put)\b[^.!?]{0,60}?\bto(?=\s)", _I)
_TOPIC_VALUE = re.compile(
    rf"{questions.TOPIC_NAME}\s*(?:(?<![\w'’])(?:{questions.TOPIC_MARKERS})(?![\w'’])|"
    rf"{questions.CJK_TOPIC_MARKERS})"
    r"\s*[\"'“«„「『]?(?P<value>[^\s\"”»“」』,.;!?。、]{2,})",
    _I,
)

# A form's field and its value, a name written with a capital or in CJK ("出生城市 洛阳").
_TOPIC_BARE = re.compile(
    rf"{questions.TOPIC_NAME}\s+(?P<value>(?-i:[A-Z])[^\s,.;!?。、]+|[一-鿿가-힣ぁ-ヿ]+)", _I
)


def security_answers(text: str) -> list[str]:
    """In a line framed as a security question (by name, as an account-recovery question,
    or its topic asked as a question, in the second person or with an answer): what
    follows an answer marker or a verb of answering, what precedes a verb that follows
    its answer, or a quoted or bracketed value; and ``_topic_values``."""
    topic = _TOPIC.search(text)
    context = _SECURITY_CONTEXT.search(text)
    if not (topic or context):
        return []
    if topic and not context:
        context = (
            _ANSWER_WORD.search(text)
            or _TOPIC_QUESTION.match(text, topic.end())
            or _NUMBERED_QUESTION.search(text)
            or _asked_of_you(text, topic)
        )
    values = _topic_values(text, framed=context is not None)
    if not context:
        return values
    start = min(m.start() for m in (topic, context) if m)
    values += [m["value"] or m["single"] for m in _QUOTED.finditer(text, start)]
    values += [  # "me demande le nom de jeune fille de ma mère (Lefebvre)"
        m["value"] for m in _BRACKETED.finditer(text, start) if not _not_an_answer(m["value"])
    ]
    values += [  # "hab ich Bello angegeben", not "irgendwas angegeben"
        m["value"]
        for m in _ANSWER_AFTER.finditer(text, start)
        if not (_not_an_answer(m["value"]) or (m["value"].islower() and common_word(m["value"])))
    ]
    markers = [*_ANSWER_MARKER.finditer(text, start), *_SET_TO.finditer(text, start)]
    for marker in markers:
        value = _ANSWER_VALUE.match(text, marker.end())
        if not value or _not_an_answer(value.group("value")):
            continue
        word = value.group("value")
        quoted = value.group(0).lstrip()[:1] != word[:1]
        form = _EXPLICIT.fullmatch(marker.group(0).strip()) is not None  # "→ maestra Pina"
        if quoted or form or not (word.islower() and continues_as_talk(word, text[value.end() :])):
            values.append(word)  # not "the question was about my first pet"
    return [v for v in values if not (_TOPIC_WORD.search(v) or _SECURITY_CONTEXT.search(v))]


def _asked_of_you(text: str, topic: re.Match[str]) -> re.Match[str] | None:
    """The topic asked in the second person, as forms ask it: "name of your first pet"."""
    before = re.split(r"[.!?。！？\n]", text[max(0, topic.start() - 30) : topic.start()])[-1]
    after = re.split(r"[.!?。！？\n,;:»”\"']", text[topic.end() : topic.end() + 30])[0]
    return _SECOND_PERSON.search(" ".join([*before.split()[-3:], topic[0], *after.split()[:3]]))


def _not_an_answer(word: str) -> bool:
    """Talk ("too easy"), a determiner or a pronoun ("was your childhood nickname")."""
    lower = word.lower()
    return lower in lexicon.TALK_WORDS or lower in lexicon.DETERMINERS or lower in _PRONOUNS


def _topic_values(text: str, framed: bool) -> list[str]:
    """The value a classic topic is said to have ("my first pet was called Mr. Whiskers");
    not talk, a determiner, a common word the sentence goes on from ("was really sweet"),
    or, for a topic that is a thing, a value not given as a name ("first car was red").
    Unless ``framed`` as a security question, only a mother's maiden name and a value
    given as on a form ("first pet's name = Biscuit") count."""
    values = []
    for topic in (_TOPIC if framed else _TOPIC_ALONE).finditer(text):
        said = _TOPIC_VALUE.match(text, topic.end())
        if not said and framed:  # a form's fields: "first car Geo Metro, first pet Ziggy"
            said = _TOPIC_BARE.match(text, topic.end())
        if not said:
            continue
        marker = text[said.start() : said.start("value")]
        if not (framed or _MAIDEN_NAME.fullmatch(topic.group(0)) or _EXPLICIT.search(marker)):
            continue
        value = said.group("value")
        lower = value.lower()
        if lower in lexicon.TALK_WORDS or lower in lexicon.DETERMINERS:
            continue
        if value.islower() and continues_as_talk(value, text[said.end() :]):
            continue
        if _given_as_name(text, topic, said) or value[0].isupper() or said.re is _TOPIC_BARE:
            values.append(value)
    return values


def _given_as_name(text: str, topic: re.Match[str], said: re.Match[str]) -> bool:
    """Whether the topic is a name, or its value is said to be one ("was called")."""
    before = re.split(r"[.!?。！？]", text[max(0, topic.start() - 30) : topic.start()])[-1]
    return bool(
        _NAME_TOPIC.fullmatch(topic.group(0))
        or _NAMING.search(said.group(0))
        or _NAMING.search(before)
    )


_NEXT_WORD = re.compile(r"[ \t]+(?P<word>[^\W_][\w'’-]*)")


def continues_as_talk(value: str, rest: str) -> bool:
    """Whether a common word said as a value is the start of talk: the clause goes on
    with another word ("is way too long"), not with punctuation, the end, or a word that
    starts a new clause ("is sunshine and I never change it")."""
    following = _NEXT_WORD.match(rest)
    if not following or following.group("word").lower() in lexicon.CLAUSE_STARTERS:
        return False
    return common_word(value)


def common_word(word: str, zipf: float = _COMMON_ZIPF) -> bool:
    """Whether ``word`` is a dictionary word of any Latin-script language memoryd serves
    (a sentence of four words does not tell Spanish from Italian), by wordfreq."""
    return max(zipf_frequency(word, lang, "small") for lang in _LATIN_LANGUAGES) >= zipf


NOT_A_CODE_BEFORE = re.compile(lexicon.NOT_A_CODE_BEFORE + r"\s*$", _I)
# 3-10 digits, not part of a word, a decimal, a time, an amount or a date ("2024-03-14"),
# maybe right after a label's colon ("認証番号:3917").
_SHORT_NUMBER = re.compile(
    rf"(?<![{lexicon.LATIN}_.,/$€£¥₩-])(?<!\d:)(?!\d{{4}}-\d\d?-\d\d?\b|\d\d?-\d\d?-\d{{4}}\b)"
    rf"\d(?:[ -]?\d){{2,9}}(?![{lexicon.LATIN}_/-]|[.,:]\d|\s?%)"
)
# "QX7-P4M", "R7K2D", "W13D-HI6EGA-T1JI", "G-482913": capitals and digits.
_LETTER_CODE = re.compile(
    r"(?<![\w-])(?:(?=[A-Z0-9-]*\d)(?=[A-Z0-9-]*[A-Z])[A-Z0-9]{2,6}(?:-?[A-Z0-9]{2,6}){1,4}|"
    r"[A-Z]{1,3}-\d{4,8})(?![\w-])"
)
NOT_A_CODE_AFTER = re.compile(lexicon.NOT_A_CODE_AFTER, _I)
_DISCLOSED = re.compile(
    r"(?:\b(?:is|was|are|ist|est|es|è|é|lautet|takes)|[:=：]|[は是为為는은])\s*$", _I
)
_CODE_BEFORE = re.compile(r"(?:\bcode|\bkode|コード|코드)\s*$", _I)
_COPULA_AFTER = re.compile(r"\s+(?:is|was|ist|est|es|è|é)\b", _I)  # "G-482913 is the code"
_OTP_CONTEXT = re.compile(lexicon.OTP_CONTEXT, _I)
_OTP_CASED = re.compile(r"\b(?:[a-z]*TAN|OTP|PIN)\b")  # "mTAN", "pushTAN"
_LOCK_CONTEXT = re.compile(lexicon.LOCK_CONTEXT, _I)
_LOCK_CODE = re.compile(lexicon.LOCK_CODE_WORDS, _I)


def _codes(sentence: str, start: int, shortest: int, letters: bool) -> list[str]:
    """Numbers of ``shortest``-8 digits after ``start``, not amounts, references or
    years, and (when ``letters``) letter-and-digit codes said to be one ("is QX7-P4M")."""
    found = []
    for match in _SHORT_NUMBER.finditer(sentence, start):
        digits = re.sub(r"\D", "", match.group(0))
        before = sentence[: match.start()]
        if not shortest <= len(digits) <= 8 or NOT_A_CODE_BEFORE.search(before):
            continue
        if NOT_A_CODE_AFTER.match(sentence, match.end()):
            continue
        found.append(match.group(0))
    if letters:
        found += [
            m.group(0)
            for m in _LETTER_CODE.finditer(sentence, start)
            if _DISCLOSED.search(sentence[: m.start()])
            or _COPULA_AFTER.match(sentence, m.end())
            or (len(m[0]) >= 8 and _CODE_BEFORE.search(sentence, 0, m.start()))  # "コード XKCU..."
        ]
    return found


def codes(sentence: str) -> list[str]:
    """3-8 digit numbers anywhere in ``sentence`` that are not amounts, counts, years or
    references."""
    return _codes(sentence, 0, 3, letters=False)


_CODE_WORD = re.compile(
    r"(?<![\w-])(?:codes?|c[oó]digos?|codice|codici)(?![\w-])|"
    r"(?P<kind>[ァ-ヿ가-힣一-鿿]*)(?:コード|코드)",
    _I,
)


def quantity(value: str, text: str) -> bool:
    """Whether ``value``, a number in ``text``, is followed by a unit or what it counts
    ("16 characters", "90 días")."""
    at = text.find(value)
    return value[:1].isdigit() and at >= 0 and bool(NOT_A_CODE_AFTER.match(text, at + len(value)))


def bare_codes(sentence: str) -> list[str]:
    """Codes of 4-8 digits, or of capitals and digits said to be one, in a sentence with a
    code word that names no public kind of code: "the code 9154", not "zip code 94110"."""
    for match in _CODE_WORD.finditer(sentence):
        before = sentence[: match.start()].split()
        kind = match.group("kind") or (before[-1] if before else "")
        if not (shapes.PUBLIC_KIND.fullmatch(kind) or shapes.COMPOUND.match(sentence, match.end())):
            return _codes(sentence, 0, 4, letters=True)
    return []


# "confirmation number", "locker no.", "numéro de porte": a thing's reference number.
_NUMBER_OF = re.compile(
    r"\w*\s*(?:numbers?\b|no\.|#|num[ée]ro|n[úu]mero|nummer|numero|番号|번호)", _I
)


def _context(pattern: re.Pattern[str], sentence: str) -> re.Match[str] | None:
    """The first word of ``pattern`` in ``sentence`` that does not name a number."""
    return next(
        (m for m in pattern.finditer(sentence) if not _NUMBER_OF.match(sentence, m.end())), None
    )


def one_time_codes(sentence: str) -> list[str]:
    """4-8 digit (or letter-and-digit) codes after words about one-time codes, or before
    them when those words label them in brackets."""
    context = _context(_OTP_CONTEXT, sentence) or next(
        (m for m in _OTP_CASED.finditer(sentence) if not shapes.COMPOUND.match(sentence, m.end())),
        None,
    )  # not "the PIN pad"
    if not context:
        return []
    # codes labelled after them: "91827364 55102938 (bitwarden 2fa recovery)"
    labelled_after = _LABEL_AFTER.search(sentence, 0, context.start())
    return _codes(sentence, 0 if labelled_after else context.start(), 4, letters=True)


_LABEL_AFTER = re.compile(r"\d\s*[(\[—–]\s*(?:[^\s\d]+\s+){0,2}$")


# Three or more numbers of one or two digits: a dial's combination ("0-4-9", "right to
# 41, left past 41 to 17, right to 8"), when dashed or turned.
_DIAL = re.compile(
    rf"(?<![\w.])\d{{1,2}}(?:(?:\s*(?:[-,/]|(?<![^\W\d_])(?:{lexicon.DIAL_WORDS})(?!\w))\s*)+"
    r"\d{1,2}(?![\w.])){2,}",
    _I,
)
_DIAL_WORD = re.compile(rf"(?<![^\W\d_])(?:{lexicon.DIAL_WORDS})(?!\w)", _I)


def lock_codes(sentence: str) -> list[str]:
    """3-8 digits in a sentence about a lock, door, gate or safe and its code, and a
    dial's combination."""
    lock = _context(_LOCK_CONTEXT, sentence)
    if not lock:
        return []
    code = _LOCK_CODE.search(sentence)
    found = _codes(sentence, min(lock.start(), code.start()) if code else lock.end(), 3, False)
    found += [
        m.group(0)
        for m in _DIAL.finditer(sentence)
        if "-" in m.group(0) or _DIAL_WORD.search(m.group(0))
    ]
    # "the lockbox at the airbnb is 6142": with no word for its code, the digits it is
    return found if code else [c for c in found if _DISCLOSED.search(sentence[: sentence.find(c)])]
