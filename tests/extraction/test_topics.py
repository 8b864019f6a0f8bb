"""What the topic-tagging pass of extraction runs (issue 10) does that the questions pass
does not: an answer's labels from the fixed list are stored as keys, at most three, unknown
ones dropped. Against the scripted LLM server, on SQLite and PostgreSQL. The rules both
passes keep (budget, oldest first, errors, refusals, edits, scope, scheduler, setting)
are tested once for both in ``test_memory_pass.py``.
"""

from __future__ import annotations

import pytest

from memoryd import Memoryd
from memoryd.testing import FakeOpenAIServer, Reply


@pytest.mark.parametrize(
    ("reply", "stored"),
    [
        (Reply.json({"topics": ["astrology", "cars"]}), ()),
        (Reply.json({"topics": ["astrology", " Music ", 7, "music"]}), ("music",)),
        (
            Reply.json(
                {"topics": ["music", "work and career", "travel and places", "food and drink"]}
            ),
            ("work", "music", "travel"),  # the first three named, in the list's order
        ),
    ],
    ids=["unknown", "some-known", "four"],
)
def test_the_known_labels_an_answer_names_are_stored_as_keys_and_not_retried(
    team_md: Memoryd, fake_llm: FakeOpenAIServer, reply: Reply, stored: tuple[str, ...]
) -> None:
    ana = team_md.get_user("ana")
    memory = team_md.add_memory(ana.id, "I play the guitar in a band.")
    fake_llm.script(reply)

    run = team_md.extract(tag_topics=5)

    assert team_md.get_memory(ana.id, memory.id).topics == stored
    assert (run.memories_tagged, run.llm_calls, run.llm_calls_failed) == (1, 1, 0)
    assert run.errors == []
    team_md.extract(tag_topics=5)
    assert len(fake_llm.requests) == 1
