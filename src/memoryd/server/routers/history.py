"""History imports: a chat history exported by ChatGPT, Claude or Open WebUI, recorded as
the caller's chats in one of their workspaces (issue 38, item 4).

``POST /api/v1/history-imports?workspace=SLUG`` takes the export's file as the body (up to
``MEMORYD_MAX_IMPORT_BYTES``), checks it (a file of none of the three formats, or a broken
one, is a 422 and nothing starts) and answers 202 at once with the import's id; the turns
are recorded in the background (``memoryd.server.history_jobs``) and
``GET /api/v1/history-imports/{id}`` says how far it got. The access rule is the one of
recording a chat (``POST /api/v1/chats``): only a workspace the caller belongs to, so a
user never records into someone else's workspace (404, as for one that does not exist),
and only into their own history. Uploading the same file again records nothing new.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query, Request
from starlette.concurrency import run_in_threadpool

from memoryd.app.history_formats import History, parse_history
from memoryd.domain.models import Actor, Source, User
from memoryd.server.deps import CurrentUser, ServerState, State, require_workspace
from memoryd.server.errors import ApiError
from memoryd.server.guard import import_too_big
from memoryd.server.history_jobs import HistoryJob
from memoryd.server.schemas import HistoryImportOut

router = APIRouter(prefix="/api/v1/history-imports", tags=["chats"])
Format = Literal["chatgpt", "claude", "openwebui"]
HISTORY_COMMAND = "memoryd import-history"  # for a file over the HTTP limit


def history_out(job: HistoryJob) -> HistoryImportOut:
    done = job.progress
    return HistoryImportOut(
        id=job.id,
        state=job.state,
        format=done.format,  # type: ignore[arg-type]  # one of FORMATS
        workspace=job.workspace,
        conversations=done.conversations,
        total=done.total,
        done=done.done,
        recorded=done.recorded,
        already=done.already,
        skipped=done.skipped,
        error=job.error,
    )


def start_history_import(
    state: ServerState, user: User, history: History, workspace: str
) -> HistoryJob:
    """Record ``history`` in ``workspace`` in the background, if the user may use it."""
    require_workspace(state, user, workspace)
    actor = Actor(Source.USER, user.id)
    return state.history_jobs.start(state.md, user.id, history, workspace, actor)


async def read_upload(request: Request, state: ServerState) -> bytes:
    """The body, refused with 413 past ``MEMORYD_MAX_IMPORT_BYTES``."""
    limit = state.settings.max_import_bytes
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:  # a chunked body, or one longer than it said
            raise ApiError(
                413, import_too_big(limit, HISTORY_COMMAND), headers={"Connection": "close"}
            )
    return bytes(body)


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
    body = await read_upload(request, state)
    history = await run_in_threadpool(parse_history, body, format)
    job = await run_in_threadpool(start_history_import, state, user, history, workspace)
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
