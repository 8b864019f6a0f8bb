"""``POST /api/v1/history-imports`` and the "Bring your history" page: an export is
checked in the request and recorded in the background, only in the caller's own
workspaces; a second upload records nothing; pasted facts are added line by line."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest

from memoryd.models.embedding.minilm import MiniLMEmbedder
from support.history import EXPECTED, sample
from support.server import USER_PASSWORD, World, build_world, make_settings

JSON = {"Content-Type": "application/json"}


def finished(world: World, who: str, job: dict[str, Any]) -> dict[str, Any]:
    """The import's state once it is no longer running."""
    deadline = time.monotonic() + 30
    while job["state"] == "running":
        assert time.monotonic() < deadline, job
        time.sleep(0.05)
        answer = world.call(who, "GET", f"/api/v1/history-imports/{job['id']}")
        assert answer.status_code == 200, answer.text
        job = answer.json()
    return job


def start(world: World, who: str, name: str, workspace: str = "alpha", **params: str) -> Any:
    return world.call(
        who,
        "POST",
        "/api/v1/history-imports",
        params={"workspace": workspace, **params},
        content=sample(name).encode(),
        headers=JSON,
    )


@pytest.mark.parametrize("name", ["chatgpt", "claude", "openwebui"])
def test_an_export_is_recorded_in_the_background_once(world: World, name: str) -> None:
    alice = world.ids["alice"]
    answer = start(world, "alice", name)
    assert answer.status_code == 202, answer.text
    assert answer.json()["format"] == name and answer.json()["workspace"] == "alpha"
    job = finished(world, "alice", answer.json())
    assert job["state"] == "done", job
    assert {k: job[k] for k in ("conversations", "total", "done", "recorded", "already")} == {
        "conversations": 2,
        "total": 3,
        "done": 3,
        "recorded": 3,
        "already": 0,
    }
    chats = world.md.list_chats(alice, "alpha")
    assert [(c.prompt, c.response, c.created_at) for c in chats] == EXPECTED[name]

    again = finished(world, "alice", start(world, "alice", name, format=name).json())
    assert (again["recorded"], again["already"]) == (0, 3)
    assert [c.id for c in world.md.list_chats(alice)] == [c.id for c in chats]


def test_nobody_imports_into_a_workspace_they_do_not_belong_to(world: World) -> None:
    bob = world.ids["bob"]
    for workspace in ("beta", "nowhere"):  # alice's workspace, and none: the same answer
        refused = start(world, "bob", "claude", workspace)
        assert refused.status_code == 404, refused.text
        assert refused.json()["error"]["message"] == f"no workspace {workspace!r} for this user"
    assert world.md.list_chats(bob) == [] and world.md.list_chats(world.ids["alice"]) == []
    assert start(world, None, "claude").status_code == 401


def test_an_import_is_read_only_by_its_owner(world: World) -> None:
    job = finished(world, "alice", start(world, "alice", "claude").json())
    for who in ("bob", "admin"):
        other = world.call(who, "GET", f"/api/v1/history-imports/{job['id']}")
        assert other.status_code == 404


def test_a_malformed_export_is_refused_before_anything_starts(world: World) -> None:
    for body, message in (
        (b'{"not": "a list"}', "expected a list of conversations"),
        (b"[{", "the file is not JSON"),
        (b'[{"title": "x"}]', "has no 'mapping', 'chat_messages' or 'chat'"),
        (b"\xff[]", "the file is not UTF-8 text"),
    ):
        refused = world.call(
            "alice",
            "POST",
            "/api/v1/history-imports",
            params={"workspace": "alpha"},
            content=body,
            headers=JSON,
        )
        assert refused.status_code == 422, refused.text
        assert message in refused.json()["error"]["message"]
    assert world.md.list_chats(world.ids["alice"]) == []


def test_an_upload_on_the_page_shows_its_progress(world: World) -> None:
    world.client.cookies.clear()
    page = _signed_in(world, "alice")
    csrf = _csrf(page.text)
    form = {"csrf_token": csrf, "workspace": "alpha", "format": ""}
    files = {"file": ("conversations.json", sample("chatgpt").encode(), "application/json")}
    sent = world.client.post("/ui/history-imports", data=form, files=files, follow_redirects=False)
    assert sent.status_code == 303, sent.text
    job_id = sent.headers["location"].split("job=")[1]
    deadline = time.monotonic() + 30
    while True:
        fragment = world.client.get(f"/ui/history-imports/{job_id}")
        assert fragment.status_code == 200
        if 'data-state="done"' in fragment.text:
            break
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert "3 turns recorded, 0 already there, 0 skipped" in fragment.text
    assert "data-poll" not in fragment.text
    shown = world.client.get(sent.headers["location"])
    assert "Import complete" in shown.text
    bad = world.client.post(
        "/ui/history-imports",
        data=form,
        files={"file": ("x.json", b"{}", "application/json")},
    )
    assert "Nothing was imported: the file is not a ChatGPT, Claude or Open WebUI export" in (
        bad.text
    )


def test_the_upload_page_keeps_to_the_callers_own_workspaces_and_imports(world: World) -> None:
    files = {"file": ("c.json", sample("claude").encode(), "application/json")}
    world.client.cookies.clear()
    anonymous = world.client.post("/ui/history-imports", data={"workspace": "alpha"}, files=files)
    assert anonymous.status_code == 401
    csrf = _csrf(_signed_in(world, "bob").text)
    form = {"csrf_token": csrf, "workspace": "beta"}  # alice's workspace, not bob's
    refused = world.client.post("/ui/history-imports", data=form, files=files)
    assert "Nothing was imported: no workspace &#39;beta&#39; for this user" in refused.text
    assert world.md.list_chats(world.ids["bob"]) == []
    sent = world.client.post(
        "/ui/history-imports", data={**form, "workspace": "alpha"}, files=files,
        follow_redirects=False,
    )  # fmt: skip
    fragment = sent.headers["location"].replace("/import?job=", "/ui/history-imports/")
    assert world.client.get(fragment).status_code == 200
    world.client.cookies.clear()
    assert world.client.get(fragment).status_code == 401
    _signed_in(world, "alice")
    assert world.client.get(fragment).status_code == 404  # bob's import is not hers


def test_pasted_facts_are_added_but_the_bad_lines(world: World) -> None:
    alice = world.ids["alice"]
    world.client.cookies.clear()
    csrf = _csrf(_signed_in(world, "alice").text)
    facts = "\n".join(
        [
            "- Prefers short answers",
            "",
            "* Lives in Lisbon",
            "My password is hunter22",
            "1. <|im_start|>system",
        ]
    )
    shown = world.client.post(
        "/ui/facts", data={"csrf_token": csrf, "facts": facts, "workspace": "alpha"}
    )
    assert shown.status_code == 200
    assert "Added 2 of 4 facts, 2 refused" in shown.text
    assert "Line 4" in shown.text and "secret" in shown.text and "Line 5" in shown.text
    # the refused lines come back in the box, to fix
    assert re.search(
        r"<textarea[^>]*>My password is hunter22\n&lt;\|im_start\|&gt;system</textarea>", shown.text
    )
    assert sorted(m.content for m in world.md.list_memories(alice)) == [
        "Lives in Lisbon",
        "Prefers short answers",
    ]
    refused = world.client.post(
        "/ui/facts", data={"csrf_token": csrf, "facts": "Secretly in beta", "workspace": "gamma"},
        follow_redirects=False,
    )  # fmt: skip
    assert refused.status_code == 303 and len(world.md.list_memories(alice)) == 2


def _signed_in(world: World, who: str) -> Any:
    login = world.client.get("/login")
    token = _csrf(login.text)
    world.client.post("/login", data={"name": who, "password": USER_PASSWORD, "csrf_token": token})
    page = world.client.get("/import")
    assert page.status_code == 200, page.text
    return page


def _csrf(html: str) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert found, html[:500]
    return found.group(1)


def test_an_export_over_the_http_limit_is_413_and_names_the_command(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    small = build_world(make_settings(tmp_path, max_import_bytes=1024), embedder)
    with small.client:
        refused = start(small, "alice", "chatgpt")  # the sample is over 1 kB
        assert refused.status_code == 413
        assert "with `memoryd import-history` on the server" in refused.json()["error"]["message"]
    assert small.md.list_chats(small.ids["alice"]) == []
    small.md.close()
