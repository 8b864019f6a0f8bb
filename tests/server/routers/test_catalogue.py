"""The message catalogues (src/memoryd/locale) stay whole: French translates every msgid
the code and the templates use, each translation keeps its placeholders, every language
has its heading, and ``scripts/i18n.py check`` finds no msgid missing from any .po (so a
string wrapped without running ``scripts/i18n.py update`` fails here)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import get_args

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from memoryd.app.i18n import LANGUAGE_NAMES, catalogue_path
from memoryd.domain.injection import SECTION_TITLE
from memoryd.domain.language import LANGUAGE_CHOICES, LANGUAGES, PREFERENCE_CHOICES
from memoryd.server.schemas import Language, LanguageChoice
from memoryd.server.web.i18n import ui_languages

ROOT = Path(__file__).resolve().parents[3]


def catalogue(language: str) -> Catalog:
    with catalogue_path(language).open("rb") as source:
        return read_po(source)


def script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("i18n_script", ROOT / "scripts" / "i18n.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_msgid_has_a_french_translation() -> None:
    french = catalogue("fr")
    untranslated = [
        m.id
        for m in french
        if m.id and (m.fuzzy or not all(m.string if isinstance(m.string, tuple) else [m.string]))
    ]
    assert untranslated == []
    assert len(french) > 300  # the whole UI, not the heading alone
    assert "fr" in ui_languages()


def test_translations_keep_their_placeholders() -> None:
    for language in LANGUAGES[1:]:
        problems = [(m.id, errors) for m, errors in catalogue(language).check()]
        assert problems == [], language


@pytest.mark.parametrize("language", LANGUAGES[1:])
def test_every_language_translates_the_heading(language: str) -> None:
    heading = catalogue(language).get(SECTION_TITLE)
    assert heading is not None and heading.string and heading.string != SECTION_TITLE


def test_the_catalogues_hold_every_msgid_the_code_and_templates_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What ``pybabel extract`` finds with babel.cfg is in every .po, and nothing else is."""
    i18n = script()
    monkeypatch.chdir(ROOT)
    template = tmp_path / "memoryd.pot"
    i18n.extract(template)
    assert i18n.missing(template) == {}
    with template.open("rb") as source:
        extracted = {m.id for m in read_po(source) if m.id}
    assert SECTION_TITLE in extracted and "Sign out" in extracted
    stale = {m.id for m in catalogue("fr") if m.id} - extracted
    assert stale == set(), "msgids no code uses: run python scripts/i18n.py update"


def test_the_rest_schema_and_the_menu_name_the_same_languages() -> None:
    assert get_args(Language) == LANGUAGE_CHOICES
    assert get_args(LanguageChoice) == PREFERENCE_CHOICES
    assert tuple(LANGUAGE_NAMES) == LANGUAGES
