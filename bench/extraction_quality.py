"""Extraction quality of an LLM provider on the labelled conversations.

    .venv/bin/python bench/extraction_quality.py                 # bundled local model
    .venv/bin/python bench/extraction_quality.py --limit 5
    MEMORYD_LLM_PROVIDER=openai MEMORYD_LLM_BASE_URL=... bench/extraction_quality.py

Each conversation of bench/data/extraction.json runs through the real pipeline
(``md.extract(user, workspace, force=True)``) on a fresh SQLite database, with its
``existing`` memories stored first. The memories the run created or updated are matched
against the labelled facts: a prediction matches a fact when it contains every one of the
fact's keywords (case-insensitive substring), one prediction per fact. Precision is
matched predictions / predictions, recall matched facts / facts. Also reported: scope
agreement of matched pairs, updates made in place of the labelled memory, secrets leaked,
and seconds, LLM calls and tokens per batch. A second, looser reading matches by meaning:
MiniLM cosine similarity >= 0.6 between prediction and labelled text, greedily one to one
(``--rescore rows.json`` recomputes both from a saved run without calling the model).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from memoryd import Memoryd, Scope
from memoryd.config import MemorydSettings

DATA = Path(__file__).parent / "data" / "extraction.json"


def matches(text: str, fact: dict[str, Any]) -> bool:
    lowered = text.casefold()
    return all(k.casefold() in lowered for k in fact["keywords"])


def run_one(conv: dict[str, Any], settings: MemorydSettings, folder: Path) -> dict[str, Any]:
    md = Memoryd(f"sqlite:///{folder / (conv['id'] + '.db')}", settings=settings)
    user = md.create_user("bench")
    slug = conv["workspace"]
    md.create_workspace(slug)
    existing_ids = []
    for index, text in enumerate(conv.get("existing", [])):
        scope = next((f["scope"] for f in conv["facts"] if f.get("updates") == index), "workspace")
        memory = md.add_memory(user.id, text, scope, slug if scope == "workspace" else None)
        existing_ids.append(memory.id)
    for exchange in conv["exchanges"]:
        md.record_chat(user.id, slug, exchange["prompt"], exchange["response"])
    started = time.perf_counter()
    result = md.extract(user.id, slug, force=True)
    seconds = time.perf_counter() - started
    predicted = [*result.created, *result.updated]
    facts = conv["facts"]
    used: set[int] = set()
    matched_facts = 0
    scope_ok = 0
    updates_ok = 0
    for fact in facts:
        for index, memory in enumerate(predicted):
            if index not in used and matches(memory.content, fact):
                used.add(index)
                matched_facts += 1
                scope_ok += memory.scope is Scope(fact["scope"])
                if "updates" in fact and memory.id == existing_ids[fact["updates"]]:
                    updates_ok += 1
                break
    everything = " ".join(m.content for m in md.list_memories(user.id))
    leaked = sum(secret in everything for secret in conv.get("secrets", []))
    md.close()
    return {
        "id": conv["id"],
        "facts": len(facts),
        "predicted": len(predicted),
        "matched_predictions": len(used),
        "matched_facts": matched_facts,
        "scope_ok": scope_ok,
        "updates": sum("updates" in f for f in facts),
        "updates_in_place": updates_ok,
        "secrets": len(conv.get("secrets", [])),
        "leaked": leaked,
        "seconds": seconds,
        "batches": result.batches,
        "calls": result.usage.calls,
        "prompt_tokens": result.usage.prompt_tokens,
        "completion_tokens": result.usage.completion_tokens,
        "error": result.error,
        "memories": [f"[{m.scope.value}] {m.content}" for m in predicted],
        "rejected": result.rejected,
    }


SEMANTIC_MATCH = 0.6


def semantic_scores(
    rows: list[dict[str, Any]], conversations: list[dict[str, Any]]
) -> dict[str, float]:
    """Precision and recall when a prediction matches a fact by meaning (see module doc)."""
    import numpy as np

    from memoryd.embedding.minilm import MiniLMEmbedder

    embedder = MiniLMEmbedder()
    by_id = {c["id"]: c for c in conversations}
    matched = predicted = facts = 0
    for row in rows:
        texts = [m.split("] ", 1)[1] for m in row["memories"]]
        gold = [f["text"] for f in by_id[row["id"]]["facts"]]
        predicted += len(texts)
        facts += len(gold)
        if not texts or not gold:
            continue
        sims = np.asarray(embedder.embed(texts)) @ np.asarray(embedder.embed(gold)).T
        pairs = sorted(((sims[i, j], i, j) for i in range(len(texts)) for j in range(len(gold))),
                       reverse=True)  # fmt: skip
        used_p: set[int] = set()
        used_g: set[int] = set()
        for sim, i, j in pairs:
            if sim >= SEMANTIC_MATCH and i not in used_p and j not in used_g:
                used_p.add(i)
                used_g.add(j)
        matched += len(used_p)
    return {
        "semantic_precision": round(matched / predicted, 3) if predicted else 0.0,
        "semantic_recall": round(matched / facts, 3) if facts else 0.0,
    }


def summarize(rows: list[dict[str, Any]], conversations: list[dict[str, Any]]) -> dict[str, Any]:
    predicted = sum(r["predicted"] for r in rows)
    facts = sum(r["facts"] for r in rows)
    precision = sum(r["matched_predictions"] for r in rows) / predicted if predicted else 0.0
    recall = sum(r["matched_facts"] for r in rows) / facts if facts else 0.0
    batches = sum(r["batches"] for r in rows) or 1
    return {
        "conversations": len(rows),
        "facts": facts,
        "predicted": predicted,
        "precision": round(precision, 3),
        "recall": round(recall, 3),
        "f1": round(2 * precision * recall / (precision + recall), 3) if predicted else 0.0,
        **semantic_scores(rows, conversations),
        "scope_agreement": round(
            sum(r["scope_ok"] for r in rows) / max(1, sum(r["matched_facts"] for r in rows)), 3
        ),
        "updates_in_place": f"{sum(r['updates_in_place'] for r in rows)}/"
        f"{sum(r['updates'] for r in rows)}",
        "secrets_leaked": f"{sum(r['leaked'] for r in rows)}/{sum(r['secrets'] for r in rows)}",
        "empty_conversations_with_memories": sum(
            1 for r in rows if r["facts"] == 0 and r["predicted"] > 0
        ),
        "seconds_per_batch": round(sum(r["seconds"] for r in rows) / batches, 1),
        "llm_calls_per_batch": round(sum(r["calls"] for r in rows) / batches, 2),
        "prompt_tokens_per_batch": round(sum(r["prompt_tokens"] for r in rows) / batches),
        "completion_tokens_per_batch": round(sum(r["completion_tokens"] for r in rows) / batches),
        "errors": sum(1 for r in rows if r["error"]),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="first N conversations only")
    parser.add_argument("--ids", nargs="*", default=None, help="only these conversation ids")
    parser.add_argument("--json", type=Path, default=None, help="write the rows here")
    parser.add_argument("--rescore", type=Path, default=None, help="score saved rows only")
    args = parser.parse_args()
    conversations = json.loads(DATA.read_text())["conversations"]
    if args.rescore:
        rows = json.loads(args.rescore.read_text())["rows"]
        print(json.dumps(summarize(rows, conversations), indent=2))
        return 0
    if args.ids:
        conversations = [c for c in conversations if c["id"] in args.ids]
    conversations = conversations[: args.limit]
    settings = MemorydSettings()
    print(f"provider={settings.llm_provider or 'local'} model={settings.llm_model or 'default'}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for conv in conversations:
            row = run_one(conv, settings, Path(tmp))
            rows.append(row)
            print(
                f"{row['id']:32} facts {row['facts']} predicted {row['predicted']} "
                f"matched {row['matched_facts']} leaked {row['leaked']} "
                f"{row['seconds']:.1f}s {row['calls']} calls {row['error'] or ''}",
                flush=True,
            )
            for memory in row["memories"]:
                print(f"    {memory}")
            for reason in row["rejected"]:
                print(f"    rejected: {reason}")
    summary = summarize(rows, conversations)
    print(json.dumps(summary, indent=2))
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
