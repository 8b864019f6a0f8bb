"""Recognising secrets and personal identifiers so extraction never stores them (R13).

Two nets: ``secret_reason`` spots text that holds a credential or an identifier by its
form and its words, and ``secret_values`` collects the exact secret strings found in the
source chats, so a candidate that repeats one of them in other words is dropped too.

A secret is found by three things together (docs/security.md and
bench/secret_detection.py say how well it works):

- a concept: a sentence names a credential, a code, a lock, a bank, an identity document
  or a security question in any language memoryd serves (``secret_words``), not as the
  first half of a compound noun ("password manager") nor a public kind of code ("zip
  code"); a label may be written onto CJK text, "_" or "-" ("DB_PASSWORD=");
- a value anywhere in that sentence, not only right after a label: a word typed like a
  password, a number that is no amount, count, year or reference, a name given with a
  verb of answering ("j'ai mis Caramel");
- and no sign that the value stands for a secret (``secret_shapes``): a placeholder, an
  example, a test or public value, base64 of plain text.

Keys and tokens are found by format (detect-secrets' detectors and ``_KEY_PATTERNS`` for
what they miss), cards, IBANs and national identifiers in ``secret_ids``, what the
sentence around makes a secret (recovery phrases, security answers, one-time, lock and
bare codes) in ``secret_context``, and the admin's own ``extra_patterns``.

Text is NFKC-normalised and stripped of invisible characters first, and read a second
time with spaced-out characters joined and number words made digits ("h u n t e r 2 2",
"four five six seven"). Erring on the side of dropping a harmless fact is intended: a
lost fact is relearned, a stored password leaks into every prompt.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from functools import cache, lru_cache

from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
from detect_secrets.plugins.base import RegexBasedDetector

from memoryd.extraction import secret_context as context
from memoryd.extraction import secret_ids as ids
from memoryd.extraction import secret_shapes as shapes
from memoryd.extraction import secret_words as lexicon

# What detect-secrets' format detectors miss.
_GROUP, _MIXED = r"[A-Z\d]{4,6}", r"(?=[A-Z]*\d)(?=\d*[A-Z])[A-Z\d]{4,6}(?![A-Z\d])"
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
    ("a credential on a command line", re.compile(r"(?<!\S)(?:-u|--user)[\s=]+[^\s:]+:[^\s@]+")),
    # a licence key or a gift card's code: dashed groups of 4-6 capitals and digits or of
    # digits, or spaced ones two of which mix both and not hex ("PMCB UFG6 DF55 62SB")
    ("a licence key", re.compile(r"(?<![\w-])(?:(?=[\w-]*\d)(?=[\w-]*[A-Z])[A-Z\d]{4,6}"
                                 r"(?:-[A-Z\d]{4,6}){2,}|\d{4}(?:-\d{4,6}){3,}|"
                                 rf"(?=(?:[A-Z\d]+ )*[A-F\d]*[G-Z])(?:{_GROUP} )*?{_MIXED}"
                                 rf"(?: {_GROUP})*? {_MIXED}(?: {_GROUP})*)(?![\w-])")),
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
# A label is a word of its own among Latin letters, and may be written onto CJK text, a
# "_" or a "-" ("Amazonのpass:", "DB_PASSWORD=", "Router-Passwort"), or end a German
# compound ("Routerpasswort").
_LABEL = re.compile(
    rf"(?P<label>(?<![{lexicon.LATIN}])(?:{lexicon.CREDENTIAL_LABELS}|{lexicon.SECURITY_LABELS})|"
    rf"(?<=[a-zäöüß])(?:{lexicon.GERMAN_HEADS}))"
    rf"(?:(?<=[{lexicon.LATIN}])(?![{lexicon.LATIN}])|(?<![{lexicon.LATIN}])(?!\w))",
    _FLAGS,
)
_COMPOUND = shapes.COMPOUND
_TALK_FORM = re.compile(lexicon.TALK_FORMS)
_LAST_WORD = re.compile(r"\s+(?P<word>[^\s,;:]+)\s*(?:[,;]|$)")
_WINDOW_END = re.compile(r"^(?:\s*\S+){0,8}")
_ASIDE = re.compile(r"\([^()]*\)")  # "passphrase del wallet (non la seed, ...) è X"
_CJK_LABEL = re.compile(lexicon.CJK_LABELS)
_CJK_VALUE = re.compile(r"[A-Za-z0-9][A-Za-z0-9!@#$%^&*._-]{2,}")
# What stands between a CJK label and its value: a marker ("密码是 X", "비밀번호는 X"), or
# nothing; after other words a value needs a digit or symbol ("忘了 Apple ID 密码，可以用
# 家人的 iPhone" names a phone).
_CJK_GAP = re.compile(
    r"\s*(?:[:：=]|[是为為は는은이가]|就是|改成|改为|设成|设为|换成)?\s*[\"'“「『]?\s*"
)
# A code right after its label, with no marker: "digicode 4B17A", "recovery key 269896-...".
# A value given as the name or date of something, then named: "is my cat's name,
# Marmalade, with ...", "my password my cat's name, Pickles", "est le nom de mon chat, Tigrou".
_NAMED_VALUE = re.compile(
    rf"\s*(?:(?:{lexicon.MARKERS})\s+)?(?:\S+\s+){{0,3}}?(?:name|nom|nombre|nome|namen?|birthday|"
    r"date\s+of\s+birth|birth\s*(?:day|date|year))\b[^.!?;]{0,40}?[\s,:(—-]"
    r"(?P<value>(?-i:[A-Z])[^\s,.;!?()]+|\d{2,})",
    _FLAGS,
)
# A value pointed at, then named: "Seventeen blue horses ran past the old mill <- that's
# the phrase for my vault", "Tulpe8844 — c'est mon mot de passe".
_POINTER = re.compile(
    r"(?P<arrow><-+|←|<=|👈|—|–|,)\s*(?:that['’]s|this\s+is|it['’]s|is|c['’]est|es|ist|é|è)\s+",
    _FLAGS,
)
_POINTED_LABEL = re.compile(
    r"(?:\S+\s+){0,2}?"
    rf"(?:{lexicon.CREDENTIAL_LABELS}|{lexicon.PHRASE_LABELS})(?![{lexicon.LATIN}])",
    _FLAGS,
)
_CODE_AFTER = re.compile(
    r"(?:\s*(?:番号|号码|號碼|번호|#|№))?"  # "PIN 번호 5521-8830", "pin# 9702"
    r"\s+(?P<value>(?=[\w.-]*\d)[A-Za-z0-9][A-Za-z0-9.-]{1,}[A-Za-z0-9])(?![\w-])"
)
_SPELLED = re.compile(lexicon.SPELLED_LETTER, _FLAGS)
_ACCOUNT_VALUE = re.compile(r"(?<!\S)[A-Z][\w.-]*:\s*(?P<value>\S+)")
_SECURITY = re.compile(rf"\b(?:{lexicon.SECURITY_LABELS})\b", _FLAGS)
_AS_LABEL = re.compile(
    r"\b(?:use|used|using|chose|picked|pick|have|set)\s+(?P<value>\S+(?:\s+\S+){0,5}?)\s+as\s+"
    rf"(?:the|my|our|a)?\s*(?:\w+\s+)?(?:{lexicon.CREDENTIAL_LABELS})\b",
    _FLAGS,
)
# "j'ai mis Madeleine44 comme mot de passe", "uso Girasol77 como contraseña": the word
# before, when no word of the languages, taken as the credential.
_AS_VALUE = re.compile(
    r"\s(?:as|comme|como|als|come)\s+(?:[\w'’]+\s+)?(?:\w+\s+)?"
    rf"(?:{lexicon.CREDENTIAL_LABELS})\b",
    _FLAGS,
)
_MADE_LABEL = re.compile(
    r"\b(?:made|make|set|changed|change|reset)\s+(?:my|the|our)\s+(?:\w+\s+)?"
    rf"(?P<label>{lexicon.CREDENTIAL_LABELS})(?P<to>(?:\s+\S+){{0,5}}?\s+to)?\s+(?P<value>.+)",
    _FLAGS,
)
_CODE_LABEL = re.compile(
    r"code|código|codice|pin|puk|combin|combo|cvv|cvc|csc|cid|geheimzahl|cryptogramme|prüf|"
    r"暗証番号|인증번호|安全码|セキュリティコード|보안",
    _FLAGS,
)
_ASCII_VALUE = re.compile(r"[A-Za-z0-9]")
_FORGET = re.compile(rf"(?<!\w)(?:{lexicon.FORGET_WORDS})", _FLAGS)
_NAMING_WORDS = {"word", "phrase:", "name:"}  # "is the word X": X is mentioned, not used
_VALUE_WORD = re.compile(r"[\"'`‘’“”(]*(?P<word>[^\s\"`‘“”,;)]+)")

# A key, in the languages memoryd serves: a word of lower-case letters and digits after
# it is the key ("the wifi uses the key maplesyrup42"); digits alone are not ("key cards
# for rooms 311"), nor capitals and digits, a model's name ("key fob HX2021B"), nor a
# word with a question mark ("the key terms?").
_KEY_WORD = re.compile(
    r"\b(?:keys?|cl[ée]s?|clef|llaves?|schlüssel|chaves?|chiavi|chiave|kunci)\b", _FLAGS
)
_LOGIN_WORD = re.compile(
    r"\b(?:log\s*(?:in|into|on)|logon|login|sign\s*(?:in|into)|signin|ssh|credentials|creds|"
    r"credenciais|credenciales|credenziali|identifiants|zugangsdaten|portal|"
    r"account|akun|username|user\s*name|as\s+root|basic\s+auth|auth|unlock)\b|"
    # a network joined with a password: "와이파이 ... KT_GiGA_5G_8E21 / ktgiga1234!"
    r"\b(?:wi-?fi|wlan|ssid)\b|와이파이|ワイファイ|无线网|無線LAN",
    re.IGNORECASE,
)
# An ellipsis is a pause, not the end of a sentence: "my Steam password... G4meOn_Forever".
# ... nor is a mark standing alone ("with a ! at the end"), nor a list's number ("\n2. ");
# a question and its answer make one clause.
_SENTENCE_END = re.compile(r"(?<!\.\.)(?<!\n\d)(?<!\n\d\d)(?<=\S)[.;!?。！？](?:\s|$)|[。！？]")
_QUESTION_END = re.compile(r"(?<!\.\.)(?<!\n\d)(?<!\n\d\d)(?<=\S)[.;!。！](?:\s|$)|[。！]")
_TYPED = re.compile(r"[!-.0-9;-~\u00c0-\u024f]+")  # what a password is typed with: not "/", ":"
# A run of 24+ characters mixing letters and digits with no spaces: a key or token.
_RANDOM_TOKEN = re.compile(
    r"(?<![A-Za-z0-9_\-])(?=[A-Za-z0-9_\-]*\d)(?=[A-Za-z0-9_\-]*[A-Za-z])"
    r"[A-Za-z0-9_\-]{24,}(?![A-Za-z0-9_\-]|\.[A-Za-z])"  # not a host's part: "...-k3j9.apps.google"
)
# A provider's prefix and a random body: "hf_...", "npm_...", "glpat-..."; random when it
# holds a digit or mixes cases as random letters do (not "get_AbstractProxyFactoryBean").
_PREFIXED_TOKEN = re.compile(r"(?<![\w-])[a-z]{2,8}[_-](?P<body>[A-Za-z0-9]{24,})(?![\w-])")
# The same with "/" and "+" (base64), when upper case, lower case and digits all appear.
_BASE64_TOKEN = re.compile(
    r"(?<![\w/+])(?=[\w/+]*\d)(?=[\w/+]*[a-z])(?=[\w/+]*[A-Z])[\w/+]{30,}={0,2}(?![\w/+])"
)
# Characters said one at a time: "h u n t e r 2 2", "4.1.1.1", "b-l-u-e", "9, 2, 6, 6".
_SPACED = re.compile(r"(?<![\w])\w(?:(?:[ .\-]| - |,\s?)\w(?![\w])){2,}")
_NUMBER_RUN = re.compile(
    rf"\b(?:{'|'.join(lexicon.NUMBER_WORDS)})(?:[\s,-]+(?:{'|'.join(lexicon.NUMBER_WORDS)})){{2,}}\b",
    _FLAGS,
)
_WINDOW_WORDS = 6
_EXPLICIT = {":", "=", "：", "->", "=>", "→"}


def _prepare(text: str) -> str:
    """NFKC form without invisible (format) characters: what a reader would see. A CJK
    comma stays a pause ("为662810，5分钟" is no decimal)."""
    if text.isascii():
        return text
    text = unicodedata.normalize("NFKC", text.replace("，", ", ").replace("；", "; "))
    return "".join(ch for ch in text if unicodedata.category(ch) != "Cf")


def _collapsed(text: str) -> str:
    """``text`` with characters said one at a time joined and number words made
    digits: "h u n t e r 2 2" -> "hunter22", "four five six seven" -> "4567"."""
    text = _SPACED.sub(lambda m: re.sub(r"[ .,\-]", "", m.group(0)), text)
    return _NUMBER_RUN.sub(
        lambda m: "".join(lexicon.NUMBER_WORDS[w.lower()] for w in re.findall(r"\w+", m.group(0))),
        text,
    )


def _clean_word(word: str) -> str:
    return word.rstrip(".,:").lstrip(":")


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(text) if s.strip()]


def _password_words(words: Sequence[str], sentence: str) -> list[str]:
    """The words of ``words`` shaped like a password and naming nothing else: not a thing
    (``shapes.names_a_thing``) nor a user name ("username is throwaway_gardener_88")."""
    return [
        word
        for i, word in enumerate(words)
        if shapes.looks_like_password(word)
        and not shapes.names_a_thing(word, words[i - 1] if i else "", sentence)
        and not (
            (at := sentence.find(word)) > 0
            and _USER_NAME.search(sentence, max(0, at - 40), at) is not None
        )
    ]


_USER_NAME = re.compile(
    rf"(?:{lexicon.USER_LABELS})\s*(?:(?:{lexicon.MARKERS}|[是は는])\s*)?[\"'“「]?\s*$", _FLAGS
)


def _mixed(word: str, text: str) -> bool:
    """A password-shaped word with capitals, small letters and digits ("Qu1ckS1lver.88")."""
    return bool(_password_words([word], text)) and all(
        any(test(ch) for ch in word) for test in (str.isupper, str.islower, str.isdigit)
    )


def _key_values(sentence: str) -> list[str]:
    """A password-shaped word of lower-case letters and digits within a few words after
    a key (``_KEY_WORD``)."""
    values: list[str] = []
    for match in _KEY_WORD.finditer(sentence):
        after = [_clean_word(w) for w in shapes.WORD.findall(sentence[match.end() :])][
            :_WINDOW_WORDS
        ]
        values += [
            w
            for w in _password_words(after, sentence)
            if not w.isupper() and any(ch.isdigit() for ch in w)
        ]
    return values


def _clause_values(text: str) -> list[str]:
    """Values of a text with a clause that talks of a credential or of logging in: the
    words shaped like a password anywhere, maybe a sentence on ("forgot my pw again. it
    was m1ssy_m00"), capitals spelt ("capital M, ...") and, in a clause with a credential
    word, the numbers that are not amounts, counts, years or references."""
    values: list[str] = []
    talked = spelled = False
    for clause in _QUESTION_END.split(text):  # "my mail pass? it's X" crosses the "?"
        credential = shapes.talks_of(_LABEL, clause) or _CJK_LABEL.search(clause) is not None
        talked = talked or credential or shapes.talks_of(_LOGIN_WORD, clause)
        spelled = spelled or credential
        values += context.codes(clause) if credential else []
    words = [_clean_word(w) for w in _TYPED.findall(text)] if talked else []
    return _password_words(words, text) + values + (_SPELLED.findall(text) if spelled else [])


def _tokens(text: str) -> list[str]:
    """Long random strings, except the UUIDs and hex digests a sentence makes identifiers."""
    prefixed = [
        m.group(0) for m in _PREFIXED_TOKEN.finditer(text) if shapes.random_letters(m["body"])
    ]
    return prefixed + [
        m.group(0)
        for sentence in _sentences(text)
        for pattern in (_RANDOM_TOKEN, _BASE64_TOKEN)
        for m in pattern.finditer(sentence)
        if not shapes.identifier(m.group(0), sentence) and not shapes.decodes_to_text(m.group(0))
    ]


def _value_after(rest: str, in_clause: bool = False) -> str | None:
    """The value a marker discloses at the start of ``rest``: its first word that is not
    filler, unless that word is talk ("too short") or, ``in_clause`` (the marker follows
    its label), a common word the clause goes on from ("is way too long"), unless quoted
    or named as a word ("is the word dragonfly")."""
    named = False
    for match in _VALUE_WORD.finditer(rest):
        word = match.group("word").rstrip(".!?:'’")
        lower = word.lower()
        if lower in lexicon.FILLER_WORDS or not any(ch.isalnum() for ch in word):
            named = named or lower in _NAMING_WORDS
            continue
        # a lower-case participle or adjective is talk ("changed"), "Unlocked" a value
        talk_form = word.islower() and _TALK_FORM.fullmatch(word) is not None
        if not word or lower in lexicon.TALK_WORDS or len(word) < 2 or talk_form:
            return None
        quoted = match.group(0) != match.group("word")
        talk = in_clause and not (named or quoted) and word.islower()
        if talk and context.continues_as_talk(word, rest[match.end() :]):
            return None
        return word
    return None


def _disclosed(sentence: str, label: re.Match[str]) -> str | None:
    """The value a label discloses: a marker within a few words after it, then a value."""
    after = sentence[label.end() :]
    if _COMPOUND.match(after) or shapes.public_kind(label.group(0)):
        return None  # "password manager", "PIN pad", "codice del corso"
    in_clause = not context.PHRASE_WORD.search(label.group(0))  # a phrase's words go on
    named = _NAMED_VALUE.match(after)
    if named and (named["value"][0].isdigit() or not named["value"].isupper()):
        return named["value"]
    code = _CODE_AFTER.match(after)
    if code and (code["value"][0].isdigit() or not shapes.names_a_thing(code["value"], "", "")):
        return code["value"]
    attached = shapes.ATTACHED.match(after)
    if attached:
        value = _value_after(after[attached.end() :], in_clause)
        if value:
            return value
    alone = _LAST_WORD.match(after)  # "..., password mangotree", not "password email, ..."
    ends = alone and (alone.end() == len(after) or not _common(alone["word"]))
    if alone and ends and alone.group("word").lower() not in lexicon.FILLER_WORDS:
        value = _value_after(alone.group("word"))
        # "J'ai changé mon mot de passe hier", "mon mot de passe Ameli, ...": after "my
        # password" or a plural ("share passwords anymore"), a word of the language or a
        # name is part of the sentence; after a bare label it is the value.
        before = sentence[: label.start()].lower().split()[-1:] or [""]
        plural = re.search(r"[^s]s$", label[0], _FLAGS)
        told = value and (context.common_word(value) or (value.isalpha() and value[0].isupper()))
        if value and not (told and (plural or before[0] in lexicon.DETERMINERS)):
            return value
    window = _WINDOW_END.match(_ASIDE.sub(lambda m: " " * len(m.group(0)), after))
    head = window.group(0) if window else after
    for marker in shapes.MARKER.finditer(head):
        value = _value_after(after[marker.end() :], in_clause)
        explicit = marker.group(0) in _EXPLICIT  # a colon introduces the value
        if value and not explicit and not _complement(after[: marker.start()]) and _common(value):
            continue  # "the password game ... was hilarious", "..., c'est pénible"
        if value:
            return value
    return None


def _complement(gap: str) -> bool:
    """Whether the words between a label and its marker leave the label the subject:
    none, or a complement ("password for the wifi is", "mot de passe de la box est"), not
    another noun ("password game at the party was") or a new clause (", c'est")."""
    words = gap.split()
    return not words or (
        "," not in gap and words[0].lower() in lexicon.PREPOSITIONS | lexicon.FILLER_WORDS
    )


def _common(value: str) -> bool:
    """A lower-case word of one of the languages: "hilarious", "pénible"."""
    return value.islower() and context.common_word(value.strip(".,!?"))


def _no_value(label: str, value: str, after: str) -> bool:
    """Whether a label's apparent value is talk: a code with no digit ("PIN: lo olvidé"),
    an amount or a quantity ("16 characters"), a credential with no Latin letter or digit
    (quoted phrases are found apart), or a common word when what follows the label says
    it is forgotten ("Passwort: hab ich vergessen")."""
    if _CODE_LABEL.search(label) and not re.search(r"\d|(?-i:[A-Z]{3,}-[A-Z]{3,})", value):
        return True
    if shapes.amount(value) or context.quantity(value, after):
        return True  # "the season pass was $899", "has to be 16 characters"
    if not _ASCII_VALUE.search(value) and not _SECURITY.search(label):
        return True  # "密码：昨天已经改了": a password is typed in ASCII; this is a sentence
    return _FORGET.search(after) is not None and context.common_word(value)


def _pointed_values(sentence: str) -> list[str]:
    """A value pointed at, then named as a credential: all before an arrow, or the one
    word before a dash or comma that is not a common word (not "I love it, that's my
    password")."""
    values = []
    for pointer in _POINTER.finditer(sentence):
        before = sentence[: pointer.start()]
        if not before.strip() or not _POINTED_LABEL.match(sentence, pointer.end()):
            continue
        if pointer["arrow"][0] in "<←👈":
            values.append(before[-80:].strip())
        elif not context.common_word(word := before.split()[-1].strip("'\"“”‘’")):
            values.append(word)
    return values


def _labelled_values(text: str) -> list[str]:
    """Values a label discloses ("password is X", "X as my passphrase", "密码是 X")."""
    values = []
    for sentence in _sentences(text):
        for match in _LABEL.finditer(sentence):
            value = _disclosed(sentence, match)
            if value and not _no_value(match.group("label"), value, sentence[match.end() :]):
                values.append(value)
        for match in _CJK_LABEL.finditer(sentence):
            cjk = _CJK_VALUE.search(sentence[match.end() : match.end() + 16])
            gap = sentence[match.end() : match.end() + cjk.start()] if cjk else ""
            if cjk and (_CJK_GAP.fullmatch(gap) or not cjk.group(0).isalpha()):
                values.append(cjk.group(0))
        for pattern in (_AS_LABEL, _MADE_LABEL):
            made = pattern.search(sentence)
            if made:
                value = _value_after(made.group("value"))
                # "changed my password right away": with no "to", a common word is talk;
                # after "to", a phrase's words are common words ("... to waffle anchor")
                phrase = pattern is _MADE_LABEL and context.PHRASE_WORD.search(made["label"])
                if value and pattern is _MADE_LABEL and not phrase and _common(value):
                    named = _NAMED_VALUE.match(made["value"])
                    if named:
                        values.append(named["value"])
                    if not made["to"] or context.continues_as_talk(
                        value, made["value"][len(value) :]
                    ):
                        continue
                if value and not context.quantity(value, made.group("value")):
                    values.append(made.group("value").strip())
        values += _pointed_values(sentence)
        for match in _AS_VALUE.finditer(sentence):
            value = (sentence[: match.start()].split() or [""])[-1].strip(",;:")
            if _ASCII_VALUE.search(value) and not context.common_word(value.strip("'\"“”‘’")):
                values.append(value)
    return values


@lru_cache(maxsize=64)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def _findings(text: str, extra_patterns: Sequence[str]) -> list[tuple[str, list[str]]]:
    """Each kind of secret in ``text`` with the values found, in order of severity."""
    text = _prepare(text)
    found: list[tuple[str, list[str]]] = []
    for variant in dict.fromkeys((text, _collapsed(text))):
        findings = _variant_findings(variant)
        if shapes.may_stand_for_one(variant):  # "the example key from the AWS docs"
            findings = [
                (r, [v for v in vs if not shapes.stands_for_one(v, variant)]) for r, vs in findings
            ]
        found += findings
    admins = [
        m.group(m.lastindex or 0) for p in extra_patterns for m in _compiled(p).finditer(text)
    ]
    found.append(("matches an admin's secret pattern", admins))
    return [(reason, values) for reason, values in found if values]


def _variant_findings(text: str) -> list[tuple[str, list[str]]]:
    found: list[tuple[str, list[str]]] = []
    for label, pattern in _KEY_PATTERNS:
        found.append((f"contains {label}", [m.group(0) for m in pattern.finditer(text)]))
    for detector in _format_detectors():
        found.append((f"contains {detector.secret_type}", list(detector.analyze_string(text))))
    digits = any(ch.isdigit() for ch in text)  # cards, ids and codes all hold some
    if digits:
        found.append(("contains a payment card number", ids.cards(text)))
        found.append(("contains a bank account number (IBAN)", ids.ibans(text)))
        numbers = ids.ids_by_form(text) + ids.labelled_ids(text, shapes.identifier)
        numbers += ids.bank_numbers(text)
        found.append(("contains a national identity or account number", numbers))
    phrases = context.seed_phrases(text) + context.seed_words(text) + context.labelled_phrases(text)
    found.append(("contains a recovery phrase or pass phrase", phrases))
    found.append(("contains a password or other credential", _labelled_values(text)))
    answers = context.security_answers(text)
    found.append(("contains the answer to a security question", answers))
    credentials = _clause_values(text)
    for sentence in _QUESTION_END.split(text):  # "what's the code? -> 787326"
        credentials += _key_values(sentence) + context.quoted_values(sentence)
        if digits:
            credentials += context.one_time_codes(sentence) + context.lock_codes(sentence)
            credentials += context.bare_codes(sentence)
    credentials += [
        w for w in map(_clean_word, shapes.WORD.findall(text)) if shapes.strong_password(w)
    ]
    accounts = [_clean_word(m["value"]) for m in _ACCOUNT_VALUE.finditer(text)]
    credentials += [w for w in accounts if _mixed(w, text)]  # "Gmail: Qu1ckS1lver.88"
    found.append(("contains a password, PIN or access code", credentials))
    found.append(("contains a long random token", _tokens(text)))
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
