"""The account panel's own choices, as form posts: whether memoryd learns from the user's
chats, their review mode and their language (as ``PATCH /api/v1/me`` sets them).
"""

from __future__ import annotations

from collections.abc import Collection

from fastapi import APIRouter, Request, Response
from starlette.datastructures import FormData

from memoryd.app.i18n import N_
from memoryd.domain.errors import InvalidInput
from memoryd.domain.language import FOLLOW_SERVER, PREFERENCE_CHOICES
from memoryd.server.deps import Caller, ServerState, State
from memoryd.server.web.actions import form_post, perform, posted
from memoryd.server.web.i18n import _, ngettext, page_language, use_language

router = APIRouter(prefix="/ui", include_in_schema=False)

CHOICES = {"on": True, "off": False}
REVIEW_CHOICES = {
    "default": (None, N_("Extraction's changes follow the instance setting again.")),
    "off": ("off", N_("Extraction's changes to your memories apply at once.")),
    "updates": ("updates", N_("Changes to memories you have now wait for your review.")),
    "everything": ("everything", N_("Every new or changed memory now waits for your review.")),
}


def chosen(form: FormData, field: str, choices: Collection[str], refusal: str) -> str:
    """The posted choice, or InvalidInput(``refusal``) when it is not one of ``choices``."""
    choice = form.get(field)
    if not isinstance(choice, str) or choice not in choices:
        raise InvalidInput(refusal)
    return choice


@form_post(router, "/learning", panel="account")
def set_learning(state: ServerState, caller: Caller, form: FormData) -> str:
    learn = CHOICES[chosen(form, "learn", CHOICES, _("Choose on or off."))]
    closed = state.md.set_learning(caller.user.id, learn)
    if learn:
        return _("memoryd learns from your chats again, from now on.")
    if closed:
        return ngettext(
            "memoryd no longer learns from your chats (%(num)d waiting chat will not be read).",
            "memoryd no longer learns from your chats (%(num)d waiting chats will not be read).",
            closed,
        )
    return _("memoryd no longer learns from your chats.")


@form_post(router, "/review", panel="account")
def set_review(state: ServerState, caller: Caller, form: FormData) -> str:
    refusal = _("Choose default, off, updates or everything.")
    mode, done = REVIEW_CHOICES[chosen(form, "mode", REVIEW_CHOICES, refusal)]
    state.md.set_review_preference(caller.user.id, mode)
    return _(done)


@router.post("/language")
async def set_language(request: Request, state: State) -> Response:
    caller, form = await posted(request, state)

    def work() -> str:
        choice = chosen(form, "language", PREFERENCE_CHOICES, _("Choose a language from the list."))
        state.md.set_language_preference(caller.user.id, choice)
        own = None if choice == FOLLOW_SERVER else choice
        use_language(page_language(request, state, own))  # the answer is in the new language
        return _("Language saved.")

    return await perform(request, form, work, panel="account")
