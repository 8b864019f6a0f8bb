"""The web UI in its reader's language: which language a page is in, and the gettext the
templates and the web modules translate their words with (docs/i18n.md).

The language in force is a context variable set once per request, where the user is known
(``page_context``, ``posted``) or not (the sign-in page), so no function passes it around.
"""

from __future__ import annotations

import gettext as gettext_module
from contextvars import ContextVar
from functools import cache
from typing import TYPE_CHECKING, Any

from memoryd.app.i18n import LANGUAGE_NAMES, N_, Nn_, is_complete, translations
from memoryd.domain.language import LANGUAGES

if TYPE_CHECKING:
    from fastapi import Request
    from jinja2 import Environment

    from memoryd.domain.models import User
    from memoryd.server.deps import ServerState

ENGLISH = "en"
_locale: ContextVar[str] = ContextVar("memoryd_ui_locale", default=ENGLISH)


def _translations() -> gettext_module.NullTranslations:
    return translations(_locale.get())


def _(message: str, **variables: Any) -> str:
    """``message`` in the page's language, with ``%(name)s`` filled from ``variables``."""
    text = _translations().gettext(message)
    return text % variables if variables else text


def ngettext(singular: str, plural: str, n: int, **variables: Any) -> str:
    """The form of ``singular``/``plural`` for ``n`` in the page's language; ``%(num)d``
    is ``n``."""
    return _translations().ngettext(singular, plural, n) % {"num": n, **variables}


@cache
def ui_languages() -> tuple[str, ...]:
    """English and every language whose catalogue translates every msgid of the UI."""
    return tuple(language for language in LANGUAGES if is_complete(language))


def from_header(accept_language: str) -> str | None:
    """The first language of an ``Accept-Language`` header the UI speaks, by weight."""
    weighted: list[tuple[float, int, str]] = []
    for index, item in enumerate(accept_language.split(",")[:20]):
        tag, _sep, params = item.strip().partition(";")
        weight = 1.0
        if params.strip().startswith("q="):
            try:
                weight = float(params.strip()[2:])
            except ValueError:
                continue
        weighted.append((-weight, index, tag.strip().split("-")[0].lower()))
    for weight, _index, language in sorted(weighted):
        if weight < 0 and language in ui_languages():
            return language
    return None


def page_language(request: Request, state: ServerState, own: str | None = None) -> str:
    """The language of a page for a user whose own choice is ``own`` (None: none, or
    signed out); see the module doc."""
    if own in ui_languages():
        return str(own)
    browser = from_header(request.headers.get("accept-language", ""))
    if browser is not None:
        return browser
    server = state.settings.language
    return server if server in ui_languages() else ENGLISH


def speak_to(request: Request, state: ServerState, user: User | None) -> str | None:
    """Set the language of this request for ``user`` (None: signed out); their own
    language choice, if they made one."""
    own = state.md.language_preference(user.id) if user is not None else None
    use_language(page_language(request, state, own))
    return own


use_language = _locale.set  # the language of this request's pages and messages
current_language = _locale.get


# The words memoryd.js and chat.js show, by their English: base.html gives the page's
# translations of them as JSON (<script id="i18n">), and a script shows its own English
# for a word missing there. A pair is a plural: both forms go, for Intl.PluralRules to
# pick ("one"/"other", which is all English and French need).
SCRIPT_WORDS: tuple[str | tuple[str, str], ...] = (
    N_("Confirm"),
    N_("never"),
    N_("%(day)s (to the end of the day, UTC)"),
    N_("%(source)s (extraction run %(id)s)"),
    N_("%(source)s (extraction run %(id)s), accepted in review"),
    N_("History"),
    N_("Could not load the history: %(error)s"),
    N_("Loading…"),
    N_("Could not load this memory: %(error)s"),
    N_("Where"),
    N_("Global"),
    N_("Workspace %(name)s"),
    N_("Source"),
    N_("Created"),
    N_("Updated"),
    N_("Last used"),
    N_("Remember until"),
    N_("(expired: no longer used in chats)"),
    N_("no end"),
    N_("Questions it answers"),
    N_("Came from these chats"),
    N_("A chat in a workspace you can't open"),
    N_("Deleted chat (#%(id)s)"),
    N_("Those chats are no longer stored."),
    N_("None: it was not extracted from a chat."),
    N_("Used in chats"),
    N_("Not used in a recorded chat yet."),
    N_("Not available on this server."),
    N_("The run list could not be refreshed (%(error)s); reload the page to see the latest runs."),
    N_("Running…"),
    N_("Run now"),
    N_("Extraction run %(id)s finished: %(status)s."),
    N_("(The progress could not be refreshed: %(error)s; reload the page.)"),
    Nn_(
        "%(num)d memory used (reload the page to see which).",
        "%(num)d memories used (reload the page to see which).",
    ),
    N_("Stopped: you stopped this reply. It was not recorded."),
    N_("Cut off: the reply reached the model's length limit."),
    N_("Cut off: %(error)s. It was not recorded."),
    N_("the upstream broke off"),
    N_("incognito: not recorded"),
    Nn_(
        "Delete your %(num)d exchange in %(name)s? Its text is erased and memoryd will not "
        "learn from it; memories it already learned stay.",
        "Delete all %(num)d of your exchanges in %(name)s? Their text is erased and memoryd "
        "will not learn from them; memories it already learned stay.",
    ),
    N_("Thinking…"),
    N_("Answering…"),
    N_("Error: %(error)s"),
    N_("Incognito: this chat was not recorded."),
)  # fmt: skip


def script_words() -> dict[str, str | dict[str, str]]:
    """``SCRIPT_WORDS`` in the page's language, by their English (none on an English
    page: the scripts' own words are English)."""
    if current_language() == ENGLISH:
        return {}
    found = _translations()
    words: dict[str, str | dict[str, str]] = {}
    for word in SCRIPT_WORDS:
        if isinstance(word, str):
            words[word] = found.gettext(word)
        else:
            words[word[0]] = {"one": found.ngettext(*word, 1), "other": found.ngettext(*word, 2)}
    return words


def install(env: Environment) -> None:
    """Give the templates ``{% trans %}``, ``_()`` and ``ngettext()`` (new-style: ``%(name)s``
    filled and escaped by Jinja), the page's language and the languages' own names."""
    env.add_extension("jinja2.ext.i18n")
    env.install_gettext_callables(  # type: ignore[attr-defined]
        gettext=lambda message: _translations().gettext(message),
        ngettext=lambda singular, plural, n: _translations().ngettext(singular, plural, n),
        newstyle=True,
    )
    env.globals["ui_language"] = current_language
    env.globals["script_words"] = script_words
    env.globals["language_names"] = LANGUAGE_NAMES
