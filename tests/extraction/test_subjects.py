"""The failure modes of issue 8, each against the scripted LLM server (real HTTP).

With the bundled model, memoryd learned facts about the wrong person (a name the user
greets, the assistant's own facts), filled the Observer prompt's example fields, dropped
stated facts when the global scope was full, and named the user after the workspace.
Here the scripted model does its worst (it selects every sentence number, or answers
with text of its own), and code must still store only what the user said about
themselves, filed where there is room or recorded as not stored.
"""

from __future__ import annotations

import re
from pathlib import Path

from memoryd import Memoryd, Scope
from memoryd.domain.rules import Limits
from memoryd.extraction.schema import MAX_SENTENCES
from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.testing import FakeOpenAIServer, Reply
from memoryd.testing.echo_extraction import EchoExtractor
from support.extraction import Clock, make_md, observe

EVERY = list(range(1, MAX_SENTENCES + 1))
SELECT_ALL = observe(person=EVERY, project=EVERY)


def contents(md: Memoryd, user_id: int) -> list[str]:
    return sorted(m.content for m in md.list_memories(user_id))


def test_a_name_the_user_greets_is_the_assistants_never_the_users(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = xmd.create_user("ana")
    xmd.create_workspace("home")
    xmd.record_chat(ana.id, "home", "Hey John! I adopted a third cat.", "Congratulations!")
    xmd.record_chat(ana.id, "home", "Oh and John, my sister is a pole dancer.", "Wow!")
    xmd.record_chat(ana.id, "home", "Thanks John.", "You're welcome.")
    fake_llm.script(SELECT_ALL)

    result = xmd.extract(ana.id, "home", force=True)

    assert result.status == "processed"
    assert contents(xmd, ana.id) == ["The user adopted a third cat."]  # nothing on John
    assert xmd.list_memories(ana.id)[0].workspace == "home"  # a pet: not a global topic
    assert not any("john" in m.casefold() for m in contents(xmd, ana.id))
    assert all(c.memory_processed for c in xmd.list_chats(ana.id, "home"))


def test_a_word_that_opens_a_line_is_not_taken_for_a_name_the_user_greets(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = xmd.create_user("ana")
    xmd.create_workspace("home")
    xmd.record_chat(ana.id, "home", "Now, tell me about tides.", "They follow the moon.")
    xmd.record_chat(ana.id, "home", "My son is much better now.", "Glad to hear it.")
    xmd.record_chat(ana.id, "home", "From now on, always answer in French.", "D'accord.")
    # the phrase that makes it a rule stays with its clause ("I want you to use metric
    # units." alone would be a one-off request)
    xmd.record_chat(ana.id, "home", "Going forward, I want you to use metric units.", "Sure.")
    fake_llm.script(SELECT_ALL)

    xmd.extract(ana.id, "home", force=True)

    assert contents(xmd, ana.id) == [
        "The user's rule: from now on, always answer in French.",
        "The user's rule: the user wants you to use metric units.",
        "The user's son is much better now.",
    ]


def test_a_possessive_after_i_am_is_not_the_users_name(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = xmd.create_user("ana")
    xmd.create_workspace("phoenix")
    xmd.record_chat(ana.id, "phoenix", "Hey John! I'm John's biggest fan.", "Thank you!")
    xmd.record_chat(ana.id, "phoenix", "I'm Phoenix's lead dev.", "Great.")
    xmd.record_chat(ana.id, "phoenix", "I am Canadian.", "Nice.")
    fake_llm.script(SELECT_ALL)

    xmd.extract(ana.id, "phoenix", force=True)

    assert not [c for c in contents(xmd, ana.id) if "name is" in c]


def test_what_the_assistant_says_of_itself_never_becomes_a_memory(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = xmd.create_user("ana")
    xmd.create_workspace("home")
    assistant = [
        "I'm a photographer and my sister is a pole dancer. I live in Paris.",
        "My favorite band is Coldplay, I play the guitar every day.",
        "I have two dogs, Rex and Bo.",
    ]
    xmd.record_chat(ana.id, "home", "I adopted a third cat.", assistant[0])
    xmd.record_chat(ana.id, "home", "I love Paris too!", assistant[1])  # the user's, too
    xmd.record_chat(ana.id, "home", "My favourite band is Rascal Flatts.", assistant[2])
    fake_llm.script(SELECT_ALL)

    result = xmd.extract(ana.id, "home", force=True)

    assert result.status == "processed"
    assert contents(xmd, ana.id) == [
        "The user adopted a third cat.",
        "The user loves Paris.",
        "The user's favourite band is Rascal Flatts.",
    ]
    shown = fake_llm.requests[0]["messages"][-1]["content"]
    assert shown.endswith(
        "1. I adopted a third cat.\n2. I love Paris too!\n3. My favourite band is Rascal Flatts."
    )
    for said in ("photographer", "Coldplay", "guitar", "Rex"):
        assert said not in shown


def test_the_observer_prompt_has_no_field_to_fill_and_answers_are_numbers_only(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = xmd.create_user("ana")
    xmd.create_workspace("trip")
    xmd.record_chat(ana.id, "trip", "I took a photo of my dog at the beach.", "Lovely!")
    xmd.record_chat(ana.id, "trip", "We fly to Rome on Friday.", "Have fun!")
    xmd.record_chat(ana.id, "trip", "Always have back-up plans.", "Good idea.")
    filled = {"name": "Mel", "job": "photographer", "deadlines": "Friday"}
    fake_llm.script(
        Reply.json({"person": ["User's job: photographer", 1, {"text": "Mel"}], **filled,
                    "project": ["User's deadlines: Friday", [2]]}),
    )  # fmt: skip

    result = xmd.extract(ana.id, "trip", force=True)

    assert contents(xmd, ana.id) == ["The user took a photo of their dog at the beach."]
    assert len(result.rejected) == 4
    request = fake_llm.requests[0]
    prompt = "\n".join(str(m["content"]) for m in request["messages"])
    assert not re.search(r"[\[\]{}<>]|\.\.\.|\b(?:name|job|deadlines?|User's \w+):", prompt)
    schema = request["response_format"]["json_schema"]["schema"]
    for key in ("person", "project"):
        assert schema["properties"][key]["items"]["type"] == "integer"


def test_an_answer_that_writes_facts_is_unusable_and_loses_nothing(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = xmd.create_user("ana")
    xmd.create_workspace("trip")
    for prompt in ("I took a photo of my dog.", "We fly to Rome on Friday.", "Thanks!"):
        xmd.record_chat(ana.id, "trip", prompt, "Nice!")
    old_style = Reply.json({"facts": [{"text": "User's job: photographer", "scope": "GLOBAL"}]})
    fake_llm.script(old_style, old_style)

    result = xmd.extract(ana.id, "trip", force=True)

    assert result.status == "failed" and "unusable" in (result.error or "")
    assert result.usage.calls == 2  # retried once with the problem shown
    assert xmd.list_memories(ana.id) == []
    assert not any(c.memory_processed for c in xmd.list_chats(ana.id, "trip"))


GLOBALS = (
    "The user is a chemist.",
    "The user lives in Porto.",
    "The user speaks Portuguese.",
    "The user drinks green tea every morning.",
    "The user plays the cello in an orchestra.",
)
STATED = (
    "My sister volunteers at the animal shelter. My son adopted a third cat. My wife ran "
    "her first marathon."
)


def test_a_full_global_scope_files_in_the_workspace_or_records_not_stored(
    database_url: str,
    fake_llm: FakeOpenAIServer,
    tmp_path: Path,
    embedder: MiniLMEmbedder,
    clock: Clock,
) -> None:
    md = make_md(database_url, fake_llm, tmp_path, embedder, clock, Limits(5, 2))
    ana = md.create_user("ana")
    md.create_workspace("home")
    for fact in GLOBALS:
        md.add_memory(ana.id, fact)
    md.add_memory(ana.id, "The home Wi-Fi router is in the hall.", "workspace", "home")
    md.record_chat(ana.id, "home", STATED, "Wonderful!")
    fake_llm.responder = lambda request: observe(person=[1, 2, 3])

    planned = md.extract(ana.id, "home", force=True, dry_run=True)
    assert planned.planned == [
        "create workspace: The user's sister volunteers at the animal shelter. "
        "(global full, filed in this workspace)"
    ]
    result = md.extract(ana.id, "home", force=True)

    assert [(m.content, m.scope) for m in result.created] == [
        ("The user's sister volunteers at the animal shelter.", Scope.WORKSPACE)
    ]
    assert result.not_stored == [
        "not stored: global full: The user's son adopted a third cat.",
        "not stored: global full: The user's wife ran her first marathon.",
        "global full, filed in this workspace: The user's sister volunteers at the animal shelter.",
    ]
    run = md.extraction_runs()[0]
    assert [e["error"] for e in run.errors if e["kind"] == "not_stored"] == result.not_stored
    assert run.chats_processed == 1 and not [e for e in run.errors if e["kind"] == "pair"]
    assert len(md.list_memories(ana.id, "global")) == 5
    assert len(md.list_memories(ana.id, "workspace", "home")) == 2
    assert all(c.memory_processed for c in md.list_chats(ana.id, "home"))
    assert len(fake_llm.requests) == 2  # one Observer call per run, no Reflector
    md.close()


def test_the_workspace_name_never_becomes_the_users(
    xmd: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    """The README example once ended with "The user's name is Phoenix" from chats whose
    prompt and response were "...": the model saw the workspace name and nothing else."""
    alice = xmd.create_user("alice")
    xmd.create_workspace("phoenix")
    xmd.add_memory(alice.id, "Prefers concise answers", scope="global")
    xmd.add_memory(alice.id, "Phoenix ships in Q3", scope="workspace", workspace="phoenix")
    for prompt in ("...", "ok", "Phoenix?", "hi phoenix"):
        xmd.record_chat(alice.id, "phoenix", prompt, "...")
    fake_llm.responder = EchoExtractor()  # would select every sentence shown

    result = xmd.extract(alice.id, "phoenix", force=True)

    assert result.status == "processed" and result.usage.calls == 0
    assert fake_llm.requests == []
    assert contents(xmd, alice.id) == ["Phoenix ships in Q3", "Prefers concise answers"]
    assert all(c.memory_processed for c in xmd.list_chats(alice.id, "phoenix"))
