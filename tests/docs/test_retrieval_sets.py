"""The retrieval benchmark's data files keep the shape and the rules bench/data/README.md states.

bench/retrieval_genres.py and the bundled `memoryd eval retrieval` sample trust these files; a
rebuilt file that broke a rule (a clean query that is not a question, a label out of range, a
split under 1,000 queries) would silently change the figures in BENCHMARKS.md.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

DATA = Path(__file__).resolve().parents[2] / "bench" / "data"


def builder() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "build_persona_retrieval", DATA / "build_persona_retrieval.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def splits(name: str) -> dict[str, list[dict[str, Any]]]:
    data: dict[str, Any] = json.loads((DATA / name).read_text(encoding="utf-8"))
    return data["splits"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("name", ["persona_retrieval.json", "persona_retrieval_clean.json"])
def test_each_split_has_1000_queries_over_pools_of_20(name: str) -> None:
    for split, pools in splits(name).items():
        queries = [q for p in pools for q in p["queries"]]
        assert len(queries) >= 1000, split
        for pool in pools:
            assert len(set(pool["memories"])) == 20, pool["id"]
            assert 1 <= len(pool["queries"]) <= 4, pool["id"]
            for q in pool["queries"]:
                assert q["relevant"] and all(0 <= i < 20 for i in q["relevant"]), pool["id"]
                assert len(q["history"]) <= 3


def test_every_clean_query_asks_the_owner_a_question() -> None:
    asks_owner = builder().asks_owner
    for pools in splits("persona_retrieval_clean.json").values():
        messages = [q["message"] for p in pools for q in p["queries"]]
        assert [m for m in messages if not asks_owner(m)] == []


def test_the_question_rule() -> None:
    asks_owner = builder().asks_owner
    assert asks_owner("Oh, that's cool! What do you do for a living?")
    assert asks_owner("I don't drink alcohol. What about you?")
    assert not asks_owner("I'm sorry to hear that.")
    assert not asks_owner("Hi! How are you doing today?")  # small talk
    assert not asks_owner("What are you up to today?")
    assert not asks_owner("Is it raining there?")  # not put to the listener


def test_the_hand_check_summary_matches_its_items() -> None:
    check = json.loads((DATA / "persona-clean-check.json").read_text(encoding="utf-8"))
    items = check["items"]
    assert len(items) >= 50
    assert check["summary"] == {
        "labels": len(items),
        "right": sum(i["verdict"] == "right" for i in items),
        "foreseeable": sum(i["foreseeable"] == "yes" for i in items),
        "right_and_foreseeable": sum(
            i["verdict"] == "right" and i["foreseeable"] == "yes" for i in items
        ),
    }
    dev_queries = {
        q["message"] for p in splits("persona_retrieval_clean.json")["dev"] for q in p["queries"]
    }
    assert all(i["query"] in dev_queries for i in items)  # dev only, never test


def test_the_labelled_set_holds_the_labels_read_by_hand() -> None:
    """persona_retrieval_labelled.json is persona_retrieval.json with labels/*.jsonl applied:
    each kept query has exactly the labels its reader gave, each dropped one is gone."""
    source = splits("persona_retrieval.json")
    labelled = splits("persona_retrieval_labelled.json")
    total = 0
    more = splits("persona_retrieval_more.json")["dev"]  # further dev pools
    for split, pools in source.items():
        files = [f"{split}.jsonl"] + (["dev-more.jsonl"] if split == "dev" else [])
        lines = [
            line
            for name in files
            for line in (DATA / "labels" / name).read_text(encoding="utf-8").splitlines()
        ]
        labels = {row["id"]: row for row in map(json.loads, lines)}
        pools = pools + more if split == "dev" else pools
        assert len(labels) == sum(len(p["queries"]) for p in pools)  # every query was read
        kept = {p["id"]: p for p in labelled[split]}
        for pool in pools:
            expected = [
                (q["message"], labels[f"{pool['id']}#{n}"]["relevant"])
                for n, q in enumerate(pool["queries"])
                if not labels[f"{pool['id']}#{n}"]["drop"]
            ]
            got = [
                (q["message"], q["relevant"])
                for q in kept.get(pool["id"], {"queries": []})["queries"]
            ]
            assert got == expected, pool["id"]
            if pool["id"] in kept:
                assert kept[pool["id"]]["memories"] == pool["memories"]
        total += sum(len(p["queries"]) for p in labelled[split])
    assert total >= 1000


def test_the_second_reading_covers_the_test_split_once() -> None:
    """labels/test-second.jsonl reads every test query once, in the form apply_labels
    checks (labels or a drop reason, indexes in the pool)."""
    source = splits("persona_retrieval.json")["test"]
    ids = [f"{pool['id']}#{n}" for pool in source for n in range(len(pool["queries"]))]
    rows = [json.loads(line) for line in (DATA / "labels" / "test-second.jsonl").open()]
    assert [row["id"] for row in rows] == ids
    for row in rows:
        assert bool(row["drop"]) != bool(row["relevant"]), row["id"]
        assert len(set(row["relevant"])) == len(row["relevant"]), row["id"]
        assert all(0 <= i < 20 for i in row["relevant"]), row["id"]


def test_the_eval_sample_is_what_its_script_builds_from_the_labelled_test_split() -> None:
    """``memoryd eval retrieval``'s bundled sample: the hand-written set and test pools
    only, with their labels unchanged."""
    root = DATA.parents[1]
    spec = importlib.util.spec_from_file_location(
        "build_retrieval_sample", root / "scripts" / "build_retrieval_sample.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    shipped = json.loads((root / "src" / "memoryd" / "data" / "retrieval-sample.json").read_text())
    assert shipped == module.sample()
    test_ids = {p["id"] for p in splits("persona_retrieval_labelled.json")["test"]}
    persona = [p["id"].removeprefix("persona-test/") for p in shipped["pools"][12:]]
    assert persona and set(persona) <= test_ids
