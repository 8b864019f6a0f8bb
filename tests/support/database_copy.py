"""Helpers for the ``memoryd db copy`` tests: an instance with some of everything in it,
every table's contents as stored (to compare two databases), and what a copied instance
must still do (sign in, authenticate a key, choose the same memories, number new rows
above every old id)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import JSON, Text, cast, select

from memoryd import Memoryd
from memoryd.access.credentials import AuthStore
from memoryd.extraction.runs import record_failure
from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.storage.database import Database
from memoryd.storage.tables import cache_epoch, import_chats, metadata
from support.extraction import stored_run
from support.lifecycle import expire_now, file_suggestion
from support.questions import give_questions
from support.server import FAST_HASHER

PASSWORD = "correct horse battery staple"
QUESTION = "which database does phoenix use for its nightly reports?"


@dataclass
class Seeded:
    """What ``populate`` made that a copy must still honour."""

    alice: int
    api_key: str
    revoked_key: str
    session: str
    highest_user: int  # deleted users included
    highest_chat: int  # deleted chats included
    highest_workspace: int  # deleted workspaces included
    context_ids: list[str] = field(default_factory=list)


def populate(md: Memoryd) -> Seeded:
    """Users with passwords, keys and a session, workspaces and members, memories with
    history, expiry and embeddings, suggestions, chats (some deleted), runs, a failing
    pair, settings and preferences; some rows deleted so ids have gaps."""
    auth = AuthStore(md.db, hasher=FAST_HASHER)
    alice = md.create_user("alice", "admin")
    bob = md.create_user("bob")
    carol = md.create_user("carol")
    auth.set_password(alice.id, PASSWORD)
    auth.set_password(bob.id, "bobs-own-password")
    key = auth.create_api_key(alice.id, "laptop")
    revoked = auth.create_api_key(alice.id, "old phone")
    auth.revoke_api_key(alice.id, revoked.key.id)
    session = auth.create_session(alice.id, days=14)
    for slug in ("phoenix", "atlas", "gone"):
        md.create_workspace(slug, slug.title())
        for user in (alice, bob, carol):
            md.add_member(slug, user.id)

    md.add_memory(alice.id, "Prefers concise answers, émoji 🎉 fine", "global")
    md.add_memory(alice.id, "Is on leave in May", "global", expires_at="2099-05-31")
    facts = [
        "Phoenix stores nightly reports in PostgreSQL 15",
        "Phoenix deploys with Ansible on Tuesdays",
        "Phoenix's staging host is phx-stage-02",
        "Phoenix uses Grafana for dashboards",
        "Phoenix's on-call rotation is weekly",
        "Phoenix ships its mobile app in Q3",
        "Phoenix reports are owned by the data team",
    ]
    chat = md.record_chat(alice.id, "phoenix", "Where do reports go?", "PostgreSQL 15.")
    ids = [md.add_memory(alice.id, fact, "workspace", "phoenix").id for fact in facts[:1]]
    ids[0] = md.edit_memory(alice.id, ids[0], facts[0] + " (since 2024)").id
    for fact in facts[1:]:
        ids.append(md.add_memory(alice.id, fact, "workspace", "phoenix").id)
    md.add_memory(
        alice.id, "Atlas is written in Rust", "workspace", "atlas", source_chat_ids=[chat.id]
    )
    md.delete_memory(alice.id, ids.pop())
    stale = md.add_memory(alice.id, "Used to prefer tabs", "global").id
    expire_now(md, stale)
    fridays = md.add_memory(bob.id, "Bob reviews on Fridays", "global")
    give_questions(md, fridays.id, ["When do you review?", "Which day is review day?"])

    turn = md.context(alice.id, "phoenix", QUESTION)
    md.record_chat(alice.id, "phoenix", QUESTION, "PostgreSQL 15.", turn=turn)
    for n in range(4):
        md.record_chat(bob.id, "atlas", f"atlas question {n}", "an answer")
    newest = md.record_chat(alice.id, "atlas", "please forget this", "ok")
    md.delete_chat(alice.id, newest.id)  # the newest chat id is now taken by no row
    last = md.record_chat(carol.id, "gone", "carol's words", "ok")  # the highest chat id

    suggestion = file_suggestion(md, alice.id, "Prefers dark mode")
    file_suggestion(md, alice.id, "Phoenix moved to PostgreSQL 16", ids[0])
    md.reject_suggestion(alice.id, suggestion)
    md.set_review_preference(bob.id, "everything")
    md.set_learning(carol.id, False)
    md.set_setting("memory_review", "updates")
    md.set_setting("secret_patterns", ["ticket-[0-9]+"])
    md.set_setting("max_workspaces_per_user", 7)

    started = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
    stored_run(md, started, [(alice.id, "phoenix")])
    run = stored_run(md, started + timedelta(hours=1), [(bob.id, "atlas")])
    with md.db.write() as repo:
        record_failure(
            repo,
            bob.id,
            workspace_id(md, "atlas"),
            error="upstream timed out",
            chat_ids=[chat.id],
            run_id=run,
            now=started,
            max_attempts=5,
            backoff_seconds=300,
        )

    gone = workspace_id(md, "gone")  # the highest workspace id
    md.delete_workspace("gone")  # its chat goes with it
    md.delete_user(carol.id)
    md.finish_writes()
    seeded = Seeded(
        alice=alice.id,
        api_key=key.secret,
        revoked_key=revoked.secret,
        session=session.token,
        highest_user=carol.id,
        highest_chat=last.id,
        highest_workspace=gone,
    )
    seeded.context_ids = context_ids(md, seeded)
    return seeded


def workspace_id(md: Memoryd, slug: str) -> int:
    with md.db.read() as repo:
        found = repo.workspace_id(slug)
    assert found is not None
    return int(found)


def context_ids(md: Memoryd, seeded: Seeded) -> list[str]:
    """The memories a turn in phoenix gets, in prompt order (the turn is not recorded)."""
    return [m.id for m in md.context(seeded.alice, "phoenix", QUESTION, record=False).memories]


def table_contents(url: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every memoryd table's rows as stored, ordered by primary key; JSON as its text.
    ``cache_epoch`` is left out (each database counts its own changes), and so is
    ``import_chats`` (an unfinished import's chats, which a copy leaves behind)."""
    db = Database.open(url, migrate=False)
    try:
        found: dict[str, list[tuple[Any, ...]]] = {}
        with db.engine.connect() as conn:
            for table in metadata.sorted_tables:
                if table in (cache_epoch, import_chats):
                    continue
                columns = [cast(c, Text) if isinstance(c.type, JSON) else c for c in table.columns]
                query = select(*columns).order_by(*table.primary_key.columns)
                found[table.name] = [tuple(row) for row in conn.execute(query)]
        return found
    finally:
        db.dispose()


def check_working(
    url: str, seeded: Seeded, embedder: MiniLMEmbedder, *, keeps_workspace_ids: bool = False
) -> None:
    """A copied instance signs alice in with her old password, takes her API key (not the
    revoked one) and session, chooses the same memories, and numbers new users and chats
    above every id the original gave, deleted ones included. Workspaces too with
    ``keeps_workspace_ids``: a PostgreSQL original's sequence remembers deleted ones, and
    a PostgreSQL copy keeps that; SQLite numbers workspaces ``max(id) + 1`` anyway."""
    with Memoryd(url, embedder=embedder) as md:
        auth = AuthStore(md.db)  # the server's own hasher verifies the copied hash
        session = auth.session(seeded.session)  # first: signing in rehashes, which ends it
        assert session is not None and session.user.id == seeded.alice
        key_user = auth.user_for_api_key(seeded.api_key)
        assert key_user is not None and key_user.id == seeded.alice
        assert auth.user_for_api_key(seeded.revoked_key) is None
        user = auth.authenticate("alice", PASSWORD)
        assert user is not None and user.id == seeded.alice
        assert auth.authenticate("alice", "wrong password") is None
        assert context_ids(md, seeded) == seeded.context_ids
        assert md.create_user("dave").id > seeded.highest_user
        if keeps_workspace_ids:
            md.create_workspace("zeta")
            assert workspace_id(md, "zeta") > seeded.highest_workspace
        assert md.record_chat(seeded.alice, "phoenix", "new", "chat").id > seeded.highest_chat
        md.finish_writes()


def put_nul_in_a_chat(sqlite_url: str) -> None:
    """A chat whose prompt holds a NUL character: SQLite keeps it, PostgreSQL refuses it
    (the newest chat, so the copy fails well after its first tables)."""
    path = sqlite_url.removeprefix("sqlite:///")
    with sqlite3.connect(path) as conn:
        conn.execute(
            "UPDATE chats SET prompt = ? WHERE id = (SELECT MAX(id) FROM chats)", ("bad \x00",)
        )
    conn.close()
