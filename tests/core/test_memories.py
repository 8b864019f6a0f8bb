"""Memory operations of the library API: limits, duplicates, promote/demote, isolation, audit."""

from __future__ import annotations

import pytest

from memoryd import (
    AlreadyExists,
    AuditAction,
    DuplicateMemory,
    InvalidContent,
    InvalidScope,
    Memoryd,
    NotFound,
    Scope,
    ScopeFull,
)


@pytest.fixture
def alice(any_md: Memoryd) -> int:
    any_md.create_workspace("phoenix")
    any_md.create_workspace("atlas")
    return any_md.create_user("alice").id


def test_readme_example(md: Memoryd) -> None:
    alice = md.create_user("alice")
    assert (alice.name, alice.role.value) == ("alice", "default")
    ws = md.create_workspace("phoenix")
    assert (ws.slug, ws.name) == ("phoenix", "phoenix")
    md.add_memory(alice.id, "Prefers concise answers", scope="global")
    md.add_memory(alice.id, "Phoenix ships in Q3", scope="workspace", workspace="phoenix")
    turn = md.context(
        alice.id,
        workspace="phoenix",
        message="When do we ship?",
        history=[{"role": "user", "content": "hello"}],
    )
    assert [m.content for m in turn.memories] == ["Prefers concise answers", "Phoenix ships in Q3"]
    assert turn.system_prompt("You are a helpful assistant.") == (
        "You are a helpful assistant.\n\n## Things I Remember About You\n"
        "- Prefers concise answers\n- Phoenix ships in Q3"
    )
    chat = md.record_chat(alice.id, workspace="phoenix", prompt="hi", response="hello")
    assert chat.memory_processed is False
    assert md.list_chats(alice.id, "phoenix") == [chat]


def test_global_limit_is_five_and_nothing_is_evicted(any_md: Memoryd, alice: int) -> None:
    for i in range(5):
        any_md.add_memory(alice, f"global fact {i}", scope="global")
    with pytest.raises(ScopeFull, match="global is full") as info:
        any_md.add_memory(alice, "one too many", scope="global")
    assert info.value.limit == 5
    contents = [m.content for m in any_md.list_memories(alice, scope="global")]
    assert contents == [f"global fact {i}" for i in range(5)]


def test_workspace_limit_is_twenty_per_pair(any_md: Memoryd, alice: int) -> None:
    for i in range(20):
        any_md.add_memory(alice, f"phoenix fact {i}", workspace="phoenix")
    with pytest.raises(ScopeFull, match="workspace 'phoenix' is full"):
        any_md.add_memory(alice, "phoenix fact 20", workspace="phoenix")
    # other pairs are unaffected: another workspace, another user, global
    any_md.add_memory(alice, "atlas fact", workspace="atlas")
    bob = any_md.create_user("bob").id
    any_md.add_memory(bob, "bob's phoenix fact", workspace="phoenix")
    any_md.add_memory(alice, "a global fact", scope="global")
    assert len(any_md.list_memories(alice, workspace="phoenix")) == 20


def test_deleting_frees_a_slot(md: Memoryd) -> None:
    uid = md.create_user("u").id
    ids = [md.add_memory(uid, f"g{i}").id for i in range(5)]
    md.delete_memory(uid, ids[0])
    md.add_memory(uid, "replacement")
    assert len(md.list_memories(uid, scope="global")) == 5


def test_exact_duplicates_refused_per_scope(md: Memoryd) -> None:
    md.create_workspace("phoenix")
    uid = md.create_user("u").id
    md.add_memory(uid, "Likes green tea")
    with pytest.raises(DuplicateMemory):
        md.add_memory(uid, "  likes GREEN tea ")
    # the same text in another scope is a different memory
    md.add_memory(uid, "Likes green tea", workspace="phoenix")


def test_edit_keeps_id_and_checks_content(md: Memoryd) -> None:
    uid = md.create_user("u").id
    mem = md.add_memory(uid, "Deadline is March 14")
    other = md.add_memory(uid, "Prefers tea")
    edited = md.edit_memory(uid, mem.id, "Deadline is March 28")
    assert edited.id == mem.id and edited.content == "Deadline is March 28"
    assert edited.updated_at >= mem.updated_at and edited.created_at == mem.created_at
    with pytest.raises(InvalidContent):
        md.edit_memory(uid, mem.id, "## heading")
    with pytest.raises(DuplicateMemory):
        md.edit_memory(uid, mem.id, other.content)
    assert md.get_memory(uid, mem.id).content == "Deadline is March 28"


def test_promote_and_demote(any_md: Memoryd, alice: int) -> None:
    ws = any_md.add_memory(alice, "Uses Python 3.12 everywhere", workspace="phoenix")
    promoted = any_md.promote(alice, ws.id)
    assert (promoted.scope, promoted.workspace, promoted.id) == (Scope.GLOBAL, None, ws.id)
    with pytest.raises(InvalidScope, match="already global"):
        any_md.promote(alice, ws.id)
    demoted = any_md.demote(alice, ws.id, "atlas")
    assert (demoted.scope, demoted.workspace) == (Scope.WORKSPACE, "atlas")
    with pytest.raises(InvalidScope):
        any_md.demote(alice, ws.id, "phoenix")
    with pytest.raises(NotFound, match="no workspace"):
        any_md.demote(alice, any_md.promote(alice, ws.id).id, "nowhere")
    actions = [e.action for e in any_md.audit_log(alice, ws.id)]
    assert actions == [
        AuditAction.CREATE,
        AuditAction.PROMOTE,
        AuditAction.DEMOTE,
        AuditAction.PROMOTE,
    ]


def test_promote_refused_when_global_full(any_md: Memoryd, alice: int) -> None:
    for i in range(5):
        any_md.add_memory(alice, f"g{i}")
    ws = any_md.add_memory(alice, "workspace fact", workspace="phoenix")
    with pytest.raises(ScopeFull, match="global is full"):
        any_md.promote(alice, ws.id)
    assert any_md.get_memory(alice, ws.id).scope is Scope.WORKSPACE


def test_demote_refused_when_workspace_full(md: Memoryd) -> None:
    md.create_workspace("phoenix")
    uid = md.create_user("u").id
    for i in range(20):
        md.add_memory(uid, f"w{i}", workspace="phoenix")
    g = md.add_memory(uid, "global fact")
    with pytest.raises(ScopeFull, match="workspace 'phoenix' is full"):
        md.demote(uid, g.id, "phoenix")
    assert md.get_memory(uid, g.id).scope is Scope.GLOBAL


def test_users_cannot_reach_each_others_memories(any_md: Memoryd, alice: int) -> None:
    bob = any_md.create_user("bob").id
    secret = any_md.add_memory(alice, "Alice's salary is private", workspace="phoenix")
    attempts = [
        lambda: any_md.get_memory(bob, secret.id),
        lambda: any_md.edit_memory(bob, secret.id, "hijacked"),
        lambda: any_md.delete_memory(bob, secret.id),
        lambda: any_md.promote(bob, secret.id),
        lambda: any_md.demote(bob, secret.id, "atlas"),
    ]
    for attempt in attempts:
        with pytest.raises(NotFound, match="no memory"):
            attempt()
    assert any_md.list_memories(bob) == []
    assert all(m.user_id == bob for m in any_md.context(bob, "phoenix", "salary?").memories)
    assert any_md.get_memory(alice, secret.id).content == "Alice's salary is private"
    assert any_md.audit_log(bob) == []


def test_unknown_things_are_not_found(md: Memoryd) -> None:
    uid = md.create_user("u").id
    with pytest.raises(NotFound):
        md.add_memory(999, "x")
    with pytest.raises(NotFound):
        md.add_memory(uid, "x", workspace="nope")
    with pytest.raises(NotFound):
        md.delete_memory(uid, "0" * 32)
    with pytest.raises(NotFound):
        md.get_user("nobody")
    with pytest.raises(AlreadyExists):
        md.create_user("u")


def test_audit_log_keeps_before_and_after(md: Memoryd) -> None:
    uid = md.create_user("u").id
    mem = md.add_memory(uid, "Version one")
    md.edit_memory(uid, mem.id, "Version two")
    md.delete_memory(uid, mem.id)
    create, update, delete = md.audit_log(uid, mem.id)
    assert create.before is None and create.after is not None
    assert create.after["content"] == "Version one" and create.actor == f"user:{uid}"
    assert update.before is not None and update.after is not None
    assert (update.before["content"], update.after["content"]) == ("Version one", "Version two")
    assert delete.after is None and delete.before is not None
    assert delete.before["content"] == "Version two"


def test_deleting_a_user_removes_their_memories(md: Memoryd) -> None:
    uid = md.create_user("u").id
    md.add_memory(uid, "x")
    md.delete_user(uid)
    with pytest.raises(NotFound):
        md.list_memories(uid)
