"""``memoryd eval``: measure an extraction provider or a reranker before trusting it, on
labelled data (``memoryd.evaluation.extraction`` and ``memoryd.evaluation.retrieval``).
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any

import typer

from memoryd.cli.common import (
    EXIT_FAILURE,
    JsonOption,
    cell,
    console,
    emit,
    emit_json,
    fail,
    make_table,
    note,
    shared_embedder,
)
from memoryd.domain.errors import MemorydError

app = typer.Typer(help="Measure memoryd's parts on labelled data.", no_args_is_help=True)

_LABELS = {
    "precision": "precision (memories that are true of the user)",
    "recall": "recall (labelled facts found)",
    "wrong_subject_share": "memories about the wrong person",
    "global_share": "memories filed as global",
    "not_stored_for_full_scope": "facts not stored (scope full)",
    "conversations_without_memories": "conversations with no memory",
    "secrets_leaked": "secrets stored",
    "seconds_per_batch": "seconds per batch",
    "llm_calls_per_batch": "LLM calls per batch",
    "llm_calls_per_chat": "LLM calls per chat",
    "tokens_per_chat": "tokens per chat",
    "errors": "conversations that failed",
}


@app.command("extraction")
def extraction(
    dataset: Annotated[
        Path | None,
        typer.Option(help="labelled conversations (JSON or JSON lines); default: the sample"),
    ] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="only the first N conversations")] = None,
    provider: Annotated[str | None, typer.Option(help="LLM provider (default: configured)")] = None,
    model: Annotated[str | None, typer.Option(help="model name (default: configured)")] = None,
    as_json: JsonOption = False,
) -> None:
    """Run extraction on labelled conversations and print how good it was.

    A conversation holds its exchanges (each a prompt and a response), the facts the
    user stated and, optionally, what the assistant said of itself (the format is in
    docs/extraction.md).
    """
    from memoryd.config import MemorydSettings
    from memoryd.evaluation.extraction import evaluate, load_dataset, summarize
    from memoryd.models.llm.builtin import make_provider

    conversations = load_dataset(dataset)[:limit]
    settings = MemorydSettings()
    llm = make_provider(settings, provider, model)
    source = str(dataset) if dataset else "the bundled sample"
    note(f"{len(conversations)} conversations from {source}; provider {llm.name}, {llm.model}")

    def progress(row: object) -> None:
        done.append(row)
        note(f"[{len(done)}/{len(conversations)}] {getattr(row, 'id', '')}")

    done: list[object] = []
    try:
        results = evaluate(conversations, settings, llm, shared_embedder(), progress)
    except MemorydError as exc:  # the provider refused its settings: nothing to measure
        fail(str(exc), EXIT_FAILURE)
    summary = summarize(results)
    rows = [(label, summary[key]) for key, label in _LABELS.items()]
    table = make_table("extraction quality", ["measure", "value"], rows)
    emit(as_json, {"provider": llm.name, "model": llm.model, "summary": summary}, table)
    failed = [r.error for r in results if r.error]
    asked = [r for r in results if r.error or r.calls]  # the others needed no LLM call
    if failed and len(failed) == len(asked):
        fail(f"every conversation that asked the LLM failed; the first: {failed[0]}", EXIT_FAILURE)
    if failed:
        note(f"{len(failed)} of {len(results)} conversations failed; the first: {failed[0]}")


_RETRIEVAL_COLUMNS = {
    "recall_at_5": "recall@5",
    "hit_at_5": "hit@5",
    "mrr_at_5": "MRR@5",
    "p50_ms": "p50 ms",
    "p95_ms": "p95 ms",
    "fallbacks": "fell back",
}


@app.command("retrieval")
def retrieval(
    dataset: Annotated[
        Path | None,
        typer.Option(help="labelled pools and turns (JSON or JSON lines); default: the sample"),
    ] = None,
    reranker: Annotated[
        list[str] | None,
        typer.Option(
            "--reranker",
            "-r",
            metavar="NAME",
            help="a reranker to measure (repeat to compare); default: the configured one"
            " and recency",
        ),
    ] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="only the first N pools")] = None,
    misses: Annotated[
        int,
        typer.Option(
            min=0, help="also show each reranker's N worst turns: what it chose, what it missed"
        ),
    ] = 0,
    passes: Annotated[
        bool,
        typer.Option(
            "--passes",
            help="first run the questions pass with the LLM over every memory (slow with"
            " the bundled model: about 10 s a memory on 2 cores)",
        ),
    ] = False,
    provider: Annotated[
        str | None, typer.Option(help="with --passes: LLM provider (default: configured)")
    ] = None,
    model: Annotated[
        str | None, typer.Option(help="with --passes: model name (default: configured)")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Run labelled chat turns with each reranker and print how well it chose.

    Each pool's memories go into a temporary database; every turn asks for its context
    (as a chat would, incognito) and the 5 workspace memories chosen are scored against
    the labels: recall@5, hit@5, MRR@5, the turn's time, and how many turns fell back to
    the newest memories because the reranker failed. A pool holds 6 to 200 memories and
    its queries, each a message, its history and the indexes of its relevant memories
    (the format is in docs/reranking.md).
    """
    from memoryd.config import MemorydSettings
    from memoryd.evaluation.retrieval import PassesFailed, evaluate_retrieval, load_retrieval_set
    from memoryd.models.llm.builtin import make_provider

    settings = MemorydSettings()
    names = list(dict.fromkeys(reranker or [settings.reranker, "recency"]))
    pools = load_retrieval_set(dataset)[:limit]
    llm = make_provider(settings, provider, model) if passes else None
    source = str(dataset) if dataset else "the bundled sample"
    turns = sum(len(p.turns) for p in pools)
    pooled = f"{len(pools)} pool{'s' if len(pools) != 1 else ''}"
    note(f"{turns} turns over {pooled} from {source}; rerankers {', '.join(names)}")
    try:
        reports, ran = evaluate_retrieval(pools, shared_embedder(), names, note, llm)
    except PassesFailed as exc:  # the LLM could not run the questions pass at all
        fail(str(exc), EXIT_FAILURE)
    summaries = [r.summary() for r in reports]
    worst = {r.reranker: r.misses(pools, misses) for r in reports} if misses else {}
    if as_json:
        if worst:
            summaries = [{**row, "misses": worst[row["reranker"]]} for row in summaries]
        ran_json = None if ran is None else asdict(ran)
        emit_json({"turns": turns, "pools": len(pools), "passes": ran_json, "rerankers": summaries})
    else:
        table = make_table("retrieval quality", ["reranker", *_RETRIEVAL_COLUMNS.values()])
        for row in summaries:
            table.add_row(row["reranker"], *(cell(row[key]) for key in _RETRIEVAL_COLUMNS))
        console().print(table)
        for name, rows in worst.items():
            _print_misses(name, rows)
    if ran is not None:
        note(
            f"questions pass: {ran.asked} of {ran.memories} memories asked"
            + (f"; the first LLM error: {ran.error}" if ran.error else "")
        )
    _check_fallbacks(summaries)


def _check_fallbacks(summaries: list[dict[str, Any]]) -> None:
    """Say how many turns fell back; exit 1 when every turn of a reranker did."""
    for row in summaries:
        if row["fallbacks"]:
            note(
                f"{row['reranker']}: {row['fallbacks']} of {row['turns']} turns fell back to"
                f" the newest memories; the first because: {row['first_fallback']}"
            )
    broken = [row["reranker"] for row in summaries if row["fallbacks"] == row["turns"]]
    if broken:
        fail(
            f"every turn fell back with {', '.join(broken)}: its figures are recency's",
            EXIT_FAILURE,
        )


def _print_misses(reranker: str, rows: list[dict[str, Any]]) -> None:
    out = console()
    if not rows:
        out.print(f"{reranker}: every turn got all of its relevant memories", markup=False)
        return
    out.print(f"{reranker}: the {len(rows)} worst turns", markup=False)
    for row in rows:
        out.print(
            f"\n  {row['pool']} #{row['turn']} (recall@5 {row['recall_at_5']}): {row['message']}",
            markup=False,
        )
        for label in ("chosen", "missed"):
            for text in row[label]:
                out.print(f"    {label}: {text}", markup=False)
