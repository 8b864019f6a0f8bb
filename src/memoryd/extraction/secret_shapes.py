"""What a secret value looks like, and what only looks like one (R13).

``memoryd.extraction.secrets`` finds a value near a credential word, a code word or a
label; this module says whether the value has the form of a secret:

- a password-shaped word mixes letters with digits or symbols and is not a word with its
  punctuation ("Friday!"), an amount, an e-mail address, a host name or version, or the
  name of a thing (an algorithm or product with its number, "PBKDF2"; a UUID, or a hex
  string in talk of commits and builds, when no key or token is talked of);
- a value that stands for one is not one: a placeholder or a format's mask
  ("<your-key>", "XXXXX-XXXXX"), a reference to where it is kept ("$DB_PASSWORD"), a
  value its clause calls an example, a test or public value, a public key or a wallet
  address, base64 that decodes to plain text.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re

from memoryd.extraction import secret_words as lexicon

_I = re.IGNORECASE
SYMBOLS = set("!@#$%^&*~+=?")
_NOT_PASSWORDS = {"1password", "web01", "ipv4", "ipv6", "utf-8", "base64", "x86_64"}
# Hash algorithms by name ("sha256", "md5", "blake2b"), as hashlib knows them.
_HASH_NAMES = frozenset(re.sub(r"[\W_]", "", name.lower()) for name in hashlib.algorithms_available)
# Words with digits that name a thing, not a secret: algorithms and standards ("PBKDF2",
# "HMAC-SHA512", "GPT4o", "Argon2id", "Log4j"), versions ("v3.8.1-rc2", "2.0.0b3") and
# document numbers ("800-63B").
_TECHNICAL_NAME = re.compile(
    r"(?:[A-Z]{2,5}-)?[A-Z]{2,5}\d{1,5}[a-z]{0,2}|[A-Z][A-Za-z]+\d[a-z]{1,2}|[A-Z][a-z]+\d+\.\d+|"
    r"v?\d+(?:\.\d+)+(?:[-.+]?[A-Za-z]+\d*)*|\d+(?:-\d+)*[A-Za-z]?"
)
_UUID = re.compile(r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")
_HEX = re.compile(r"(?:0x)?(?:[0-9a-f]{6,64}|[0-9A-F]{6,64})")
# Talk of code history or colours, where a hex string is a commit, a digest or a colour.
_HASH_TALK = re.compile(
    r"\b(?:commit(?:s|ted)?|revert(?:s|ed)?|bisect|cherry-?pick(?:ed)?|merge[sd]?|rebased?|"
    r"revision|rev|head|pr|pull\s+request|build|checksum|sha\d*|hash(?:es)?|digest|tag(?:ged)?|"
    r"blame|diff|branch|git|hex|colou?r|fix(?:ed|es)?|bug|regression|introduced|image|"
    r"release|version)\b",
    _I,
)
# Talk of keys, where a UUID may be one ("Heroku API key: 3f2a7c1e-...").
_KEY_TALK = re.compile(
    r"(?<![a-z])(?:keys?|tokens?|secrets?|pass\s?words?|passwd|credentials?|creds|bearer)"
    r"(?![a-z])",
    _I,
)
# What makes a credential or code word the first half of a compound noun: "password
# manager", "PIN pad", "code review", and a public kind of code ("código de rastreio").
COMPOUND = re.compile(
    rf"\s*(?:{lexicon.COMPOUND_NOUNS})\b|"
    rf"{lexicon.KIND_LINK}\s*(?:{lexicon.PUBLIC_CODE_KINDS})\b",
    _I,
)
PUBLIC_KIND = re.compile(rf"(?:{lexicon.PUBLIC_CODE_KINDS})s?", _I)
WORD = re.compile(r"[^\s/,;'\"()]+")  # a word as a value is typed in a sentence
# What discloses a label's value ("is", "lautet", ":"), and what is written onto the label
# ("password's", "密码是").
MARKER = re.compile(rf"(?<![\w'’])(?:{lexicon.MARKERS})(?![\w'’])|[:=：]", _I)
ATTACHED = re.compile(rf"\s*(?:{lexicon.ATTACHED_MARKERS})", _I)
_PUNCTUATION = "?!.,:;¿¡…'\"‘’“”«»"  # around a word, not in it: "Hello?", "¿verdad?"
_AMOUNT = re.compile(r"[$€£¥₩]\d|\d[$€£¥₩]$|\d(?:[.,]\d{3})+(?:[.,]\d\d)?$")
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[A-Za-z]{2,}")
_HOST = re.compile(r"(?:[\w-]+\.)+[A-Za-z]{2,24}")  # "api.example.com", not "Churro.Loco5"
_CRYPT = re.compile(r"\$(?:2[abxy]?|[156]|argon2i?d?|scrypt|pbkdf2[\w-]*)\$")  # a stored hash

# A value that stands for a secret: "ghp_xxxx...", "****", "<your key>", "{{token}}", a
# format's mask ("XXXXX-XXXXX") and where the value is kept (``_REFERENCE``).
_REFERENCE = (
    r"os\.environ|getenv|process\.env|ENV\["
    r"|(?-i:(?<![\w$])\$\{?[A-Z_][A-Z0-9_]{2,}\b|%[A-Z_][A-Z0-9_]+%)"
)
_PLACEHOLDER = re.compile(
    r"(?:^|[=:])[\w-]{0,12}?(?:[xX]{6,}|\*{3,}|•{3,}|\.{3,}|…)\W*$|<[^<>]*>|\{\{|\$\{|\[[A-Z_ ]+\]|"
    r"^\W*(?:[xX#*•]{3,}[-./ ]?){2,}\W*$|"
    rf"\b(?:your|my)[-_]\w*|placeholder|redacted|changeme|dummy|{_REFERENCE}",
    _I,
)
# A sentence that says its value is an example, a test value or a public one.
_NOT_SECRET_CONTEXT = re.compile(
    rf"(?<![{lexicon.LATIN}@.-])(?:{lexicon.EXAMPLE_WORDS}|{lexicon.PUBLIC_WORDS})"
    rf"(?![{lexicon.LATIN}@-]|\.\w)",
    _I,
)
# Public by form: an OpenSSH public key with its comment, a PEM public key or
# certificate, a Bitcoin (bech32) or Ethereum address, a key's fingerprint.
_PUBLIC_FORM = re.compile(
    r"(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-nistp\d+)\s+AAAA[\w+/=]+(?:\s+[\w.-]+@[\w.-]+)?|"
    r"-----BEGIN (?:[A-Z0-9]+ )*(?:PUBLIC KEY|CERTIFICATE|CERTIFICATE REQUEST|PUBLIC KEY BLOCK)"
    r"-----[\s\S]*?-----END [A-Z0-9 ]+-----|"
    r"\bbc1[ac-hj-np-z02-9]{25,87}\b|\b0x[0-9a-fA-F]{40}\b|\bSHA256:[\w+/]{43}\b"
)
_IN_URL = re.compile(r":([^:@/\s]+)@")
_ANY_HINT = re.compile(
    r"[xX]{6}|[xX#]{3}[-./ ]?[xX#]{3}|\*{3}|•{3}|\.{3}|…|<|\{\{|\$\{|\[[A-Z_ ]+\]|:[^:@/\s]+@|"
    rf"{_REFERENCE}|"
    r"\b(?:your|my)[-_]|placeholder|redacted|changeme|dummy|"
    rf"{_PUBLIC_FORM.pattern}|{_NOT_SECRET_CONTEXT.pattern}",
    _I,
)
_USER_PASS = re.compile(r"^[\w.@+-]{1,64}:\S+$")  # "user:pass", the form of HTTP basic auth


def _punctuated_word(word: str) -> bool:
    """Letters with the punctuation of the sentence around them: "Hello?", "¿verdad?"."""
    return word.lstrip(_PUNCTUATION).rstrip(_PUNCTUATION).isalpha()


def amount(word: str) -> bool:
    """A sum of money: "$899", "48,99€", "1,249.99"."""
    return _AMOUNT.search(word) is not None


def looks_like_password(word: str) -> bool:
    """Letters and digits mixed (6+ chars), or any mix with a symbol: not a plain word
    with its punctuation, number, amount, host name, e-mail address, version or stored
    hash ("$2b$12$...")."""
    if len(word) < 6 or word.lower() in _NOT_PASSWORDS or _AMOUNT.search(word):
        return False
    if _EMAIL.fullmatch(word) or _HOST.fullmatch(word) or _CRYPT.match(word):
        return False
    if re.fullmatch(r"v?\d+(?:\.\d+)+", word):
        return False  # a version
    if _punctuated_word(word) or re.fullmatch(r"[A-Za-z]+\++", word.rstrip(_PUNCTUATION)):
        return False  # "Hello?", a name with a plus ("disney+", "Notepad++")
    has_letter = any(ch.isalpha() for ch in word)
    has_digit = any(ch.isdigit() for ch in word)
    has_symbol = any(ch in SYMBOLS for ch in word[1:].rstrip("?"))  # "authorized_keys?" asks
    return has_letter and (has_digit or has_symbol)


def strong_password(word: str) -> bool:
    """Upper and lower case letters, a digit and a symbol, 8+ characters."""
    return (
        len(word) >= 8
        and any(ch.islower() for ch in word)
        and any(ch.isupper() for ch in word)
        and any(ch.isdigit() for ch in word)
        and any(ch in SYMBOLS for ch in word[1:].rstrip("?"))  # "1Password?" asks
        and not _EMAIL.fullmatch(word)
        and not _punctuated_word(word)
        and not decodes_to_text(word)
        and not _CRYPT.match(word)
    )


def talks_of(pattern: re.Pattern[str], sentence: str) -> bool:
    """Whether ``sentence`` uses a word of ``pattern`` other than as the first half of a
    compound noun ("password prompt", "login bug") or for a public kind of code
    ("codice del corso")."""
    return any(
        not (COMPOUND.match(sentence, m.end()) or public_kind(m.group(0)))
        for m in pattern.finditer(sentence)
    )


def public_kind(words: str) -> bool:
    """Whether ``words`` (a code word and what follows it) name a public kind of code
    ("codice del corso", "código de barras")."""
    return any(PUBLIC_KIND.fullmatch(word) for word in re.findall(r"\w+", words)[1:])


def names_a_thing(word: str, before: str, sentence: str) -> bool:
    """Whether a password-shaped ``word`` (after ``before``) is the name of something: an
    algorithm, product, host or version, a thing named with a determiner ("my Windows11
    laptop"), a UUID outside talk of keys, a hex string in talk of commits and builds."""
    if word.lower() in _NOT_PASSWORDS or _hash_name(word):
        return True
    if _TECHNICAL_NAME.fullmatch(word) or before.lower() in lexicon.DETERMINERS:
        return True
    return identifier(word, sentence)


def identifier(word: str, sentence: str) -> bool:
    """Whether ``sentence`` makes ``word`` an identifier, not a key: a UUID, or a hex
    string in talk of commits, builds and hashes, when the sentence does not talk of
    keys, tokens or passwords ("request id 3fa85f64-...", "commit 9fceb02")."""
    if talks_of(_KEY_TALK, sentence):
        return False
    return _UUID.fullmatch(word) is not None or (
        _HEX.fullmatch(word) is not None and _hash_talk(sentence)
    )


def _hash_talk(sentence: str) -> bool:
    """Talk of commits, builds or digests, or a hash algorithm hashlib knows by name
    ("the MD5 of an empty string is d41d8cd9...")."""
    return _HASH_TALK.search(sentence) is not None or any(map(_hash_name, WORD.findall(sentence)))


def _hash_name(word: str) -> bool:
    """Whether ``word`` names a hash algorithm hashlib knows ("SHA-256", "md5")."""
    return re.sub(r"[\W_]", "", word.lower()) in _HASH_NAMES


def random_letters(body: str) -> bool:
    """Whether ``body`` looks drawn at random: it holds a digit, or a quarter or more of
    its letters are capitals and a quarter small (camelCase names have few capitals)."""
    letters = [ch for ch in body if ch.isalpha()]
    upper = sum(ch.isupper() for ch in letters)
    return len(letters) < len(body) or 4 * min(upper, len(letters) - upper) >= len(letters)


def decodes_to_text(token: str) -> bool:
    """Whether ``token`` is base64 of plain text ("aGVsbG8gd29ybGQ=" is "hello world", a
    JWT's header is JSON): an encoding, not a random key, unless the text is a
    "user:password" pair."""
    body = token.rstrip("=")
    if len(body) < 8 or not re.fullmatch(r"[A-Za-z0-9+/_-]+", body):
        return False
    padded = body + "=" * (-len(body) % 4)
    try:
        text = base64.b64decode(padded, altchars=b"-_", validate=False).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return False
    printable = sum(ch.isprintable() for ch in text) == len(text)
    return printable and not _USER_PASS.match(text) and any(ch.isalpha() for ch in text)


def may_stand_for_one(text: str) -> bool:
    """Whether ``text`` holds anything ``stands_for_one`` looks for (most texts do not)."""
    return _ANY_HINT.search(text) is not None


def stands_for_one(value: str, text: str) -> bool:
    """Whether ``value``, found in ``text``, stands for a secret rather than being one: a
    placeholder, a credential word as the credential ("user:password@"), a value the
    sentence around it calls an example, a test or public value, a public key or a
    wallet address."""
    token = _token_around(value, text)
    if _PLACEHOLDER.search(token):
        return True
    if any(value in m.group(0) or token in m.group(0) for m in _PUBLIC_FORM.finditer(text)):
        return True
    in_url = _IN_URL.search(token)  # "postgres://user:password@localhost"
    if in_url and re.fullmatch(lexicon.CREDENTIAL_LABELS, in_url.group(1), _I):
        return True
    return _NOT_SECRET_CONTEXT.search(_sentence_around(value, text)) is not None


def _token_around(value: str, text: str) -> str:
    """The whitespace-delimited stretch of ``text`` holding ``value``."""
    start = text.find(value)
    if start < 0:
        return value
    left = text.rfind(" ", 0, start) + 1
    right = text.find(" ", start + len(value))
    return text[left : right if right >= 0 else len(text)]


_CLAUSE_ENDS = (". ", "! ", "? ", "\n", "。", " — ", " – ")


def _sentence_around(value: str, text: str) -> str:
    """The clause of ``text`` holding ``value``: a dash sets a new one apart ("APP_USR-...
    — posso usar essas mesmas no sandbox?" asks of a live key)."""
    start = text.find(value)
    if start < 0:
        return text
    left = max(text.rfind(sep, 0, start) for sep in _CLAUSE_ENDS) + 1
    ends = [i for sep in _CLAUSE_ENDS if (i := text.find(sep, start + len(value))) >= 0]
    return text[left : min(ends) if ends else len(text)]
