"""Secrets told by what a sentence says around them rather than by their form (R13).

``memoryd.extraction.secrets`` recognises a credential by its label and a disclosing word
("password is X"). Some secrets have neither a telling form nor such a label, and are
recognised here by their context, in every language memoryd serves:

- recovery (seed) phrases: a run of words nearly all from a BIP39 word list (the
  ``mnemonic`` package's lists, in ten languages), or words after a phrase label
  ("seed phrase:", "助记词：", "phrase de passe :");
- security answers: a classic security question's topic (a first pet, a mother's maiden
  name, the street one grew up on ...) said as a security question or its answer;
- one-time codes: a short number or code in a sentence about one-time, 2FA, SMS or
  verification codes, TANs, backup codes;
- lock codes: digits in a sentence about what opens a lock, door, gate or safe;
- personal and bank identifiers after a label that python-stdnum knows: every country
  module of stdnum for a person's number ("ITIN", "PAN", "TFN", "CURP", "IRD number",
  "Versicherungsnummer" ...), where a value it validates, or one with five digits, follows;
- a quoted value after a credential label ("パスフレーズは「...」").
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Callable
from functools import cache

import stdnum
from mnemonic import Mnemonic
from wordfreq import zipf_frequency

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


@cache
def _wordlists() -> tuple[tuple[frozenset[str], frozenset[str]], ...]:
    """Each BIP39 list, with its words so common that a sentence, not a random phrase,
    strings them together."""
    lists = []
    for lang in Mnemonic.list_languages():
        words = frozenset(Mnemonic(lang).wordlist)
        code = _WORDFREQ_CODES.get(lang)
        common = frozenset(
            w for w in words if code and zipf_frequency(w, code, "small") >= _FUNCTION_ZIPF
        )
        lists.append((words, common))
    return tuple(lists)


def seed_phrases(text: str) -> list[str]:
    """Runs of 12 words of which at least 10 are from one BIP39 list, at most two are
    among its most common words and at least 9 differ."""
    words = _SEED_TOKEN.findall(text.lower())
    found = []
    for wordlist, common in _wordlists():
        for start in range(len(words) - _SEED_WINDOW + 1):
            window = words[start : start + _SEED_WINDOW]
            if (
                sum(w in wordlist for w in window) >= _SEED_HITS
                and sum(w in common for w in window) <= 2
                and len(set(window)) >= 9
            ):
                found.append(" ".join(window))
                break
    return found


_PHRASE_LABEL = re.compile(lexicon.PHRASE_LABELS, _I)
_PHRASE_VALUE = re.compile(r"^[^:=：]{0,40}?[:=：]\s*(?P<value>\S+(?:\s+\S+){2,})")


def labelled_phrases(text: str) -> list[str]:
    """Three or more words after a phrase label and a colon ("seed phrase: a b c ...")."""
    values = []
    for match in _PHRASE_LABEL.finditer(text):
        value = _PHRASE_VALUE.match(text[match.end() :])
        if value and not lexicon.CLAUSE_WORDS & set(value.group("value").lower().split()):
            values.append(value.group("value"))
    return values


_QUOTED = re.compile(r"[「『“\"«‘](?P<value>[^」』”\"»’]{2,60})[」』”\"»’]")
_CREDENTIAL = re.compile(
    rf"(?<![\w-])(?:{lexicon.CREDENTIAL_LABELS}|{lexicon.PHRASE_LABELS})(?!\w)|{lexicon.CJK_LABELS}",
    _I,
)


def quoted_values(sentence: str) -> list[str]:
    """A quoted value after a credential label in the same sentence, unless the quote is
    talk ("says "required"")."""
    label = _CREDENTIAL.search(sentence)
    if not label:
        return []
    return [
        m.group("value")
        for m in _QUOTED.finditer(sentence, label.end())
        if m.group("value").strip().lower() not in lexicon.TALK_WORDS
    ]


_TOPIC = re.compile(lexicon.SECURITY_TOPICS, _I)
_SECURITY_CONTEXT = re.compile(rf"\b(?:{lexicon.SECURITY_LABELS})\b|{lexicon.SECURITY_CONTEXT}", _I)
_QUESTION = re.compile(r"[?？]")
_ANSWER_WORD = re.compile(lexicon.ANSWER_WORDS, _I)
_ANSWER_MARKER = re.compile(lexicon.ANSWER_MARKERS, _I)
_ANSWER_VALUE = re.compile(r"\s*[\"'“«「『]?(?P<value>[^\s\"”»」』,.;!?。、]{2,})")


def security_answers(text: str) -> list[str]:
    """What follows an answer marker, or a quoted value, in a line that says it holds a
    security question or answer ("Respuesta de seguridad: ...", "密保问题 ... 答案是"),
    or names a security question's topic as a question or with an answer ("Name of your
    first pet? I always put ...", "the answer to 'what street did you grow up on' is")."""
    topic = _TOPIC.search(text)
    context = _SECURITY_CONTEXT.search(text)
    if topic and not context:
        context = _ANSWER_WORD.search(text) or _QUESTION.search(text, topic.end())
    if not context:
        return []
    start = min(m.start() for m in (topic, context) if m)
    values = [m.group("value") for m in _QUOTED.finditer(text, start)]
    for marker in _ANSWER_MARKER.finditer(text, start):
        value = _ANSWER_VALUE.match(text, marker.end())
        if value and value.group("value").lower() not in lexicon.TALK_WORDS:
            values.append(value.group("value"))
    return [v for v in values if not (_TOPIC.search(v) or _SECURITY_CONTEXT.search(v))]


_NOT_A_CODE_BEFORE = re.compile(lexicon.NOT_A_CODE_BEFORE + r"\s*$", _I)
_SHORT_NUMBER = re.compile(r"(?<![\w.,:/-])\d(?:[ -]?\d){2,9}(?![\w.,:/-]|\s?%)")
_LETTER_CODE = re.compile(
    r"(?<![\w-])(?=[A-Z0-9-]*\d)(?=[A-Z0-9-]*[A-Z])[A-Z0-9]{2,5}-?[A-Z0-9]{2,5}(?![\w-])"
)
_NOT_A_CODE_AFTER = re.compile(lexicon.NOT_A_CODE_AFTER, _I)
_DISCLOSED = re.compile(r"(?:\b(?:is|was|ist|est|es|è|é|lautet)|[:=：])\s*$", _I)
_OTP_CONTEXT = re.compile(lexicon.OTP_CONTEXT, _I)
_OTP_CASED = re.compile(r"\b(?:TAN|OTP|PIN)\b")
_LOCK_CONTEXT = re.compile(lexicon.LOCK_CONTEXT, _I)
_LOCK_CODE = re.compile(lexicon.LOCK_CODE_WORDS, _I)


def _codes(sentence: str, start: int, shortest: int, letters: bool) -> list[str]:
    """Numbers of ``shortest``-8 digits after ``start``, not amounts, references or
    years ("in 2023", "the 2023 accounts"), and (when ``letters``) letter-and-digit
    codes right after "is" or a colon ("is QX7-P4M")."""
    found = []
    for match in _SHORT_NUMBER.finditer(sentence, start):
        digits = re.sub(r"\D", "", match.group(0))
        before = sentence[: match.start()]
        if not shortest <= len(digits) <= 8 or _NOT_A_CODE_BEFORE.search(before):
            continue
        if _NOT_A_CODE_AFTER.match(sentence, match.end()):
            continue
        found.append(match.group(0))
    if letters:
        found += [
            m.group(0)
            for m in _LETTER_CODE.finditer(sentence, start)
            if _DISCLOSED.search(sentence[: m.start()])
        ]
    return found


def one_time_codes(sentence: str) -> list[str]:
    """4-8 digit (or letter-and-digit) codes after words about one-time codes."""
    context = _OTP_CONTEXT.search(sentence) or _OTP_CASED.search(sentence)
    return _codes(sentence, context.start(), 4, letters=True) if context else []


def lock_codes(sentence: str) -> list[str]:
    """3-8 digits in a sentence about a lock, door, gate or safe and its code."""
    lock = _LOCK_CONTEXT.search(sentence)
    code = _LOCK_CODE.search(sentence)
    if not (lock and code):
        return []
    return _codes(sentence, min(lock.start(), code.start()), 3, letters=False)


_PERSONAL = re.compile(
    r"person|individual|national|identity|identifi|social|resident|citizen|taxpayer|"
    r"tax|revenue|voter|insurance|health|bank account",
    _I,
)
_NOT_PERSONAL = re.compile(
    r"compan|business|VAT|corporat|employer|establishment|trade|commercial|securit(?:y|ies) "
    r"ident|postal|drug|meter|real estate|excise|goods|preparer|adoption|register number|"
    r"entreprise|empresa|unternehm|invoice|association|school|onderwijs|creditor|legal",
    _I,
)


@cache
def _id_labels() -> tuple[tuple[re.Pattern[str], Callable[[str], bool]], ...]:
    """(label, validator) for each of python-stdnum's country modules about a person's
    or a bank account's number: its short names ("VNR, SVNR, VSNR") and the first name
    in brackets when short ("Versicherungsnummer"). Acronyms match in capitals only."""
    labels = []
    for info in pkgutil.walk_packages(stdnum.__path__, "stdnum."):
        if info.ispkg or info.name.count(".") < 2:
            continue
        module = importlib.import_module(info.name)
        first = (module.__doc__ or "").strip().splitlines()[0] if module.__doc__ else ""
        if not hasattr(module, "is_valid") or not _PERSONAL.search(first):
            continue
        if _NOT_PERSONAL.search(first):
            continue
        head, _, inner = first.partition(" (")
        names = [n.strip(" .") for n in head.split(",")] + [inner.split(",")[0].rstrip(").")]
        for name in names:
            words = name.split()
            if len(name) < 3 or not name[0].isupper() or len(words) > 2 or _PLACE.search(name):
                continue
            escaped = re.escape(name).replace(r"\ ", r"\s+")
            if name.isupper() or re.fullmatch(r"[A-Z][a-z]?[A-Z]\w*", name):
                pattern = re.compile(rf"(?<![\w-]){escaped}(?![\w-])")
            else:
                pattern = re.compile(rf"(?<![\w-])\w*{escaped}(?![\w-])", _I)
            labels.append((pattern, module.is_valid))
    return tuple(labels)


_PLACE = re.compile(r"\b(?:[A-Z][a-z]+(?:an|ish|ese|ian|ch|ic)|IBAN)\b")  # "Spanish IBAN"
_ID_AFTER = re.compile(
    r"^(?:\s*(?:card|number|no\.?|nr\.?|n[°º]|#|is|was|:|-|ist|es|est|é|è))*\s*"
    r"(?P<value>[A-Za-z0-9](?:[A-Za-z0-9]|[ .\-/](?=[A-Za-z0-9])){4,30})",
    _I,
)


def stdnum_ids(text: str) -> list[str]:
    """A value after one of stdnum's personal-number labels: one its validator accepts,
    or one with five or more digits."""
    values = []
    for label, is_valid in _id_labels():
        for match in label.finditer(text):
            value = _ID_AFTER.match(text[match.end() : match.end() + 60])
            if not value:
                continue
            candidate = value.group("value").strip()
            words = candidate.split()
            # the value ends where words stop holding digits ("459 612 083 (NZ)")
            for end in range(len(words), 0, -1):
                part = " ".join(words[:end])
                if _valid(is_valid, part) or sum(ch.isdigit() for ch in part) >= 5:
                    values.append(part)
                    break
    return values


def _valid(is_valid: Callable[[str], bool], value: str) -> bool:
    try:
        return bool(is_valid(value))
    except Exception:  # a validator that chokes on a value rejects it
        return False
