"""History imports: a chat history exported by ChatGPT, Claude or Open WebUI, recorded as
the caller's chats in one of their workspaces (issue 38, item 4).

The file is checked in the request (422, nothing started, when it is broken) and the turns
are recorded in the background (``memoryd.access.history_imports``), 202 at once with the
import's id to read its progress by.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query, Request
from starlette.concurrency import run_in_threadpool

from memoryd.access.callers import require_workspace
from memoryd.access.history_imports import HistoryJob, start_history_import
from memoryd.app.history_formats import parse_history
from memoryd.server.deps import CurrentUser, State
from memoryd.server.guard import import_body
from memoryd.server.schemas import HistoryImportOut

router = APIRouter(prefix="/api/v1/history-imports", tags=["chats"])
Format = Literal["chatgpt", "claude", "openwebui"]


def history_out(job: HistoryJob) -> HistoryImportOut:
    done = job.progress
    return HistoryImportOut.model_validate(
        {**asdict(done), "done": done.done, "id": job.id, "state": job.state}
        | {"workspace": job.workspace, "error": job.error}
    )


@router.post(
    "",
    response_model=HistoryImportOut,
    status_code=202,
    summary="Record a chat history exported by ChatGPT, Claude or Open WebUI",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {"type": "string", "format": "binary"}}},
        }
    },
)
async def start_import(
    request: Request,
    state: State,
    user: CurrentUser,
    workspace: Annotated[str, Query(max_length=64, description="Record the chats here.")],
    format: Annotated[
        Format | None, Query(description="The export's product; told from the file if not given.")
    ] = None,
) -> HistoryImportOut:
    """The body is the export as the product wrote it: ChatGPT's or Claude's
    ``conversations.json``, or Open WebUI's chat export (JSON, UTF-8). Each message of
    yours with the answer after it becomes one recorded chat, in order, at its original
    time; extraction learns from them as from any chat. 202: the import runs on; read its
    progress at ``GET /api/v1/history-imports/{id}``. A turn already recorded is not
    recorded again. 409 while another import of yours runs."""
    await run_in_threadpool(require_workspace, state, user, workspace)  # before the body
    body = bytearray()
    async for chunk in import_body(request, state.settings.max_import_bytes, history=True):
        body += chunk
    history = await run_in_threadpool(parse_history, bytes(body), format)
    job = await run_in_threadpool(
        start_history_import, state, state.history_jobs, user, history, workspace
    )
    return history_out(job)


@router.get("/{import_id}", response_model=HistoryImportOut, summary="A history import's progress")
def get_import(
    state: State,
    user: CurrentUser,
    import_id: Annotated[str, Path(max_length=64)],
) -> HistoryImportOut:
    """404 for an import that is not yours, that ended over an hour ago, or that another
    server process runs."""
    return history_out(state.history_jobs.get(user.id, import_id))
