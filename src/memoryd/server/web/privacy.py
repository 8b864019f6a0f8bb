"""The account panel's own choices, as form posts: whether memoryd learns from the user's
chats, their review mode and their language (as ``PATCH /api/v1/me`` sets them).
"""

from __future__ import annotations

from collections.abc import Collection

from fastapi import APIRouter, Request, Response
from starlette.concurrency import run_in_threadpool

from memoryd.app.i18n import N_
from memoryd.domain.errors import MemorydError
from memoryd.domain.language import FOLLOW_SERVER, PREFERENCE_CHOICES
from memoryd.server.deps import Caller, State
from memoryd.server.web.actions import posted
from memoryd.server.web.i18n import _, ngettext, page_language, use_language
from memoryd.server.web.routes import redirect, safe_next, with_query

router = APIRouter(prefix="/ui", include_in_schema=False)

CHOICES = {"on": True, "off": False}
REVIEW_CHOICES = {
    "default": (None, N_("Extraction's changes follow the instance setting again.")),
    "off": ("off", N_("Extraction's changes to your memories apply at once.")),
    "updates": ("updates", N_("Changes to memories you have now wait for your review.")),
    "everything": ("everything", N_("Every new or changed memory now waits for your review.")),
}


async def account_choice(
    request: Request, state: State, field: str, choices: Collection[str]
) -> tuple[Caller, str, str | None]:
    """The caller, the page to go back to (the Account tab open) and the posted choice,
    or None when it is not one of ``choices``."""
    caller, form = await posted(request, state)
    back = with_query(safe_next(form.get("next")), "panel=account")
    choice = form.get(field)
    return caller, back, choice if isinstance(choice, str) and choice in choices else None


@router.post("/learning")
async def set_learning(request: Request, state: State) -> Response:
    caller, back, choice = await account_choice(request, state, "learn", CHOICES)
    if choice is None:
        return redirect(request, back, _("Choose on or off."), "error")
    try:
        closed = await run_in_threadpool(state.md.set_learning, caller.user.id, CHOICES[choice])
    except MemorydError as exc:
        return redirect(request, back, str(exc), "error")
    if CHOICES[choice]:
        return redirect(request, back, _("memoryd learns from your chats again, from now on."))
    if closed:
        done = ngettext(
            "memoryd no longer learns from your chats (%(num)d waiting chat will not be read).",
            "memoryd no longer learns from your chats (%(num)d waiting chats will not be read).",
            closed,
        )
        return redirect(request, back, done)
    return redirect(request, back, _("memoryd no longer learns from your chats."))


@router.post("/review")
async def set_review(request: Request, state: State) -> Response:
    caller, back, choice = await account_choice(request, state, "mode", REVIEW_CHOICES)
    if choice is None:
        return redirect(request, back, _("Choose default, off, updates or everything."), "error")
    mode, done = REVIEW_CHOICES[choice]
    try:
        await run_in_threadpool(state.md.set_review_preference, caller.user.id, mode)
    except MemorydError as exc:
        return redirect(request, back, str(exc), "error")
    return redirect(request, back, _(done))


@router.post("/language")
async def set_language(request: Request, state: State) -> Response:
    caller, back, choice = await account_choice(request, state, "language", PREFERENCE_CHOICES)
    if choice is None:
        return redirect(request, back, _("Choose a language from the list."), "error")
    try:
        await run_in_threadpool(state.md.set_language_preference, caller.user.id, choice)
    except MemorydError as exc:
        return redirect(request, back, str(exc), "error")
    own = None if choice == FOLLOW_SERVER else choice
    use_language(page_language(request, state, own))  # the answer is in the new language
    return redirect(request, back, _("Language saved."))
