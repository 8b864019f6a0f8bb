"""LLM calls and tokens per processed chat: memoryd's batched Observer -> Reflector versus
a one-call-per-chat design (mem0's ``add()`` per message), measured in the same run.

    .venv/bin/python bench/extraction_cost.py

Both designs read the 30 labelled conversations of bench/data/extraction.json (with
their stored memories) and talk to a scripted OpenAI-compatible server on loopback.
memoryd's side is the real pipeline (``md.extract()`` over every pair) with
``EchoExtractor`` choosing every candidate sentence (the most calls and tokens the
Reflector can cost); the baseline's server answers with the labelled facts.
The baseline sends, for every chat, one request holding the extraction
instructions, the stored memories and that chat, as mem0 does per ``add()`` call (mem0
then spends a second call per chat on update decisions when facts were found; this
baseline does not, so it is the cheaper reading of that design). Tokens are the fake
server's count (characters / 4) on both sides.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from memoryd import Memoryd
from memoryd.config import MemorydSettings
from memoryd.models.llm.openai_provider import OpenAIProvider
from memoryd.testing import FakeOpenAIServer, Reply
from memoryd.testing.echo_extraction import EchoExtractor

DATA = Path(__file__).parent / "data" / "extraction.json"
# The baseline's instructions: an open "list the facts" request, as mem0 and memoryd's
# earlier Observer made (its length is what matters for the token count).
BASELINE_SYSTEM = """\
List the facts about the user and their project that the user stated in this chat and \
that will still be true next month. Answer with one JSON object: \
{"facts": [{"text": ..., "scope": ..., "action": ...}]}.
Put each fact in its own item, one short sentence each. Only write what the user actually \
said. Skip: questions, the assistant's answers, jokes, moods, plans for today, passwords, \
keys and card numbers. scope: "GLOBAL" if the fact is about the person; "WORKSPACE" if it \
is about this project. action: "create", or "update" if the user changed an earlier \
decision. If there is nothing, answer {"facts": []}."""


def chat_log(prompt: str, response: str) -> str:
    return f"User: {prompt}\n(assistant: {response[:120]})"


def gold_facts(conv: dict[str, Any], exchanges: list[dict[str, str]] | None = None) -> list[Any]:
    """The labelled facts, or those whose keywords all occur in ``exchanges``."""
    facts = conv["facts"]
    if exchanges is not None:
        text = " ".join(e["prompt"] + " " + e["response"] for e in exchanges).casefold()
        facts = [f for f in facts if all(k.casefold() in text for k in f["keywords"])]
    return [
        {"text": f["text"], "scope": f["scope"].upper(),
         "action": "update" if "updates" in f else "create"}
        for f in facts
    ]  # fmt: skip


def memoryd_side(conversations: list[dict[str, Any]], folder: Path) -> dict[str, float]:
    with FakeOpenAIServer() as srv:
        srv.responder = EchoExtractor()  # chooses every candidate sentence
        settings = MemorydSettings(
            data_dir=folder, llm_provider="openai", llm_base_url=srv.base_url,
            llm_api_key="x", idle_threshold_ms=0,
        )  # fmt: skip
        with Memoryd(f"sqlite:///{folder / 'memoryd.db'}", settings=settings) as md:
            for index, conv in enumerate(conversations):
                user = md.create_user(f"u{index}")
                if conv["workspace"] not in {w.slug for w in md.list_workspaces()}:
                    md.create_workspace(conv["workspace"])
                for text in conv.get("existing", []):
                    md.add_memory(user.id, text, None, conv["workspace"])
                for exchange in conv["exchanges"]:
                    md.record_chat(user.id, conv["workspace"], exchange["prompt"],
                                   exchange["response"])  # fmt: skip
            started = time.perf_counter()
            run = md.extract(force=True)
            seconds = time.perf_counter() - started
    return {
        "chats": run.chats_processed,
        "calls": run.llm_calls,
        "prompt_tokens": run.prompt_tokens,
        "completion_tokens": run.completion_tokens,
        "memories": run.memories_created + run.memories_updated,
        "seconds": seconds,
    }


def per_chat_side(conversations: list[dict[str, Any]]) -> dict[str, float]:
    totals = {"chats": 0, "calls": 0, "prompt_tokens": 0, "completion_tokens": 0,
              "memories": 0, "seconds": 0.0}  # fmt: skip
    with FakeOpenAIServer() as srv:
        provider = OpenAIProvider(base_url=srv.base_url, api_key="x", model="fake")
        started = time.perf_counter()
        for conv in conversations:
            stored = list(conv.get("existing", []))
            seen: list[dict[str, str]] = []
            for exchange in conv["exchanges"]:
                before = gold_facts(conv, seen)
                seen.append(exchange)
                new = [f for f in gold_facts(conv, seen) if f not in before]
                srv.script(Reply.json({"facts": new}))
                memories = "\n".join(f"- {m}" for m in stored) or "(none)"
                log = chat_log(exchange["prompt"], exchange["response"])
                completion = provider.complete(
                    [
                        {"role": "system", "content": BASELINE_SYSTEM},
                        {"role": "user", "content": f"Stored memories:\n{memories}\n"
                                                    f"Chat:\n{log}"},
                    ],
                    schema={"type": "object"},
                )  # fmt: skip
                stored += [f["text"] for f in new]
                totals["chats"] += 1
                totals["calls"] += 1
                totals["prompt_tokens"] += completion.prompt_tokens
                totals["completion_tokens"] += completion.completion_tokens
                totals["memories"] += len(new)
        totals["seconds"] = time.perf_counter() - started
    return totals


def main() -> int:
    conversations = json.loads(DATA.read_text())["conversations"]
    with tempfile.TemporaryDirectory() as tmp:
        ours = memoryd_side(conversations, Path(tmp))
    theirs = per_chat_side(conversations)
    print(f"{len(conversations)} conversations, {ours['chats']} chats")
    print(f"{'per processed chat':24} {'memoryd':>10} {'per-chat':>10} {'ratio':>8}")
    for key in ("calls", "prompt_tokens", "completion_tokens"):
        a = ours[key] / ours["chats"]
        b = theirs[key] / theirs["chats"]
        print(f"{key:24} {a:10.2f} {b:10.2f} {a / b:8.2f}")
    a = (ours["prompt_tokens"] + ours["completion_tokens"]) / ours["chats"]
    b = (theirs["prompt_tokens"] + theirs["completion_tokens"]) / theirs["chats"]
    print(f"{'total tokens':24} {a:10.2f} {b:10.2f} {a / b:8.2f}")
    print(f"memories written: memoryd {ours['memories']}, per-chat {theirs['memories']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
