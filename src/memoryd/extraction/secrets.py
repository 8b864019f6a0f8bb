"""Recognising secrets so extraction never stores them (R13).

Two nets: ``secret_reason`` spots text that looks like a credential by its form (API key
prefixes, long random tokens, card numbers that pass the Luhn check, "password is ..."),
and ``secret_values`` collects the exact secret strings found in the source chats, so a
candidate that repeats one of them in other words is dropped too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_KEY_PATTERNS = (
    ("an API key", re.compile(r"\b(?:sk|pk|rk)-(?:proj-|live-|test-|ant-)?[A-Za-z0-9_\-]{16,}")),
    ("an AWS access key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("a GitHub token", re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}")),
    ("a Slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("a Google API key", re.compile(r"\bAIza[0-9A-Za-z_\-]{30,}")),
    ("a JSON web token", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+")),
    ("a private key", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")),
    ("a credential in a URL", re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s:/@]+:[^\s/@]+@")),
)
# "password is X", "pwd: X", "passcode = X", "token: X" ... followed by a value-like word.
_LABELLED = re.compile(
    r"\b(?:password|passwd|passphrase|passcode|pwd|pin|api[ _-]?key|access[ _-]?key|"
    r"auth[ _-]?token|token|credentials?|cvv|cvc)\b"
    r"(?:\s+(?:is|was|are|=|:)|\s*[:=])\s*[\"'`]?(?P<value>[^\s\"'`,;]{3,})",
    re.IGNORECASE,
)
_CARD = re.compile(r"(?<!\d)(?:\d[ -]?){12,18}\d(?!\d)")
# A run of 24+ characters mixing letters and digits with no spaces: a key or token.
_RANDOM_TOKEN = re.compile(
    r"(?<![A-Za-z0-9_\-])(?=[A-Za-z0-9_\-]*\d)(?=[A-Za-z0-9_\-]*[A-Za-z])"
    r"[A-Za-z0-9_\-]{24,}(?![A-Za-z0-9_\-])"
)
_VALUE_STOPWORDS = {
    "stored", "saved", "kept", "managed", "required", "needed", "rotated", "changed", "reset",
    "shared", "missing", "wrong", "invalid", "expired", "in", "the", "a", "an", "not",
    "never", "always", "set", "handled", "being", "now", "loaded", "read",
}  # fmt: skip


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


def _cards(text: str) -> list[str]:
    found = []
    for match in _CARD.finditer(text):
        digits = re.sub(r"\D", "", match.group(0))
        if 13 <= len(digits) <= 19 and _luhn(digits):
            found.append(match.group(0).strip())
    return found


def _labelled_values(text: str) -> list[str]:
    return [
        m.group("value")
        for m in _LABELLED.finditer(text)
        if m.group("value").lower().strip(".") not in _VALUE_STOPWORDS
    ]


def secret_values(texts: Iterable[str]) -> set[str]:
    """The exact secret strings (keys, passwords, card numbers) that appear in ``texts``."""
    values: set[str] = set()
    for text in texts:
        for _, pattern in _KEY_PATTERNS:
            values.update(m.group(0) for m in pattern.finditer(text))
        values.update(m.group(0) for m in _RANDOM_TOKEN.finditer(text))
        values.update(_cards(text))
        values.update(v.rstrip(".") for v in _labelled_values(text))
    return {v for v in values if len(v) >= 4}


def secret_reason(text: str, known_secrets: Iterable[str] = ()) -> str | None:
    """Why ``text`` must not be stored (it holds a secret), or None if it looks clean."""
    for label, pattern in _KEY_PATTERNS:
        if pattern.search(text):
            return f"contains {label}"
    if _cards(text):
        return "contains a payment card number"
    if _labelled_values(text):
        return "contains a password or other credential"
    if _RANDOM_TOKEN.search(text):
        return "contains a long random token"
    compact = re.sub(r"\s+", "", text)
    for secret in known_secrets:
        if secret in text or re.sub(r"\s+", "", secret) in compact:
            return "repeats a secret from the chats"
    return None
