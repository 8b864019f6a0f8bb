"""How an audit entry reads on the web UI (the Activity page and a memory's History table):
"Edited", "Learned from chats", "by you", with the text or setting before and after,
rather than the API's ``update`` and ``extraction:RUN``; and a page of entries by day.

It imports nothing else of the web UI, so every page module can use it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from memoryd.access.callers import Owner
from memoryd.app.i18n import LANGUAGE_NAMES, N_
from memoryd.domain.models import AuditAction, AuditEntry, Role, Source, User, UserSetting
from memoryd.server.web.i18n import ENGLISH, _, current_language, ngettext


@dataclass(frozen=True)
class Reader:
    """Who reads the log (``viewer``), whose log it is (``subject``), and the memories
    of the subject's that still exist and the viewer may open."""

    viewer: User
    subject: User
    existing: frozenset[str]
    is_admin: bool

    @classmethod
    def of(cls, owner: Owner, existing: frozenset[str]) -> Reader:
        """The reader of ``owner.user``'s log: whoever acts (``owner.acting``)."""
        return cls(owner.acting, owner.user, existing, owner.acting.role is Role.ADMIN)


@dataclass
class ActivityItem:
    """One entry as the page shows it. ``before_text``/``after_text`` are set together
    when the text changed (shown side by side); otherwise ``text`` is the memory's."""

    id: int
    action: str
    at: datetime
    what: str
    by: str
    where: str
    memory_id: str
    text: str | None = None
    before_text: str | None = None
    after_text: str | None = None
    notes: list[str] = field(default_factory=list)
    run_id: str | None = None  # an extraction run the viewer (an admin) can open
    exists: bool = False  # the memory is still there to open

    @property
    def iso(self) -> str:
        return self.at.isoformat()

    @property
    def time(self) -> str:
        return self.at.strftime("%H:%M UTC")

    @property
    def label(self) -> str:
        """The memory's text, short, to name the entry's link."""
        shown = self.after_text or self.text or self.before_text or ""
        return shown if len(shown) <= 80 else shown[:80] + "…"


@dataclass
class Day:
    title: str
    items: list[ActivityItem]


def where_text(state: dict[str, Any] | None) -> str:
    if not state:
        return ""
    if state.get("scope") == "global":
        return _("Global")
    return _("Workspace %(slug)s", slug=state.get("workspace"))


def actor_text(actor: str, reader: Reader) -> tuple[str, str | None]:
    """Who, in words, and the extraction run it names (if any)."""
    kind, _sep, rest = actor.partition(":")
    if kind == Source.USER.value:
        if rest == str(reader.viewer.id):
            return _("you"), None
        if rest == str(reader.subject.id):
            return reader.subject.name, None
        return _("user %(id)s", id=rest), None
    if kind == Source.ADMIN.value:
        if rest == str(reader.viewer.id):
            return _("you (as an admin)"), None
        return (_("an admin (command line)") if not rest else _("an admin")), None
    if kind == Source.EXTRACTION.value:
        run = _("extraction run %(id)s", id=rest[:8]) if rest else _("extraction")
        return run, rest or None
    if kind == Source.IMPORT.value:
        return _("an import"), None
    if kind == Source.SYSTEM.value:
        return "memoryd", None
    return actor, None


def _what(entry: AuditEntry, kind: str) -> str:
    after = entry.after or {}
    match entry.action:
        case AuditAction.CREATE:
            if kind == Source.IMPORT.value:
                return _("Imported")
            if kind == Source.EXTRACTION.value:
                return _("Learned from chats")
            if after.get("source") == Source.EXTRACTION.value:
                return _("Created from a suggestion")
            return _("Created")
        case AuditAction.UPDATE:
            if kind == Source.IMPORT.value:
                return _("Replaced by an import")
            if kind == Source.EXTRACTION.value:
                return _("Updated from chats")
            return _("Edited")
        case AuditAction.DELETE:
            return _("Expired and deleted") if kind == Source.SYSTEM.value else _("Deleted")
        case AuditAction.PROMOTE:
            return _("Made global")
        case AuditAction.DEMOTE:
            return _("Moved to workspace %(slug)s", slug=after.get("workspace"))
        case AuditAction.DELETE_CHATS:
            return _("Chats deleted")
        case AuditAction.CHANGE_SETTING:
            return _setting_what(after)
    return str(entry.action)


# how a setting's values read (memoryd.app.user_settings): setting -> value -> msgid
SETTING_NAMES = {
    UserSetting.LEARN_FROM_CHATS.value: N_("Learning from chats"),
    UserSetting.MEMORY_REVIEW.value: N_("Review of what memoryd learns"),
    UserSetting.LANGUAGE.value: N_("Language"),
    UserSetting.ROLE.value: N_("Role"),
    UserSetting.MEMBERSHIP.value: N_("Membership"),
}
SETTING_VALUES: dict[str, dict[Any, str]] = {
    UserSetting.LEARN_FROM_CHATS.value: {True: N_("on"), False: N_("off")},
    UserSetting.MEMORY_REVIEW.value: {
        "default": N_("as the instance is set"),
        "off": N_("apply at once"),
        "updates": N_("ask before changing an existing memory"),
        "everything": N_("ask before every new or changed memory"),
    },
    UserSetting.LANGUAGE.value: {
        "default": N_("as the server is set"),
        "auto": N_("the language of each message"),
    },
    UserSetting.ROLE.value: {"admin": N_("admin"), "default": N_("default user")},
    UserSetting.MEMBERSHIP.value: {"member": N_("member"), "not member": N_("not a member")},
}


def _setting_what(after: dict[str, Any]) -> str:
    setting, new = after.get("setting"), after.get("value")
    if setting == UserSetting.LEARN_FROM_CHATS.value:
        return _("Turned on learning from chats") if new else _("Turned off learning from chats")
    if setting == UserSetting.MEMORY_REVIEW.value:
        return _("Changed what waits for review")
    if setting == UserSetting.LANGUAGE.value:
        return _("Changed the language")
    if setting == UserSetting.ROLE.value:
        return _("Made an admin") if new == Role.ADMIN.value else _("Made a default user")
    if setting == UserSetting.MEMBERSHIP.value:
        workspace = after.get("workspace")
        if new == "member":
            return _("Added to workspace %(slug)s", slug=workspace)
        return _("Removed from workspace %(slug)s", slug=workspace)
    return _("Changed the setting %(name)s", name=setting)


def _setting_value(setting: object, value: object) -> str:
    words = SETTING_VALUES.get(str(setting), {})
    if isinstance(value, bool | str) and value in words:
        return _(words[value])
    if setting == UserSetting.LANGUAGE.value and value in LANGUAGE_NAMES:
        return LANGUAGE_NAMES[str(value)]
    return str(value)


def _setting_text(before: dict[str, Any], after: dict[str, Any]) -> tuple[str, str]:
    """(where, what) of a setting's change: ``Learning from chats: on → off``."""
    setting = after.get("setting") or before.get("setting")
    name = _(SETTING_NAMES[str(setting)]) if str(setting) in SETTING_NAMES else str(setting)
    was = _setting_value(setting, before.get("value"))
    now = _setting_value(setting, after.get("value"))
    workspace = after.get("workspace")
    where = _("Workspace %(slug)s", slug=workspace) if workspace else _("Whole account")
    return where, _("%(name)s: %(was)s → %(now)s", name=name, was=was, now=now)


def until_day(value: str | None) -> str:
    """The day a memory is remembered until, as a date field shows it (YYYY-MM-DD).

    Expiries given as a date are stored as the following midnight (UTC), so that
    midnight shows as the day before; any other time shows as its own day."""
    if not value:
        return ""
    moment = datetime.fromisoformat(value)
    if (moment.hour, moment.minute, moment.second, moment.microsecond) == (0, 0, 0, 0):
        moment -= timedelta(days=1)
    return moment.date().isoformat()


def _until(value: object) -> str:
    return until_day(value) if isinstance(value, str) and value else _("no end")


def _chats_text(record: dict[str, Any]) -> tuple[str, str]:
    """(where, what) of a chat deletion: counts per workspace, never any text."""
    count = record.get("count", 0)
    spaces = record.get("workspaces") or {}
    where = ", ".join(_("%(num)d in %(slug)s", num=n, slug=slug) for slug, n in spaces.items())
    what = ngettext(
        "%(num)d recorded chat deleted (%(where)s). Their text is gone.",
        "%(num)d recorded chats deleted (%(where)s). Their text is gone.",
        count,
        where=where,
    )
    return ", ".join(spaces), what


def describe(entry: AuditEntry, reader: Reader) -> ActivityItem:
    kind = entry.actor.partition(":")[0]
    by, run_id = actor_text(entry.actor, reader)
    item = ActivityItem(
        id=entry.id,
        action=entry.action.value,
        at=entry.at.astimezone(UTC) if entry.at.tzinfo else entry.at.replace(tzinfo=UTC),
        what=_what(entry, kind),
        by=by,
        where=where_text(entry.after or entry.before),
        memory_id=entry.memory_id,
        run_id=run_id if reader.is_admin else None,
        exists=bool(entry.memory_id) and entry.memory_id in reader.existing,
    )
    before, after = entry.before or {}, entry.after or {}
    if entry.action is AuditAction.DELETE_CHATS:
        item.where, item.text = _chats_text(before)
        return item
    if entry.action is AuditAction.CHANGE_SETTING:
        item.where, item.text = _setting_text(before, after)
        if after.get("setting") == UserSetting.LEARN_FROM_CHATS.value and not after["value"]:
            item.notes.append(_("Chats recorded while it is off are never learned from."))
        return item
    if entry.action in (AuditAction.PROMOTE, AuditAction.DEMOTE):
        item.where = f"{where_text(before)} → {where_text(after)}"
    old, new = before.get("content"), after.get("content")
    if entry.before and entry.after and old != new:
        item.before_text, item.after_text = str(old or ""), str(new or "")
    else:
        item.text = str((new if entry.after else old) or "")
    if entry.before and entry.after:
        if before.get("expires_at") != after.get("expires_at"):
            was, now = _until(before.get("expires_at")), _until(after.get("expires_at"))
            item.notes.append(_("Remember until: %(was)s → %(now)s", was=was, now=now))
        if entry.action is AuditAction.UPDATE and where_text(before) != where_text(after):
            item.where = f"{where_text(before)} → {where_text(after)}"
    elif after.get("expires_at"):
        item.notes.append(_("Remember until %(day)s", day=_until(after.get("expires_at"))))
    if entry.action is AuditAction.DELETE and kind == Source.SYSTEM.value:
        expired = _until(before.get("expires_at"))
        item.notes.append(_("Its remember-until date (%(day)s) had passed.", day=expired))
    if entry.action is AuditAction.DELETE and before.get("reason"):
        item.notes.append(_("Why: %(reason)s", reason=before["reason"]))
    return item


def day_title(day: date) -> str:
    """``Monday 5 January 2026``; in another language, as Babel writes a full date."""
    language = current_language()
    if language == ENGLISH:
        return f"{day:%A} {day.day} {day:%B %Y}"
    from babel.dates import format_date

    return format_date(day, format="full", locale=language)


def by_day(items: list[ActivityItem]) -> list[Day]:
    """The items (newest first) under one heading per day (UTC)."""
    days: list[Day] = []
    for item in items:
        title = day_title(item.at.date())
        if not days or days[-1].title != title:
            days.append(Day(title, []))
        days[-1].items.append(item)
    return days
