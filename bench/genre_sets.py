"""The public data sets of /work/shared/datasets as memoryd's labelled conversations, per genre.

One result on one kind of chat is not evidence that extraction got better for memoryd's
users (issue 34), so ``genres.py`` measures it on four genres, each read here into the
format of ``memoryd.evaluation.extraction`` with the dev/test split its dataset README fixes:

- ``persona``: Synthetic-Persona-Chat, two strangers' small talk (``persona_chat.py``).
- ``realmem``: RealMem, a user and an assistant over months. A conversation is **one
  labelled session**: its truth, the memory points whose ``source_role_snapshot`` is
  "User", is written per session from that session's turns, so one session is complete
  and self-contained; several sessions would add little but restatements the matcher
  cannot tell apart, and changes over sessions are what ``memorycode`` measures. The
  unlabelled "Enhanced" sessions (pasted public chats, no memory points) are left out:
  their true facts would all count as unsupported. The assistant's long replies stay as
  the chats' responses; the memory points from its turns that do not name the user
  (its plans, drafts, proposals: "Revised capital allocation strategy: 90% ...") are
  ``other_facts``, so a memory learned from them counts as wrong-subject; those that do
  ("The user has chosen Hotel X", said back to the user) are neither truth nor wrong
  subject, and left out. Each exchange carries the session's ``current_time`` (noon
  UTC, a minute per exchange).
- ``memorycode``: MemoryCode, a mentor (the user) gives a new engineer (the assistant)
  work rules over sessions and changes them. A conversation is a dialogue (or its first
  ``max_sessions`` sessions; dev's dialogues have 1-10, test's 15-100). Each rule is a
  workspace fact from the session that gives it until the one that replaces it (same
  instruction id, or same filler id for the non-coding rules), so the evaluation scores
  the memories after each session against the rules then in force and counts memories
  of replaced rules as stale.
- ``xpersona-<lang>``: XPersona, persona small talk in fr, it, ja, ko, zh, id and en; the
  speaker of each pair's second utterance is the user, their persona lines the truth.

Samples are fixed: the first ``limit`` of a ``random.Random(SEED)`` order of the split
(``persona``: ``persona_chat.py``'s own order, the one its earlier figures were read on).
"""

from __future__ import annotations

import difflib
import json
import os
import random
import re
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import persona_chat  # noqa: E402

SEED = 34
DATASETS = Path(os.environ.get("MEMORYD_DATASETS", HERE.parents[1] / "shared" / "datasets"))
LANGUAGES = {"fr": "Fr", "it": "It", "ja": "Jp", "ko": "Ko", "zh": "Zh", "id": "Id", "en": "En"}
XPERSONA = [f"xpersona-{code}" for code in LANGUAGES]
GENRES = ["persona", "realmem", "memorycode", *XPERSONA]
GROUPS = {"persona": ["persona"], "realmem": ["realmem"], "memorycode": ["memorycode"],
          "xpersona": XPERSONA}  # fmt: skip
REALMEM_USERS = {
    "dev": ["Adeleke_Okonjo", "Ethan_Hunt", "Kenta_Tanaka", "Kim_Ji_young", "Liam_O_Connor"],
    "test": ["Lin_Wanyu", "Oliver_Smith", "Pak_Budi", "Sarah_Miller", "Sophie_Dubois"],
}
MEMORYCODE_DIALOGUES = {"dev": range(1, 181), "test": range(181, 361)}
MAX_SESSIONS = 0  # all


def load(genre: str, split: str, limit: int, max_sessions: int = MAX_SESSIONS) -> list[Any]:
    """``limit`` labelled conversations of ``genre``'s ``split`` ("dev" or "test")."""
    if split not in ("dev", "test"):
        raise ValueError(f"no split {split!r}")
    if genre == "persona":
        return persona_chat.load_split(split, limit, DATASETS / "synthetic-persona-chat")
    if genre == "realmem":
        return realmem(split, limit)
    if genre == "memorycode":
        return memorycode(split, limit, max_sessions)
    if genre in XPERSONA:
        return xpersona(genre.split("-", 1)[1], split, limit)
    raise ValueError(f"no genre {genre!r}; one of {', '.join(GENRES)}")


def sample(items: list[Any], limit: int) -> list[Any]:
    order = random.Random(SEED).sample(range(len(items)), len(items))
    return [items[i] for i in sorted(order[:limit])]


def pair_turns(turns: list[tuple[bool, str]]) -> list[dict[str, str]]:
    """(is the user, text) turns -> exchanges: the user's turn(s) as the prompt, the
    assistant's next turn(s) as the response; assistant text before any user turn has no
    prompt to go with and is left out."""
    exchanges: list[dict[str, str]] = []
    for is_user, text in turns:
        text = text.strip()
        if not text:
            continue
        if is_user and exchanges and not exchanges[-1]["response"]:
            exchanges[-1]["prompt"] += "\n" + text  # the user goes on before any reply
        elif is_user:
            exchanges.append({"prompt": text, "response": ""})
        elif exchanges:
            sep = "\n" if exchanges[-1]["response"] else ""
            exchanges[-1]["response"] += sep + text
    return exchanges


# -- RealMem --------------------------------------------------------------------------------

_TAG = re.compile(r"【[^】]*】")


def _memory_point(content: Any) -> str:
    """A RealMem memory point as a sentence: its 【category】 tags dropped and "User ..."
    read "The user ..." (the matcher drops "the user" as a subject word)."""
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    text = " ".join(_TAG.sub(" ", text).split())
    return re.sub(r"^User\b", "The user", text)


def _realmem_session(user: str, session: dict[str, Any]) -> dict[str, Any] | None:
    points = session.get("extracted_memory") or []
    facts = list(dict.fromkeys(
        _memory_point(p["content"]) for p in points if p.get("source_role_snapshot") == "User"
    ))  # fmt: skip
    if not facts:
        return None
    others = [  # the assistant's own material; its notes about the user are left out
        text
        for text in dict.fromkeys(
            _memory_point(p["content"]) for p in points
            if p.get("source_role_snapshot") == "Assistant"
        )
        if text not in facts and not re.search(r"\buser\b", text, re.IGNORECASE)
    ]  # fmt: skip
    turns = [(t["speaker"] == "User", str(t["content"])) for t in session["dialogue_turns"]]
    exchanges = pair_turns(turns)
    day = datetime.strptime(session["current_time"][:10], "%Y-%m-%d").replace(hour=12, tzinfo=UTC)
    for minute, exchange in enumerate(exchanges):
        exchange["time"] = (day + timedelta(minutes=minute)).isoformat()
    topic = session["session_identifier"].split(":")[0]
    slug = re.sub(r"[^a-z0-9]+", "-", re.sub(r"_\d+$", "", topic).lower()).strip("-")
    return {
        "id": f"{user}/{session['session_uuid']}",
        "workspace": slug[:60] or "chat",
        "exchanges": exchanges,
        "facts": facts,
        "other_facts": others,
    }


def realmem(split: str, limit: int) -> list[dict[str, Any]]:
    """Labelled sessions of the split's five users (see the module doc)."""
    units = []
    for user in REALMEM_USERS[split]:
        path = DATASETS / "realmem" / f"{user}_dialogues_256k.json"
        for session in json.loads(path.read_text("utf-8"))["dialogues"]:
            unit = _realmem_session(user, session)
            if unit is not None and unit["exchanges"]:
                units.append(unit)
    return sample(units, limit)


# -- MemoryCode -----------------------------------------------------------------------------

_LABEL = re.compile(r"^([^:\[\]]{1,40}):\s*(.*)$")


def _initials(name: str) -> str:
    return "".join(part[0] for part in re.split(r"[\s\-.]+", name) if part).lower()


def _speaker(label: str, mentor: str, mentee: str) -> str | None:
    """Who speaks: "mentor", "mentee", or None when ``label`` names neither (the line is text). The
    sets write names in full, as initials ("Y.S.") and misspelt ("Sylvieu")."""
    names = {"mentor": mentor, "mentee": mentee}
    label = label.strip()
    for who, name in names.items():
        if label == name:
            return who
    letters = re.sub(r"\W", "", label).lower()
    by_initials = [who for who, name in names.items() if letters == _initials(name)]
    if len(by_initials) == 1:
        return by_initials[0]
    close = {
        who: difflib.SequenceMatcher(None, label.lower(), name.lower()).ratio()
        for who, name in names.items()
    }
    best = max(close, key=lambda who: close[who])
    return best if close[best] >= 0.75 else None


def _memorycode_turns(text: str, mentor: str, mentee: str) -> list[tuple[bool, str]]:
    """A session's text as (the mentor speaks, text) turns; stage directions dropped."""
    turns: list[tuple[bool, str]] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("[") or set(line) <= set("-*_=#"):
            continue
        match = _LABEL.match(line)
        who = _speaker(match.group(1), mentor, mentee) if match else None
        if who is not None and match:
            turns.append((who == "mentor", match.group(2)))
        elif turns:  # an unlabelled line goes on with the last speaker
            turns[-1] = (turns[-1][0], f"{turns[-1][1]}\n{line}")
    return turns


def _dialogue(number: int, max_sessions: int) -> dict[str, Any]:
    path = DATASETS / "memorycode" / "dialogues" / f"dialogue_{number}.json"
    data = json.loads(path.read_text("utf-8"))
    mentor, mentee = data["context"]["mentor"], data["context"]["mentee"]
    facts: list[dict[str, Any]] = []
    in_force: dict[str, dict[str, Any]] = {}  # rule slot -> its fact
    exchanges: list[dict[str, Any]] = []
    sessions = data["sessions"][: max_sessions or None]
    for k, session in enumerate(sessions):
        ids = iter([] if data["instructions"][k] == [-1] else data["instructions"][k])
        for kind, topic in zip(session["type"], session["topic"], strict=True):
            if kind.startswith("instruction"):
                slot, what = f"rule {next(ids)[0]}", "coding rule"
            elif kind.startswith("filler-instruction"):
                slot, what = f"practice {data['fillers'][k]}", "work practice"
            else:
                continue  # a filler topic: talk, not a rule
            if slot in in_force:  # an update (or a new add of the same rule) replaces it
                in_force[slot]["replaced_in"] = k
            fact = {"text": topic, "session": k, "scope": "workspace", "kind": what}
            facts.append(fact)
            in_force[slot] = fact
        for exchange in pair_turns(_memorycode_turns(session["text"], mentor, mentee)):
            exchanges.append({**exchange, "session": k})
    company = re.sub(r"[^a-z0-9]+", "-", data["context"].get("company", "").lower()).strip("-")
    return {"id": f"dialogue_{number}", "workspace": company[:60] or "team",
            "exchanges": exchanges, "facts": facts, "sessions": len(sessions)}  # fmt: skip


def memorycode(split: str, limit: int, max_sessions: int = MAX_SESSIONS) -> list[dict[str, Any]]:
    """Dialogues of the split, each cut to its first ``max_sessions`` sessions (0: all)."""
    picked = sample(list(MEMORYCODE_DIALOGUES[split]), limit)
    return [_dialogue(number, max_sessions) for number in picked]


# -- XPersona -------------------------------------------------------------------------------


def _xpersona_file(language: str, split: str) -> Path:
    prefix = LANGUAGES[language]
    if language == "en":
        return DATASETS / "xpersona" / f"En_persona_{'valid' if split == 'dev' else 'test'}.json"
    part = "valid" if split == "dev" else "test"
    return DATASETS / "xpersona" / f"{prefix}_persona_split_{part}_human_annotated.json"


def xpersona(language: str, split: str, limit: int) -> list[dict[str, Any]]:
    """Dialogues of one language: ``b`` of each ``[a, b]`` pair is the user."""
    items = json.loads(_xpersona_file(language, split).read_text("utf-8"))
    units = []
    for index, item in enumerate(items):
        turns = [
            (is_user, text)
            for a, b in item["dialogue"]
            for is_user, text in ((False, a), (True, b))
            if text.strip() != "__SILENCE__"
        ]
        units.append({
            "id": f"{language}-{split}-{index}", "workspace": "chat",
            "exchanges": pair_turns(turns), "facts": [p.strip() for p in item["persona"]],
        })  # fmt: skip
    return sample(units, limit)
