"""Which scope a learned fact is filed in (issue 38 item 1), and the faults the hand audit
of 100 memories found (``bench/data/extraction-audit-genres.json``): negations flipped by
a rewrite, small talk and states of the moment kept, references to what was said before,
the assistant's words and a leftover first person. Through the real pipeline against the
scripted LLM server, which answers as the bundled model did.
"""

from __future__ import annotations

import json

from memoryd import Memoryd, Scope
from memoryd.testing import FakeOpenAIServer
from support.extraction import Clock, learn, notes, observe


def scopes(md: Memoryd) -> dict[str, str | None]:
    """Each memory's text and its workspace (None: global)."""
    return {m.content: m.workspace for m in md.list_memories(md.get_user("ana").id)}


def run_errors(md: Memoryd) -> str:
    return " | ".join(e["error"] for e in md.extraction_runs(1)[0].errors)


def test_a_work_fact_goes_to_the_workspace_and_an_allergy_goes_global(
    xmd: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    """The model calls both facts about the person; code files the work fact where it
    was said, and the allergy everywhere."""
    learn(
        xmd, fake_llm, clock,
        ["My manager Priya wants a status update every Monday.",
         "I'm allergic to peanuts and shellfish."],
        observe(person=[1, 2]),
        workspace="phoenix",
    )  # fmt: skip
    assert scopes(xmd) == {
        "The user's manager Priya wants a status update every Monday.": "phoenix",
        "The user is allergic to peanuts and shellfish.": None,
    }
    [observer] = fake_llm.requests
    assert "matters in every chat" in observer["messages"][0]["content"]


def test_a_mentors_coding_rule_stays_in_the_workspace_and_an_answer_rule_is_global(
    xmd: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    """MemoryCode-style: a mentor's naming rule binds this team's code; how the user
    wants to be answered holds in every workspace."""
    learn(
        xmd, fake_llm, clock,
        ["You should always start your attribute names with 'q_'.",
         "Please always answer me in Spanish."],
        observe(person=[1, 2]),
        workspace="codeme",
    )  # fmt: skip
    assert scopes(xmd) == {
        "The user's rule: you should always start your attribute names with 'q_'.": "codeme",
        "The user's rule: please always answer me in Spanish.": None,
    }


def test_a_family_fact_the_model_files_under_the_project_stays_there(
    xmd: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    """Code only narrows the model's answer: global needs both the model and the topic."""
    learn(
        xmd, fake_llm, clock, ["My brother is the lead designer of the Atlas app."],
        observe(project=[1]), workspace="atlas",
    )  # fmt: skip
    assert scopes(xmd) == {"The user's brother is the lead designer of the Atlas app.": "atlas"}


def test_chinese_facts_are_filed_by_the_same_rule(
    xmd: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    learn(
        xmd, fake_llm, clock, ["我对花生过敏。我在学吉他。"],
        observe(person=[1, 2]), notes("用户对花生过敏。", "用户在学吉他。"),
        workspace="music",
    )  # fmt: skip
    assert scopes(xmd) == {"用户对花生过敏。": None, "用户在学吉他。": "music"}


def test_a_rewrite_that_drops_or_adds_a_negation_is_refused(
    xmd: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    memories, _ = learn(
        xmd, fake_llm, clock,
        ["Depuis 2010, je ne mange jamais de viande. Le matin, je ne bois pas de café.",
         "Tinggal di antah berantah dengan anak-anak yang sudah besar."],  # no "saya"
        observe(person=[1, 2, 3]),
        notes("L'utilisateur mange de la viande depuis 2010.",  # the "ne ... jamais" is gone
              "L'utilisateur ne boit pas de café le matin."),
        notes("Pengguna tidak tinggal di antah berantah dengan anak-anak yang sudah besar."),
    )  # fmt: skip
    assert memories == ["L'utilisateur ne boit pas de café le matin."]
    assert run_errors(xmd).count("drops or adds a negation") == 2


def test_small_talk_in_another_language_gets_no_note_and_no_memory(
    xmd: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    """The model is shown, in the sentence's language, that a greeting or a state of
    the moment gets an empty note; an empty note stores nothing."""
    memories, shown = learn(
        xmd, fake_llm, clock, ["我很好，谢谢你！我是一名护士。"],
        observe(person=[1, 2]), notes("", "用户是一名护士。"),
    )  # fmt: skip
    assert shown == ["1. 我很好，谢谢你！", "2. 我是一名护士。"]
    assert memories == ["用户是一名护士。"]
    assert "no lasting fact in it" in run_errors(xmd)
    [rewrite] = [r for r in fake_llm.requests if "notes" in json.dumps(r["response_format"])]
    example = rewrite["messages"]
    assert "我很好，谢谢，今天只是有点累。" in example[1]["content"]
    assert '""' in example[2]["content"] and "empty note" in example[0]["content"]


def test_states_of_the_moment_are_not_shown_to_the_model(
    xmd: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    memories, shown = learn(
        xmd, fake_llm, clock,
        ["I'm so tired today. I'm eating lunch. I'm doing well, thanks!",
         "I'm ready to continue. I'm a night nurse at the city hospital."],
        observe(person=[1]),
    )  # fmt: skip
    assert shown == ["1. I'm a night nurse at the city hospital."]
    assert memories == ["The user is a night nurse at the city hospital."]


def test_references_to_what_was_said_before_are_not_shown_to_the_model(
    xmd: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    """ "that", "them", "here", "one of those" with nothing before them to stand for, in
    English and in other languages; the same words with something to refer to stay."""
    _, shown = learn(
        xmd, fake_llm, clock,
        ["I never did that before. I'm a big fan of them. I've lived here all my life.",
         "I only finished high school, never made one of those.",
         "I moved to Lisbon in 2019 and love it there.",
         "Saya sudah tinggal di sini seumur hidup saya.", "我现在就是这样。",
         "Je fais ça depuis toujours avec mon frère."],
        observe(person=[1]),
    )  # fmt: skip
    assert shown == ["1. I moved to Lisbon in 2019 and love it there."]


def test_the_assistants_words_quoted_back_and_a_leftover_first_person_are_not_learned(
    xmd: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    ana = xmd.create_user("ana")
    xmd.create_workspace("rehab")
    xmd.record_chat(
        ana.id, "rehab", "Which studio should I book for the month?",
        "The Quiet Oasis Studio has the most reliable Wi-Fi, with a backup hotspot.",
    )  # fmt: skip
    for prompt in [
        "So I think the Quiet Oasis Studio has the most reliable Wi-Fi for my lectures.",
        "I do the **band pull-aparts** every morning.",
        "The coach showed me the very next step after I finish the warm-up.",
    ]:
        xmd.record_chat(ana.id, "rehab", prompt, "Great.")
    fake_llm.script(observe(person=[1, 2]))
    result = xmd.extract(ana.id, "rehab", force=True)
    [observer] = fake_llm.requests
    listing = observer["messages"][-1]["content"].split("The user wrote:\n")[1].splitlines()
    assert listing == [
        "1. I do the **band pull-aparts** every morning.",
        "2. The coach showed me the very next step after I finish the warm-up.",
    ]
    assert [m.content for m in result.created] == [
        "The user does the band pull-aparts every morning."
    ]
    assert "written in the first person" in run_errors(xmd)
    assert Scope.WORKSPACE is result.created[0].scope


def test_an_italian_sentence_with_the_article_i_is_rewritten_as_italian(
    xmd: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    """ "i miei 2 cani": a lower-case "i" is the Italian article, not the English "I"
    (once read as English, it became "the user mieis 2 cani")."""
    memories, _ = learn(
        xmd, fake_llm, clock, ["Ogni sera porto a spasso i miei 2 cani."],
        observe(person=[1]), notes("Ogni sera l'utente porta a spasso i suoi 2 cani."),
    )  # fmt: skip
    assert memories == ["Ogni sera l'utente porta a spasso i suoi 2 cani."]
    [rewrite] = [r for r in fake_llm.requests if "notes" in json.dumps(r["response_format"])]
    assert "L'utente vive a Torino" in json.dumps(rewrite["messages"], ensure_ascii=False)
