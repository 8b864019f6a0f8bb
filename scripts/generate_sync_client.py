"""Writes the sync ``MemorydClient`` from the async one: ``python scripts/generate_sync_client.py``.

unasync rewrites tokens (``async``/``await`` dropped, ``AsyncClient`` -> ``Client``,
``aclose`` -> ``close``...), so every client method exists once, in
``_async/client.py``. ``tests/client`` checks the committed ``_sync/client.py`` is what
this writes. Needs unasync and ruff (the ``dev`` extra). It reads files only (it imports no
memoryd code), so it still runs when the sync client is stale.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent / "src" / "memoryd" / "client"
SOURCE = HERE / "_async" / "client.py"
TARGET = HERE / "_sync" / "client.py"
HEADER = (
    "# Generated from memoryd/client/_async/client.py by scripts/generate_sync_client.py;\n"
    "# do not edit: change the async client and run that command.\n"
)
REPLACEMENTS = {
    "AsyncMemorydClient": "MemorydClient",
    "AsyncClient": "Client",
    "aclose": "close",
}


def sync_source() -> str:
    """The sync client's source, made from the async one."""
    import unasync

    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "_async" / "client.py"
        source.parent.mkdir()
        shutil.copy(SOURCE, source)
        rule = unasync.Rule("/_async/", "/_sync/", additional_replacements=REPLACEMENTS)
        unasync.unasync_files([str(source)], rules=[rule])
        text = HEADER + (Path(tmp) / "_sync" / "client.py").read_text(encoding="utf-8")
    # dropping ``await`` shortens lines: let ruff re-wrap them as it would by hand
    formatted = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--stdin-filename", str(TARGET), "-"],
        input=text,
        capture_output=True,
        text=True,
        check=True,
    )
    return formatted.stdout


def main() -> None:
    TARGET.write_text(sync_source(), encoding="utf-8")
    print(f"wrote {TARGET}")


if __name__ == "__main__":
    main()
