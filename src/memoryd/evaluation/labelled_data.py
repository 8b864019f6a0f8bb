"""Reading the labelled sets the ``memoryd eval`` commands take.

Both commands accept the same kinds of file: one JSON document (a list of items, or an
object holding the list under one key) or JSON lines (one item per line), or, with no
file, a sample bundled with memoryd. Reading them in one place keeps the two commands'
rules and error messages the same.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from memoryd.domain.errors import InvalidInput


def read_items(path: Path | None, sample: str, key: str, what: str) -> list[Any]:
    """The items of the file at ``path`` (or of the bundled ``sample``): a JSON list, a
    JSON object's ``key`` list, or one JSON value per line (always so for a ``.jsonl`` or
    ``.ndjson`` file, even of one line). ``what`` names the items in
    errors ("conversations", "pools"). Raises InvalidInput when the file is unusable or
    holds no items."""
    try:
        source = resources.files("memoryd.data").joinpath(sample) if path is None else path
        text = source.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"cannot read the dataset {path}: {exc}") from None
    try:
        as_lines = path is not None and path.suffix in (".jsonl", ".ndjson")
        if not as_lines and text.lstrip().startswith(("[", "{")) and not _looks_like_lines(text):
            data = json.loads(text)
            items = data.get(key) if isinstance(data, dict) else data
        else:
            # LF only: str.splitlines() also cuts at U+2028 and U+0085, which JSON text holds
            items = [json.loads(line) for line in text.split("\n") if line.strip()]
    except ValueError as exc:
        raise InvalidInput(f"the dataset is not JSON of {what}: {exc}") from None
    if not isinstance(items, list):
        raise InvalidInput(
            f'the dataset must be a list of {what}, {{"{key}": [...]}} or one per line'
        )
    if not items:
        raise InvalidInput(f"the dataset holds no {what}")
    return items


def _looks_like_lines(text: str) -> bool:
    lines = [line for line in text.split("\n") if line.strip()]
    return len(lines) > 1 and all(line.lstrip().startswith("{") for line in lines[:2])
