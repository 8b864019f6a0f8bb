"""The chat page's controls over its history, as form posts: delete one exchange, or clear
the workspace's history (the user's own chats there). Each deletes only when confirmed,
as every deletion of the web UI (``memoryd.server.web.actions.confirmed``).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Request, Response
from starlette.concurrency import run_in_threadpool

from memoryd.access import chats
from memoryd.access.callers import require_workspace
from memoryd.domain.errors import MemorydError
from memoryd.server.deps import ServerState, State
from memoryd.server.web.actions import Unconfirmed, ask, confirmed, field_text, posted
from memoryd.server.web.i18n import _, ngettext
from memoryd.server.web.routes import redirect

router = APIRouter(prefix="/ui/chats", include_in_schema=False)
ChatId = Annotated[int, Path(ge=1, le=2**63 - 1)]


def _clear_question(state: ServerState, user_id: int, slug: str) -> str:
    count = len(state.md.list_chats(user_id, slug))
    name = state.md.get_workspace(slug).name
    return ngettext(
        "Delete your %(num)d exchange in %(name)s? Its text is erased and memoryd will not "
        "learn from it; memories it already learned stay.",
        "Delete all %(num)d of your exchanges in %(name)s? Their text is erased and memoryd "
        "will not learn from them; memories it already learned stay.",
        count,
        name=name,
    )


@router.post("/clear")
async def clear_history(request: Request, state: State) -> Response:
    caller, form = await posted(request, state)
    slug = field_text(form, "workspace")
    user = caller.user
    try:
        await run_in_threadpool(require_workspace, state, user, slug)
        if field_text(form, "confirmed") != "yes":  # the question is read only to be asked
            question = await run_in_threadpool(_clear_question, state, user.id, slug)
            raise Unconfirmed(question, _("Delete all"))
        deleted = await run_in_threadpool(chats.clear_chats, state, user, slug)
    except Unconfirmed as asked:
        return await ask(request, form, asked)
    except MemorydError as exc:
        return redirect(request, "/", str(exc), "error")
    done = ngettext(
        "Deleted %(num)d exchange from this history.",
        "Deleted %(num)d exchanges from this history.",
        deleted,
    )
    return redirect(request, f"/chat/{slug}", done)


@router.post("/{chat_id}/delete")
async def delete_exchange(request: Request, state: State, chat_id: ChatId) -> Response:
    caller, form = await posted(request, state)
    user = caller.user
    slug = field_text(form, "workspace")
    back = f"/chat/{slug}" if slug else "/"
    try:
        chat = await run_in_threadpool(chats.visible_chat, state, user, chat_id)
        confirmed(
            form,
            _(
                "Delete this exchange? \u201c%(text)s\u201d Its text is erased and memoryd will "
                "not learn from it; memories it already learned stay.",
                text=chat.prompt[:80],
            ),
            _("Delete"),
        )
        await run_in_threadpool(chats.delete_chat, state, user, chat.id)
    except Unconfirmed as asked:
        return await ask(request, form, asked)
    except MemorydError as exc:
        return redirect(request, back, str(exc), "error")
    return redirect(request, f"/chat/{chat.workspace}", _("Exchange deleted."))
