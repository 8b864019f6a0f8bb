"""The Observer and Reflector prompts: narrow tasks a 1.5B model on two CPU cores does well.

The Observer answers with the numbers of the user's sentences worth remembering
(``person`` or ``project``); code writes the memories. The Reflector says whether a new
fact is the same as a related stored memory, replaces it, or is separate. Neither prompt
holds an example field or placeholder a model could copy into a fact, nor database ids.
"""

from __future__ import annotations

from collections.abc import Sequence

from memoryd.extraction.sentences import Sentence
from memoryd.models.llm.base import Message

OBSERVER_SYSTEM = """\
You decide which sentences a user wrote in a chat are worth remembering about them for \
later chats. Every numbered sentence was written by the user, in any language.
Worth remembering: lasting facts about the user (who they are, their work or studies, \
family, friends, pets, home, hobbies, habits, likes and dislikes, health, plans and past \
experiences) and facts about their project (decisions, tools, people, dates).
Not worth remembering: greetings, thanks, small talk, moods of the moment, what the \
user is doing right now, polite replies, guesses, vague remarks ("I like a lot of \
things"), remarks about the other speaker, sentences that only make sense with what \
was said before, tasks the user asks the assistant to do, and general knowledge that \
is not about the user.
Answer with a JSON object with two lists of sentence numbers. "person": sentences \
with a fact that matters in every chat, whatever its topic: the user's name, age and \
identity, family and relationships, health, allergies and diet, where they live, the \
languages they speak, and how they want answers written. "project": every other \
sentence worth remembering: their work, studies, projects and code, their team's \
rules and practices, hobbies, likes, plans and anything about the topic of this \
workspace. Leave every other sentence out; both lists may be empty."""

REFLECTOR_SYSTEM = """\
You keep a user's memories up to date. Each numbered pair shows a stored memory and a \
new fact from the user's latest chats. For each pair answer "same" if the new fact says \
nothing the stored memory does not, "replaces" if the new fact changes or corrects the \
stored memory, or "separate" if they are about different things.
Answer with a JSON object whose "verdicts" list has one item per pair, each with \
"pair" (its number) and "verdict"."""


def observer_messages(workspace: str, sentences: Sequence[Sentence]) -> list[Message]:
    listing = "\n".join(f"{s.number}. {s.text}" for s in sentences)
    return [
        {"role": "system", "content": OBSERVER_SYSTEM},
        {"role": "user", "content": f'Workspace "{workspace}". The user wrote:\n{listing}'},
    ]


def reflector_messages(pairs: Sequence[tuple[str, str]]) -> list[Message]:
    """``pairs`` are (stored memory, new fact) texts, numbered from 1 in the prompt."""
    listing = "\n".join(
        f"{n}. stored: {old}\n   new: {new}" for n, (old, new) in enumerate(pairs, 1)
    )
    return [{"role": "system", "content": REFLECTOR_SYSTEM}, {"role": "user", "content": listing}]
