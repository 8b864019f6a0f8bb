"""The "Bring your history" page: upload another product's chat export, or paste facts it
kept about you (issue 38, item 4).

An upload is checked in the request, then recorded in the background
(``memoryd.access.history_imports``, as ``POST /api/v1/history-imports``) while the page
polls a status fragment. Pasted facts are added as ``memoryd memories add-many`` adds them;
refused lines come back in the text box with their reasons.
"""

from __future__ import annotations

from contextlib import suppress
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from memoryd.access.callers import require_workspace
from memoryd.access.history_imports import start_history_import
from memoryd.app.history_formats import FORMATS, NAMES, parse_history
from memoryd.app.memory_list import add_facts, report
from memoryd.domain.errors import MemorydError
from memoryd.server.deps import State
from memoryd.server.errors import ApiError
from memoryd.server.guard import import_too_big
from memoryd.server.web.actions import field_text, posted
from memoryd.server.web.i18n import _, speak_to
from memoryd.server.web.routes import (
    fragment,
    page_context,
    redirect,
    render,
    signed_in,
    to_login,
    web_caller,
)

router = APIRouter(include_in_schema=False)
PAGE = "/import"


def _page(request: Request, state: State, **extra: Any) -> Response:
    caller = web_caller(request, state)
    if caller is None:
        return to_login(request)
    job, wanted = None, request.query_params.get("job")
    if wanted:
        with suppress(MemorydError):  # not the caller's, or gone: the page says so
            job = state.history_jobs.get(caller.user.id, wanted)
    context = page_context(
        request,
        state,
        caller,
        page="history",
        here=PAGE,
        job=job,
        job_asked=wanted,
        formats=[(f, NAMES[f]) for f in FORMATS],
        **{"facts_text": "", "facts_workspace": "", "facts_report": None, **extra},
    )
    return render(request, "history.html", context)


@router.get(PAGE, response_class=HTMLResponse)
def history_page(request: Request, state: State) -> Response:
    return _page(request, state)


@router.post("/ui/history-imports")
async def upload_history(request: Request, state: State) -> Response:
    caller, form = await posted(request, state)
    upload = form.get("file")
    workspace = field_text(form, "workspace")
    chosen = field_text(form, "format") or None
    try:
        if not isinstance(upload, UploadFile) or not upload.filename:
            raise ApiError(422, _("choose the export file to upload"))
        if (upload.size or 0) > state.settings.max_import_bytes:
            raise ApiError(413, import_too_big(state.settings.max_import_bytes, history=True))
        await run_in_threadpool(require_workspace, state, caller.user, workspace)
        data = await upload.read()
        history = await run_in_threadpool(parse_history, data, chosen)
        job = await run_in_threadpool(
            start_history_import, state, state.history_jobs, caller.user, history, workspace
        )
    except (MemorydError, ApiError) as exc:
        return redirect(request, PAGE, _("Nothing was imported: %(why)s", why=exc), "error")
    return redirect(request, f"{PAGE}?job={job.id}")


@router.get("/ui/history-imports/{job_id}", response_class=HTMLResponse)
def history_status(request: Request, state: State, job_id: str) -> Response:
    """The status fragment the page polls; 404 for an import that is not the caller's."""
    caller = signed_in(request, state)
    speak_to(request, state, caller.user)
    job = state.history_jobs.get(caller.user.id, job_id[:64])
    return fragment(request, "history_status.html", {"job": job, "job_asked": job_id})


@router.post("/ui/facts")
async def paste_facts(request: Request, state: State) -> Response:
    caller, form = await posted(request, state)
    text = field_text(form, "facts")
    workspace = field_text(form, "workspace") or None
    try:
        if workspace:
            await run_in_threadpool(require_workspace, state, caller.user, workspace)
        outcomes = await run_in_threadpool(add_facts, state.md, caller.user.id, text, workspace)
    except MemorydError as exc:
        return redirect(request, PAGE, _("No fact was added: %(why)s", why=exc), "error")
    refused = [o for o in outcomes if o.error]
    if not refused:
        return redirect(request, PAGE, f"{report(outcomes).capitalize()}.")
    return await run_in_threadpool(
        lambda: _page(
            request,
            state,
            facts_text="\n".join(o.text for o in refused),  # what was refused, to fix
            facts_workspace=workspace or "",
            facts_report={"summary": report(outcomes), "refused": refused},
        )
    )
