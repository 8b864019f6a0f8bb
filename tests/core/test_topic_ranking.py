"""A turn reads the memories' stored topics: tagged answers to a broad question rise (issue 10).

The turn's own read (``turn_memories``) on the default database, scored by the shipped
default reranker and its answer bank: the same memories before and after the background
pass's topics are stored. (``md.context()`` ranks only pools of more than 5, and shows
only the 5 it keeps, so the scores are read from the reranker it uses.)
"""

from __future__ import annotations

from memoryd import Memoryd
from memoryd.domain import topics
from memoryd.domain.injection import build_query
from memoryd.storage.tables import memories

POOL = {
    "I collect old coins.": ("hobbies", "possessions"),
    "I have a bad back.": ("health",),
    "My sister lives in Ohio.": ("family",),
    "I drive a blue truck.": None,  # not tagged yet
    "I play the drums on weekends.": ("hobbies", "music"),
}
FUN = "What do you like to do for fun?"


def scores(md: Memoryd, user_id: int, message: str) -> dict[str, float]:
    with md.db.read() as repo:
        pool = repo.turn_memories(user_id, repo.workspace_id("life"))
    scored = md.reranker.score(build_query(message, ()), pool)
    return {m.content: s for m, s in zip(pool, scored, strict=True)}


def tag(md: Memoryd, user_id: int) -> None:
    with md.db.write() as repo:
        for memory in md.list_memories(user_id):
            repo.conn.execute(
                memories.update()
                .where(memories.c.id == memory.id)
                .values(topics=topics.encode(POOL[memory.content]))
            )


def test_stored_topics_move_the_answers_to_a_broad_question(md: Memoryd) -> None:
    md.create_workspace("life")
    user = md.create_user("ana")
    for text in POOL:
        md.add_memory(user.id, text, "workspace", "life")
    before = scores(md, user.id, FUN)
    tag(md, user.id)
    assert {m.content: m.topics for m in md.list_memories(user.id)} == POOL
    after = scores(md, user.id, FUN)
    gain = {text: after[text] - before[text] for text in POOL}
    assert gain["I collect old coins."] > gain["I have a bad back."]
    assert gain["I play the drums on weekends."] > gain["I have a bad back."]
    tagged = [g for text, g in gain.items() if POOL[text] is not None]
    assert abs(gain["I drive a blue truck."] - sum(tagged) / len(tagged)) < 1e-5


def test_topics_change_nothing_where_the_bank_does_not_fire(md: Memoryd) -> None:
    md.create_workspace("life")
    user = md.create_user("ana")
    for text in POOL:
        md.add_memory(user.id, text, "workspace", "life")
    message = "Which truck should I take to the Ohio trip on the 14th?"
    before = scores(md, user.id, message)
    tag(md, user.id)
    assert scores(md, user.id, message) == before
