"""The user's own choices as one line of an export, so moving a user loses none of them.

An export writes them first, under the names ``GET /api/v1/me`` uses::

    {"preferences": {"language": "fr", "learn_from_chats": true, "memory_review": "default"}}

A file holds at most one such line; a key left out leaves that choice as it is, and
anything unknown is refused, so a typo never passes for a choice (docs/cli.md).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from memoryd.app.user_settings import (
    FOLLOW_INSTANCE,
    change_language,
    change_learning,
    change_review,
)
from memoryd.domain.errors import InvalidInput
from memoryd.domain.language import PREFERENCE_CHOICES as LANGUAGE_CHOICES
from memoryd.domain.results import LANGUAGE
from memoryd.domain.results import LEARN as LEARN  # re-exported: these were defined here
from memoryd.domain.results import REVIEW as REVIEW
from memoryd.domain.results import Preferences as Preferences
from memoryd.domain.runtime_settings import REVIEW_MODES

if TYPE_CHECKING:
    from datetime import datetime

    from memoryd.domain.models import Actor
    from memoryd.storage.repository import Repository

PREFERENCES = "preferences"
REVIEW_CHOICES = (FOLLOW_INSTANCE, *REVIEW_MODES)
EXAMPLE = '{"preferences": {"learn_from_chats": true, "memory_review": "default"}}'


def read_preferences(repo: Repository, user_id: int) -> Preferences:
    return Preferences(
        learn_from_chats=bool(repo.learns_from_chats(user_id)),
        memory_review=repo.review_preference(user_id) or FOLLOW_INSTANCE,
        language=repo.user_language(user_id)[1] or FOLLOW_INSTANCE,
    )


def preferences_line(preferences: Preferences) -> str:
    return json.dumps({PREFERENCES: preferences.to_dict()}, sort_keys=True, ensure_ascii=False)


def is_preferences(data: dict[str, Any]) -> bool:
    return PREFERENCES in data


def parse_preferences(data: dict[str, Any]) -> Preferences:
    """A decoded preferences line, or InvalidInput saying what is wrong."""
    others = sorted(k for k in data if k != PREFERENCES)
    if others:
        raise InvalidInput(f'a preferences line holds only "preferences", not {others[0]!r}')
    choices = data[PREFERENCES]
    if not isinstance(choices, dict):
        raise InvalidInput(f"preferences must be an object, like {EXAMPLE}")
    unknown = sorted(k for k in choices if k not in (LEARN, REVIEW, LANGUAGE))
    if unknown:
        raise InvalidInput(
            f"unknown preference {unknown[0]!r} (known: {LEARN}, {REVIEW}, {LANGUAGE})"
        )
    learns = choices.get(LEARN)
    if LEARN in choices and not isinstance(learns, bool):
        raise InvalidInput(f"{LEARN} must be true or false, not {learns!r}")
    review = choices.get(REVIEW)
    if REVIEW in choices and review not in REVIEW_CHOICES:
        raise InvalidInput(f"unknown {REVIEW} {review!r}: use {', '.join(REVIEW_CHOICES)}")
    language = choices.get(LANGUAGE)
    if LANGUAGE in choices and language not in LANGUAGE_CHOICES:
        raise InvalidInput(f"unknown {LANGUAGE} {language!r}: use {', '.join(LANGUAGE_CHOICES)}")
    return Preferences(learn_from_chats=learns, memory_review=review, language=language)


def apply_preferences(
    repo: Repository, user_id: int, preferences: Preferences, actor: Actor, now: datetime
) -> None:
    """Set the choices the line makes, in the caller's write transaction (user locked).

    As ``Memoryd.set_learning``, ``set_review_preference`` and
    ``set_language_preference`` do: learning turned off
    closes the chats still waiting for extraction, and each choice the line changes is
    one ``change_setting`` audit entry by ``actor`` (the import's), none for a choice the
    user had already made (``memoryd.app.user_settings``)."""
    if preferences.learn_from_chats is not None:
        change_learning(repo, user_id, preferences.learn_from_chats, actor, now)
    if preferences.memory_review is not None:
        own = preferences.memory_review
        change_review(repo, user_id, None if own == FOLLOW_INSTANCE else own, actor, now)
    if preferences.language is not None:
        own = preferences.language
        change_language(repo, user_id, None if own == FOLLOW_INSTANCE else own, actor, now)
