"""Every page at 1280 and 390 px, light and dark (the activity pages too): nothing
scrolls sideways, axe-core finds no serious or critical violation, nothing is logged to
the console; the phone layout's menu, the profile dialog fitting the screen, dark mode
following the system, and editing and adding memories without losing text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from memoryd.testing.live import LiveServer
from support.browser import VIEWPORTS, check_page, confirm, memory_menu, open_page, sign_in
from support.server import ADMIN_PASSWORD, USER_PASSWORD, World

pytestmark = pytest.mark.browser

Live = tuple[World, LiveServer]
LONG = (
    "Alice's kitchen plan: oak worktops, white handleless cabinets, an induction hob on the "
    "island, the sink under the north window, a tall larder unit beside the fridge, open "
    "shelves instead of wall cabinets on the left, warm 2700 K lights under the shelves, "
    "terrazzo floor tiles in grey and a budget of 18,000 EUR including the appliances and "
    "fitting, with the work to be done in March while she is away at the conference in Oslo"
)


def fill_world(world: World) -> str:
    """Memories, chats and a run, so every page has something on it (an edit and a
    deletion for the activity pages); returns the run id."""
    alice = world.ids["alice"]
    world.md.add_memory(alice, "Alice is vegetarian")
    plan = world.md.add_memory(alice, LONG.replace("March", "May"), workspace="alpha")
    world.md.edit_memory(alice, plan.id, LONG)
    world.md.delete_memory(alice, world.md.add_memory(alice, "Alice eats fish").id)
    world.md.record_chat(alice, "alpha", "What floor goes with oak?", "Grey terrazzo would.")
    return world.md.extract().id


def visit_every_page(page: Any, url: str, run_id: str, check: Callable[[Any], None]) -> None:
    page.goto(f"{url}/login")
    check(page)
    sign_in(page, url, "admin", ADMIN_PASSWORD)
    page.goto(f"{url}/?stay=1")
    check(page)
    page.goto(f"{url}/chat/alpha")
    check(page)
    for tab in ("Users", "Workspaces", "Memories", "Extraction", "Settings"):
        page.goto(f"{url}/admin?tab={tab.lower()}&user=2")
        check(page)
    page.goto(f"{url}/admin/runs/{run_id}")
    check(page)
    page.goto(f"{url}/admin/users/2/activity")
    check(page)
    page.context.clear_cookies()
    sign_in(page, url, "alice", USER_PASSWORD)
    page.goto(f"{url}/activity")
    check(page)
    page.goto(f"{url}/chat/alpha")
    page.locator("#user-button").click()
    for tab in ("Memories", "API keys", "Account"):
        page.get_by_role("tab", name=tab).click()
        check(page)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_every_page_fits_is_accessible_and_logs_no_error(
    live_world: Live, browser: Any, viewport: str, scheme: str
) -> None:
    world, live = live_world
    run_id = fill_world(world)
    with open_page(browser, viewport, dark=scheme == "dark") as (page, log):
        visit_every_page(page, live.url, run_id, check_page)
        assert log.unexpected() == []


def test_long_names_and_unbroken_words_fit(live_world: Live, page: Any) -> None:
    """The longest user name and workspace slug there can be, a long workspace name and a
    memory that is one long word: they wrap on every page that shows them, so neither the
    page nor the profile dialog scrolls sideways."""
    world, live = live_world
    alice = world.ids["alice"]
    slug = "long-" + "x" * 59
    world.md.create_workspace(slug, "A workspace with a rather long name " * 5)
    world.auth.add_member(slug, alice)
    world.auth.add_member("alpha", world.md.create_user("u" + "n" * 63).id)
    word = "Supercalifragilisticexpialidocious" * 12
    world.md.add_memory(alice, "One word: " + word)
    world.md.add_memory(alice, word[:300], workspace=slug)
    sign_in(page, live.url, "admin", ADMIN_PASSWORD)
    for tab in ("users", "workspaces", "memories"):
        page.goto(f"{live.url}/admin?tab={tab}&user={alice}")
        check_page(page)
    page.goto(f"{live.url}/admin/users/{alice}/activity")
    check_page(page)
    page.context.clear_cookies()
    sign_in(page, live.url, "alice", USER_PASSWORD)
    page.goto(f"{live.url}/chat/{slug}?panel=memories")
    assert page.locator("#profile").get_by_text("One word: Super").is_visible()
    check_page(page)
    page.goto(f"{live.url}/activity?workspace={slug}")  # the long slug in the filter too
    assert page.locator(".activity-text", has_text=word[:300]).is_visible()
    check_page(page)


def test_the_checks_catch_a_wide_or_inaccessible_page(live_world: Live, browser: Any) -> None:
    """The checks are not vacuous: a too-wide element, a button without a name and a
    native confirm() each make them fail."""
    _, live = live_world
    with open_page(browser, "phone") as (page, _):
        page.goto(f"{live.url}/login")
        check_page(page)
        # (through the CSSOM: the page's CSP refuses inline style attributes)
        page.evaluate(
            "() => { const d = document.createElement('div'); d.textContent = 'x';"
            " d.style.width = '600px'; document.querySelector('form').append(d); }"
        )
        with pytest.raises(AssertionError, match="scrolls sideways"):
            check_page(page)
        page.reload()
        page.evaluate(
            "() => document.querySelector('form').append(document.createElement('button'))"
        )
        with pytest.raises(AssertionError, match="button-name"):
            check_page(page)
    with open_page(browser, "phone") as (page, log):
        page.goto(f"{live.url}/login")
        page.evaluate("() => window.confirm('sure?')")
        assert log.unexpected() == ["native confirm: sure?"]


def background_luminance(page: Any) -> float:
    rgb = page.evaluate(
        "getComputedStyle(document.body).backgroundColor.match(/\\d+/g).slice(0, 3).map(Number)"
    )
    return sum(rgb) / (3 * 255)


def test_dark_mode_follows_the_system_setting(live_world: Live, browser: Any) -> None:
    _, live = live_world
    for dark, expected in ((False, lambda v: v > 0.8), (True, lambda v: v < 0.2)):
        with open_page(browser, "desktop", dark=dark) as (page, _):
            page.goto(f"{live.url}/login")
            assert expected(background_luminance(page)), (dark, background_luminance(page))


def test_phone_menu_opens_and_closes(live_world: Live, page: Any) -> None:
    _, live = live_world
    sign_in(page, live.url, "alice", USER_PASSWORD)
    page.goto(f"{live.url}/chat/alpha")
    link = page.get_by_role("link", name="Beta")
    menu = page.get_by_role("button", name="Menu")
    if page.viewport_size["width"] > 760:
        assert not menu.is_visible() and link.is_visible()
        return
    assert not link.is_visible()
    menu.click()
    assert menu.get_attribute("aria-expanded") == "true" and link.is_visible()
    page.keyboard.press("Escape")
    assert menu.get_attribute("aria-expanded") == "false" and not link.is_visible()
    assert menu.evaluate("e => e === document.activeElement")
    # keyboard only: Enter opens the menu, Tab reaches the first workspace, Enter follows it
    menu.focus()
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    assert page.get_by_role("link", name="Beta").evaluate("e => e === document.activeElement")
    page.keyboard.press("Enter")
    page.wait_for_url("**/chat/beta")


def test_profile_dialog_fits_and_long_memories_are_readable(live_world: Live, page: Any) -> None:
    world, live = live_world
    world.md.add_memory(world.ids["alice"], LONG, workspace="alpha")
    sign_in(page, live.url, "alice", USER_PASSWORD)
    page.locator("#user-button").click()
    dialog = page.get_by_role("dialog")
    box = dialog.bounding_box()
    width = page.viewport_size["width"]
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, (box, width)
    text = dialog.locator(".memory-text", has_text="Alice's kitchen plan")
    text_box = text.bounding_box()
    assert (
        text_box["x"] >= box["x"] and text_box["x"] + text_box["width"] <= box["x"] + box["width"]
    )
    assert text.evaluate("e => e.scrollWidth <= e.clientWidth")  # wrapped, not cut off
    check_page(page)


def test_edit_shows_the_whole_memory_in_a_roomy_box(live_world: Live, page: Any) -> None:
    world, live = live_world
    memory = world.md.add_memory(world.ids["alice"], LONG, workspace="alpha")
    sign_in(page, live.url, "alice", USER_PASSWORD)
    page.locator("#user-button").click()
    row = memory_menu(page, "Alice's kitchen plan")
    row.get_by_role("button", name="Edit").click()
    box = row.get_by_label("Memory text")
    assert box.evaluate("e => e.tagName") == "TEXTAREA"
    assert box.input_value() == LONG
    assert box.evaluate("e => e === document.activeElement")
    assert box.evaluate("e => e.scrollHeight <= e.clientHeight + 2"), "the text is cut off"
    assert box.bounding_box()["width"] >= 0.8 * row.bounding_box()["width"]
    check_page(page)
    page.keyboard.press("Escape")  # closes the box, not the dialog, and saves nothing
    assert not box.is_visible() and page.get_by_role("dialog").is_visible()
    assert row.locator(".edit-toggle").get_attribute("aria-expanded") == "false"
    memory_menu(page, "Alice's kitchen plan").get_by_role("button", name="Edit").click()
    box.fill(LONG.replace("March", "April"))
    page.keyboard.press("Enter")
    page.locator(".flash", has_text="Memory saved.").wait_for()
    assert world.md.get_memory(world.ids["alice"], memory.id).content.endswith(
        "done in April while she is away at the conference in Oslo"
    )


def test_a_refused_add_keeps_the_typed_text(live_world: Live, page: Any) -> None:
    world, live = live_world
    alice = world.ids["alice"]
    sign_in(page, live.url, "alice", USER_PASSWORD)
    page.locator("#user-button").click()
    field = page.get_by_label("Add to Alpha")
    field.fill("## Alpha: a heading is not a memory")
    field.press("Enter")
    page.locator(".flash-error", has_text="must not start with Markdown").wait_for()
    field = page.get_by_label("Add to Alpha")
    assert field.input_value() == "## Alpha: a heading is not a memory"
    assert field.evaluate("e => e === document.activeElement")
    # fixed and sent again, it is added and the field is empty
    field.fill("Alpha: headings are refused")
    field.press("Enter")
    page.locator(".flash-ok", has_text="Memory added.").wait_for()
    assert page.get_by_label("Add to Alpha").input_value() == ""
    # a scope that filled up meanwhile (another tab): refused, the text stays, readable
    for i in range(4):
        world.md.add_memory(alice, f"Global fact {i}")
    field = page.get_by_label("Add to Global")
    field.fill("Alice's fifth fact, typed with care")
    world.md.add_memory(alice, "Global fact 4")
    field.press("Enter")
    page.locator(".flash-error", has_text="full").wait_for()
    field = page.get_by_label("Add to Global")
    assert field.input_value() == "Alice's fifth fact, typed with care"
    assert field.is_enabled()
    assert page.get_by_role("dialog").is_visible()


def test_a_non_latin_refused_draft_survives(live_world: Live, desktop_page: Any) -> None:
    """The kept text rides in a cookie: 500 characters of any script still fit."""
    _, live = live_world
    page = desktop_page
    sign_in(page, live.url, "alice", USER_PASSWORD)
    page.locator("#user-button").click()
    text = "# " + "記憶" * 249
    field = page.get_by_label("Add to Alpha")
    field.fill(text)
    field.press("Enter")
    page.locator(".flash-error").wait_for()
    assert page.get_by_label("Add to Alpha").input_value() == text


def test_profile_tabs_keyboard_and_confirmation_dialog(live_world: Live, desktop_page: Any) -> None:
    world, live = live_world
    page = desktop_page
    key = world.auth.create_api_key(world.ids["bob"], "my laptop")
    sign_in(page, live.url, "bob", USER_PASSWORD)
    page.locator("#user-button").focus()
    page.keyboard.press("Enter")
    page.get_by_role("tab", name="Memories").focus()
    page.keyboard.press("End")
    assert page.get_by_role("tab", name="Account").get_attribute("aria-selected") == "true"
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    assert page.get_by_role("tabpanel", name="API keys").is_visible()
    row = page.locator(".key-list li", has_text="my laptop")
    row.get_by_role("button", name="Revoke").click()
    assert "my laptop" in confirm(page)  # Cancel
    assert page.get_by_role("dialog", name="bob").is_visible()  # still in the profile

    def live_keys() -> set[str]:
        return {k.id for k in world.auth.list_api_keys(world.ids["bob"]) if not k.revoked_at}

    assert key.key.id in live_keys()
    row.get_by_role("button", name="Revoke").click()
    confirm(page, "Revoke")
    page.locator(".flash-ok", has_text="API key revoked.").wait_for()
    assert key.key.id not in live_keys()


def test_keyboard_only_sign_in_add_and_delete(live_world: Live, page: Any) -> None:
    world, live = live_world
    page.goto(f"{live.url}/login")
    page.wait_for_function("() => document.activeElement?.id === 'name'")
    page.keyboard.type("alice")  # the name field has the focus
    page.keyboard.press("Tab")
    page.keyboard.type(USER_PASSWORD)
    page.keyboard.press("Enter")
    page.wait_for_selector("#user-button")
    page.locator("#user-button").focus()
    page.keyboard.press("Enter")
    page.get_by_label("Add to Global").focus()
    page.keyboard.type("Alice cycles to work")
    page.keyboard.press("Enter")
    page.locator(".flash-ok", has_text="Memory added.").wait_for()
    page.get_by_label("Actions for memory: Alice cycles to work").focus()
    page.keyboard.press("Enter")  # opens its menu
    for _ in range(6):  # Edit, Details and history, Move to, Move, Delete
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.textContent") == "Delete":
            break
    page.keyboard.press("Enter")
    page.get_by_role("alertdialog").wait_for()
    page.keyboard.press("Tab")  # from Cancel to Delete
    page.keyboard.press("Enter")
    page.locator(".flash-ok", has_text="Memory deleted.").wait_for()
    assert world.md.list_memories(world.ids["alice"]) == []


def test_a_new_key_is_shown_once_and_a_reload_makes_no_other(
    live_world: Live, desktop_page: Any
) -> None:
    """Creating a key by keyboard: its secret is shown in the reopened panel; Escape
    closes the panel and gives the focus back to the button that opens it; a reload shows
    the keys again without sending the form a second time."""
    world, live = live_world
    page = desktop_page
    sign_in(page, live.url, "bob", USER_PASSWORD)
    page.locator("#user-button").focus()
    page.keyboard.press("Enter")
    page.get_by_role("tab", name="Memories").focus()
    page.keyboard.press("ArrowRight")
    page.get_by_label("Key name").focus()
    page.keyboard.type("my phone")
    page.keyboard.press("Enter")
    page.get_by_text("New key (shown only now, copy it)").wait_for()
    page.wait_for_load_state("load")
    page.keyboard.press("Escape")
    assert not page.locator("#profile").is_visible()
    page.wait_for_function("() => document.activeElement.id === 'user-button'")  # on close

    def names() -> list[str]:
        return [k.name for k in world.auth.list_api_keys(world.ids["bob"])]

    assert names().count("my phone") == 1
    page.reload()
    page.get_by_role("tabpanel", name="API keys").get_by_text("my phone").wait_for()
    assert page.get_by_text("New key (shown only now").count() == 0
    assert names().count("my phone") == 1


def test_a_refused_password_or_key_name_is_explained_at_its_field(
    live_world: Live, page: Any
) -> None:
    """The reason is under the field it is about, which has the focus and is in view
    (on a phone the password form is far below the panel's top)."""
    world, live = live_world
    sign_in(page, live.url, "alice", USER_PASSWORD)
    page.locator("#user-button").click()
    page.get_by_role("tab", name="Account").click()
    page.get_by_label("Current password").fill("not-my-password")
    page.get_by_label("New password (at least 8 characters)").fill("a-new-password")
    page.get_by_role("button", name="Change password").click()
    current = page.get_by_label("Current password")
    page.locator("#current-password-error").wait_for()
    assert page.locator("#current-password-error").inner_text() == "the current password is wrong"
    assert current.get_attribute("aria-invalid") == "true"
    page.wait_for_load_state("load")
    assert current.evaluate("e => e === document.activeElement") and current.input_value() == ""
    assert current.evaluate(
        "e => { const r = e.getBoundingClientRect();"
        " return r.top >= 0 && r.bottom <= innerHeight; }"
    )
    check_page(page)
    assert world.auth.authenticate("alice", USER_PASSWORD) is not None  # unchanged

    page.get_by_role("tab", name="API keys").click()
    page.get_by_label("Key name").fill("   ")
    page.keyboard.press("Enter")
    page.locator("#key-name-error").wait_for()
    assert "needs a name" in page.locator("#key-name-error").inner_text()
    page.wait_for_load_state("load")
    assert page.get_by_label("Key name").evaluate("e => e === document.activeElement")
    check_page(page)
