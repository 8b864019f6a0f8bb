"""Where each suggestion in the review queue can be accepted, for the page to offer: only the
places with room (a new memory: global or its chats' workspace; a change: where its memory
is) and, when none has any, why, instead of a button that would fail.
"""

from __future__ import annotations

from dataclasses import dataclass

from memoryd.access.memories import ScopeUsage
from memoryd.access.wire import SuggestionOut
from memoryd.server.web.i18n import _, ngettext


@dataclass(frozen=True)
class ScopeChoice:
    """One place a suggestion can be accepted into, and whether it has room."""

    value: str  # the form's scope: "global" or "workspace"
    label: str  # "Global" or the workspace's name
    room: bool


@dataclass(frozen=True)
class ReviewItem:
    """A suggestion as the queue shows it: where it can go (none for a change to a
    memory, which stays where that memory is), the place chosen at first, and why Accept
    is not offered (``blocked``) when no place has room."""

    suggestion: SuggestionOut
    choices: list[ScopeChoice]
    chosen: str | None
    blocked: str | None


def review_items(
    suggestions: list[SuggestionOut], usage: list[ScopeUsage], names: dict[str, str]
) -> list[ReviewItem]:
    """The queue's rows, from the scopes' fullness as the memory list shows it."""
    full = {(u.scope, u.workspace): u.full for u in usage}
    items = []
    for s in suggestions:
        if s.kind == "update":
            items.append(ReviewItem(s, [], None, None))
            continue
        choices = [ScopeChoice("global", _("Global"), not full.get(("global", None), False))]
        if s.origin is not None and ("workspace", s.origin) in full:
            name = names.get(s.origin, s.origin)
            choices.append(ScopeChoice("workspace", name, not full[("workspace", s.origin)]))
        open_ = [c for c in choices if c.room]
        preferred = next((c for c in open_ if c.value == s.scope), open_[0] if open_ else None)
        blocked = None
        if preferred is None:
            blocked = ngettext(
                "%(places)s is full: delete a memory there to accept this",
                "%(places)s are full: delete a memory there to accept this",
                len(choices),
                places=_(" and ").join(c.label for c in choices),
            )
        items.append(ReviewItem(s, choices, preferred.value if preferred else None, blocked))
    return items
