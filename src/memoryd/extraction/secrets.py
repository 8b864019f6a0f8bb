"""Recognising secrets and personal identifiers so extraction never stores them (R13).

Two nets: ``secret_reason`` spots text that holds a credential or an identifier by its
form and its words, and ``secret_values`` collects the exact secret strings found in the
source chats, so a candidate that repeats one of them in other words is dropped too.

What counts (see docs/security.md and bench/secret_detection.py for how well it works):

- keys and tokens by format (``sk-...``, ``AKIA...``, ``ghp_...``, JWTs, private keys,
  credentials in URLs, long random strings);
- passwords and pass phrases: labelled ("password is ...", "pw: ...", "passphrase = ..."),
  near a credential word ("the password Tr0ub4dor&3", "... as my password"), in a login
  context ("log into staging as root with hunter2hunter2", "admin / N4sAdm1n"), or strong
  by their shape alone (letters, digits and symbols mixed: "Blu3Sky!88");
- PINs, door, gate, alarm and safe codes, combinations, one-time and backup codes;
- national identifiers (social security, national insurance, passport, tax, id card and
  driving licence numbers) and US social security numbers by their form;
- IBANs (checked with their mod-97 digits), payment card numbers (Luhn), CVVs, bank
  account, sort and routing numbers;
- whatever the admin's own regular expressions match (``extra_patterns``, from the
  ``secret_patterns`` run-time setting).

Text is NFKC-normalised and stripped of invisible characters first, so "p\u200bassword"
is a password too. Erring on the side of dropping a harmless fact is intended: a lost
fact is relearned, a stored password leaks into every prompt.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from functools import lru_cache

_KEY_PATTERNS = (
    ("an API key", re.compile(r"\b(?:sk|pk|rk)[-_](?:proj-|live_?|test_?|ant-)?[\w\-]{16,}")),
    ("an AWS access key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("a GitHub token", re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}")),
    ("a Slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("a Google API key", re.compile(r"\bAIza[0-9A-Za-z_\-]{30,}")),
    ("a webhook secret", re.compile(r"\bwhsec_[A-Za-z0-9]{16,}")),
    ("a JSON web token", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+")),
    ("a private key", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")),
    ("a credential in a URL", re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s:/@]+:[^\s/@]+@")),
)  # fmt: skip

# "password is X", "pwd: X", "token = X" ... followed by a value-like word.
_LABEL_ANY = (
    r"password|passwd|passphrase|pass\s?phrase|pwd|pw|pass|secret(?:\s+key)?|client\s+secret|"
    r"seed\s+phrase|recovery\s+phrase|mnemonic|master\s+password"
)
_LABEL_DIGITS = r"pin(?:\s+code)?|passcode|cvv|cvc|cvv2|puk"
_LABEL_KEY = r"api[ _-]?key|access[ _-]?key|auth[ _-]?token|token|credentials?"
_LABELLED = re.compile(
    rf"\b(?:(?P<any>{_LABEL_ANY})|(?P<digits>{_LABEL_DIGITS})|(?P<key>{_LABEL_KEY}))\b"
    r"(?:\s+(?:is|was|are|=|:)(?:\s+now)?|\s*[:=])\s*[\"'`]?(?P<value>[^\s\"'`,;]{3,})",
    re.IGNORECASE,
)
_VALUE_STOPWORDS = {
    "stored", "saved", "kept", "managed", "required", "needed", "rotated", "changed", "reset",
    "shared", "missing", "wrong", "invalid", "expired", "in", "the", "a", "an", "not",
    "never", "always", "set", "handled", "being", "now", "loaded", "read", "blocked",
    "locked", "my", "our", "your", "their", "his", "her", "too", "very", "also",
    "still", "same", "hashed", "encrypted", "masked", "long", "short", "weak", "strong",
    "used", "sent", "lost", "forgotten", "easy", "hard", "checked", "verified", "case",
    "empty", "optional", "incorrect", "fine", "ok", "okay", "different",
}  # fmt: skip

# A credential word, then within a few words of the same sentence, a value shaped like one.
_CREDENTIAL_WORD = re.compile(
    r"\b(?:password|passwd|passcode|passphrase|pwd|pw|pass|pin|puk|combination|combo|otp|"
    r"authenticator|(?:door|gate|garage|alarm|entry|access|keypad|lockbox|safe|lock|building|"
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
    r"(?<!tax )(?<!airport )(?<!bar )\bcodes?\b(?:\s+(?:is|was|of|:))?\s*[:=]?\s*"
    r"(?P<value>\d(?:[ -]?\d){3,11})(?![\w-])",
    re.IGNORECASE,
)
_LOGIN_WORD = re.compile(
    r"\b(?:log\s*(?:in|into|on)|logon|login|sign\s*(?:in|into)|signin|ssh|credentials|creds|"
    r"account|username|user\s*name|as\s+root|basic\s+auth|auth|unlock)\b",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"[.;!?](?:\s|$)")
_WORD = re.compile(r"[^\s/,;'\"()]+")
_DIGIT_CODE = re.compile(r"^\d(?:[ -]?\d){2,11}[#*]?$")
_SYMBOLS = set("!@#$%^&*~+=?")
_NOT_PASSWORDS = {"1password", "web01", "ipv4", "ipv6", "utf-8", "sha256", "base64", "x86_64"}

# Identifiers: a label, then within a few words five or more digits.
_ID_LABEL = re.compile(
    r"\b(?:social\s+security\s+(?:number|no\.?|#)|ssn|national\s+insurance\s+(?:number|no\.?)|"
    r"ni\s+number|nino|passport\s+(?:number|no\.?|#)|(?:identity|id)\s+card\s+(?:number|no\.?)|"
    r"national\s+id(?:entity)?(?:\s+number)?|id\s+number|aadhaar(?:\s+number)?|"
    r"social\s+insurance\s+(?:number|no\.?)|sin|tax\s+(?:id|number|code)|tin|bsn|"
    r"personnummer|dni|nie|nif|medicare\s+(?:number|no\.?)|"
    r"driver'?s\s+licen[cs]e(?:\s+(?:number|no\.?))?|licen[cs]e\s+number|"
    r"account\s+(?:number|no\.?)|account|acct\s+(?:number|no\.?)|sort\s+code|routing\s+number|"
    r"bsb|iban|bic|swift)(?!\w)",
    re.IGNORECASE,
)
_ID_VALUE = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9]|[ .\-/](?=[A-Za-z0-9])){3,30}")
_SSN = re.compile(r"(?<![\d-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\d-])")
_NINO = re.compile(r"\b[A-CEGHJ-PR-TW-Z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b")
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b")
_CARD = re.compile(r"(?<![\d-])(?:\d[ -]?){12,18}\d(?![\d-])")
# A run of 24+ characters mixing letters and digits with no spaces: a key or token.
_RANDOM_TOKEN = re.compile(
    r"(?<![A-Za-z0-9_\-])(?=[A-Za-z0-9_\-]*\d)(?=[A-Za-z0-9_\-]*[A-Za-z])"
    r"[A-Za-z0-9_\-]{24,}(?![A-Za-z0-9_\-])"
)
_WINDOW_WORDS = 6


def _prepare(text: str) -> str:
    """NFKC form without invisible (format) characters: what a reader would see."""
    text = unicodedata.normalize("NFKC", text)
    return "".join(ch for ch in text if unicodedata.category(ch) != "Cf")


def _luhn(digits: str) -> bool:
    total = 0
    for index, ch in enumerate(reversed(digits)):
        value = int(ch)
        if index % 2 == 1:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0


def _iban_ok(candidate: str) -> bool:
    compact = candidate.replace(" ", "")
    if not 15 <= len(compact) <= 34:
        return False
    moved = compact[4:] + compact[:4]
    number = "".join(str(int(ch, 36)) for ch in moved)
    return int(number) % 97 == 1


def _cards(text: str) -> list[str]:
    found = []
    for match in _CARD.finditer(text):
        digits = re.sub(r"\D", "", match.group(0))
        if 13 <= len(digits) <= 19 and _luhn(digits):
            found.append(match.group(0).strip())
    return found


def _ibans(text: str) -> list[str]:
    return [m.group(0) for m in _IBAN.finditer(text) if _iban_ok(m.group(0))]


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
    for match in _ID_LABEL.finditer(text):
        rest = text[match.end() : match.end() + 60]
        rest = re.sub(r"^\s*(?:is|was|:|=|-|#|no\.?)?\s*(?:is\s+|:\s*)?", "", rest, flags=re.I)
        value = _ID_VALUE.match(rest)
        if value and sum(ch.isdigit() for ch in value.group(0)) >= 5:
            values.append(value.group(0).strip())
    return values


def _labelled_values(text: str) -> list[str]:
    values = []
    for m in _LABELLED.finditer(text):
        value = m.group("value").rstrip(".")
        if value.lower() in _VALUE_STOPWORDS:
            continue
        if m.group("digits") and not any(ch.isdigit() for ch in value):
            continue
        if m.group("key") and not (len(value) >= 8 and any(ch.isdigit() for ch in value)):
            continue
        values.append(value)
    return values


@lru_cache(maxsize=64)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def check_pattern(pattern: str) -> str:
    """``pattern`` if it is a usable regular expression, else ValueError saying why."""
    try:
        _compiled(pattern)
    except re.error as exc:
        raise ValueError(f"invalid regular expression {pattern!r}: {exc}") from None
    return pattern


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
    for label, pattern in _KEY_PATTERNS:
        found.append((f"contains {label}", [m.group(0) for m in pattern.finditer(text)]))
    found.append(("contains a payment card number", _cards(text)))
    found.append(("contains a bank account number (IBAN)", _ibans(text)))
    found.append(("contains a national identity or account number", _identifier_values(text)))
    found.append(("contains a password or other credential", _labelled_values(text)))
    credentials: list[str] = []
    for sentence in _sentences(text):
        credentials += _near_credential_words(sentence) + _login_values(sentence)
        credentials += [m.group("value") for m in _BARE_CODE.finditer(sentence)]
    credentials += [w for w in map(_clean_word, _WORD.findall(text)) if _strong_password(w)]
    found.append(("contains a password, PIN or access code", credentials))
    found.append(
        ("contains a long random token", [m.group(0) for m in _RANDOM_TOKEN.finditer(text)])
    )
    found.append(("matches an admin's secret pattern", _extra_values(text, extra_patterns)))
    return [(reason, values) for reason, values in found if values]


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
