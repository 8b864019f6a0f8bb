"""Build bench/data/persona_retrieval_labelled.json: the persona set with labels read by hand.

The matcher of ``build_persona_retrieval.py`` labels a query with the facts its *reply*
states, which misses what the turn calls for: "What do you do for fun?" has every hobby
of the pool as an answer, not only the one the owner happened to name, and a reply to
"I'm sorry to hear that." volunteers a fact nothing asked for. Here every query of
``persona_retrieval.json`` (dev and test, same pools) was read with its pool, and
labelled with every memory the owner needs to answer the message well, or dropped when
the message calls for no memory (rules in bench/data/README.md, "Labelled by reading").
Dev also holds the further pools of ``persona_retrieval_more.json`` (later valid.csv
conversations, same rules), labelled in ``labels/dev-more.jsonl``. The labels live in
``bench/data/labels/{dev,dev-more,test}.jsonl``, one line per query::

    {"id": "c0000-u1#0", "relevant": [14, 12], "drop": null}

This script joins them with the pools, drops what was dropped, sets each query's
``kind`` from its new labels, and prints the counts and the agreement of the queries
that two readers labelled on their own (``labels/agreement.jsonl``, 52 dev queries, and
``labels/test-second.jsonl``, the whole test split read again by other readers).

    .venv/bin/python bench/data/apply_labels.py
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from build_persona_retrieval import kind

DATA = Path(__file__).parent
SOURCE = DATA / "persona_retrieval.json"
MORE = DATA / "persona_retrieval_more.json"  # more dev pools (build_persona_retrieval.py)
LABELS = DATA / "labels"
OUT = DATA / "persona_retrieval_labelled.json"


def read_labels(path: Path) -> dict[str, dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    found = {row["id"]: row for row in rows}
    if len(found) != len(rows):
        raise SystemExit(f"{path}: a query is labelled twice")
    return found


def check(row: dict[str, Any], pool_size: int) -> None:
    relevant, drop = row["relevant"], row["drop"]
    if bool(drop) == bool(relevant):
        raise SystemExit(f"{row['id']}: give either relevant memories or a drop reason")
    if len(set(relevant)) != len(relevant) or not all(0 <= i < pool_size for i in relevant):
        raise SystemExit(f"{row['id']}: relevant {relevant} is not a set of pool indexes")


def apply(pools: list[dict[str, Any]], labels: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for pool in pools:
        queries = []
        for number, query in enumerate(pool["queries"]):
            key = f"{pool['id']}#{number}"
            if key not in labels:
                raise SystemExit(f"{key} has no label")
            row = labels.pop(key)
            check(row, len(pool["memories"]))
            if row["drop"]:
                continue
            relevant = row["relevant"]
            queries.append(
                {
                    **query,
                    "relevant": relevant,
                    "matcher": query["relevant"],
                    "kind": kind(
                        query["message"], query["history"], [pool["memories"][i] for i in relevant]
                    ),
                }
            )
        if queries:
            out.append({**pool, "queries": queries})
    if labels:
        raise SystemExit(f"labels of unknown queries: {sorted(labels)[:5]}")
    return out


def agreement(path: Path, first: dict[str, dict[str, Any]]) -> str:
    """How often a second reader, labelling on their own, agreed with the first; the
    recall@5 figures score one reader's first 5 labels against the other's labels with the
    benchmark's metric (at most 5 relevant counted)."""
    second = read_labels(path)
    same_drop = same_set = 0
    overlap: list[float] = []
    second_on_first: list[float] = []
    first_on_second: list[float] = []
    for key, row in second.items():
        a, b = first[key], row
        same_drop += bool(a["drop"]) == bool(b["drop"])
        if a["drop"] or b["drop"]:
            continue
        x, y = set(a["relevant"]), set(b["relevant"])
        same_set += x == y
        overlap.append(len(x & y) / len(x | y))
        second_on_first.append(len(set(b["relevant"][:5]) & x) / min(len(x), 5))
        first_on_second.append(len(set(a["relevant"][:5]) & y) / min(len(y), 5))
    both = len(overlap)
    if not both:
        return f"{len(second)} queries read twice: keep/drop agree {same_drop}/{len(second)}"
    return (
        f"{len(second)} queries read twice: keep/drop agree {same_drop}/{len(second)};"
        f" of the {both} both kept, same labels {same_set}, mean Jaccard"
        f" {sum(overlap) / both:.3f}; recall@5 of the second reader's first 5 against"
        f" the first's labels {sum(second_on_first) / both:.3f}, the other way round"
        f" {sum(first_on_second) / both:.3f}"
    )


def main() -> None:
    source = json.loads(SOURCE.read_text())
    more = json.loads(MORE.read_text())["splits"]["dev"]
    splits: dict[str, list[dict[str, Any]]] = {}
    every: dict[str, dict[str, Any]] = {}
    for split, pools in source["splits"].items():
        labels = read_labels(LABELS / f"{split}.jsonl")
        if split == "dev":
            every = dict(labels)
            labels.update(read_labels(LABELS / "dev-more.jsonl"))
            pools = pools + more
        total = sum(len(p["queries"]) for p in pools)
        splits[split] = apply(pools, labels)
        queries = [q for p in splits[split] for q in p["queries"]]
        kinds = Counter(q["kind"] for q in queries)
        sizes = Counter(min(len(q["relevant"]), 6) for q in queries)
        print(
            f"{split}: {len(queries)} of {total} queries kept in {len(splits[split])} pools;"
            f" kinds {dict(sorted(kinds.items()))}; relevant per query"
            f" {dict(sorted(sizes.items()))} (6 = 6 or more)"
        )
    print("dev:", agreement(LABELS / "agreement.jsonl", every))
    print("test:", agreement(LABELS / "test-second.jsonl", read_labels(LABELS / "test.jsonl")))
    data = {
        "description": "Synthetic-Persona-Chat (Jandaghi et al. 2023, CC-BY 4.0) retrieval set,"
        " the pools and queries of persona_retrieval.json labelled by reading"
        " (bench/data/apply_labels.py, bench/data/README.md). dev = valid.csv,"
        " test = test.csv.",
        "splits": splits,
    }
    OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
