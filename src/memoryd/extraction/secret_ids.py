"""Numbers that identify a person or an account, so extraction never stores them (R13).

``memoryd.extraction.secrets`` asks this module for the identifiers in a text:

- payment cards (the Luhn check) and IBANs (their check digits, by python-stdnum); not a
  company's public number the text names ("SIRET", "VAT": ``company_number``);
- national identifiers by form where the form or check characters make that safe (US
  SSNs, UK NINOs, and the ids in ``_CHECKED_IDS``; a shorter number with one check
  digit is as often a phone number);
- a value after a label: our own (``secret_words.ID_LABELS``) and the names of every
  python-stdnum module about a person's or a bank account's number, without the country
  in front; it counts when its validator accepts it, when it holds five or more digits,
  or when it is an identity document number as ICAO 9303 prints them; and the last four
  digits of a government id, not of a card or account;
- a long number in a sentence about a bank (not a "food bank" nor calling it) that is no
  amount, count, date or reference ("三菱UFJ銀行 ... 普通 4820193").
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Callable
from functools import cache
from types import ModuleType

import stdnum
from stdnum import iban, luhn
from stdnum.cn import ric
from stdnum.es import dni, nie
from stdnum.fr import nir
from stdnum.it import codicefiscale
from stdnum.kr import rrn

from memoryd.extraction import secret_shapes as shapes
from memoryd.extraction import secret_words as lexicon
from memoryd.extraction.secret_context import NOT_A_CODE_AFTER, NOT_A_CODE_BEFORE, common_word

_I = re.IGNORECASE
_SSN = re.compile(r"(?<![\d-])(?!000|666|9\d\d)\d{3}([- ])(?!00)\d{2}\1(?!0000)\d{4}(?![\d-])")
_NINO = re.compile(r"\b[A-CEGHJ-PR-TW-Z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b")
# Identifiers whose check characters make them safe to recognise unformatted.
_CHECKED_IDS = (
    (re.compile(r"(?<![\w-])\d{17}[\dXx](?![\w-])"), ric.is_valid),
    (re.compile(r"(?<![\w-])\d{8}-?[A-Za-z](?![\w-])"), dni.is_valid),
    (re.compile(r"(?<![\w-])[XYZxyz]-?\d{7}-?[A-Za-z](?![\w-])"), nie.is_valid),
    (re.compile(r"(?<!\w)[A-Za-z]{6}\d{2}[A-Za-z]\d{2}[A-Za-z]\d{3}[A-Za-z](?!\w)"),
     codicefiscale.is_valid),
    # a French NIR with its key, however spaced; a Korean RRN written with its hyphen
    (re.compile(r"(?<![\w-])[12] ?\d\d ?\d\d ?(?:\d\d|2[AB]) ?\d{3} ?\d{3} ?\d\d(?![\w-])"),
     lambda v: nir.is_valid(v.replace(" ", ""))),
    (re.compile(r"(?<![\w-])\d{6}-[1-8]\d{6}(?![\w-])"), rrn.is_valid),
)  # fmt: skip
_IBAN = re.compile(r"\b[A-Za-z]{2}\d{2}(?:[ -]?[A-Za-z0-9]{4}){2,7}(?:[ -]?[A-Za-z0-9]{1,3})?\b")
_GROUP_SEPARATOR = re.compile(r"[ .-]")
_CARD = re.compile(r"(?<![\d-])(?:\d[ .-]?){12,18}\d(?![\d-])")


def cards(text: str) -> list[str]:
    """Payment card numbers: 13 to 19 digits passing the Luhn check, unless a company's
    public number the text names ("le SIRET ... c'est 669 297 533 00053")."""
    found = []
    for match in _CARD.finditer(text):
        # the longest run of its groups from the start that passes: a card number with
        # its expiry or code after it ("4263538940052809 03/26 986")
        run = match.group(0).strip()
        groups = _GROUP_SEPARATOR.split(run)
        for end in range(len(groups), 0, -1):
            digits = "".join(groups[:end])
            if len(digits) < 13:
                break
            if len(digits) <= 19 and luhn.is_valid(digits):
                number = run[: run.find(groups[end - 1], len(groups[0]) if end > 1 else 0)]
                number += groups[end - 1]
                found += [] if company_number(number, text) else [number]
                break
    return found


def ibans(text: str) -> list[str]:
    """IBANs whose check digits hold (a country's own check on its account part aside)."""
    return [
        m.group(0)
        for m in _IBAN.finditer(text)
        if iban.is_valid(m.group(0).upper(), check_country=False)
    ]


_BANK_CONTEXT = re.compile(lexicon.BANK_CONTEXT, _I)
_PHONE = re.compile(lexicon.PHONE_WORDS, _I)
_LONG_NUMBER = re.compile(
    rf"(?<![{lexicon.LATIN}_.,:/$€£¥₩+#-])(?!\d{{4}}-\d\d?-\d\d?\b|\d\d?-\d\d?-\d{{4}}\b)"
    rf"\d(?:[ -]?\d){{5,19}}(?![{lexicon.LATIN}_/-]|[.,:]\d|\s?%)"
)
_NOT_A_BANK = re.compile(lexicon.NOT_A_BANK, _I)


def bank_numbers(text: str) -> list[str]:
    """Numbers of 6 to 20 digits in a sentence about a bank or a bank account that is not
    about calling it: not amounts, counts, dates or references ("order 1234567")."""
    found = []
    for sentence in re.split(r"[.!?。！？\n](?:\s|$)|[。！？\n]", text):
        if not _BANK_CONTEXT.search(_NOT_A_BANK.sub("", sentence)) or _PHONE.search(sentence):
            continue
        for match in _LONG_NUMBER.finditer(sentence):
            if NOT_A_CODE_BEFORE.search(sentence[: match.start()]):
                continue
            if not _counts(sentence[match.end() :]):
                found.append(match.group(0))
    return found


def _counts(rest: str) -> bool:
    """Whether the words after a number say what it counts or measures: a unit, a
    currency, or a common word that is neither a preposition nor the start of a new
    clause ("250000 customers", not "... at Wells")."""
    if NOT_A_CODE_AFTER.match(rest):
        return True
    word = re.match(r"\s+([^\W\d_]+)", rest)
    if not word or not word.group(1).islower():
        return False
    lower = word.group(1)
    return lower not in lexicon.PREPOSITIONS | lexicon.CLAUSE_STARTERS and common_word(lower)


def company_number(value: str, text: str) -> bool:
    """Whether ``text`` names a kind of company number (stdnum's: "SIRET", "CNPJ", "VAT",
    "P.IVA" ...) whose validator accepts ``value``: public, not a secret."""
    digits = re.sub(r"[\s.-]", "", value)
    return any(
        label.search(text) and _valid(is_valid, digits)
        for _, label, is_valid, strict in _id_labels(False)
        if not strict
    )


def ids_by_form(text: str) -> list[str]:
    """Identifiers recognised without a label: by their shape (SSN, NINO) or their
    check characters."""
    values = [m.group(0) for m in _SSN.finditer(text)] + [m.group(0) for m in _NINO.finditer(text)]
    values += [m.group(0) for pattern, valid in _CHECKED_IDS for m in pattern.finditer(text)
               if valid(m.group(0).upper())]  # fmt: skip
    return values


# A label, a disclosing word or a colon, and the value.
_ID_LABEL = re.compile(
    rf"(?<![\w])(?:{lexicon.ID_LABELS}|{lexicon.BANK_LABELS})(?:-?(?:nummer|nr\.?))?(?!\w)|"
    rf"{lexicon.CJK_ID_LABELS}",
    _I,
)
_BANK_LABEL = re.compile(
    rf"(?:{lexicon.BANK_LABELS})|account|acct|sort|routing|bsb|iban|bic|swift|compte|konto|"
    r"conta|conto|cuenta|口座|账|帐|卡号|계좌",
    _I,
)
_ID_PREFIX = re.compile(
    r"^[)\]]?\s*(?:is|was|:|=|-|#|no\.?|nr\.?|n\.|n[°º])?\s*(?:is\s+|:\s*)?"
    r"(?:[가-힣ぁ-ヿ一-鿿]+\s*){0,3}",
    _I,
)
_ID_WINDOW = re.compile(r"^[^.;!?。！？]{0,48}?(?:[:=：]|\b(?:is|was|est|es|ist|é|è)\b)", _I)
_ID_VALUE = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9]|[ .\-/]{1,3}(?=[A-Za-z0-9])){3,30}")
# An identity document number as ICAO 9303 prints it: capitals and digits, up to nine,
# and its check digit.
_DOCUMENT_NUMBER = re.compile(r"(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{6,10}")


def labelled_ids(text: str, is_reference: Callable[[str, str], bool]) -> list[str]:
    """Values after an identifier label; ``is_reference(word, text)`` tells a value the
    sentence makes something else (a commit, a build) from an identifier."""
    values = []
    for match in _ID_LABEL.finditer(text):
        bank = _BANK_LABEL.search(match.group(0)) is not None
        for value, right_after in _values_after(text, match.end()):
            digits = sum(ch.isdigit() for ch in value)
            # a document number right after its label ("Personalausweisnummer: L7M4RK2C9")
            document = right_after and not bank and _DOCUMENT_NUMBER.fullmatch(value.split()[0])
            if digits < 5 and not document:
                continue
            if is_reference(value.split()[-1], text):
                continue  # "the account service image is 2c26b46b..."
            values.append(value.strip())
            break
    return values + stdnum_ids(text) + _last_digits(text)


_LAST_DIGITS = re.compile(
    rf"(?:{lexicon.LAST_DIGITS})\s+(?:\w+\s+){{0,3}}?(?P<label>{lexicon.ID_LABELS}|{lexicon.CJK_ID_LABELS})"
    r"(?!\w)[^\d.!?]{0,15}?(?P<value>\d{4})(?![\d-])",
    _I,
)


def _last_digits(text: str) -> list[str]:
    """The last four digits of a government id ("the last 4 of my social are 8093"), not
    of a card or an account."""
    return [m["value"] for m in _LAST_DIGITS.finditer(text) if not _BANK_LABEL.search(m["label"])]


def _values_after(text: str, end: int) -> list[tuple[str, bool]]:
    """The value right after a label ("SSN 078-05-1120"), and the one after a marker a
    few words on (``_further_on``), each with whether it is the first."""
    rest = _ID_PREFIX.sub("", text[end : end + 60])
    marker = shapes.MARKER.match(rest) or shapes.ATTACHED.match(rest)
    rest = rest[marker.end() :].lstrip() if marker else rest
    qualifier = _QUALIFIER.match(rest)  # "CLABE interbancaria 0720...", "AHV number 756..."
    if qualifier and not _NOT_QUALIFIERS & set(qualifier.group(0).lower().split()):
        rest = rest[qualifier.end() :] if not _number_part(rest) else rest
    value = _ID_VALUE.match(rest)
    given = ((value.group(0) if value else None, True), (_further_on(text, end), False))
    return [(_number_part(v), first) for v, first in given if v and _number_part(v)]


def _further_on(text: str, end: int) -> str | None:
    """The value after a marker a few words after a label ("EIN for my LLC is ...")."""
    window = _ID_WINDOW.match(text[end : end + 80])
    if not window:
        return None
    start = end + window.end()
    later = _ID_VALUE.match(text[start : start + 60].lstrip())
    return later.group(0) if later else None


_QUALIFIER = re.compile(r"(?:[^\W\d_]+\.?\s+){1,2}(?=\d)")
_NOT_QUALIFIERS = lexicon.PREPOSITIONS | lexicon.CLAUSE_STARTERS | lexicon.TALK_WORDS


def _number_part(value: str) -> str:
    """The number a value starts with: its groups that hold a digit, or are a short code
    in capitals ("NY 823 449 107", "AB 12 34 56 C"); not the words of a sentence ("in
    2018 with 500 euros")."""
    groups: list[str] = []
    for group in value.split():
        if not groups and group.lower() in lexicon.DETERMINERS:
            continue  # "es el PAB123456"
        if not (any(ch.isdigit() for ch in group) or (group.isupper() and len(group) <= 3)):
            break
        groups.append(group)
    return " ".join(groups)


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
# "* an Employer Identification Number (EIN)": a kind of number a module covers.
_COVERED = re.compile(r"^\s*\*\s+an?\s+[A-Z][\w ]+\((?P<name>[A-Z]{2,6})\)\s*$", re.MULTILINE)
_PLACE = re.compile(r"\b(?:[A-Z][a-z]+(?:an|ish|ese|ian|ch|ic)|IBAN)\b")  # "Spanish IBAN"


@cache
def _modules(personal: bool) -> tuple[ModuleType, ...]:
    """python-stdnum's country modules about a person's or a bank account's number, or
    (not ``personal``) about a company's, which is public ("SIRET", "CNPJ", "VAT")."""
    modules = []
    for info in pkgutil.walk_packages(stdnum.__path__, "stdnum."):
        if info.ispkg or info.name.count(".") < 2:
            continue
        module = importlib.import_module(info.name)
        first = (module.__doc__ or "").strip().splitlines()[0] if module.__doc__ else ""
        business = _NOT_PERSONAL.search(first) is not None
        if hasattr(module, "is_valid") and (
            (personal and _PERSONAL.search(first) and not business) or (not personal and business)
        ):
            modules.append(module)
    return tuple(modules)


# (name, label, validator, whether only a value the validator accepts counts)
Label = tuple[str, re.Pattern[str], Callable[[str], bool], bool]
_NR = r"(?i:nr|no|num|nummer|number)\b"


@cache
def _id_labels(personal: bool = True) -> tuple[Label, ...]:
    """(name, label, validator) for each personal (or company) module: its short names
    ("VNR, SVNR, VSNR"), the first name in brackets when short ("Versicherungsnummer"),
    the kinds of number its documentation lists as covered ("EIN" under "TIN"). Acronyms
    match in capitals only."""
    labels = []
    for module in _modules(personal):
        doc = module.__doc__ or ""
        first = doc.strip().splitlines()[0]
        head, _, inner = first.partition(" (")
        names = [n.strip(" .") for n in head.split(",")] + [inner.split(",")[0].rstrip(").")]
        names += [m.group("name") for m in _COVERED.finditer(doc)]
        # a local name a company number also goes by is the company's ("code TVA")
        public = {n for n, *_ in _id_labels(False)} if personal else set()
        names += [n for n in _local_names(doc) if n not in public]
        for name in map(_without_country, names):
            name = re.sub(r"^([A-Z]{2,6}) (?:No|Nr|Number)\.?$", r"\1", name)  # "PPS No": "PPS"
            words = name.split()
            named = name[:1].isupper() or "\u3000" < name[:1] < "\uac00"  # or CJK: "法人番号"
            if len(name) < 3 or not named or len(words) > 4 or _PLACE.search(name):
                continue
            escaped = re.escape(name).replace(r"\ ", r"\s+")
            if name.isupper() or re.fullmatch(r"[A-Z][a-z]?[A-Z]\w*", name):
                pattern = re.compile(rf"(?<![\w-]){escaped}(?!\w|-(?!{_NR}))")
                labels.append((name, pattern, module.is_valid, False))
                # typed in lower case ("my itin is ..."): when its validator accepts
                pattern = re.compile(rf"(?<![\w-]){escaped}(?!\w|-(?!{_NR}))", _I)
                labels.append((_key(name), pattern, module.is_valid, True))
            else:
                pattern = re.compile(rf"(?<![\w-])\w*{escaped}(?![\w-])", _I)
                labels.append((_key(name), pattern, module.is_valid, False))
    return tuple(labels)


_NUMBER_NAME = re.compile(r"num|nr|code|código|card|kimlik|tunnus|identi|regist", _I)


def _local_names(doc: str) -> list[str]:
    """The names a module's description gives its number in brackets or quotes, in the
    country's languages, when they name a number, and the acronyms in them ("AHV")."""
    body = " ".join(doc.strip().split("More information")[0].splitlines()[1:])
    names = [n.strip(" .") for g in re.findall(r"\(([^()]{3,80})\)", body) for n in g.split(",")]
    names = [n for n in names + re.findall(r'"([^"]{3,40})"', body) if _NUMBER_NAME.search(n)]
    return names + [a for n in names for a in re.findall(r"\b[A-Z]{3,5}\b", n)]


def _key(name: str) -> str:
    return " ".join(name.lower().split())


def _without_country(name: str) -> str:
    """A module's name for its number without the country in front: "Australian Tax File
    Number" is a "Tax File Number"."""
    personal = _PERSONAL.search(name)
    if not personal or personal.start() == 0:
        return name
    tail = name[name.rfind(" ", 0, personal.start()) + 1 :]
    return tail[:1].upper() + tail[1:]


@cache
def _label_names() -> tuple[frozenset[str], tuple[str, ...], tuple[str, ...]]:
    """The names of ``_id_labels`` as a quick test, most sentences naming none of them:
    acronyms as whole words, other names as parts of the text (lower-cased unless
    written in capitals, "BC PHN")."""
    labels = _id_labels()
    words = frozenset(
        n for n, p, _, strict in labels if (strict or not p.flags & _I) and n.isalnum()
    )
    cased = tuple(dict.fromkeys(n for n, p, *_ in labels if not p.flags & _I and n not in words))
    lower = tuple(dict.fromkeys(n for n, p, *_ in labels if p.flags & _I and n not in words))
    return words, cased, lower


_ID_AFTER = re.compile(
    r"^(?:\s*(?:card|number|no\.?|nr\.?|n[°º]|#|is|was|:|-|ist|es|est|é|è|[)\]]))*\s*"
    r"(?P<value>[A-Za-z0-9](?:[A-Za-z0-9]|[ .\-/](?=[A-Za-z0-9])){4,30})",
    _I,
)


def stdnum_ids(text: str) -> list[str]:
    """A value after one of stdnum's personal-number labels: one its validator accepts,
    or one with five or more digits."""
    values: list[str] = []
    acronyms, cased, names = _label_names()
    lower = _key(text)
    named = acronyms & set(re.findall(r"\w+", text) + re.findall(r"\w+", lower))
    named |= {name for name in names if name in lower} | {name for name in cased if name in text}
    for name, label, is_valid, strict in _id_labels():
        if name not in named:
            continue
        for match in label.finditer(text):
            value = _ID_AFTER.match(text[match.end() : match.end() + 60])
            given = (value.group("value") if value else None, _further_on(text, match.end()))
            for candidate in filter(None, given):
                words = candidate.strip().split()
                # the value ends where words stop holding digits ("459 612 083 (NZ)")
                for end in range(len(words), 0, -1):
                    part = " ".join(words[:end])
                    digits = sum(ch.isdigit() for ch in part)
                    if _valid(is_valid, part) or (digits >= 5 and not strict):
                        values.append(part)
                        break
    return values


def _valid(is_valid: Callable[[str], bool], value: str) -> bool:
    try:
        return bool(is_valid(value))
    except Exception:  # a validator that chokes on a value rejects it
        return False
