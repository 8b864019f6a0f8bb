"""The chat page's controls over its history, as form posts: delete one exchange, or clear
the workspace's history (the user's own chats there).

Each is a plain form with a ``confirmed`` field. With JavaScript the page's confirmation
dialog asks first and sets it; without, the post comes back to the chat page with the
question (``?confirm=ID`` or ``?confirm=clear``) and a form that sets it, so nothing is
deleted by one stray click either way. The same deletions are ``DELETE /api/v1/chats...``,
``memoryd chats rm|clear`` and ``md.delete_chat`` / ``md.clear_chats``; what deleting
means is ``memoryd.chat_log``'s.
"""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from starlette.concurrency import run_in_threadpool

from memoryd.domain.errors import MemorydError
from memoryd.server.deps import State, require_workspace
from memoryd.server.routers.chats import ChatId, visible_chat
from memoryd.server.web.actions import field_text, posted
from memoryd.server.web.routes import redirect

router = APIRouter(prefix="/ui/chats", include_in_schema=False)


def chat_page(slug: str, confirm: str | None = None) -> str:
    return f"/chat/{slug}" + (f"?confirm={confirm}" if confirm else "")


@router.post("/clear")
async def clear_history(request: Request, state: State) -> Response:
    caller, form = await posted(request, state)
    slug = field_text(form, "workspace")
    user = caller.user
    try:
        await run_in_threadpool(require_workspace, state, user, slug)
        if field_text(form, "confirmed") != "yes":
            return redirect(request, chat_page(slug, "clear"))
        deleted = await run_in_threadpool(state.md.clear_chats, user.id, slug)
    except MemorydError as exc:
        return redirect(request, "/", str(exc), "error")
    done = f"Deleted {deleted} exchange{'' if deleted == 1 else 's'} from this history."
    return redirect(request, chat_page(slug), done)


@router.post("/{chat_id}/delete")
async def delete_exchange(request: Request, state: State, chat_id: ChatId) -> Response:
    caller, form = await posted(request, state)
    user = caller.user
    back = chat_page(field_text(form, "workspace")) if field_text(form, "workspace") else "/"
    try:
        chat = await run_in_threadpool(visible_chat, state, user, chat_id)
        if field_text(form, "confirmed") != "yes":
            return redirect(request, chat_page(chat.workspace, str(chat.id)))
        await run_in_threadpool(state.md.delete_chat, user.id, chat.id)
    except MemorydError as exc:
        return redirect(request, back, str(exc), "error")
    return redirect(request, chat_page(chat.workspace), "Exchange deleted.")
