"""The account panel's controls over what memoryd does with a person's chats, as form
posts: the "don't learn from my chats" switch and the user's own review mode.

Kept out of ``memoryd.server.web.actions`` (memories, keys, admin forms) because they are
the web controls over what memoryd learns about a person; the same controls are
``PATCH /api/v1/me``, ``memoryd users learning`` and ``memoryd users review``.
"""

from __future__ import annotations

from collections.abc import Collection

from fastapi import APIRouter, Request, Response
from starlette.concurrency import run_in_threadpool

from memoryd.domain.errors import MemorydError
from memoryd.server.deps import Caller, State
from memoryd.server.web.actions import posted
from memoryd.server.web.routes import redirect, safe_next, with_query

router = APIRouter(prefix="/ui", include_in_schema=False)

CHOICES = {"on": True, "off": False}
REVIEW_CHOICES = {
    "default": (None, "Extraction's changes follow the instance setting again."),
    "off": ("off", "Extraction's changes to your memories apply at once."),
    "updates": ("updates", "Changes to memories you have now wait for your review."),
    "everything": ("everything", "Every new or changed memory now waits for your review."),
}


async def account_choice(
    request: Request, state: State, field: str, choices: Collection[str]
) -> tuple[Caller, str, str | None]:
    """The caller, the page to go back to (the Account tab open) and the posted choice,
    or None when it is not one of ``choices``."""
    caller, form = await posted(request, state)
    back = safe_next(form.get("next"))
    back = with_query(back, "panel=account")
    choice = form.get(field)
    return caller, back, choice if isinstance(choice, str) and choice in choices else None


@router.post("/learning")
async def set_learning(request: Request, state: State) -> Response:
    caller, back, choice = await account_choice(request, state, "learn", CHOICES)
    if choice is None:
        return redirect(request, back, "Choose on or off.", "error")
    try:
        closed = await run_in_threadpool(state.md.set_learning, caller.user.id, CHOICES[choice])
    except MemorydError as exc:
        return redirect(request, back, str(exc), "error")
    if CHOICES[choice]:
        return redirect(request, back, "memoryd learns from your chats again, from now on.")
    waiting = f" ({closed} waiting chat(s) will not be read)" if closed else ""
    return redirect(request, back, f"memoryd no longer learns from your chats{waiting}.")


@router.post("/review")
async def set_review(request: Request, state: State) -> Response:
    caller, back, choice = await account_choice(request, state, "mode", REVIEW_CHOICES)
    if choice is None:
        return redirect(request, back, "Choose default, off, updates or everything.", "error")
    mode, done = REVIEW_CHOICES[choice]
    try:
        await run_in_threadpool(state.md.set_review_preference, caller.user.id, mode)
    except MemorydError as exc:
        return redirect(request, back, str(exc), "error")
    return redirect(request, back, done)
