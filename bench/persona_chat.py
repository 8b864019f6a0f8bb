"""Synthetic-Persona-Chat conversations as labelled extraction sets (dev and test splits).

Synthetic-Persona-Chat (google-research-datasets, CC-BY 4.0; Jandaghi et al. 2023,
arXiv 2312.10007) pairs each generated conversation with both speakers' persona lines.
User 1 plays the memoryd user, User 2 the assistant: each User 1 line becomes a chat
prompt, the User 2 line after it that chat's response. User 1's persona lines are the
truth (``facts``); User 2's are ``other_facts``, so a memory about the assistant counts
as wrong-subject.

Splits: ``dev`` samples valid.csv (the only split used while tuning), ``test`` samples
test.csv (reported, never tuned on). Subsets are fixed by ``random.Random(SEED)``.
"""

from __future__ import annotations

import csv
import random
import re
from pathlib import Path
from typing import Any

SEED = 8
DATASET = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "synthetic-persona-chat"
FILES = {"dev": "valid.csv", "test": "test.csv"}
_TURN = re.compile(r"^User ([12]):\s*(.*)$")


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def to_conversation(row: dict[str, str], conv_id: str) -> dict[str, Any]:
    turns: list[tuple[str, str]] = []
    for line in row["Best Generated Conversation"].splitlines():
        match = _TURN.match(line.strip())
        if match:
            turns.append((match.group(1), match.group(2).strip()))
        elif turns and line.strip():  # a wrapped line continues the turn
            speaker, text = turns[-1]
            turns[-1] = (speaker, f"{text} {line.strip()}")
    exchanges: list[dict[str, str]] = []
    for index, (speaker, text) in enumerate(turns):
        if speaker != "1":
            continue
        following = turns[index + 1] if index + 1 < len(turns) else None
        response = following[1] if following and following[0] == "2" else ""
        exchanges.append({"prompt": text, "response": response})
    return {
        "id": conv_id,
        "workspace": "chat",
        "exchanges": exchanges,
        "facts": _lines(row["user 1 personas"]),
        "other_facts": _lines(row["user 2 personas"]),
    }


def load_split(split: str, limit: int, dataset: Path = DATASET) -> list[dict[str, Any]]:
    """``limit`` conversations of ``split`` ("dev" or "test"), a fixed sample."""
    with (dataset / FILES[split]).open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    picked = sorted(sample_order(len(rows))[:limit])
    return [to_conversation(rows[i], f"{split}-{i}") for i in picked]


def sample_order(rows: int) -> list[int]:
    """Every row index in the fixed order subsets are taken from (first N = a subset)."""
    return random.Random(SEED).sample(range(rows), rows)
