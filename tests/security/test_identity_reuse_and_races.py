"""Attack class: inheriting another account's data, and racing admin changes (items 6, 8).

A new user never gets a deleted user's id, so the deleted user's audit log (which goes
with them) cannot become theirs; two admins demoting each other at once leave one admin;
concurrent workspace creates and imports stay within the workspace quota.
"""

from __future__ import annotations

import json
import threading

from sqlalchemy import func, select

from memoryd.domain.models import Role, Scope
from memoryd.storage.tables import audit_log
from support.server import World


def test_a_new_user_never_inherits_a_deleted_users_id_or_history(world: World) -> None:
    victim = world.md.create_user("victim")
    memory = world.md.add_memory(victim.id, "Private diary entry", Scope.GLOBAL)
    world.md.delete_memory(victim.id, memory.id)
    assert world.md.audit_log(victim.id)  # history exists while the user does
    world.md.delete_user(victim.id)
    newcomer = world.md.create_user("newcomer")
    assert newcomer.id != victim.id
    assert world.md.audit_log(newcomer.id) == []
    # nothing of the victim's history is left under the old id either
    with world.md.db.read() as repo:
        left = repo.conn.execute(
            select(func.count()).where(audit_log.c.user_id == victim.id)
        ).scalar_one()
    assert left == 0


def test_two_admins_demoting_each_other_at_once_leave_one_admin(world: World) -> None:
    second = world.md.create_user("admin2", Role.ADMIN)
    key2 = world.auth.create_api_key(second.id, "race").secret
    first = world.ids["admin"]
    for _ in range(5):
        barrier = threading.Barrier(2)
        statuses: list[int] = []

        def demote(
            key: str, target: int, barrier: threading.Barrier = barrier, out: list[int] = statuses
        ) -> None:
            barrier.wait()
            response = world.client.patch(
                f"/api/v1/users/{target}",
                json={"role": "default"},
                headers={"Authorization": f"Bearer {key}"},
            )
            out.append(response.status_code)

        threads = [
            threading.Thread(target=demote, args=(world.keys["admin"], second.id)),
            threading.Thread(target=demote, args=(key2, first)),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        admins = [u for u in world.md.list_users() if u.role is Role.ADMIN]
        assert len(admins) == 1, statuses
        assert sorted(statuses) in ([200, 403], [200, 409]), statuses
        # put both back for the next round
        world.md.set_role(first, Role.ADMIN)
        world.md.set_role(second.id, Role.ADMIN)


def test_the_last_admin_cannot_be_deleted_or_demoted_over_http(world: World) -> None:
    me = world.ids["admin"]
    demoted = world.call("admin", "PATCH", f"/api/v1/users/{me}", json={"role": "default"})
    assert demoted.status_code == 409
    assert "last admin" in demoted.json()["error"]["message"]


def test_concurrent_creates_and_imports_cannot_pass_the_workspace_quota(world: World) -> None:
    """Issue 37 item 9: ten creates at once each saw room for one more workspace and all
    joined; the count is now taken in the transaction that joins."""
    world.call("admin", "PATCH", "/api/v1/settings", json={"max_workspaces_per_user": 3})
    barrier = threading.Barrier(10)
    statuses: list[int] = []

    def create(n: int) -> None:
        barrier.wait()
        if n % 2:
            response = world.call("alice", "POST", "/api/v1/workspaces", json={"slug": f"w{n}"})
        else:
            line = json.dumps({"content": "Fact", "scope": "workspace", "workspace": f"w{n}"})
            response = world.call(
                "alice", "POST", "/api/v1/import", content=line,
                headers={"Content-Type": "application/x-ndjson"},
            )  # fmt: skip
        statuses.append(response.status_code)

    threads = [threading.Thread(target=create, args=(n,)) for n in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # alice belonged to alpha and beta: one more, and only one, got through
    assert sorted(statuses) == [200 if 200 in statuses else 201] + [403] * 9, statuses
    assert len(world.auth.workspaces_of(world.md.get_user(world.ids["alice"]))) == 3
    made = {w.slug for w in world.md.list_workspaces()} - {"alpha", "beta", "gamma"}
    assert len(made) == 1  # the refused ones left no workspace behind
