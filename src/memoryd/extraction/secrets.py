"""Recognising secrets and personal identifiers so extraction never stores them (R13).

Two nets: ``secret_reason`` spots text that holds a credential or an identifier by its
form and its words, and ``secret_values`` collects the exact secret strings found in the
source chats, so a candidate that repeats one of them in other words is dropped too.

What counts (see docs/security.md and bench/secret_detection.py for how well it works):

- keys and tokens by format: detect-secrets' format detectors (AWS, GitHub, GitLab,
  Slack, Stripe, Twilio, SendGrid, npm, PyPI, JWTs, private keys, credentials in URLs ...)
  and our own for what they miss (``sk-proj-...``, ``AIza...``, long random strings);
- passwords, pass phrases, PINs and codes, in every language memoryd serves: a label
  (``memoryd.extraction.secret_words``: "password", "mot de passe", "密码" ...) then a
  word that discloses the value ("is", "'s", "will be", "starts with", "lautet", "是")
  and a value that is not talk about it ("is too short"); "X as my password"; a
  password-shaped word near a label or in a login context; a strong password alone;
- security answers: a mother's maiden name, the answer to a security question or a
  memorable word;
- national identifiers after their label (SSN, NIR, DNI, Steuer-ID, codice fiscale, CPF,
  身份证, マイナンバー, 주민등록번호 ...) and by form where a check digit makes that safe
  (US SSNs, UK NINOs, Chinese resident ids, Spanish DNIs, Italian codici fiscali,
  python-stdnum's validators); IBANs (stdnum), payment cards (Luhn, any separators),
  CVVs, bank account, sort and routing numbers;
- whatever the admin's own regular expressions match (``extra_patterns``, from the
  ``secret_patterns`` run-time setting).

Text is NFKC-normalised and stripped of invisible characters first, so "p\u200bassword"
is a password too, and read a second time with spaced-out characters joined and English
number words made digits ("h u n t e r 2 2", "4.1.1.1 ...", "four five six seven").
Erring on the side of dropping a harmless fact is intended: a lost fact is relearned, a
stored password leaks into every prompt.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from functools import cache, lru_cache

from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
from detect_secrets.plugins.base import RegexBasedDetector
from stdnum import iban, luhn
from stdnum.cn import ric
from stdnum.es import dni, nie
from stdnum.it import codicefiscale

from memoryd.extraction import secret_words as lexicon

# What detect-secrets' format detectors miss.
_KEY_PATTERNS = (
    ("an API key", re.compile(r"\b(?:sk|pk|rk)[-_](?:proj-|live_?|test_?|ant-)?[\w\-]{16,}")),
    ("an AWS access key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("a GitHub token", re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}")),
    ("a Slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("a Google API key", re.compile(r"\bAIza[0-9A-Za-z_\-]{30,}")),
    ("a webhook secret", re.compile(r"\bwhsec_[A-Za-z0-9]{16,}")),
    ("a webhook URL", re.compile(r"https://hooks\.slack\.com/services/\S+")),
    ("a JSON web token", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+")),
    ("a private key", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")),
    ("a credential in a URL", re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s:/@]*:[^\s/@]+@")),
)  # fmt: skip
_NOT_FORMATS = {"KeywordDetector", "IPPublicDetector"}  # words, not formats


@cache
def _format_detectors() -> tuple[RegexBasedDetector, ...]:
    """detect-secrets' detectors of key and token formats (not its entropy guesses,
    which flag ordinary words in a sentence)."""
    classes: Iterable[type] = get_mapping_from_secret_type_to_class().values()
    return tuple(
        cls()
        for cls in classes
        if issubclass(cls, RegexBasedDetector) and cls.__name__ not in _NOT_FORMATS
    )


_FLAGS = re.IGNORECASE
_LABEL = re.compile(
    rf"(?<![\w-])(?P<label>{lexicon.CREDENTIAL_LABELS}|{lexicon.SECURITY_LABELS})(?![\w])", _FLAGS
)
_COMPOUND = re.compile(rf"\s*(?:{lexicon.COMPOUND_NOUNS})\b", _FLAGS)
_MARKER = re.compile(rf"(?<![\w'’])(?:{lexicon.MARKERS})(?![\w'’])|[:=：]", _FLAGS)
_ATTACHED = re.compile(rf"\s*(?:{lexicon.ATTACHED_MARKERS})", _FLAGS)  # right after the label
_TALK_FORM = re.compile(lexicon.TALK_FORMS)
_LAST_WORD = re.compile(r"\s+(?P<word>[^\s,;:]+)\s*(?:[,;]|$)")
_WINDOW_END = re.compile(r"^(?:\s*\S+){0,8}")
_CJK_LABEL = re.compile(lexicon.CJK_LABELS)
_CJK_VALUE = re.compile(r"[A-Za-z0-9][A-Za-z0-9!@#$%^&*._-]{2,}")
_SECURITY = re.compile(rf"\b(?:{lexicon.SECURITY_LABELS})\b", _FLAGS)
_AS_LABEL = re.compile(
    r"\b(?:use|used|using|chose|picked|pick|have|set)\s+(?P<value>\S+(?:\s+\S+){0,5}?)\s+as\s+"
    rf"(?:the|my|our|a)?\s*(?:\w+\s+)?(?:{lexicon.CREDENTIAL_LABELS})\b",
    _FLAGS,
)
_MADE_LABEL = re.compile(
    r"\b(?:made|make|set|changed|change|reset)\s+(?:my|the|our)\s+(?:\w+\s+)?"
    rf"(?:{lexicon.CREDENTIAL_LABELS})\s+(?:to\s+)?(?P<value>.+)",
    _FLAGS,
)
_VALUE_WORD = re.compile(r"[\"'`‘’“”(]*(?P<word>[^\s\"`‘“”,;)]+)")

# A credential word, then within a few words of the same sentence, a value shaped like one.
_CREDENTIAL_WORD = re.compile(
    r"\b(?:password|passwd|passcode|passphrase|pwd|pw|pass|pin|puk|combination|combo|otp|"
    r"cvv2?|cvc2?|authenticator|(?:door|gate|garage|alarm|entry|access|keypad|lockbox|safe|lock|building|"
    r"verification|confirmation|one[- ]time|2fa|mfa|sms|login|security|auth|backup|recovery|"
    r"unlock|sign[- ]in)(?:\s+[a-z]+)?\s+(?:code|codes|combo|combination|pin)|"
    r"(?:wi-?fi|wlan|wpa2?|network)\s+(?:key|password|pass))\b",
    re.IGNORECASE,
)
# "the code 9154", "sent code 882 104": a bare code unless it names something public.
_BARE_CODE = re.compile(
    r"(?<!zip )(?<!postal )(?<!post )(?<!area )(?<!country )(?<!status )(?<!error )"
    r"(?<!source )(?<!promo )(?<!discount )(?<!course )(?<!dress )(?<!colour )(?<!color )"
    r"(?<!qr )(?<!product )(?<!exit )(?<!return )(?<!http )(?<!response )(?<!sort )"
    r"(?<!tax )(?<!airport )(?<!bar )(?<!project )\bcodes?\b(?:\s+(?:is|was|of|:))?\s*[:=]?\s*"
    r"(?P<value>\d(?:[ -]?\d){3,11})(?![\w-])",
    re.IGNORECASE,
)
_LOGIN_WORD = re.compile(
    r"\b(?:log\s*(?:in|into|on)|logon|login|sign\s*(?:in|into)|signin|ssh|credentials|creds|"
    r"account|username|user\s*name|as\s+root|basic\s+auth|auth|unlock)\b",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"[.;!?。！？](?:\s|$)|[。！？]")
_WORD = re.compile(r"[^\s/,;'\"()]+")
_SYMBOLS = set("!@#$%^&*~+=?")
_NOT_PASSWORDS = {"1password", "web01", "ipv4", "ipv6", "utf-8", "sha256", "base64", "x86_64"}

_ID_LABEL = re.compile(rf"(?<![\w])(?:{lexicon.ID_LABELS})(?!\w)|{lexicon.CJK_ID_LABELS}", _FLAGS)
_ID_VALUE = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9]|[ .\-/](?=[A-Za-z0-9])){3,30}")
_SSN = re.compile(r"(?<![\d-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\d-])")
_NINO = re.compile(r"\b[A-CEGHJ-PR-TW-Z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b")
# Identifiers with a check digit, safe to recognise without a label (python-stdnum).
_CHECKED_IDS = (
    (re.compile(r"(?<![\w-])\d{17}[\dXx](?![\w-])"), ric.is_valid),
    (re.compile(r"(?<![\w-])\d{8}-?[A-Za-z](?![\w-])"), dni.is_valid),
    (re.compile(r"(?<![\w-])[XYZxyz]-?\d{7}-?[A-Za-z](?![\w-])"), nie.is_valid),
    (re.compile(r"(?<!\w)[A-Za-z]{6}\d{2}[A-Za-z]\d{2}[A-Za-z]\d{3}[A-Za-z](?!\w)"),
     codicefiscale.is_valid),
)  # fmt: skip
_IBAN = re.compile(r"\b[A-Za-z]{2}\d{2}(?:[ -]?[A-Za-z0-9]{4}){2,7}(?:[ -]?[A-Za-z0-9]{1,3})?\b")
_CARD = re.compile(r"(?<![\d-])(?:\d[ .-]?){12,18}\d(?![\d-])")
# A run of 24+ characters mixing letters and digits with no spaces: a key or token.
_RANDOM_TOKEN = re.compile(
    r"(?<![A-Za-z0-9_\-])(?=[A-Za-z0-9_\-]*\d)(?=[A-Za-z0-9_\-]*[A-Za-z])"
    r"[A-Za-z0-9_\-]{24,}(?![A-Za-z0-9_\-])"
)
# The same with "/" and "+" (base64), when upper case, lower case and digits all appear.
_BASE64_TOKEN = re.compile(
    r"(?<![\w/+])(?=[\w/+]*\d)(?=[\w/+]*[a-z])(?=[\w/+]*[A-Z])[\w/+]{30,}={0,2}(?![\w/+])"
)
# Characters said one at a time: "h u n t e r 2 2", "4.1.1.1", "b-l-u-e".
_SPACED = re.compile(r"(?<![\w])\w(?:[ .\-]\w(?![\w])){2,}")
_NUMBER_RUN = re.compile(
    rf"\b(?:{'|'.join(lexicon.NUMBER_WORDS)})(?:[\s,-]+(?:{'|'.join(lexicon.NUMBER_WORDS)})){{2,}}\b",
    _FLAGS,
)
_WINDOW_WORDS = 6


def _prepare(text: str) -> str:
    """NFKC form without invisible (format) characters: what a reader would see."""
    text = unicodedata.normalize("NFKC", text)
    return "".join(ch for ch in text if unicodedata.category(ch) != "Cf")


def _collapsed(text: str) -> str:
    """``text`` with characters said one at a time joined and English number words made
    digits: "h u n t e r 2 2" -> "hunter22", "four five six seven" -> "4567"."""
    text = _SPACED.sub(lambda m: re.sub(r"[ .\-]", "", m.group(0)), text)
    return _NUMBER_RUN.sub(
        lambda m: "".join(lexicon.NUMBER_WORDS[w.lower()] for w in re.findall(r"\w+", m.group(0))),
        text,
    )


def _cards(text: str) -> list[str]:
    found = []
    for match in _CARD.finditer(text):
        digits = re.sub(r"\D", "", match.group(0))
        if 13 <= len(digits) <= 19 and luhn.is_valid(digits):
            found.append(match.group(0).strip())
    return found


def _ibans(text: str) -> list[str]:
    return [m.group(0) for m in _IBAN.finditer(text) if iban.is_valid(m.group(0).upper())]


def _checked_ids(text: str) -> list[str]:
    return [m.group(0) for pattern, valid in _CHECKED_IDS for m in pattern.finditer(text)
            if valid(m.group(0).upper())]  # fmt: skip


def _clean_word(word: str) -> str:
    return word.rstrip(".,:").lstrip(":")


def _looks_like_password(word: str) -> bool:
    """Letters and digits mixed (6+ chars), or any mix with a symbol: not a plain word,
    number, host name, e-mail address or version."""
    if len(word) < 6 or word.lower() in _NOT_PASSWORDS:
        return False
    if "@" in word and "." in word.split("@")[-1]:
        return False  # an e-mail address
    if re.fullmatch(r"v?\d+(?:\.\d+)+", word) or re.search(r"[A-Za-z]\.[A-Za-z]", word):
        return False  # a version or a host name
    has_letter = any(ch.isalpha() for ch in word)
    has_digit = any(ch.isdigit() for ch in word)
    has_symbol = any(ch in _SYMBOLS for ch in word[1:])
    return has_letter and (has_digit or has_symbol)


def _strong_password(word: str) -> bool:
    """Upper and lower case letters, a digit and a symbol, 8+ characters."""
    return (
        len(word) >= 8
        and any(ch.islower() for ch in word)
        and any(ch.isupper() for ch in word)
        and any(ch.isdigit() for ch in word)
        and any(ch in _SYMBOLS for ch in word[1:])
        and not ("@" in word and "." in word.split("@")[-1])
    )


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(text) if s.strip()]


def _digit_runs(words: Sequence[str]) -> list[str]:
    """Codes in a run of words: "4417", "4-8-2-1-9", "24 36 12", "2580#"."""
    found = []
    joined = " ".join(words)
    for match in re.finditer(r"(?<![\w-])\d(?:[ -]?\d){2,11}[#*]?(?![\w-])", joined):
        found.append(match.group(0))
    return found


def _near_credential_words(sentence: str) -> list[str]:
    values: list[str] = []
    for match in _CREDENTIAL_WORD.finditer(sentence):
        after = [_clean_word(w) for w in _WORD.findall(sentence[match.end() :])][:_WINDOW_WORDS]
        before = [_clean_word(w) for w in _WORD.findall(sentence[: match.start()])][-4:]
        values += [w for w in after if _looks_like_password(w)]
        values += _digit_runs(after)
        # "I always use Fluffy1987 as my password"
        if len(before) >= 2 and before[-1].lower() in {"my", "the", "our"}:
            values += [w for w in before if _looks_like_password(w)]
    return values


def _login_values(sentence: str) -> list[str]:
    if not _LOGIN_WORD.search(sentence):
        return []
    words = [_clean_word(w) for part in sentence.split() for w in re.split(r"[/:]", part)]
    return [w for w in words if _looks_like_password(w)]


def _identifier_values(text: str) -> list[str]:
    values = [m.group(0) for m in _SSN.finditer(text)] + [m.group(0) for m in _NINO.finditer(text)]
    values += _checked_ids(text)
    for match in _ID_LABEL.finditer(text):
        rest = text[match.end() : match.end() + 60]
        rest = re.sub(r"^\s*(?:is|was|:|=|-|#|no\.?)?\s*(?:is\s+|:\s*)?", "", rest, flags=re.I)
        marker = _MARKER.match(rest) or _ATTACHED.match(rest)
        rest = rest[marker.end() :].lstrip() if marker else rest
        value = _ID_VALUE.match(rest)
        if value and sum(ch.isdigit() for ch in value.group(0)) >= 5:
            values.append(value.group(0).strip())
    return values


def _talk_form(word: str) -> bool:
    """A lower-case participle or adjective ("changed", "gesperrt"); "Unlocked" written
    with a capital is taken for a value."""
    return word.islower() and _TALK_FORM.fullmatch(word) is not None


def _value_after(rest: str) -> str | None:
    """The value a marker discloses at the start of ``rest``: its first word that is not
    filler ("the word", "literally"), unless that word is talk ("too short", "stored")."""
    for match in _VALUE_WORD.finditer(rest):
        word = match.group("word").rstrip(".!?:'’")
        lower = word.lower()
        if lower in lexicon.FILLER_WORDS or not any(ch.isalnum() for ch in word):
            continue
        if not word or lower in lexicon.TALK_WORDS or len(word) < 2 or _talk_form(word):
            return None
        return word
    return None


def _disclosed(after: str) -> str | None:
    """The value ``after`` a label discloses: a marker within a few words, then a value."""
    if _COMPOUND.match(after):
        return None  # "password manager", "PIN pad"
    attached = _ATTACHED.match(after)
    if attached:
        value = _value_after(after[attached.end() :])
        if value:
            return value
    alone = _LAST_WORD.match(after)  # "..., password mangotree"
    if alone and alone.group("word").lower() not in lexicon.FILLER_WORDS:
        value = _value_after(alone.group("word"))
        if value:
            return value
    window = _WINDOW_END.match(after)
    head = window.group(0) if window else after
    for marker in _MARKER.finditer(head):
        value = _value_after(after[marker.end() :])
        if value:
            return value
    return None


def _labelled_values(text: str) -> list[str]:
    """Values a label discloses ("password is X", "X as my passphrase", "密码是 X")."""
    values = []
    for sentence in _sentences(text):
        for match in _LABEL.finditer(sentence):
            value = _disclosed(sentence[match.end() :])
            if value:
                values.append(value)
        for match in _CJK_LABEL.finditer(sentence):
            cjk = _CJK_VALUE.search(sentence[match.end() : match.end() + 16])
            if cjk:
                values.append(cjk.group(0))
        for pattern in (_AS_LABEL, _MADE_LABEL):
            made = pattern.search(sentence)
            if made:
                value = _value_after(made.group("value"))
                if value:
                    values.append(made.group("value").strip())
    return values


def _security_answers(text: str) -> list[str]:
    """A security answer anywhere after a word that names one, even across a full stop
    ("Security question: first car. Answer: Corolla"), or before it in the same sentence
    ("my first pet's name was Sparky, that's my security answer")."""
    values = []
    for sentence in _sentences(text):
        if _SECURITY.search(sentence):
            values += _answers(sentence, 0)
    label = _SECURITY.search(text)
    if label:
        values += _answers(text, label.end())
    return values


def _answers(text: str, start: int) -> list[str]:
    values = []
    for marker in _MARKER.finditer(text, start):
        value = _value_after(text[marker.end() :])
        if value and not _SECURITY.match(value):
            values.append(value)
    return values


@lru_cache(maxsize=64)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def _extra_values(text: str, extra_patterns: Sequence[str]) -> list[str]:
    values = []
    for pattern in extra_patterns:
        for match in _compiled(pattern).finditer(text):
            values.append(match.group(match.lastindex or 0) if match.lastindex else match.group(0))
    return values


def _findings(text: str, extra_patterns: Sequence[str]) -> list[tuple[str, list[str]]]:
    """Each kind of secret in ``text`` with the values found, in order of severity."""
    text = _prepare(text)
    found: list[tuple[str, list[str]]] = []
    for variant in dict.fromkeys((text, _collapsed(text))):
        found += _variant_findings(variant)
    found.append(("matches an admin's secret pattern", _extra_values(text, extra_patterns)))
    return [(reason, values) for reason, values in found if values]


def _variant_findings(text: str) -> list[tuple[str, list[str]]]:
    found: list[tuple[str, list[str]]] = []
    for label, pattern in _KEY_PATTERNS:
        found.append((f"contains {label}", [m.group(0) for m in pattern.finditer(text)]))
    for detector in _format_detectors():
        found.append((f"contains {detector.secret_type}", list(detector.analyze_string(text))))
    found.append(("contains a payment card number", _cards(text)))
    found.append(("contains a bank account number (IBAN)", _ibans(text)))
    found.append(("contains a national identity or account number", _identifier_values(text)))
    found.append(("contains a password or other credential", _labelled_values(text)))
    found.append(("contains the answer to a security question", _security_answers(text)))
    credentials: list[str] = []
    for sentence in _sentences(text):
        credentials += _near_credential_words(sentence) + _login_values(sentence)
        credentials += [m.group("value") for m in _BARE_CODE.finditer(sentence)]
    credentials += [w for w in map(_clean_word, _WORD.findall(text)) if _strong_password(w)]
    found.append(("contains a password, PIN or access code", credentials))
    tokens = [m.group(0) for p in (_RANDOM_TOKEN, _BASE64_TOKEN) for m in p.finditer(text)]
    found.append(("contains a long random token", tokens))
    return found


def secret_values(texts: Iterable[str], *, extra_patterns: Sequence[str] = ()) -> set[str]:
    """The exact secret strings (keys, passwords, codes, numbers) that appear in ``texts``."""
    values: set[str] = set()
    for text in texts:
        for _, found in _findings(text, extra_patterns):
            values.update(v.strip() for v in found)
    return {v for v in values if len(v) >= 4}


def secret_reason(
    text: str, known_secrets: Iterable[str] = (), *, extra_patterns: Sequence[str] = ()
) -> str | None:
    """Why ``text`` must not be stored (it holds a secret), or None if it looks clean."""
    findings = _findings(text, extra_patterns)
    if findings:
        return findings[0][0]
    prepared = _prepare(text)
    compact = re.sub(r"\s+", "", prepared)
    for secret in known_secrets:
        if secret in prepared or re.sub(r"\s+", "", secret) in compact:
            return "repeats a secret from the chats"
    return None
