"""Writes ``src/memoryd/data/retrieval-sample.json``, the labelled set ``memoryd eval
retrieval`` reads by default: memoryd's 224 hand-written turns (``bench/data/retrieval.json``)
and the first ``PERSONA_POOLS`` pools of the labelled persona set's *test* split
(``bench/data/persona_retrieval_labelled.json``, first reader). Test, not dev: the reranker's
weights were chosen on dev, so dev turns would flatter the default.

    .venv/bin/python scripts/build_retrieval_sample.py
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "data"
OUT = ROOT / "src" / "memoryd" / "data" / "retrieval-sample.json"
PERSONA_POOLS = 100


def turn(query: dict[str, Any]) -> dict[str, Any]:
    return {k: query[k] for k in ("message", "history", "relevant")}


def sample() -> dict[str, Any]:
    hand = json.loads((DATA / "retrieval.json").read_text())["pools"]
    persona = json.loads((DATA / "persona_retrieval_labelled.json").read_text())["splits"]["test"]
    pools = [
        {
            "id": f"hand-written/{p['workspace']}",
            "memories": p["memories"],
            "queries": [turn(q) for q in p["queries"]],
        }
        for p in hand
    ] + [
        {
            "id": f"persona-test/{p['id']}",
            "memories": p["memories"],
            "queries": [turn(q) for q in p["queries"]],
        }
        for p in persona[:PERSONA_POOLS]
    ]
    return {
        "description": (
            "memoryd's sample for `memoryd eval retrieval`: its 224 hand-written work turns"
            f" over 12 pools, and the first {PERSONA_POOLS} pools of the labelled persona"
            " set's test split (labelled by reading; bench/data/README.md)."
        ),
        "attribution": (
            "Synthetic-Persona-Chat, google-research-datasets, CC-BY 4.0: Jandaghi et al.,"
            " 'Faithful Persona-based Conversational Dataset Generation with Large Language"
            " Models', arXiv 2312.10007. The hand-written turns and all labels are"
            " memoryd's own (Apache-2.0)."
        ),
        "pools": pools,
    }


def main() -> None:
    OUT.write_text(json.dumps(sample(), ensure_ascii=False, indent=1) + "\n", "utf-8")
    data = json.loads(OUT.read_text())
    print(
        f"{OUT}: {len(data['pools'])} pools, {sum(len(p['queries']) for p in data['pools'])} turns"
    )


if __name__ == "__main__":
    main()
