"""The account panel's "don't learn from my chats" switch, as a form post.

Kept out of ``memoryd.server.web.actions`` (memories, keys, admin forms) because it is
the one web control over what memoryd keeps of a person's chats; the same switch is
``PATCH /api/v1/me`` and ``memoryd users learning``.
"""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from starlette.concurrency import run_in_threadpool

from memoryd.domain.errors import MemorydError
from memoryd.server.deps import State
from memoryd.server.web.actions import posted
from memoryd.server.web.routes import redirect, safe_next

router = APIRouter(prefix="/ui", include_in_schema=False)

CHOICES = {"on": True, "off": False}


@router.post("/learning")
async def set_learning(request: Request, state: State) -> Response:
    caller, form = await posted(request, state)
    back = safe_next(form.get("next"))
    back = f"{back}{'&' if '?' in back else '?'}panel=account"
    choice = form.get("learn")
    if not isinstance(choice, str) or choice not in CHOICES:
        return redirect(request, back, "Choose on or off.", "error")
    try:
        closed = await run_in_threadpool(state.md.set_learning, caller.user.id, CHOICES[choice])
    except MemorydError as exc:
        return redirect(request, back, str(exc), "error")
    if CHOICES[choice]:
        return redirect(request, back, "memoryd learns from your chats again, from now on.")
    waiting = f" ({closed} waiting chat(s) will not be read)" if closed else ""
    return redirect(request, back, f"memoryd no longer learns from your chats{waiting}.")
