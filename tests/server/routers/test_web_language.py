"""The web UI in the reader's language (issue 35): the user's own language, else the
browser's Accept-Language, else the server's MEMORYD_LANGUAGE, else English; the account
tab sets the language, and the message a form post comes back with is in it too."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.server.web.i18n import from_header
from support.server import World, build_world, make_settings
from support.web import flash_of, get_page, post_form, session_cookie


def _lang(page: Any) -> str:
    found = re.search(r'<html lang="([^"]+)">', page.text)
    assert found is not None
    return found.group(1)


def _as(world: World, who: str | None, path: str, accept: str) -> Any:
    headers = {"Accept-Language": accept}
    if who is not None:
        headers["Cookie"] = session_cookie(world, who)[0]
    response = world.client.get(path, headers=headers, follow_redirects=False)
    world.client.cookies.clear()
    return response


def test_a_user_who_chose_french_gets_every_page_in_french(world: World) -> None:
    world.md.set_language_preference(world.ids["alice"], "fr")
    account = get_page(world, "alice", "/?panel=account")
    assert account.status_code == 200 and _lang(account) == "fr"
    for french in ("Ma langue", "Se déconnecter", "Apprentissage à partir de vos conversations"):
        assert french in account.text
    for english in ("Sign out", "My language", "Skip to content"):
        assert english not in account.text
    selected = re.search(r'<option value="fr" lang="fr" selected>Français</option>', account.text)
    assert selected is not None
    # a translation inside an attribute stays inside it (the key's name included)
    revoke = re.search(r'data-confirm="(Révoquer la clé « [^"]+ » \?[^"]*)"', account.text)
    assert revoke is not None and "cesseront de fonctionner" in revoke.group(1)
    activity = get_page(world, "alice", "/activity")
    assert "<h1>Activité</h1>" in activity.text and "Filtres" in activity.text


def test_the_browsers_language_when_the_user_chose_none(world: World) -> None:
    page = _as(world, "bob", "/activity", "de-DE,de;q=0.9,fr;q=0.8,en;q=0.5")
    assert _lang(page) == "fr"  # German has only its heading: the next language the UI speaks
    assert "Effacer les filtres" in page.text or "Afficher" in page.text
    signed_out = _as(world, None, "/login", "fr-CA")
    assert _lang(signed_out) == "fr" and "Se connecter" in signed_out.text
    world.md.set_language_preference(world.ids["bob"], "en")  # their own choice wins
    assert _lang(_as(world, "bob", "/activity", "fr")) == "en"
    world.md.set_language_preference(world.ids["bob"], "auto")  # a turn's language: not a page's
    assert _lang(_as(world, "bob", "/activity", "fr")) == "fr"
    assert _lang(_as(world, "bob", "/activity", "xx, *")) == "en"


@pytest.fixture
def french_server(tmp_path: Path, embedder: MiniLMEmbedder) -> Iterator[World]:
    world = build_world(make_settings(tmp_path, language="fr"), embedder)
    with world.client:
        yield world
    world.md.close()


def test_the_servers_language_when_neither_says(french_server: World) -> None:
    login = get_page(french_server, None, "/login")
    assert _lang(login) == "fr" and "Nom d’utilisateur" in login.text
    assert _lang(_as(french_server, None, "/login", "en-GB,en")) == "en"


def test_the_account_tab_sets_the_language_and_answers_in_it(world: World) -> None:
    alice = world.ids["alice"]
    done = post_form(world, "alice", "/ui/language", {"language": "fr"})
    assert flash_of(done) == {"level": "ok", "text": "Langue enregistrée."}
    assert world.md.language_preference(alice) == "fr"
    french = get_page(world, "alice", "/activity?change=settings").text
    assert "Langue : selon le réglage du serveur → Français" in french
    refused = post_form(world, "alice", "/ui/language", {"language": "klingon"})
    assert flash_of(refused) == {"level": "error", "text": "Choisissez une langue dans la liste."}
    post_form(world, "alice", "/ui/language", {"language": "default"})
    assert world.md.language_preference(alice) is None
    entries = get_page(world, "alice", "/activity?change=settings")
    assert "Language: Français → as the server is set" in entries.text


def test_a_french_admin_reads_the_admin_panel_in_french(world: World) -> None:
    world.md.set_language_preference(world.ids["admin"], "fr")
    for tab, words in (
        ("users", "Ajouter un utilisateur"),
        ("workspaces", "Créer un espace de travail"),
        ("extraction", "Lancer maintenant"),
        ("settings", "Enregistrer les réglages"),
    ):
        page = get_page(world, "admin", f"/admin?tab={tab}")
        assert page.status_code == 200 and words in page.text, tab
    deleted = post_form(world, "admin", "/ui/workspaces/beta/delete", {"confirmed": "yes"})
    assert flash_of(deleted)["text"] == (
        "Espace de travail beta supprimé, avec ses souvenirs et ses conversations."
    )


def test_accept_language_is_read_by_weight_and_bounded() -> None:
    assert from_header("en;q=0.1, fr;q=0.9") == "fr"
    assert from_header("fr;q=x, en") == "en"
    assert from_header("") is None and from_header("de, ja") is None
    assert from_header(",".join(["xx"] * 10_000) + ",fr") is None  # only the first 20


def test_the_rest_api_and_the_cli_show_the_choice(world: World) -> None:
    patched = world.call("bob", "PATCH", "/api/v1/me", json={"language": "ja"})
    assert (patched.json()["language"], patched.json()["language_effective"]) == ("ja", "ja")
    bad = world.call("bob", "PATCH", "/api/v1/me", json={"language": "klingon"})
    assert bad.status_code == 422
    back = world.call("bob", "PATCH", "/api/v1/me", json={"language": "default"}).json()
    assert (back["language"], back["language_effective"]) == ("default", "en")


def test_the_history_page_in_french(world: World) -> None:
    world.md.set_language_preference(world.ids["alice"], "fr")
    page = get_page(world, "alice", "/import")
    assert page.status_code == 200 and _lang(page) == "fr"
    assert "Importer un historique de conversations" in page.text
    assert "Apporter votre historique" in page.text  # the menu's link to it
    refused = post_form(world, "alice", "/ui/facts", {"facts": "", "workspace": "nope"})
    assert flash_of(refused)["text"].startswith("Aucun fait n’a été ajouté : ")


SCRIPTS = Path(__file__).resolve().parents[3] / "src/memoryd/server/web/static"


def _script_words(page: Any) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="i18n">(.*?)</script>', page.text)
    assert found is not None
    words: dict[str, Any] = json.loads(found.group(1))
    return words


def test_the_memories_chat_and_detail_in_french(world: World) -> None:
    alice = world.ids["alice"]
    world.md.set_language_preference(alice, "fr")
    chat = world.md.record_chat(alice, "alpha", "I play the cello.", "Nice!")
    memory = world.md.add_memory(alice, "Plays the cello", source_chat_ids=[chat.id])
    world.md.record_chat(alice, "alpha", "A hall?", "The Gulbenkian.", memory_ids=[memory.id])
    panel = get_page(world, "alice", f"/?panel=memories&detail={memory.id}").text
    for french in (
        "Suggestions à relire",
        "Détails et historique",
        "Ajouter à Global",
        "Déplacer vers",
        "Supprimer ce souvenir ? « Plays the cello »",
        "Issu de ces conversations",  # the memory's detail
        "Se souvenir jusqu’au",
        "Utilisé dans les conversations",
    ):
        assert french in panel, french
    shown = re.sub(r'<script type="application/json" id="i18n">.*?</script>', "", panel)
    for english in ("Suggestions to review", "Details and history", "Came from these chats"):
        assert english not in shown
    page = get_page(world, "alice", "/chat/alpha").text
    for french in (
        "Effacer l’historique",
        "Supprimer vos 2 échanges dans Alpha ?",
        ">Envoyer</button>",
        "Répondu avec 1 souvenir",
        "C’est faux",
    ):
        assert french in page, french
    assert "Clear history" not in page and "Send a message" not in page


def test_the_scripts_words_arrive_translated(world: World) -> None:
    world.md.set_language_preference(world.ids["alice"], "fr")
    words = _script_words(get_page(world, "alice", "/chat/alpha"))
    assert words["Thinking…"] == "Réflexion…"
    assert words["Could not load this memory: %(error)s"].startswith("Impossible de charger")
    used = words["%(num)d memory used (reload the page to see which)."]
    assert used["one"].startswith("%(num)d souvenir utilisé") and "lesquels" in used["other"]
    # every word the scripts translate is in the block (the rest show in English)
    asked = set()
    for script in ("memoryd.js", "chat.js"):
        asked |= set(re.findall(r'\btn?\(\s*"([^"]+)"', (SCRIPTS / script).read_text()))
    assert asked - {"english"} <= set(words) and len(asked) > 30
    english = get_page(world, "bob", "/chat/alpha").text
    assert 'id="i18n"' not in english  # an English page: the scripts' own words


def test_a_run_that_fails_to_start_says_why_in_the_readers_language(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("the disk is gone")

    monkeypatch.setattr("memoryd.server.web.admin_actions.run_now", broken)
    world.md.set_language_preference(world.ids["admin"], "fr")
    message = flash_of(post_form(world, "admin", "/ui/extraction/run", {}, back="/admin"))
    assert "une erreur inattendue (RuntimeError)" in str(message), message
