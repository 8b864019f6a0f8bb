"""Build bench/data/persona_retrieval.json from Synthetic-Persona-Chat (CC-BY 4.0).

An independent retrieval benchmark, made from public data by this script. Dev comes from the
dataset's valid.csv, test from its test.csv, so the two share no conversation. For each
conversation and each of its two speakers (the "owner"):

- the pool is 20 memories: the owner's persona facts and facts of other personas of the
  same split, in a seeded random order (the other speaker's facts are left out: the
  conversation states them in the messages a reranker reads, where memoryd would rightly
  rank them first, so they would be wrong distractors);
- a query is the other speaker's message just before an owner turn that states or
  implies one of the owner's facts, with the 3 messages before it as history; its
  relevant memories are the facts that owner turn states. The labels come from the
  reply, which no reranker ever sees, so the query only calls on the fact ("What do you
  do for fun?" -> "I love to bake cookies.").

The matcher (does an owner turn state a fact?) is MiniLM cosine between the turn and the
fact, >= 0.6, or >= 0.45 when they also share a content word; it was checked by hand on
a sample (bench/data/README.md). Everything is deterministic: same CSVs, same JSON.

``--set clean`` writes persona_retrieval_clean.json, a stricter view of the same data
(rules fixed on dev, bench/data/README.md): a query's message must ask the owner a
question (a sentence ending in "?" with "you"/"your"), not a greeting ("How are you?"),
and the matcher needs cosine >= 0.7, or >= 0.55 with a shared content word.

    PYTHONPATH=src .venv/bin/python bench/data/build_persona_retrieval.py \
        [--set clean] [--source DIR]
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from memoryd.models.embedding.minilm import MiniLMEmbedder

DATASET = Path("shared") / "datasets" / "synthetic-persona-chat"
# the first parent folder of this repository that has shared/ beside it
SOURCE = next(
    (p / DATASET for p in Path(__file__).resolve().parents if (p / DATASET).is_dir()), DATASET
)
OUT = Path(__file__).parent / "persona_retrieval.json"
SPLITS = (("dev", "valid.csv"), ("test", "test.csv"))
POOL_SIZE = 20
MIN_QUERIES = 1000  # per split
MAX_QUERIES_PER_POOL = 4
HISTORY = 3
MATCH = 0.6  # cosine at which an owner turn states a fact
MATCH_WITH_WORD = 0.45  # ... when the two also share a content word
NEAR_DUPLICATE = 0.8  # a distractor this close to an owner fact is not used
SEED = 20261130


@dataclass(frozen=True)
class Rules:
    """What makes a query and its labels: the matcher's thresholds and the message filter."""

    name: str
    out: Path
    match: float  # cosine at which an owner turn states a fact
    match_with_word: float  # ... when the two also share a content word
    questions_only: bool  # the message must ask the owner a question (not a greeting)


LOOSE = Rules("persona", OUT, MATCH, MATCH_WITH_WORD, questions_only=False)
# Fixed on dev only (bench/data/README.md, "A cleaner view"): a question the owner is asked,
# and a stricter matcher, so near-topic labels ("party planner" -> "party animal") drop out.
CLEAN = Rules(
    "clean", OUT.with_name("persona_retrieval_clean.json"), 0.7, 0.55, questions_only=True
)
RULES = {r.name: r for r in (LOOSE, CLEAN)}

_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_YOU = re.compile(r"\byou(r|rs|rself)?\b", re.IGNORECASE)
# Small talk: the reply names whatever fact the owner likes, nothing in the turn calls on it.
_GREETING = re.compile(
    r"\b(how are you|how're you|how are things|how's it going|how is it going|how have you"
    r" been|how's your day|how is your day|how was your day|how's everything|what's up|what"
    r" are you up to|what have you been up to|how do you do)\b",
    re.IGNORECASE,
)


def asks_owner(message: str) -> bool:
    """True when the message asks the listener a question that is not a greeting."""
    questions = [
        s for s in _SENTENCE.split(message.strip()) if s.rstrip().endswith("?") and _YOU.search(s)
    ]
    return any(not _GREETING.search(q) for q in questions)


_WORD = re.compile(r"[a-z]+")
# Words that say nothing about which fact a turn states (the matcher's own list).
GENERIC_WORDS = """
a about after again all also am an and any are as at be because been but by can could
did do does doing don for from get go going good got great had has have he her him his
how i i'm if in into is it it's its just know like lot love loved loves me more much my
myself no not now of on one or other our out really so some such than that the their them
then there they thing things think this to too up us very want was we well were what
when where which who why will with would yes you your enjoy enjoying favorite time
people make day days always never every also year years new way lot lots yeah oh wow
sure nice fun cool awesome thanks thank sounds sound
"""
GENERIC = frozenset(GENERIC_WORDS.split())


def content_words(text: str) -> set[str]:
    words = _WORD.findall(text.lower())
    return {w.rstrip("s") if len(w) > 4 else w for w in words if w not in GENERIC and len(w) > 2}


def facts(cell: str) -> list[str]:
    return [line.strip() for line in cell.strip().splitlines() if line.strip()]


def turns(cell: str) -> list[tuple[int, str]]:
    """(speaker 1 or 2, text) for each line 'User N: text' of a conversation."""
    found: list[tuple[int, str]] = []
    for line in cell.strip().splitlines():
        head, _, text = line.partition(":")
        if head.strip() in ("User 1", "User 2") and text.strip():
            found.append((int(head.strip()[-1]), text.strip()))
    return found


@dataclass
class Conversation:
    personas: tuple[list[str], list[str]]
    turns: list[tuple[int, str]]


class Vectors:
    """MiniLM vectors of texts, each embedded once (in batches, as first asked for)."""

    def __init__(self, embedder: MiniLMEmbedder) -> None:
        self.embedder = embedder
        self.known: dict[str, np.ndarray] = {}

    def add(self, texts: list[str]) -> None:
        missing = [t for t in dict.fromkeys(texts) if t not in self.known]
        for i in range(0, len(missing), 64):
            batch = missing[i : i + 64]
            self.known.update(zip(batch, self.embedder.embed(batch), strict=True))

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.add(texts)
        return np.stack([self.known[t] for t in texts])


def stated(turn: str, owner_facts: list[str], vec: Vectors, rules: Rules = LOOSE) -> list[int]:
    """Indexes of the owner's facts that this turn of theirs states or implies."""
    sims = vec(owner_facts) @ vec([turn])[0]
    words = content_words(turn)
    return [
        i
        for i, (fact, s) in enumerate(zip(owner_facts, sims, strict=True))
        if s >= rules.match or (s >= rules.match_with_word and words & content_words(fact))
    ]


def build_split(
    rows: list[Conversation],
    vec: Vectors,
    rng: random.Random,
    rules: Rules = LOOSE,
    first: int = 0,
    wanted: int = MIN_QUERIES,
) -> list[dict[str, Any]]:
    every_fact = list(dict.fromkeys(f for c in rows for p in c.personas for f in p))
    pools: list[dict[str, Any]] = []
    total = 0
    for number, conv in enumerate(rows):
        if number < first:
            continue
        for owner in (1, 2):
            own = list(dict.fromkeys(conv.personas[owner - 1]))
            vec.add([t for _, t in conv.turns])
            queries = owner_queries(conv, owner, own, vec, rules)[:MAX_QUERIES_PER_POOL]
            if not queries:
                continue
            memories = pool_for(own, conv.personas[2 - owner], every_fact, vec, rng)
            order = list(range(POOL_SIZE))
            rng.shuffle(order)
            shuffled = [memories[i] for i in order]
            where = {old: new for new, old in enumerate(order)}
            for q in queries:
                q["relevant"] = sorted(where[i] for i in q["relevant"])
            pools.append(
                {
                    "id": f"c{number:04d}-u{owner}",
                    "workspace": f"persona-{len(pools)}",
                    "memories": shuffled,
                    "queries": queries,
                }
            )
            total += len(queries)
        if total >= wanted:
            break
    return pools


def owner_queries(
    conv: Conversation, owner: int, own: list[str], vec: Vectors, rules: Rules = LOOSE
) -> list[dict[str, Any]]:
    queries: list[dict[str, Any]] = []
    for at, (speaker, text) in enumerate(conv.turns):
        if speaker != owner or at == 0 or conv.turns[at - 1][0] == owner:
            continue
        message = conv.turns[at - 1][1]
        if rules.questions_only and not asks_owner(message):
            continue
        relevant = stated(text, own, vec, rules)
        if not relevant:
            continue
        window = conv.turns[max(0, at - 1 - HISTORY) : at - 1]
        history = [{"role": "assistant" if s == owner else "user", "content": t} for s, t in window]
        queries.append(
            {
                "kind": kind(message, history, [own[i] for i in relevant]),
                "message": message,
                "history": history,
                "relevant": relevant,
                "reply": text,
            }
        )
    return queries


def kind(message: str, history: list[dict[str, str]], relevant: list[str]) -> str:
    """keyword: the message shares a content word with a relevant fact; history: only the
    history does; paraphrase: neither does."""
    target = set().union(*(content_words(f) for f in relevant))
    if content_words(message) & target:
        return "keyword"
    if any(content_words(h["content"]) & target for h in history):
        return "history"
    return "paraphrase"


def pool_for(
    own: list[str], other: list[str], every_fact: list[str], vec: Vectors, rng: random.Random
) -> list[str]:
    """The owner's facts first, then distractors that say nothing the owner's or the other
    speaker's facts say."""
    chosen = list(own)
    own_vecs = vec(own + other)
    own_words = [content_words(f) for f in own + other]

    def distinct(fact: str) -> bool:
        if fact in chosen:
            return False
        words = content_words(fact)
        if any(words and len(words & w) / len(words | w) >= 0.5 for w in own_words):
            return False
        return float((own_vecs @ vec([fact])[0]).max()) < NEAR_DUPLICATE

    while len(chosen) < POOL_SIZE:
        fact = every_fact[rng.randrange(len(every_fact))]
        if distinct(fact):
            chosen.append(fact)
    return chosen


def read(path: Path) -> list[Conversation]:
    with path.open(newline="", encoding="utf-8") as fh:
        return [
            Conversation(
                (facts(r["user 1 personas"]), facts(r["user 2 personas"])),
                turns(r["Best Generated Conversation"]),
            )
            for r in csv.DictReader(fh)
        ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, default=SOURCE)
    parser.add_argument(
        "--set",
        choices=sorted(RULES),
        default=LOOSE.name,
        help="persona: the first set; clean: the stricter view",
    )
    parser.add_argument("--out", type=Path, help="default: the set's file in bench/data/")
    parser.add_argument(
        "--more-dev",
        type=int,
        metavar="N",
        help="instead: N more dev queries from the valid.csv conversations after"
        " those persona_retrieval.json uses, to persona_retrieval_more.json",
    )
    args = parser.parse_args()
    if args.more_dev:
        more_dev(args.source, args.more_dev)
        return
    rules = RULES[args.set]
    out: Path = args.out or rules.out
    embedder = MiniLMEmbedder()
    splits: dict[str, list[dict[str, Any]]] = {}
    for split, filename in SPLITS:
        rows = read(args.source / filename)
        vec = Vectors(embedder)
        vec.add([f for c in rows for p in c.personas for f in p])
        splits[split] = build_split(rows, vec, random.Random(f"{SEED}-{split}"), rules)
    view = "" if rules is LOOSE else f" --set {rules.name} (the stricter view)"
    data = {
        "description": "Retrieval benchmark built from Synthetic-Persona-Chat (Jandaghi et al."
        f" 2023, CC-BY 4.0) by bench/data/build_persona_retrieval.py{view}; see"
        " bench/data/README.md. dev = valid.csv, test = test.csv.",
        "splits": splits,
    }
    out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for split, pools in splits.items():
        queries = [q for p in pools for q in p["queries"]]
        kinds = {
            k: sum(q["kind"] == k for q in queries) for k in ("keyword", "paraphrase", "history")
        }
        sizes = {n: sum(len(q["relevant"]) == n for q in queries) for n in (1, 2, 3, 4, 5)}
        print(
            f"{split}: {len(pools)} pools, {len(queries)} queries, kinds {kinds},"
            f" relevant per query {sizes}"
        )


def more_dev(source: Path, wanted: int) -> None:
    """Further dev pools and queries (the first set's rules) for labelling by reading."""
    used = json.loads(OUT.read_text(encoding="utf-8"))["splits"]["dev"]
    first = 1 + max(int(p["id"][1:5]) for p in used)
    rows = read(source / "valid.csv")
    vec = Vectors(MiniLMEmbedder())
    vec.add([f for c in rows for p in c.personas for f in p])
    pools = build_split(rows, vec, random.Random(f"{SEED}-dev-more"), LOOSE, first, wanted)
    out = OUT.with_name("persona_retrieval_more.json")
    out.write_text(
        json.dumps(
            {
                "description": f"More dev pools from valid.csv conversation"
                f" {first} on, bench/data/README.md",
                "splits": {"dev": pools},
            },
            indent=1,
            ensure_ascii=False,
        )
        + "\n",
        encoding="utf-8",
    )
    print(f"{out}: {len(pools)} pools, {sum(len(p['queries']) for p in pools)} queries")


if __name__ == "__main__":
    main()
