"""Keep the message catalogues (src/memoryd/locale) in step with the code: extract the
msgids of the web UI and the injected heading, then update every language's .po.

    python scripts/i18n.py update   # after changing a wrapped string: new msgids appear
                                    # untranslated (and fuzzy guesses) in every .po
    python scripts/i18n.py check    # exit 1 when a msgid is missing from a .po
    python scripts/i18n.py init nl  # a new language's .po, every msgid untranslated

The .po files are the only catalogues: memoryd compiles them in memory when it starts
using a language (memoryd.app.i18n), so there is no compile step. docs/i18n.md has the rest.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from babel.messages.frontend import CommandLineInterface
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[1]
LOCALE = ROOT / "src" / "memoryd" / "locale"
DOMAIN = "memoryd"


def extract(template: Path) -> None:
    """The msgids babel.cfg points at, as a .pot file."""
    os.chdir(ROOT)  # locations relative to the repository
    CommandLineInterface().run(
        ["pybabel", "-q", "extract", "-F", "babel.cfg", "-o", str(template), "--no-wrap",
         "-k", "Nn_:1,2", "--add-location=file", "--sort-by-file", "--project", "memoryd", "."]
    )  # fmt: skip


def missing(template: Path) -> dict[str, list[str]]:
    """Per .po file, the extracted msgids it lacks."""
    with template.open("rb") as source:
        wanted = {m.id for m in read_po(source) if m.id}
    gaps = {}
    for po in sorted(LOCALE.glob(f"*/LC_MESSAGES/{DOMAIN}.po")):
        with po.open("rb") as source:
            have = {m.id for m in read_po(source) if m.id}
        lacking = sorted(str(m) for m in wanted - have)
        if lacking:
            gaps[str(po.relative_to(ROOT))] = lacking
    return gaps


def main(argv: list[str]) -> int:
    if argv not in (["update"], ["check"]) and not (len(argv) == 2 and argv[0] == "init"):
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        template = Path(tmp) / f"{DOMAIN}.pot"
        extract(template)
        if argv[0] == "init":
            CommandLineInterface().run(
                ["pybabel", "-q", "init", "-i", str(template), "-d", str(LOCALE), "-D", DOMAIN,
                 "-l", argv[1], "--no-wrap"]
            )  # fmt: skip
            return 0
        if argv == ["update"]:
            CommandLineInterface().run(
                ["pybabel", "-q", "update", "-i", str(template), "-d", str(LOCALE), "-D", DOMAIN,
                 "--no-wrap", "--ignore-pot-creation-date", "--ignore-obsolete"]
            )  # fmt: skip
            return 0
        gaps = missing(template)
    for po, lacking in gaps.items():
        print(f"{po}: {len(lacking)} msgid(s) missing, e.g. {lacking[0]!r}")
    if gaps:
        print("run: python scripts/i18n.py update")
    return 1 if gaps else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
