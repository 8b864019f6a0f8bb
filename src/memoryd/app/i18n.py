"""The message catalogues: the injected heading in each language, and the web UI's words.

The gettext ``.po`` files under ``memoryd/locale`` are compiled in memory the first time
a language is used, so a fresh install needs no build step (docs/i18n.md). A turn's
heading follows the user's language, else ``MEMORYD_LANGUAGE`` (``auto``: the turn's
own); every translation of it is what the proxy strips before injecting
(``section_titles``), so a section cannot be forged in another language.
"""

from __future__ import annotations

import gettext
import io
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable

from memoryd.domain.errors import InvalidInput
from memoryd.domain.injection import SECTION_TITLE
from memoryd.domain.language import (
    AUTO,
    LANGUAGES,
    PREFERENCE_CHOICES,
    language_of,
)

DOMAIN = "memoryd"
# each language by its own name (what a language menu shows, whatever the page's language)
LANGUAGE_NAMES = {
    "en": "English",
    "fr": "Français",
    "es": "Español",
    "de": "Deutsch",
    "pt": "Português",
    "it": "Italiano",
    "id": "Bahasa Indonesia",
    "zh": "中文",
    "ja": "日本語",
    "ko": "한국어",
}


def N_(message: str) -> str:
    """Marks a msgid for ``pybabel extract`` where it is not translated at once."""
    return message


def Nn_(singular: str, plural: str) -> tuple[str, str]:
    """Marks a plural msgid (``scripts/i18n.py`` extracts both forms) translated later."""
    return singular, plural


# the heading's msgid as extraction finds it (the domain, free of catalogues, holds it too)
HEADING_MSGID = N_("Things I Remember About You")
assert HEADING_MSGID == SECTION_TITLE


def catalogue_path(language: str) -> Traversable:
    return resources.files("memoryd") / "locale" / language / "LC_MESSAGES" / f"{DOMAIN}.po"


@cache
def _load(language: str) -> tuple[gettext.NullTranslations, bool]:
    """The catalogue of ``language`` compiled, and whether it translates every msgid."""
    path = catalogue_path(language)
    if language not in LANGUAGES or not path.is_file():
        return gettext.NullTranslations(), language == "en"
    from babel.messages.mofile import write_mo  # ~0.1 s to import: only once it is needed
    from babel.messages.pofile import read_po

    with path.open("rb") as source:
        catalogue = read_po(source, locale=language, domain=DOMAIN)
    compiled = io.BytesIO()
    write_mo(compiled, catalogue)  # fuzzy entries are left out: they fall back to English
    compiled.seek(0)
    whole = all(m.string and not m.fuzzy for m in catalogue if m.id)
    return gettext.GNUTranslations(compiled), whole


def translations(language: str) -> gettext.NullTranslations:
    """The catalogue of ``language``; English (the msgids themselves) when it has none."""
    return _load(language)[0]


def is_complete(language: str) -> bool:
    """Whether ``language``'s catalogue translates every msgid (English: always)."""
    return _load(language)[1]


def warm() -> None:
    """Compile every catalogue now (the server does at start), not in a first turn."""
    section_titles()


def check_language(value: object, choices: tuple[str, ...] = PREFERENCE_CHOICES) -> str:
    """``value`` as a language choice, or InvalidInput listing the choices."""
    if not isinstance(value, str) or value.strip().lower() not in choices:
        raise InvalidInput(f"unknown language {value!r}: use {', '.join(choices)}")
    return value.strip().lower()


def turn_language(chosen: str, text: str) -> str:
    """The language a turn's heading is in: ``chosen`` (a user's or the server's
    choice), or with ``auto`` the language of the turn's text (English when it has none)."""
    return language_of(text) if chosen == AUTO else chosen


def section_heading(language: str) -> str:
    """The injected section's heading line in ``language``."""
    return f"## {translations(language).gettext(SECTION_TITLE)}"


@cache
def section_titles() -> frozenset[str]:
    """The heading's title in every language memoryd has a catalogue for."""
    return frozenset(translations(lang).gettext(SECTION_TITLE) for lang in LANGUAGES)
