#!/usr/bin/env python3
"""Renders the web UI's screenshots into docs/screenshots/, in one command:

    .venv/bin/python scripts/screenshots.py            # all pages, both widths, both schemes
    .venv/bin/python scripts/screenshots.py --out /tmp/shots --only memories

A throwaway server (temporary SQLite database, made-up people, memories, chats and an
extraction run) is driven by Debian's /usr/bin/chromium through Playwright, at 1280 px
(desktop) and 390 px (phone), light and dark. Files are named
``<page>-<desktop|phone>-<light|dark>.png``. Needs the ``server`` and ``dev`` extras.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the browser helpers shared with the tests

from support.browser import VIEWPORTS, chromium, open_page, sign_in  # noqa: E402

ADMIN_PASSWORD = "admin-password-1"
USER_PASSWORD = "user-password-1"


def build_demo(data_dir: Path) -> tuple[Any, str]:
    """An app with a small, realistic world in it; returns (app, id of a finished run)."""
    from argon2 import PasswordHasher

    from memoryd.access.credentials import AuthStore
    from memoryd.app.service import Memoryd
    from memoryd.config import MemorydSettings
    from memoryd.domain.models import Role, Scope
    from memoryd.extraction.decide import Change
    from memoryd.extraction.review import suggest
    from memoryd.extraction.runs import Run, finish_run, new_run_id, start_run
    from memoryd.server.app import create_app, first_start

    settings = MemorydSettings(
        data_dir=data_dir,
        database_url=f"sqlite:///{data_dir / 'demo.db'}",
        admin_password=ADMIN_PASSWORD,
        proxy_provider="openai",
        proxy_upstream_url="http://127.0.0.1:9/v1",
        proxy_model="gpt-4o-mini",
    )
    md = Memoryd(settings=settings)
    hasher = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
    auth = AuthStore(md.db, clock=md.clock, hasher=hasher, catalog=md.catalog)
    first_start(md, auth, settings)
    for slug, name in (("kitchen", "Kitchen remodel"), ("thesis", "Thesis"), ("ops", "Ops")):
        md.create_workspace(slug, name)
    people = {"alice": ("kitchen", "thesis"), "bob": ("kitchen",), "carol": ("ops",)}
    ids = {}
    for name, spaces in people.items():
        user = md.create_user(name, Role.DEFAULT)
        auth.set_password(user.id, USER_PASSWORD)
        for slug in spaces:
            auth.add_member(slug, user.id)
        ids[name] = user.id
    alice = ids["alice"]
    for text in (
        "Alice is vegetarian and allergic to peanuts",
        "Alice prefers short answers with a code example first",
        "Alice lives in Porto and works remotely for a Berlin start-up",
    ):
        md.add_memory(alice, text)
    for text in (
        "The kitchen is 3.2 m by 4.1 m with a window on the north wall",
        "Budget for the kitchen is 15,000 EUR",  # edited below: the activity page shows it
        "Alice chose oak worktops and white handleless cabinets",
    ):
        md.add_memory(alice, text, workspace="kitchen")
    budget = next(m for m in md.list_memories(alice) if m.content.startswith("Budget"))
    md.edit_memory(alice, budget.id, "Budget for the kitchen is 18,000 EUR including appliances")
    hob = md.add_memory(alice, "Alice wants a gas hob", workspace="kitchen")
    md.delete_memory(alice, hob.id)  # gone from the lists, still in the activity page
    md.add_memory(
        alice,
        "The thesis is about retrieval for long-term chat memory",
        "workspace",
        "thesis",
        expires_at="2027-06-30",  # shows the "Until" badge
    )
    md.add_memory(ids["bob"], "Bob is the contractor for the kitchen", workspace="kitchen")
    question = "Which worktop goes with white cabinets?"
    md.record_chat(
        alice,
        "kitchen",
        question,
        "**Oak**, as you chose: it warms up white handleless fronts.\n\n"
        "1. Seal it with `hardwax oil`.\n2. Oil it again after a year.",  # shown as Markdown
        turn=md.context(alice, "kitchen", question),  # the answer lists these memories
    )
    fridge = md.record_chat(alice, "kitchen", "The fridge goes on the left wall.", "Noted.")
    porto = next(m for m in md.list_memories(alice) if "Porto" in m.content)
    with md.db.write() as repo:  # the review queue: a change to a memory, side by side
        suggest(md, repo, alice, "", Change("Alice moved to Lisbon in May", porto.scope, porto),
                None, [], "demo-run")  # fmt: skip
        # a new memory learned in the kitchen: Accept offers global or the kitchen
        suggest(md, repo, alice, "kitchen", Change("The fridge goes on the left wall",
                Scope.GLOBAL, None), None, [fridge.id], "demo-run")  # fmt: skip
    started = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)  # fixed: the same pictures every time
    run = Run(id=new_run_id(), trigger="manual", started_at=started)
    run.provider, run.model = "local", "qwen2.5-coder-1.5b-instruct-q4_k_m"
    start_run(md.db, run)
    run.pairs_seen = run.pairs_processed = 2
    run.memories_created, run.memories_updated, run.chats_processed = 2, 1, 12
    run.llm_calls, run.prompt_tokens, run.completion_tokens = 4, 5210, 388
    where = {"user_id": alice, "workspace": "kitchen"}
    run.errors = [
        {"kind": "item", **where, "error": "dropped: not said by the user (invented)"},
        {"kind": "not_stored", **where, "error": "looks like a secret (an API key)"},
    ]
    finish_run(md.db, run, started + timedelta(minutes=3, seconds=12))
    return create_app(md, settings, auth=auth), run.id


def login(page: Any, url: str) -> None:
    page.goto(f"{url}/login")


def memories(page: Any, url: str) -> None:
    sign_in(page, url, "alice", USER_PASSWORD)
    page.goto(f"{url}/chat/kitchen")
    page.get_by_role("button", name="alice").click()
    page.get_by_role("dialog").get_by_role("tab", name="Memories").wait_for()


def memories_menu(page: Any, url: str) -> None:
    """The memories with one memory's actions menu open."""
    memories(page, url)
    page.locator("#profile .memory details.row-menu > summary").nth(1).click()


def account(page: Any, url: str) -> None:
    memories(page, url)
    page.get_by_role("dialog").get_by_role("tab", name="Account").click()
    page.locator("#panel-account").wait_for()


def review_queue(page: Any, url: str) -> None:
    memories(page, url)
    page.locator("#profile .suggestions").scroll_into_view_if_needed()


def memory_detail(page: Any, url: str) -> None:
    memories(page, url)
    row = page.locator("#profile .memory", has_text="Alice chose oak worktops")
    row.locator("details.row-menu > summary").click()
    row.get_by_role("button", name="Details and history").click()
    page.locator("#memory-detail").get_by_text("History").wait_for()


def admin(page: Any, url: str) -> None:
    sign_in(page, url, "admin", ADMIN_PASSWORD)
    page.goto(f"{url}/admin?tab=users")


def activity(page: Any, url: str) -> None:
    sign_in(page, url, "alice", USER_PASSWORD)
    page.goto(f"{url}/activity")


def chat(page: Any, url: str) -> None:
    sign_in(page, url, "alice", USER_PASSWORD)
    page.goto(f"{url}/chat/kitchen")
    page.locator(".message.assistant .used > summary").last.click()  # its memories


def run_details(run_id: str) -> Callable[[Any, str], None]:
    def show(page: Any, url: str) -> None:
        sign_in(page, url, "admin", ADMIN_PASSWORD)
        page.goto(f"{url}/admin/runs/{run_id}")

    return show


PANELS = ("memories", "review-queue", "memory-detail", "account")  # dialogs: the window only


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--only", action="append", help="page name (repeatable)")
    args = parser.parse_args(argv)
    from memoryd.testing.live import LiveServer

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        app, run_id = build_demo(Path(tmp))
        pages: dict[str, Callable[[Any, str], None]] = {
            "login": login,
            "memories": memories_menu,
            "review-queue": review_queue,
            "memory-detail": memory_detail,
            "account": account,
            "admin": admin,
            "activity": activity,
            "chat": chat,
            "run": run_details(run_id),
        }
        chosen = {k: v for k, v in pages.items() if not args.only or k in args.only}
        with LiveServer(app) as live, chromium() as browser:
            for name, show in chosen.items():
                for viewport in VIEWPORTS:
                    for scheme in ("light", "dark"):
                        with open_page(browser, viewport, dark=scheme == "dark") as (page, _):
                            show(page, live.url)
                            path = args.out / f"{name}-{viewport}-{scheme}.png"
                            page.screenshot(path=str(path), full_page=name not in PANELS)
                            print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
