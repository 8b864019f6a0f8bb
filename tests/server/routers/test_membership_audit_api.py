"""Changes of workspace membership through the REST API and the web UI's admin forms land
in the member's audit log, over SQLite and PostgreSQL: ``PUT``/``DELETE
/workspaces/{slug}/members/{id}`` and the ``/ui/members`` forms by an admin (``admin:ID``),
a default user creating a workspace and so joining it (``user:ID``), an admin creating a
user with a workspace, an admin deleting a workspace (each member's log); a repeated add
is no entry, removing a non-member a 404 and no entry; the Activity page reads them.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memoryd.models.embedding.minilm import MiniLMEmbedder
from support.server import World, build_world, make_settings
from support.web import flash_of, get_page, post_form


@pytest.fixture
def world(tmp_path: Path, embedder: MiniLMEmbedder, db_url: str) -> Iterator[World]:
    w = build_world(make_settings(tmp_path, database_url=db_url), embedder)
    with w.client:
        yield w
    w.md.close()


def memberships(world: World, who: str, path: str = "/api/v1/audit") -> list[tuple[Any, ...]]:
    """(workspace, before, after, actor) of the membership entries the API gives, newest
    first."""
    answer = world.call(who, "GET", path, params={"action": "change_setting"})
    assert answer.status_code == 200, answer.text
    return [
        (e["after"]["workspace"], e["before"]["value"], e["after"]["value"], e["actor"])
        for e in answer.json()
        if e["after"]["setting"] == "membership"
    ]


def test_an_admin_adding_and_removing_a_member_through_the_api(world: World) -> None:
    bob, admin = world.ids["bob"], world.ids["admin"]
    path = f"/api/v1/workspaces/beta/members/{bob}"
    assert world.call("admin", "PUT", path).status_code == 204
    assert world.call("admin", "PUT", path).status_code == 204  # already: no entry
    assert world.call("admin", "DELETE", path).status_code == 204
    missing = world.call("admin", "DELETE", path)
    assert missing.status_code == 404 and "not a member of workspace 'beta'" in missing.text
    expected = [
        ("beta", "member", "not member", f"admin:{admin}"),
        ("beta", "not member", "member", f"admin:{admin}"),
    ]
    assert memberships(world, "bob") == expected  # he reads his own
    assert memberships(world, "admin", f"/api/v1/users/{bob}/audit") == expected
    assert memberships(world, "admin") == [] and memberships(world, "alice") == []
    # the workspace filter finds them, the entry names no memory
    beta = world.call("admin", "GET", f"/api/v1/users/{bob}/audit", params={"workspace": "beta"})
    assert [e["memory_id"] for e in beta.json()] == ["", ""]


def test_creating_a_workspace_or_a_user_and_deleting_a_workspace(world: World) -> None:
    alice, admin = world.ids["alice"], world.ids["admin"]
    created = world.call("alice", "POST", "/api/v1/workspaces", json={"slug": "delta"})
    assert created.status_code == 201, created.text
    assert memberships(world, "alice") == [("delta", "not member", "member", f"user:{alice}")]
    carol = world.call(
        "admin", "POST", "/api/v1/users", json={"name": "carol", "workspaces": ["delta"]}
    )
    assert carol.status_code == 201, carol.text
    carol_log = f"/api/v1/users/{carol.json()['id']}/audit"
    assert memberships(world, "admin", carol_log) == [
        ("delta", "not member", "member", f"admin:{admin}")
    ]
    assert world.call("admin", "DELETE", "/api/v1/workspaces/delta").status_code == 204
    ended = ("delta", "member", "not member", f"admin:{admin}")
    assert memberships(world, "alice")[0] == ended
    assert memberships(world, "admin", carol_log)[0] == ended
    assert memberships(world, "bob") == []  # never a member of delta


def test_the_admin_forms_record_the_admin_and_the_activity_page_reads_it(world: World) -> None:
    bob, admin = world.ids["bob"], world.ids["admin"]
    form = {"user_id": str(bob), "workspace": "beta"}
    added = post_form(world, "admin", "/ui/members", form)
    assert flash_of(added)["text"] == "bob is now a member of beta."
    again = post_form(world, "admin", "/ui/members", form)
    assert flash_of(again)["text"] == "bob was already a member of beta."
    removed = post_form(world, "admin", "/ui/members/remove", form)
    assert flash_of(removed)["text"] == "bob is no longer a member of beta."
    assert memberships(world, "bob") == [
        ("beta", "member", "not member", f"admin:{admin}"),
        ("beta", "not member", "member", f"admin:{admin}"),
    ]
    world.md.create_workspace("doomed")
    world.auth.add_member("doomed", bob)  # by "admin", as the library's caller
    deleted = post_form(world, "admin", "/ui/workspaces/doomed/delete", {"confirmed": "yes"})
    assert deleted.status_code == 303
    assert memberships(world, "bob")[0] == ("doomed", "member", "not member", f"admin:{admin}")
    page = get_page(world, "bob", "/activity?change=settings").text
    for words in (
        "Added to workspace beta",
        "Removed from workspace beta",
        "Removed from workspace doomed",
        "Membership: not a member → member",
        "Membership: member → not a member",
        "Workspace beta",
    ):
        assert words in page, words
