"""An export file's lines end at LF only: text holding U+2028, U+0085 or any other
character ``str.splitlines`` breaks at stays inside its JSON string, so export, import
and export again give the same text (on SQLite and PostgreSQL)."""

from __future__ import annotations

import json

from memoryd import Memoryd
from memoryd.models.embedding.minilm import MiniLMEmbedder

# every character str.splitlines breaks at but LF
BREAKS = "\u2028\u2029\x85\r\x0b\x0c\x1c\x1d\x1e"
PROMPT = "first\u2028second\x85third\u2029fourth\rfifth"


def test_text_with_unicode_line_breaks_round_trips(
    any_md: Memoryd, other_db_url: str, embedder: MiniLMEmbedder
) -> None:
    any_md.create_workspace("phoenix")
    uid = any_md.create_user("alice").id
    # a memory's text folds line breaks into spaces when it is stored (docs/memories.md)
    memory = any_md.add_memory(uid, "Likes\u2028tea\x85and jazz", workspace="phoenix")
    assert memory.content == "Likes tea and jazz"
    any_md.record_chat(uid, "phoenix", PROMPT, f"reply{BREAKS}end", memory_ids=[memory.id])
    exported = any_md.export_memories(uid)
    file = "".join(f"{line}\n" for line in exported)  # as the CLI writes it
    assert "\u2028" in file and "\x85" in file  # raw, not escaped (ensure_ascii=False)
    assert len(file.splitlines()) > len(exported)  # what splitlines would have broken

    with Memoryd(other_db_url, embedder=embedder) as fresh:
        target = fresh.create_user("alice").id
        result = fresh.import_memories(target, file)  # the whole text, split at LF
        assert (result.created, result.chats_created) == (1, 1)
        [chat] = fresh.list_chats(target)
        assert (chat.prompt, chat.response) == (PROMPT, f"reply{BREAKS}end")
        [copy] = fresh.list_memories(target)
        assert copy.content == "Likes tea and jazz"
        links = fresh.chat_memories(target, [chat.id])[chat.id]
        assert [u.id for u in links] == [copy.id]
        again = fresh.export_memories(target)
        assert [json.loads(x) for x in again[1:-1]] == [json.loads(x) for x in exported[1:-1]]
        moved = {**json.loads(exported[-1])["chat"], "id": chat.id}
        assert json.loads(again[-1]) == {"chat": moved}
