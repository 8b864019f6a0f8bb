"""Chats brought from another product are learned from like recorded ones (issue 38,
item 4): through the review queue when the user asked to review, and once only, however
often the export is imported (on SQLite and PostgreSQL)."""

from __future__ import annotations

from memoryd import Memoryd
from memoryd.app.history_formats import parse_history
from memoryd.testing import FakeOpenAIServer
from support.extraction import observe
from support.history import sample


def test_an_imported_history_is_learned_through_the_review_queue_once(
    team_md: Memoryd, fake_llm: FakeOpenAIServer
) -> None:
    ana = team_md.get_user("ana").id
    team_md.set_review_preference(ana, "everything")
    team_md.import_history(ana, parse_history(sample("claude")), "lab")
    assert len(team_md.list_chats(ana, processed=False)) == 3

    fake_llm.script(observe(person=[1]))
    assert team_md.extract(ana, "lab", force=True).status == "processed"
    [request] = fake_llm.requests
    assert "I have a small balcony facing north." in str(request["messages"][-1]["content"])
    assert team_md.list_memories(ana) == []  # it waits for ana's review
    [suggestion] = team_md.list_suggestions(ana)
    assert "balcony" in suggestion.content
    assert team_md.list_chats(ana, processed=False) == []

    again = team_md.import_history(ana, parse_history(sample("claude")), "lab")
    assert (again.recorded, again.already) == (0, 3)
    assert team_md.list_chats(ana, processed=False) == []  # nothing to read again
