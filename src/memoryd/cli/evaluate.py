"""``memoryd eval extraction``: measure an extraction provider before trusting it.

Runs the real pipeline with the configured provider (``MEMORYD_LLM_*``, or ``--provider``
and ``--model``) over a labelled set of conversations -- the bundled sample, or your own
with ``--dataset`` -- and prints precision, recall, the share of memories about the wrong
person, and the cost per batch. Scoring is ``memoryd.evaluation``'s (by meaning).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from memoryd.cli.common import (
    EXIT_FAILURE,
    JsonOption,
    cell,
    console,
    emit_json,
    fail,
    make_table,
    note,
    shared_embedder,
)
from memoryd.config import MemorydSettings
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

    A conversation is {"exchanges": [{"prompt", "response"}], "facts": [what the user
    stated], "other_facts": [what the assistant said of itself]}; see docs/extraction.md.
    """
    from memoryd.evaluation import evaluate, load_dataset, summarize
    from memoryd.llm.builtin import make_provider

    try:
        conversations = load_dataset(dataset)[:limit]
        settings = MemorydSettings()
        llm = make_provider(settings, provider, model)
    except MemorydError as exc:
        fail(str(exc))
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
    if as_json:
        emit_json({"provider": llm.name, "model": llm.model, "summary": summary})
    else:
        table = make_table("extraction quality", ["measure", "value"])
        for key, label in _LABELS.items():
            table.add_row(cell(label), cell(summary[key]))
        console().print(table)
    failed = [r.error for r in results if r.error]
    asked = [r for r in results if r.error or r.calls]  # the others needed no LLM call
    if failed and len(failed) == len(asked):
        fail(f"every conversation that asked the LLM failed; the first: {failed[0]}", EXIT_FAILURE)
    if failed:
        note(f"{len(failed)} of {len(results)} conversations failed; the first: {failed[0]}")
