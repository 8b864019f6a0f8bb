"""The review queue's form posts: accept one suggestion (into the scope chosen on the page),
reject one, Accept all and Reject all.

Accepting goes through ``memoryd.access.suggestions.accept`` as the REST API's does. Accept
all takes each suggestion where extraction put it or, that scope being full, the other
place, and says in one message why the rest are still waiting.
"""

from __future__ import annotations

from fastapi import APIRouter
from starlette.datastructures import FormData

from memoryd.access import suggestions
from memoryd.access.callers import Owner
from memoryd.domain.errors import InvalidInput, MemorydError, ScopeFull
from memoryd.domain.models import Scope, Suggestion, SuggestionKind
from memoryd.server.deps import Caller, ServerState
from memoryd.server.web.actions import confirmed, expiry_field, field_text, form_post, owner_of
from memoryd.server.web.i18n import _, ngettext
from memoryd.server.web.routes import workspace_names

router = APIRouter(prefix="/ui/suggestions", include_in_schema=False)


def place_name(state: ServerState, workspace: str | None) -> str:
    """ "Global", or a workspace by its name."""
    if workspace is None:
        return _("Global")
    return _("workspace %(name)s", name=workspace_names(state).get(workspace, workspace))


def _scope(form: FormData) -> str | None:
    chosen = field_text(form, "scope")
    if chosen not in ("", "global", "workspace"):
        raise InvalidInput(_("unknown scope %(scope)r: use global or workspace", scope=chosen))
    return chosen or None


def _accept_one(state: ServerState, owner: Owner, suggestion: Suggestion) -> str | None:
    """Accept where extraction put it, else (that scope full) in the other place; None
    when accepted, else why not."""
    other = "workspace" if suggestion.scope is Scope.GLOBAL else "global"
    places: list[str | None] = [None]
    if suggestion.kind is SuggestionKind.CREATE and suggestion.origin is not None:
        places.append(other)
    why = ""
    for scope in places:
        try:
            suggestions.accept(state, owner, suggestion.id, scope=scope)
        except ScopeFull as exc:
            why = why or str(exc)
        except MemorydError as exc:
            return str(exc)
        else:
            return None
    return why


@form_post(router, "/accept-all")
def accept_all(state: ServerState, caller: Caller, form: FormData) -> str:
    owner = owner_of(state, caller, form)
    accepted, waiting = 0, []
    for suggestion in suggestions.visible_suggestions(state, owner):
        why = _accept_one(state, owner, suggestion)
        if why is None:
            accepted += 1
        else:
            waiting.append(why)
    done = ngettext("Accepted %(num)d suggestion.", "Accepted %(num)d suggestions.", accepted)
    if not waiting:
        return done
    reasons = "; ".join(dict.fromkeys(waiting))
    left = ngettext(
        "%(num)d could not be accepted and is still waiting: %(reasons)s",
        "%(num)d could not be accepted and are still waiting: %(reasons)s",
        len(waiting),
        reasons=reasons,
    )
    raise InvalidInput(f"{done} {left}")


@form_post(router, "/reject-all")
def reject_all(state: ServerState, caller: Caller, form: FormData) -> str:
    owner = owner_of(state, caller, form)
    waiting = suggestions.visible_suggestions(state, owner)
    count = len(waiting)
    confirmed(
        form,
        ngettext(
            "Reject the %(num)d suggestion? The same text is not suggested again.",
            "Reject all %(num)d suggestions? The same texts are not suggested again.",
            count,
        ),
        _("Reject all"),
    )
    for s in waiting:
        state.md.reject_suggestion(owner.user.id, s.id)
    return ngettext("Rejected %(num)d suggestion.", "Rejected %(num)d suggestions.", count)


@form_post(router, "/{suggestion_id}/{decision}")
def decide_suggestion(
    state: ServerState, caller: Caller, form: FormData, suggestion_id: str, decision: str
) -> str:
    owner = owner_of(state, caller, form)
    if decision == "accept":
        memory = suggestions.accept(
            state,
            owner,
            suggestion_id,
            content=field_text(form, "content") if "content" in form else None,
            expires_at=expiry_field(form),
            scope=_scope(form),
        )
        return _("Suggestion accepted into %(place)s.", place=place_name(state, memory.workspace))
    if decision == "reject":
        suggestions.reject(state, owner, suggestion_id)
        return _("Suggestion rejected.")
    raise InvalidInput(_("unknown decision %(decision)r", decision=decision))
