"""What a chat turn gets: the query used to rank memories and the injected section (R3, R4).

Pure functions over domain objects. The caller supplies scores from a reranker; choosing,
ordering and rendering happen here so every front end (library, proxy, API) agrees. The
heading is English unless the caller passes a translated one (``memoryd.app.i18n`` reads the
catalogues); every translation of it is recognised by ``strip_sections``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field

from memoryd.domain.errors import InvalidInput
from memoryd.domain.models import Memory, ScoredMemory

SECTION_TITLE = "Things I Remember About You"  # the msgid its translations are found by
SECTION_HEADING = f"## {SECTION_TITLE}"
WORKSPACE_TOP_K = 5
HISTORY_MESSAGES = 3
HISTORY_PART_MAX_CHARS = 600


@dataclass(frozen=True)
class Query:
    """What workspace memories are ranked against: the message and the last 3 messages."""

    message: str
    history: tuple[str, ...] = ()

    @property
    def parts(self) -> tuple[str, ...]:
        """The message first, then history most recent first (so truncation cuts history)."""
        return tuple(p for p in (self.message, *reversed(self.history)) if p)

    @property
    def text(self) -> str:
        return "\n".join(self.parts)


def history_part(text: str) -> str:
    """How a past message enters a query: trimmed, and cut to its first 600 characters
    (the topic of a long answer is in its opening; the rest only costs embedding time)."""
    return text.strip()[:HISTORY_PART_MAX_CHARS].strip()


def check_history(history: object) -> Sequence[Mapping[str, object]]:
    """The turn's earlier messages, refused with InvalidInput unless they are a list of
    message objects (``{"role": ..., "content": ...}``)."""
    if isinstance(history, str | bytes) or not isinstance(history, Sequence):
        raise InvalidInput(
            'history must be a list of messages ([{"role": "user", "content": "..."}]), '
            f"not {type(history).__name__}"
        )
    for number, item in enumerate(history, start=1):
        if not isinstance(item, Mapping):
            raise InvalidInput(
                f"history message {number} is not an object with role and content, "
                f"but {type(item).__name__}"
            )
    return history


def build_query(message: str, history: Sequence[Mapping[str, object]] = ()) -> Query:
    """The current user message plus the last 3 chat messages with text content."""
    recent: list[str] = []
    for item in history:
        content = item.get("content")
        if isinstance(content, str) and content.strip():
            recent.append(history_part(content))
    return Query(message=message.strip(), history=tuple(recent[-HISTORY_MESSAGES:]))


def most_recent(memories: Sequence[Memory], k: int = WORKSPACE_TOP_K) -> list[Memory]:
    """The fallback choice: the k most recently created memories, newest first."""
    return sorted(memories, key=lambda m: (m.created_at, m.id), reverse=True)[:k]


def top_k(
    memories: Sequence[Memory], scores: Sequence[float], k: int = WORKSPACE_TOP_K
) -> list[ScoredMemory]:
    """The k best-scoring memories, best first; ties go to the newer memory."""
    if len(scores) != len(memories):
        raise ValueError("one score per memory is required")
    ranked = sorted(
        zip(memories, scores, strict=True),
        key=lambda pair: (pair[1], pair[0].created_at),
        reverse=True,
    )
    return [ScoredMemory(m, float(s)) for m, s in ranked[:k]]


def render_section(memories: Sequence[Memory], heading: str = SECTION_HEADING) -> str:
    """The injected section; empty when there is nothing to inject."""
    if not memories:
        return ""
    lines = [heading, *(f"- {m.content}" for m in memories)]
    return "\n".join(lines)


_HEADING_LINE = re.compile(r"^\s*#+\s*(.*?)\s*#*\s*$")


def _title_key(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def english_titles() -> Collection[str]:
    return (SECTION_TITLE,)


def strip_sections(text: str, titles: Callable[[], Collection[str]] = english_titles) -> str:
    """``text`` without any section that looks like memoryd's own: a Markdown heading
    whose words are one of ``titles()`` (any level, any case, look-alike characters
    folded) and the ``- `` lines under it. What a system message may not bring in, so the
    model sees one memoryd section, the real one, in whichever language it is.
    ``titles`` is called only when ``text`` has a heading (it may read catalogues)."""
    keys: set[str] | None = None
    kept: list[str] = []
    inside = False
    for line in text.split("\n"):
        heading = _HEADING_LINE.match(unicodedata.normalize("NFKC", line))
        if heading and keys is None:
            keys = {_title_key(t) for t in titles()}
        if heading and keys is not None and _title_key(heading.group(1)) in keys:
            inside = True
            while kept and not kept[-1].strip():  # the blank lines that set it apart
                kept.pop()
            continue
        if inside and (line.lstrip().startswith(("- ", "* ")) or not line.strip()):
            continue
        inside = False
        kept.append(line)
    return "\n".join(kept)


def compose_system_prompt(base: str | None, section: str) -> str:
    """Append the section to a system prompt, separated by a blank line."""
    base = (base or "").rstrip()
    if not section:
        return base
    if not base:
        return section
    return f"{base}\n\n{section}"


@dataclass(frozen=True)
class Turn:
    """What memoryd decided for one chat turn."""

    global_memories: tuple[ScoredMemory, ...] = ()
    workspace_memories: tuple[ScoredMemory, ...] = ()
    enabled: bool = True
    reranker: str | None = None
    fallback_reason: str | None = None
    query: Query = field(default_factory=lambda: Query(""))
    candidates: int = field(default=0)
    # False: an incognito turn (``context(record=False)``), never recorded
    record: bool = True
    heading: str = SECTION_HEADING  # in the user's language (memoryd.app.i18n)
    # every language's heading title (read when needed): a system prompt's sections under
    # them are dropped
    titles: Callable[[], Collection[str]] = field(default=english_titles, compare=False)

    @property
    def memory_ids(self) -> list[str]:
        return [m.id for m in self.memories]

    @property
    def memories(self) -> list[Memory]:
        """Injected memories in prompt order: globals, then workspace memories by rank."""
        return [s.memory for s in (*self.global_memories, *self.workspace_memories)]

    @property
    def section(self) -> str:
        return render_section(self.memories, self.heading)

    def strip(self, text: str) -> str:
        """``text`` without a section that claims to be memoryd's (``strip_sections``)."""
        return strip_sections(text, self.titles)

    def system_prompt(self, base: str | None = None) -> str:
        return compose_system_prompt(self.strip(base or ""), self.section)


def injectable_into(memory: Memory, workspace: str) -> bool:
    """Whether a turn in ``workspace`` can have injected this memory: a global one, or one
    of that workspace's own (a chat in one workspace never links another's memories)."""
    return memory.workspace is None or memory.workspace == workspace


MAX_CHAT_MEMORIES = 100  # far above what a turn injects (5 globals + 5 of a workspace)


def used_ids(turn: Turn | None, memory_ids: Sequence[str]) -> list[str]:
    """The memory ids to store with a recorded chat: the turn's, else ``memory_ids``.
    An incognito turn (``record=False``) is refused: it must never be recorded."""
    if turn is not None and not turn.record:
        raise InvalidInput("this turn is incognito (context(record=False)): it is not recorded")
    ids = list(turn.memory_ids if turn is not None else memory_ids)
    if isinstance(memory_ids, str) or not all(isinstance(i, str) for i in ids):
        raise InvalidInput("memory_ids must be a list of memory ids")
    if len(ids) > MAX_CHAT_MEMORIES:
        raise InvalidInput(f"at most {MAX_CHAT_MEMORIES} memory ids per chat")
    return ids
