#!/usr/bin/env python3
"""Writes the command reference at the end of docs/cli.md from the real ``memoryd`` app.

Run it after adding or changing a command, argument or option:
``python scripts/gen_cli_docs.py``. ``--check`` changes nothing and exits 1 while the
file is stale (tests/cli/test_cli_docs.py does the same check). Only the part between
the two ``GENERATED REFERENCE`` marker comments is rewritten; the guide above is prose.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "cli.md"


def main(argv: list[str]) -> int:
    from memoryd.cli.app import app
    from memoryd.cli.reference import update

    current = DOC.read_text(encoding="utf-8")
    fresh = update(current, app)
    if "--check" in argv:
        if fresh != current:
            print(f"{DOC} is stale: run python scripts/gen_cli_docs.py", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(fresh, encoding="utf-8")
    print(f"wrote {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
