"""Extraction for admins: run it now (``memoryd.access.extraction``: one at a time from this
process), see the run history, see and retry parked batches.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query
from fastapi.encoders import jsonable_encoder
from pydantic import Field

from memoryd.access.extraction import run_now
from memoryd.domain.errors import InvalidInput
from memoryd.domain.models import User
from memoryd.server.deps import AdminUser, ServerState, State
from memoryd.server.schemas import Strict

router = APIRouter(prefix="/api/v1/extraction", tags=["extraction"])


class RunRequest(Strict):
    user_id: int | None = Field(default=None, ge=1, le=2**31 - 1)
    workspace: str | None = Field(default=None, min_length=1, max_length=64)
    force: bool = Field(default=False, description="Ignore the idle threshold and minimum.")


def _run(
    state: ServerState, admin: User, user_id: int | None, workspace: str | None, force: bool
) -> dict[str, Any]:
    """One run (409 while one started here is running), as ``{"pair": ...}`` for one
    pair or ``{"run": ...}`` for every due pair."""
    result = run_now(state.md, admin, user_id, workspace, force)
    return {"pair" if user_id is not None else "run": jsonable_encoder(result.to_dict())}


@router.post("/run", summary="Run extraction now (admin)")
def run(state: State, admin: AdminUser, body: RunRequest) -> dict[str, Any]:
    if (body.user_id is None) != (body.workspace is None):
        raise InvalidInput("give both user_id and workspace, or neither")
    return _run(state, admin, body.user_id, body.workspace, body.force)


@router.get("/runs", summary="Latest extraction runs, newest first (admin)")
def runs(
    state: State, _: AdminUser, limit: Annotated[int, Query(ge=1, le=500)] = 20
) -> list[dict[str, Any]]:
    """Each run's counters and ``status``: ``running``, ``ok``, ``errors`` (a pair's batch
    failed) or ``interrupted`` (it stopped before it finished: the process running it
    died, so no heartbeat came by ``alive_until``, or an error or Ctrl-C stopped it);
    ``status_note`` says why for an interrupted run, else null. ``heartbeat_at`` is a
    run's last sign of life. ``llm_calls`` counts every LLM call made, answered or not, and
    ``llm_calls_failed`` those of them that got no answer (an HTTP error, a timeout, a
    server that cannot be reached): a run whose calls all failed has both equal, not 0;
    they include the calls of the run's questions pass, and ``memories_questioned``
    counts the memories it wrote questions for (an error of that pass is listed in
    ``errors`` with the kind ``questions`` and fails nothing)."""
    return [jsonable_encoder(r.to_dict()) for r in state.md.extraction_runs(limit)]


@router.get("/runs/{run_id}", summary="One extraction run with every pair's outcome (admin)")
def run_details(
    state: State,
    _: AdminUser,
    run_id: Annotated[str, Path(min_length=1, max_length=32, pattern="^[0-9a-f]+$")],
) -> dict[str, Any]:
    """The run's counters and status (as in the run list), ``pairs`` (one outcome per
    pair: created and updated memory ids, chats processed, facts dropped and not stored,
    the error) with each pair's user name, and the itemised ``errors``. A run whose
    process died has no ``pairs`` nor ``errors``: they are written when a run finishes.
    ``run_id`` is the full id or a unique prefix of at least 6 characters; a shorter
    prefix is refused with 422 (``invalid_input``), one matching no run is 404."""
    run = state.md.extraction_run(run_id)
    names = {u.id: u.name for u in state.md.list_users()}
    details: dict[str, Any] = jsonable_encoder(run.to_dict())
    for pair in details["pairs"]:
        pair["user_name"] = names.get(pair["user_id"])
    return details


@router.get("/failures", summary="Pairs whose batch failed or is parked (admin)")
def failures(state: State, _: AdminUser, parked_only: bool = False) -> list[dict[str, Any]]:
    return [jsonable_encoder(f) for f in state.md.extraction_failures(parked_only=parked_only)]


@router.get("/parked", summary="Parked batches, waiting for an admin (admin)")
def parked(state: State, _: AdminUser) -> list[dict[str, Any]]:
    return [jsonable_encoder(f) for f in state.md.extraction_failures(parked_only=True)]


@router.post("/parked/{user_id}/{workspace}/retry", summary="Retry a parked batch (admin)")
def retry(
    state: State,
    admin: AdminUser,
    user_id: Annotated[int, Path(ge=1, le=2**31 - 1)],
    workspace: Annotated[str, Path(min_length=1, max_length=64)],
) -> dict[str, Any]:
    return _run(state, admin, user_id, workspace, True)
