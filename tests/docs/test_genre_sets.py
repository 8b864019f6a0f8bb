"""bench/genre_sets.py reads each public data set into well-formed labelled conversations,
with the dev/test split its README fixes.

``bench/genres.py`` trusts these conversations: a converter that leaked a test user into dev,
lost the user's turns or mislabelled a replaced rule would silently change every figure.
The data sets live outside the repository (/work/shared/datasets, or MEMORYD_DATASETS);
the tests skip when they are not there.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


def genre_sets() -> ModuleType:
    spec = importlib.util.spec_from_file_location("genre_sets", BENCH / "genre_sets.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


GS = genre_sets()
pytestmark = pytest.mark.skipif(not GS.DATASETS.is_dir(), reason=f"no data sets at {GS.DATASETS}")


def well_formed(conv: dict[str, Any]) -> None:
    from memoryd.evaluation.extraction import chat_time

    assert conv["id"] and conv["workspace"] and conv["exchanges"] and conv["facts"]
    for exchange in conv["exchanges"]:
        assert isinstance(exchange["prompt"], str) and exchange["prompt"].strip()
        assert isinstance(exchange["response"], str)
        chat_time(exchange)  # a time, when there is one, is ISO 8601
    for fact in conv["facts"]:
        text = fact["text"] if isinstance(fact, dict) else fact
        assert isinstance(text, str) and text.strip()
    assert all(isinstance(o, str) and o for o in conv.get("other_facts", []))


@pytest.mark.parametrize("split", ["dev", "test"])
@pytest.mark.parametrize("genre", GS.GENRES)
def test_each_genre_gives_well_formed_conversations(genre: str, split: str) -> None:
    convs = GS.load(genre, split, 3)
    assert len(convs) == 3 and len({c["id"] for c in convs}) == 3
    for conv in convs:
        well_formed(conv)
    assert GS.load(genre, split, 3) == convs  # a fixed sample
    assert {c["id"] for c in convs} <= {c["id"] for c in GS.load(genre, split, 5)}


def test_realmem_splits_are_the_readmes_users_and_carry_times() -> None:
    dev, test = GS.realmem("dev", 10_000), GS.realmem("test", 10_000)
    users = {split: {c["id"].split("/")[0] for c in convs} for split, convs in
             (("dev", dev), ("test", test))}  # fmt: skip
    assert users["dev"] == {"Adeleke_Okonjo", "Ethan_Hunt", "Kenta_Tanaka", "Kim_Ji_young",
                            "Liam_O_Connor"}  # fmt: skip
    assert users["test"] == {"Lin_Wanyu", "Oliver_Smith", "Pak_Budi", "Sarah_Miller",
                             "Sophie_Dubois"}  # fmt: skip
    conv = dev[0]
    assert all(e["time"].endswith("+00:00") for e in conv["exchanges"])
    assert not any(f.startswith(("User ", "【")) for c in dev for f in c["facts"])
    # the assistant's long replies are kept as the chats' responses
    assert sum(len(e["response"]) for e in conv["exchanges"]) > 0


def test_memorycode_rules_are_workspace_facts_and_updates_replace_them() -> None:
    dev = GS.memorycode("dev", 180)
    assert {c["id"] for c in dev} == {f"dialogue_{n}" for n in range(1, 181)}
    assert not {c["id"] for c in GS.memorycode("test", 5)} & {c["id"] for c in dev}
    replaced = [f for c in dev for f in c["facts"] if "replaced_in" in f]
    assert replaced and all(f["replaced_in"] > f["session"] for f in replaced)
    assert all(f["scope"] == "workspace" for c in dev for f in c["facts"])
    for conv in dev:
        assert {e["session"] for e in conv["exchanges"]} <= set(range(conv["sessions"]))
    # dialogue 136: "start function names with 'b_'" (session 2) -> 'd_' (3) -> 'y_' (4)
    conv = next(c for c in dev if c["id"] == "dialogue_136")
    names = [(f["text"], f["session"], f.get("replaced_in")) for f in conv["facts"]
             if "function names with" in f["text"]]  # fmt: skip
    assert ("always start function names with 'b_'", 2, 3) in names
    assert ("always start function names with 'y_'", 4, None) in names


def test_memorycode_mentor_is_the_user() -> None:
    conv = GS.memorycode("dev", 180)[0]
    first = conv["exchanges"][0]
    # dialogue 1: Emma (mentor) opens; Oliver (mentee) answers
    assert conv["id"] == "dialogue_1"
    assert first["prompt"].startswith("Hi Oliver") and "Emma" in first["prompt"]
    assert first["response"].startswith("Nice to meet you, Emma")
    assert GS._speaker("Y.S.", "Yoon-Seo", "Alexander") == "mentor"
    assert GS._speaker("A.", "Yoon-Seo", "Alexander") == "mentee"
    assert GS._speaker("Sylvieu", "Sylvie", "Sophia") == "mentor"
    assert GS._speaker("So, we have a few key areas of focus", "Sara", "Eva") is None


def test_xpersona_second_speaker_is_the_user() -> None:
    items = GS.xpersona("fr", "dev", 10_000)
    assert len(items) == 248  # Fr_persona_split_valid_human_annotated.json
    conv = GS.xpersona("en", "dev", 10_000)[0]
    assert not any("__SILENCE__" in e["prompt"] + e["response"] for e in conv["exchanges"])


def test_pair_turns_joins_and_drops_what_has_no_prompt() -> None:
    turns = [(False, "hello"), (True, "I ski."), (True, "A lot."), (False, "Nice."),
             (False, "Really."), (True, "Bye.")]  # fmt: skip
    assert GS.pair_turns(turns) == [
        {"prompt": "I ski.\nA lot.", "response": "Nice.\nReally."},
        {"prompt": "Bye.", "response": ""},
    ]
