"""The chat page of a workspace, and the two pieces chat.js asks for after streaming a reply:
the reply as HTML (``POST /ui/markdown``) and its *Answered with N memories* list
(``GET /chat/{slug}/used``), rendered as for recorded replies, so the browser turns no
model text into markup itself.
"""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse

from memoryd.access.callers import require_workspace, self_owner
from memoryd.access.chats import used_memories
from memoryd.domain.errors import MemorydError, NotFound
from memoryd.domain.models import UsedMemory
from memoryd.server.deps import State, check_origin
from memoryd.server.errors import ApiError
from memoryd.server.upstream import chat_target
from memoryd.server.web.markdown import MAX_REPLY, markdown_filter, render_markdown
from memoryd.server.web.routes import (
    TEMPLATES,
    fragment,
    page_context,
    redirect,
    render,
    signed_in,
    to_login,
    web_caller,
    workspace_names,
)

router = APIRouter(include_in_schema=False)
TEMPLATES.env.filters["markdown"] = markdown_filter
MAX_USED = 100  # memory ids one answer's list is asked for


@router.get("/chat/{slug}", response_class=HTMLResponse)
def chat_page(request: Request, state: State, slug: str) -> Response:
    caller = web_caller(request, state)
    if caller is None:
        return to_login(request)
    try:
        require_workspace(state, caller.user, slug)
        workspace = state.md.get_workspace(slug)
    except MemorydError as exc:
        return redirect(request, "/?missing=1", str(exc), "error")
    every = state.md.list_chats(caller.user.id, slug)
    chats = every[-20:]
    context = page_context(
        request,
        state,
        caller,
        page="chat",
        workspace=workspace,
        current_workspace=slug,
        here=f"/chat/{slug}",
        chats=chats,
        chat_count=len(every),
        used_by_chat=used_memories(state, self_owner(caller.user), [c.id for c in chats]),
        target=chat_target(state.settings),
        workspace_names=workspace_names(state),
    )
    return render(request, "chat.html", context)


@router.get("/chat/{slug}/used", response_class=HTMLResponse)
def used_list(request: Request, state: State, slug: str, ids: str = "") -> Response:
    """The *Answered with N memories* list of a reply just streamed (``ids``: the
    proxy's X-Memoryd-Memory-Ids), as the page renders it under recorded replies."""
    caller = signed_in(request, state)
    require_workspace(state, caller.user, slug)
    owner = self_owner(caller.user)
    used = []
    for memory_id in [i for i in ids.split(",") if i][:MAX_USED]:
        try:
            memory = state.md.get_memory(owner.user.id, memory_id)
        except NotFound:  # deleted since: a tombstone, as under recorded replies
            used.append(UsedMemory(memory_id, None))
            continue
        if owner.may_use(state, memory.workspace):  # else moved where the user can't go
            used.append(UsedMemory(memory_id, memory))
    context = {
        "used": used,
        "csrf": caller.csrf_token or "",
        "here": f"/chat/{slug}",
        "workspace_names": workspace_names(state),
    }
    return fragment(request, "used_memories.html", context)


@router.post("/ui/markdown", response_class=HTMLResponse)
async def markdown(request: Request, state: State) -> Response:
    """A reply the page just streamed (the request's body, as text), as sanitised HTML."""
    check_origin(request)
    caller = signed_in(request, state)
    if request.headers.get("x-csrf-token") != caller.csrf_token:
        raise ApiError(403, "the page expired; reload it", code="csrf")
    body = await request.body()
    if len(body) > MAX_REPLY * 4:
        raise ApiError(413, "the reply is too long to show", code="too_large")
    html = render_markdown(body.decode("utf-8", errors="replace"))
    return HTMLResponse(html, headers={"Cache-Control": "no-store"})
