"""Retrieval recall@5 per genre of conversation, each reranker in the same run.

    PYTHONPATH=src .venv/bin/python bench/retrieval_genres.py [--split dev|test]
        [--genres madial-en madial-zh madial-en-zh madial-zh-en realmem persona own]
        [--rerankers cosine embedding hybrid] [--embedders minilm e5 routed]
        [--baseline-rev REV]

The persona set that issue 10 tuned on is one genre; a change to the reranker counts only
if it holds on the others too (R20). Each genre becomes pools of at most ``POOL`` memories
(a workspace holds 20) with labelled turns, from the fixed dev/test split of its README in
``../shared/datasets``:

- ``madial-en`` / ``madial-zh`` (MADial-Bench, companion chat, parallel English and
  Chinese): the message is the user's turn before each test turn, the turns before it the
  history; the pool is the memories to recall plus the same user's others, drawn at random
  (seeded) up to the pool size.
- ``madial-en-zh`` / ``madial-zh-en``: across languages, the same scenes: the English
  dialogue's turns over the Chinese memories, and the Chinese turns over the English
  memories (the dialogues whose relevant memories are the same in both files).
- ``realmem`` (RealMem, a user and an assistant over months): each query turn whose answer
  lists the memories it used; the pool is those plus the user's memory points from earlier
  sessions, drawn at random (seeded); the category tag (``【Travel Plan】``) is dropped,
  as no memoryd memory carries one.
- ``persona`` (``bench/data/persona_retrieval_labelled.json``, labelled by reading).
- ``own`` (``bench/data/retrieval.json``, memoryd's hand-written work conversations; no
  split, read whole).

Memories carry the vectors ``add_memory`` stores (``embed_memories``) by each embedder of
``--embedders`` (a plugin name, ``memoryd.plugins.embedder_factories``; columns are named
``embedder/reranker`` when there are several); none carries questions, as for a user the
background pass has not reached. Prints recall@5, hit@5 and
MRR@5 per genre and reranker, the macro mean over genres, and a paired bootstrap of each
reranker against ``cosine`` (the 5th-95th percentile of the difference in recall@5).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from memoryd.config import MemorydSettings
from memoryd.domain.errors import InvalidContent
from memoryd.domain.injection import Query, build_query, top_k
from memoryd.domain.models import Memory, Scope, Source
from memoryd.domain.rules import normalize_content
from memoryd.evaluation.retrieval import measures
from memoryd.models.embedding.base import Embedder, Routed, embed_memories
from memoryd.models.rerank.embedding import QueryEncoder, memory_vectors
from memoryd.plugins import embedder_factories, reranker_factories

HERE = Path(__file__).resolve().parent
DATASETS = HERE.parents[1] / "shared" / "datasets"
POOL = 20
SEED = 15
REALMEM_SPLIT = {
    "dev": ["Adeleke_Okonjo", "Ethan_Hunt", "Kenta_Tanaka", "Kim_Ji_young", "Liam_O_Connor"],
    "test": ["Lin_Wanyu", "Oliver_Smith", "Pak_Budi", "Sarah_Miller", "Sophie_Dubois"],
}
GENRES = ("madial-en", "madial-zh", "madial-en-zh", "madial-zh-en", "realmem", "persona", "own")


@dataclass(frozen=True)
class Turn:
    message: str
    history: tuple[dict[str, str], ...]
    relevant: frozenset[int]


@dataclass(frozen=True)
class Pool:
    memories: tuple[str, ...]
    turns: tuple[Turn, ...]


def _pool(relevant: Sequence[str], others: Sequence[str], rng: random.Random) -> list[str]:
    """The relevant memories and distractors up to POOL, shuffled; relevant first kept."""
    relevant = list(dict.fromkeys(relevant))[:POOL]
    rest = [m for m in dict.fromkeys(others) if m not in relevant]
    chosen = relevant + rng.sample(rest, min(len(rest), POOL - len(relevant)))
    rng.shuffle(chosen)
    return chosen


# --- MADial-Bench -----------------------------------------------------------------------
_SPEAKER = re.compile(r'^<([^>]+)>\s*[:：]\s*"?(.*?)"?\s*$', re.S)


def _madial_rows(language: str, kind: str) -> list[dict[str, Any]]:
    path = DATASETS / "madial-bench" / f"MADial-Bench-{language}-{kind}.json"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def madial(language: str, split: str, memory_language: str | None = None) -> list[Pool]:
    """Turns in ``language`` over memories in ``memory_language`` (default the same)."""
    memories: dict[int, str] = {}
    for row in _madial_rows(memory_language or language, "memory"):
        for key, value in row.items():
            memories[int(key)] = value["event"]
    dialogues = _madial_rows(language, "dialogue")
    if memory_language and memory_language != language:  # keep the scenes alike in both
        same = _madial_rows(memory_language, "dialogue")
        keep = {
            i
            for i, (a, b) in enumerate(zip(dialogues, same, strict=True))
            if (a["relevant-id"], a["user-id"]) == (b["relevant-id"], b["user-id"])
        }
        dialogues = [d if i in keep else {**d, "relevant-id": []} for i, d in enumerate(dialogues)]
    by_user: dict[int, list[int]] = {}
    for d in dialogues:
        by_user.setdefault(d["user-id"], [])
        by_user[d["user-id"]] += [i for i in d["relevant-id"] if i in memories]
    rng = random.Random(SEED)
    pools = []
    for number, d in enumerate(dialogues):
        if (number % 2 == 0) != (split == "dev"):
            continue
        relevant_ids = [i for i in d["relevant-id"] if i in memories]
        if not relevant_ids:
            continue
        own = sorted(set(by_user[d["user-id"]]))
        texts = _pool([memories[i] for i in relevant_ids], [memories[i] for i in own], rng)
        turns_text = []
        for raw in d["dialogue"]:
            match = _SPEAKER.match(raw.strip())
            if match:
                role = "assistant" if match.group(1) == "Assistant" else "user"
                turns_text.append({"role": role, "content": match.group(2).strip()})
            else:
                turns_text.append({"role": "marker", "content": ""})
        turns = []
        for index in d["test-turn"]:
            before = [t for t in turns_text[:index] if t["role"] != "marker"]
            if not before or before[-1]["role"] != "user":
                continue
            wanted = {memories[i] for i in relevant_ids}
            turns.append(
                Turn(
                    before[-1]["content"],
                    tuple(before[:-1]),
                    frozenset(i for i, t in enumerate(texts) if t in wanted),
                )
            )
        if turns:
            pools.append(Pool(tuple(texts), tuple(turns)))
    return pools


# --- RealMem ----------------------------------------------------------------------------
_TAG = re.compile(r"^【[^】]*】\s*")


def _memory_text(content: Any) -> str | None:
    if not isinstance(content, str):
        return None
    text = " ".join(_TAG.sub("", content).split())
    if len(text) > 500:  # a memory holds at most 500 characters: cut at a word
        text = text[:498].rsplit(" ", 1)[0] + "…"
    return text or None


def realmem(split: str) -> list[Pool]:
    rng = random.Random(SEED)
    pools = []
    for name in REALMEM_SPLIT[split]:
        data = json.loads((DATASETS / "realmem" / f"{name}_dialogues_256k.json").read_text())
        earlier: list[str] = []
        for session in data["dialogues"]:
            turns = session["dialogue_turns"]
            for index, turn in enumerate(turns):
                used = turn.get("memory_used")
                if turn["speaker"] != "Assistant" or not used or index == 0:
                    continue
                query = turns[index - 1]
                if query["speaker"] != "User" or str(query.get("is_query")) != "True":
                    continue
                items = ast.literal_eval(used) if isinstance(used, str) else used
                wanted = [t for t in (_memory_text(i.get("content")) for i in items) if t]
                wanted = [t for t in wanted if t in earlier]
                if not wanted:
                    continue
                texts = _pool(wanted, earlier, rng)
                history = tuple(
                    {"role": t["speaker"].lower(), "content": t["content"]}
                    for t in turns[max(0, index - 4) : index - 1]
                )
                relevant = frozenset(i for i, t in enumerate(texts) if t in wanted)
                pools.append(Pool(tuple(texts), (Turn(query["content"], history, relevant),)))
            for item in session.get("extracted_memory") or []:
                text = _memory_text(item.get("content"))
                if text and text not in earlier:
                    earlier.append(text)
    return pools


# --- memoryd's own sets -----------------------------------------------------------------
def persona(split: str) -> list[Pool]:
    data = json.loads((HERE / "data" / "persona_retrieval_labelled.json").read_text())
    return [
        Pool(
            tuple(p["memories"]),
            tuple(
                Turn(q["message"], tuple(q["history"]), frozenset(q["relevant"]))
                for q in p["queries"]
                if q["relevant"]
            ),
        )
        for p in data["splits"][split]
    ]


def own(split: str) -> list[Pool]:
    data = json.loads((HERE / "data" / "retrieval.json").read_text())
    return [
        Pool(
            tuple(p["memories"]),
            tuple(
                Turn(q["message"], tuple(q.get("history", ())), frozenset(q["relevant"]))
                for q in p["queries"]
            ),
        )
        for p in data["pools"]
    ]


def load(genre: str, split: str) -> list[Pool]:
    if genre.startswith("madial-"):
        language, _, memory_language = genre.removeprefix("madial-").partition("-")
        return madial(language, split, memory_language or None)
    return {"realmem": realmem, "persona": persona, "own": own}[genre](split)


# --- rerankers --------------------------------------------------------------------------
class ConcatCosine:
    """Plain cosine with the whole query (message and history) as one text (with a routed
    embedder, in the model the turn's texts call for)."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self.encoders: dict[str, QueryEncoder] = {}

    def cosines(self, text: str, query: Query, memories: Sequence[Memory]) -> list[float]:
        embedder = self.embedder
        if isinstance(embedder, Routed):
            embedder = embedder.route([*query.parts, *(m.content for m in memories)])
        encoder = self.encoders.setdefault(embedder.name, QueryEncoder(embedder))
        (vector,) = encoder.vectors([text])
        return [float(x) for x in memory_vectors(embedder, memories) @ vector]

    def score(self, query: Query, memories: Sequence[Memory]) -> list[float]:
        return self.cosines(query.text, query, memories)


class MessageCosine(ConcatCosine):
    """Plain cosine with the message alone."""

    def score(self, query: Query, memories: Sequence[Memory]) -> list[float]:
        return self.cosines(query.message or query.text, query, memories)


def rerankers(embedder: Embedder) -> dict[str, Callable[[], Any]]:
    built = reranker_factories()
    named: dict[str, Callable[[], Any]] = {
        "cosine": lambda: ConcatCosine(embedder),
        "message-cosine": lambda: MessageCosine(embedder),
    }
    for name in ("embedding", "lexical", "hybrid"):
        if name in built:
            named[name] = partial(built[name], embedder)
    return named


def _storable(text: str) -> str:
    """The text as ``add_memory`` would store it; leading Markdown markup dropped."""
    try:
        return normalize_content(text)
    except InvalidContent:
        return normalize_content(text.lstrip("#>*-+`0123456789.) "))


def memories_of(embedder: Embedder, pool: Pool, cache: dict[str, Any]) -> list[Memory]:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    fresh = [_storable(t) for t in pool.memories]
    missing = [t for t in dict.fromkeys(fresh) if t not in cache]
    for text, vector in zip(missing, embed_memories(embedder, missing), strict=True):
        cache[text] = vector
    return [
        Memory(
            f"m{i}",
            1,
            Scope.WORKSPACE,
            "bench",
            text,
            Source.USER,
            start + timedelta(minutes=i),
            start,
            embedding=cache[text],
            embedder=embedder.name,
        )
        for i, text in enumerate(fresh)
    ]


def run(reranker: Any, cases: list[tuple[list[Memory], Turn]]) -> np.ndarray:
    rows = []
    for memories, turn in cases:
        query = build_query(turn.message, turn.history)
        ranked = top_k(memories, reranker.score(query, memories), len(memories))
        index = {m.id: i for i, m in enumerate(memories)}
        rows.append(measures([index[s.memory.id] for s in ranked], turn.relevant))
    return np.asarray(rows)


def bootstrap(diff: np.ndarray, rounds: int = 2000) -> tuple[float, float]:
    rng = np.random.default_rng(SEED)
    means = rng.choice(diff, size=(rounds, len(diff)), replace=True).mean(axis=1)
    return float(np.percentile(means, 5)), float(np.percentile(means, 95))


def embedders(names: Sequence[str]) -> list[Embedder]:
    built = embedder_factories()
    unknown = [n for n in names if n not in built]
    if unknown:
        sys.exit(f"unknown embedder(s): {', '.join(unknown)}; known: {', '.join(built)}")
    settings = MemorydSettings()
    return [built[name](settings) for name in names]


def measure(
    split: str, genres: Sequence[str], names: Sequence[str], embedder_names: Sequence[str] = ()
) -> dict[str, Any]:
    """Per genre and reranker (and embedder), each turn's (recall@5, hit@5, MRR@5)."""
    embedder_names = list(embedder_names) or ["minilm"]
    table: dict[str, Any] = {}
    for label, embedder in zip(embedder_names, embedders(embedder_names), strict=True):
        factories = rerankers(embedder)
        unknown = [r for r in names if r not in factories]
        if unknown:
            sys.exit(f"unknown reranker(s): {', '.join(unknown)}; known: {', '.join(factories)}")
        cache: dict[str, Any] = {}
        for genre in genres:
            pools = load(genre, split)
            cases = [(memories_of(embedder, p, cache), t) for p in pools for t in p.turns]
            for name in names:
                column = f"{label}/{name}" if len(embedder_names) > 1 else name
                table.setdefault(genre, {})[column] = run(factories[name](), cases).tolist()
            print(f"{label} {genre}: {len(cases)} turns", file=sys.stderr, flush=True)
    return table


def baseline(
    rev: str,
    split: str,
    genres: Sequence[str],
    names: Sequence[str],
    embedder_names: Sequence[str] = (),
    archive: bytes = b"",
) -> dict[str, Any]:
    """The same measure with ``src`` as it was at git revision ``rev`` (exported to a
    temporary folder, run in a subprocess) and the same embedders; its columns named
    ``rev:name`` (``rev:embedder/name`` with several embedders). ``archive``: ``src`` at
    ``rev`` exported before (so that a "HEAD~1" means the revision of the start, not of
    when the current code's run is over)."""
    with tempfile.TemporaryDirectory(prefix="memoryd-rev-") as tmp:
        archive = archive or export(rev)
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        env = {**os.environ, "PYTHONPATH": f"{tmp}/src"}
        command = [sys.executable, __file__, "--split", split, "--emit-json"]
        command += ["--genres", *genres, "--rerankers", *names]
        command += ["--embedders", *(embedder_names or ["minilm"])]
        out = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
    table: dict[str, Any] = json.loads(out.stdout)
    return {g: {f"{rev}:{n}": rows for n, rows in by.items()} for g, by in table.items()}


def export(rev: str) -> bytes:
    command = ["git", "-C", str(HERE.parent), "archive", rev, "src"]
    return subprocess.run(command, check=True, capture_output=True).stdout


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", choices=("dev", "test"), default="dev")
    parser.add_argument("--genres", nargs="+", choices=GENRES, default=list(GENRES))
    parser.add_argument("--rerankers", nargs="+", default=["cosine", "embedding", "hybrid"])
    parser.add_argument("--embedders", nargs="+", default=["minilm"], help="plugin names")
    parser.add_argument("--baseline-rev", metavar="REV", help="also the hybrid of revision REV")
    parser.add_argument("--emit-json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    archive = export(args.baseline_rev) if args.baseline_rev else b""
    table = measure(args.split, args.genres, args.rerankers, args.embedders)
    if args.emit_json:
        print(json.dumps(table))
        return
    if args.baseline_rev:
        old = baseline(
            args.baseline_rev, args.split, args.genres, ["hybrid"], args.embedders, archive
        )
        table = {g: {**table[g], **old[g]} for g in table}
    names = list(next(iter(table.values())))
    print(
        f"\nrecall@5 on {args.split} (hit@5, MRR@5); [5%, 95%] of the paired difference "
        f"in recall@5 to {names[0]}"
    )
    print(f"{'genre':<14}" + "".join(f"{name:>34}" for name in names))
    for genre, by in table.items():
        base = np.asarray(by[names[0]])[:, 0]
        cells = []
        for name in names:
            r = np.asarray(by[name])
            low, high = bootstrap(r[:, 0] - base)
            cells.append(
                f"{r[:, 0].mean():.3f} ({r[:, 1].mean():.2f}, {r[:, 2].mean():.2f}) "
                f"[{low:+.3f},{high:+.3f}]"
            )
        print(f"{genre:<14}" + "".join(f"{c:>34}" for c in cells))
    macro = {n: np.mean([np.asarray(by[n])[:, 0].mean() for by in table.values()]) for n in names}
    print(f"{'macro':<14}" + "".join(f"{macro[n]:>34.3f}" for n in names))


if __name__ == "__main__":
    main()
