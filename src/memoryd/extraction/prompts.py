"""The Observer and Reflector prompts, short enough for a 1.5B model on two CPU cores.

Chats are shown oldest first with long texts clipped; stored memories are shown behind
per-batch handles (G1..G5 global, W1..W20 workspace), never their database ids.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from memoryd.domain.models import Chat
from memoryd.extraction.schema import Candidate
from memoryd.llm.base import Message

PROMPT_CLIP = 600
RESPONSE_CLIP = 120

OBSERVER_SYSTEM = """\
List the facts about the user and their project that the user stated in this chat and \
that will still be true next month. Answer with one JSON object: \
{"facts": [{"text": ..., "scope": ..., "action": ...}]}.
Put each fact in its own item, one short sentence each; a chat usually has 2 to 5 such \
facts. Only write what the user actually said.
Good facts: the user's name and job, lasting preferences ("always ...", "never ..."), \
people they work with, the project's tools, decisions and deadlines.
Skip: questions, the assistant's answers, jokes, moods, plans for today, passwords, keys \
and card numbers.
scope: "GLOBAL" if the fact is about the person (name, job, preferences); "WORKSPACE" \
if it is about this project.
action: "create", or "update" if the user changed an earlier decision.
If there is nothing, answer {"facts": []}."""

REFLECTOR_SYSTEM = """\
You keep a user's long-term memories. You get the stored memories (G1.. about the user \
everywhere, W1.. about this workspace), numbered candidate facts from new chats, and the \
free slots. Answer with one JSON object: \
{"memories": [{"candidate": ..., "action": ..., "target": ..., "scope": ...}]}.
Leave out candidates that a stored memory already says, and candidates not useful in \
future chats. For a candidate that changes or contradicts a stored memory: action \
"update", target = that memory's handle. Otherwise: action "create", target "", scope \
"GLOBAL" or "WORKSPACE", and no more creates than the free slots. \
If nothing should change, answer {"memories": []}."""


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def chat_log(chats: Sequence[Chat]) -> str:
    lines = []
    for chat in chats:
        lines.append(f"User: {_clip(chat.prompt, PROMPT_CLIP)}")
        if chat.response.strip():
            lines.append(f"(assistant: {_clip(chat.response, RESPONSE_CLIP)})")
    return "\n".join(lines)


def observer_messages(workspace: str, chats: Sequence[Chat]) -> list[Message]:
    return [
        {"role": "system", "content": OBSERVER_SYSTEM},
        {"role": "user", "content": f'Workspace "{workspace}". Chat:\n{chat_log(chats)}'},
    ]


def reflector_messages(
    workspace: str,
    stored: Mapping[str, str],
    candidates: Sequence[Candidate],
    free_global: int,
    free_workspace: int,
) -> list[Message]:
    memories = "\n".join(f"{handle}: {text}" for handle, text in stored.items()) or "(none)"
    facts = "\n".join(
        f"{n}. [{c.scope.name}, {c.action}] {c.text}" for n, c in enumerate(candidates, 1)
    )
    body = (
        f'Workspace "{workspace}".\nStored memories:\n{memories}\n'
        f"Free slots: GLOBAL {free_global}, WORKSPACE {free_workspace}\n"
        f"Candidates:\n{facts}"
    )
    return [
        {"role": "system", "content": REFLECTOR_SYSTEM},
        {"role": "user", "content": body},
    ]
