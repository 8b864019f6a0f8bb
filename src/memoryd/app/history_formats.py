"""Chat histories exported by other products, read into one shape (issue 38, item 4).

ChatGPT's and Claude's ``conversations.json`` and Open WebUI's chat export are read as
docs/history.md says. Each user message starts a turn, answered by what the assistant
said up to the next one; a turn's key (conversation id and message id) names the same
turn in every export of that history. Only reads: a broken file is ``InvalidInput``
saying where ("conversation 3: ...").
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from memoryd.domain.errors import InvalidInput

CHATGPT, CLAUDE, OPENWEBUI = "chatgpt", "claude", "openwebui"
FORMATS = (CHATGPT, CLAUDE, OPENWEBUI)
NAMES = {CHATGPT: "ChatGPT", CLAUDE: "Claude", OPENWEBUI: "Open WebUI"}
EARLIEST = datetime(2000, 1, 1, tzinfo=UTC)
FUTURE_SLACK = timedelta(days=1)
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
EXPECTED = "a ChatGPT, Claude or Open WebUI export"


@dataclass(frozen=True)
class Turn:
    """One message of the user's and the answer after it."""

    key: str  # "<conversation id>:<user message id>": stable across exports
    prompt: str
    response: str
    created_at: datetime | None


@dataclass(frozen=True)
class Conversation:
    key: str
    title: str
    created_at: datetime | None
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class History:
    """A parsed export: its format, its conversations in file order, and how many of the
    user's messages had no text to record (an image alone, say)."""

    format: str
    conversations: tuple[Conversation, ...]
    empty_prompts: int = 0

    @property
    def turns(self) -> list[Turn]:
        return [t for c in self.conversations for t in c.turns]


@dataclass(frozen=True)
class _Message:
    id: str
    role: str  # "user" or "assistant"
    text: str
    at: datetime | None


def parse_history(text: str | bytes, format: str | None = None) -> History:
    """The export's conversations (its text, or its bytes in UTF-8); ``format`` (one of
    ``FORMATS``) or told from the file."""
    if format is not None and format not in FORMATS:
        raise InvalidInput(f"unknown history format {format!r}: use {', '.join(FORMATS)}")
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InvalidInput(f"the file is not UTF-8 text (byte {exc.start})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(
            f"the file is not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    if isinstance(data, dict) and isinstance(data.get("chat"), dict):
        data = [data]  # one Open WebUI chat on its own
    if not isinstance(data, list):
        raise InvalidInput(f"the file is not {EXPECTED}: expected a list of conversations")
    chosen = format or detect_format(data)
    parse = _PARSERS[chosen]
    conversations: list[Conversation] = []
    empty = 0
    for number, item in enumerate(data, start=1):
        if not isinstance(item, dict):
            raise InvalidInput(f"conversation {number}: expected an object")
        try:
            conversation, skipped = parse(item, number)
        except InvalidInput as exc:
            raise InvalidInput(
                f"conversation {number} of the {NAMES[chosen]} export: {exc}"
            ) from None
        conversations.append(conversation)
        empty += skipped
    return History(chosen, tuple(conversations), empty)


def detect_format(data: list[Any]) -> str:
    """The format of a decoded export (a list), told by its first conversation's keys."""
    first = next((item for item in data if isinstance(item, dict)), None)
    if first is None:
        if not data:
            raise InvalidInput("the file holds no conversations; nothing to import")
        raise InvalidInput(f"the file is not {EXPECTED}: its items are not objects")
    if "mapping" in first:
        return CHATGPT
    if "chat_messages" in first:
        return CLAUDE
    if isinstance(first.get("chat"), dict):
        return OPENWEBUI
    keys = ", ".join(sorted(str(k) for k in first)[:6]) or "none"
    raise InvalidInput(
        f"the file is not {EXPECTED}: its first conversation has no 'mapping',"
        f" 'chat_messages' or 'chat' (keys: {keys})"
    )


# ChatGPT ---------------------------------------------------------------------------------
def _chatgpt(item: dict[str, Any], number: int) -> tuple[Conversation, int]:
    mapping = item.get("mapping")
    if not isinstance(mapping, dict):
        raise InvalidInput("'mapping' must be an object of message nodes")
    for node_id, node in mapping.items():
        if not isinstance(node, dict):
            raise InvalidInput(f"node {node_id!r} is not an object")
    key = _key(item.get("conversation_id") or item.get("id"), item, number)
    branch = _chatgpt_branch(mapping, item.get("current_node"))
    messages: list[_Message] = []
    for node_id in branch:
        message = mapping[node_id].get("message")
        if not isinstance(message, dict):
            continue  # the root has none
        author = message.get("author")
        role = author.get("role") if isinstance(author, dict) else None
        metadata = message.get("metadata")
        if isinstance(metadata, dict) and metadata.get("is_visually_hidden_from_conversation"):
            continue
        if role not in ("user", "assistant"):
            continue
        content = message.get("content")
        if not isinstance(content, dict):
            raise InvalidInput(f"message {node_id!r} has no 'content' object")
        if content.get("content_type") not in ("text", "multimodal_text"):
            continue  # code, tool output, custom instructions: not what was said
        parts = content.get("parts")
        if not isinstance(parts, list):
            raise InvalidInput(f"message {node_id!r}: 'parts' must be a list")
        text = "\n".join(p for p in parts if isinstance(p, str))
        at = _time(message.get("create_time"))
        messages.append(_Message(str(message.get("id") or node_id), role, text, at))
    return _conversation(key, item.get("title"), _time(item.get("create_time")), messages)


def _chatgpt_branch(mapping: dict[str, Any], current: Any) -> list[str]:
    """The node ids from the root to ``current`` (or to the last child's last child)."""
    if isinstance(current, str) and current in mapping:
        return _branch_to(mapping, current, "parent")
    roots = [i for i, n in mapping.items() if n.get("parent") not in mapping]
    path = []
    node_id = roots[0] if roots else None
    while isinstance(node_id, str) and node_id in mapping and node_id not in path:
        path.append(node_id)
        children = mapping[node_id].get("children")
        node_id = children[-1] if isinstance(children, list) and children else None
    return path


# Claude ----------------------------------------------------------------------------------
def _claude(item: dict[str, Any], number: int) -> tuple[Conversation, int]:
    found = item.get("chat_messages")
    if not isinstance(found, list):
        raise InvalidInput("'chat_messages' must be a list")
    key = _key(item.get("uuid"), item, number)
    messages: list[_Message] = []
    for index, message in enumerate(found, start=1):
        if not isinstance(message, dict):
            raise InvalidInput(f"message {index} is not an object")
        role = {"human": "user", "assistant": "assistant"}.get(str(message.get("sender")))
        if role is None:
            continue
        blocks = message.get("content")
        texts = [
            b["text"]
            for b in (blocks if isinstance(blocks, list) else [])
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        ]
        text = "\n\n".join(texts) if texts else message.get("text")
        if not isinstance(text, str):
            text = ""
        message_id = str(message.get("uuid") or f"#{index}")
        messages.append(_Message(message_id, role, text, _time(message.get("created_at"))))
    return _conversation(key, item.get("name"), _time(item.get("created_at")), messages)


# Open WebUI ------------------------------------------------------------------------------
def _openwebui(item: dict[str, Any], number: int) -> tuple[Conversation, int]:
    chat = item.get("chat")
    if not isinstance(chat, dict):
        raise InvalidInput("'chat' must be an object")
    key = _key(item.get("id") or chat.get("id"), item, number)
    history = chat.get("history")
    raw: list[Any]
    if isinstance(history, dict) and isinstance(history.get("messages"), dict):
        raw = _openwebui_branch(history["messages"], history.get("currentId"))
    elif isinstance(chat.get("messages"), list):
        raw = chat["messages"]
    else:
        raise InvalidInput("'chat' holds neither 'messages' nor 'history.messages'")
    messages: list[_Message] = []
    for index, message in enumerate(raw, start=1):
        if not isinstance(message, dict):
            raise InvalidInput(f"message {index} is not an object")
        role = message.get("role")
        if role not in ("user", "assistant"):
            continue
        content = message.get("content")
        text = content if isinstance(content, str) else ""
        message_id = str(message.get("id") or f"#{index}")
        messages.append(_Message(message_id, role, text, _time(message.get("timestamp"))))
    title = chat.get("title") or item.get("title")
    return _conversation(key, title, _time(item.get("created_at")), messages)


def _openwebui_branch(nodes: dict[str, Any], current: Any) -> list[Any]:
    """The messages from the first to ``currentId``, by ``parentId``."""
    if not isinstance(current, str) or current not in nodes:
        return list(nodes.values())  # no branch named: the file's order
    return [nodes[node_id] for node_id in _branch_to(nodes, current, "parentId")]


def _branch_to(nodes: dict[str, Any], current: str, parent: str) -> list[str]:
    """The node ids from the root to ``current``, by each node's ``parent`` key (a node
    met twice, or a parent not in ``nodes``, ends the walk)."""
    path: dict[str, None] = {}
    node_id: Any = current
    while isinstance(node_id, str) and node_id in nodes and node_id not in path:
        path[node_id] = None
        node = nodes[node_id]
        node_id = node.get(parent) if isinstance(node, dict) else None
    return list(path)[::-1]


_PARSERS: dict[str, Callable[[dict[str, Any], int], tuple[Conversation, int]]] = {
    CHATGPT: _chatgpt,
    CLAUDE: _claude,
    OPENWEBUI: _openwebui,
}


# shared ----------------------------------------------------------------------------------
def _key(given: Any, item: dict[str, Any], number: int) -> str:
    """The conversation's id; without one, its title and time stand in (still stable)."""
    if isinstance(given, (str, int)) and not isinstance(given, bool) and str(given):
        return str(given)
    title = item.get("title") or item.get("name") or ""
    made = item.get("create_time") or item.get("created_at") or number
    return f"untitled:{title}:{made}"


def _conversation(
    key: str, title: Any, at: datetime | None, messages: Iterable[_Message]
) -> tuple[Conversation, int]:
    """The conversation's turns: each user message with the answers up to the next one."""
    turns: list[tuple[_Message, list[str]]] = []
    for message in messages:
        if message.role == "user":
            turns.append((message, []))
        elif turns and message.text.strip():
            turns[-1][1].append(message.text)
    kept = [
        Turn(f"{key}:{m.id}", _clean(m.text), _clean("\n\n".join(r)), m.at or at)
        for m, r in turns
        if m.text.strip()
    ]
    name = _clean(title).strip() if isinstance(title, str) else ""
    return Conversation(key, name, at, tuple(kept)), len(turns) - len(kept)


def _clean(text: str) -> str:
    """Text as memoryd stores it: no NUL, no half of a surrogate pair (an escape in the
    JSON can hold one), each replaced by U+FFFD so nothing around it is lost."""
    return _LONE_SURROGATE.sub("\ufffd", text.replace("\x00", "\ufffd"))


def _time(value: Any) -> datetime | None:
    """A plausible time from seconds (or milliseconds) since 1970 or an ISO 8601 text."""
    at: datetime | None = None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = value / 1000 if value > 1e11 else value
        try:
            at = datetime.fromtimestamp(seconds, UTC)
        except (OverflowError, OSError, ValueError):
            return None
    elif isinstance(value, str) and value:
        try:
            at = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        if at.tzinfo is None:
            at = at.replace(tzinfo=UTC)
    plausible = at is not None and EARLIEST <= at <= datetime.now(UTC) + FUTURE_SLACK
    return at if plausible else None
