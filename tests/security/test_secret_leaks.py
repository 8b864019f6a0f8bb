"""Attack class: getting secrets and personal identifiers stored as memories (item 1).

The lines the attack runs got stored are refused now, however spaced, worded or written
(and in the languages memoryd serves); harmless look-alikes are kept; a run given them
stores nothing and its history never quotes them; an admin's own patterns count; a bad
pattern or provider name is refused when saved.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from memoryd.extraction.secrets import secret_reason, secret_values
from memoryd.models.embedding.minilm import MiniLMEmbedder
from memoryd.testing import FakeOpenAIServer
from support.extraction import Clock, make_md, observe
from support.server import World

STORED_BY_THE_ATTACK_RUN = [
    "For my bank login I use the password Tr0ub4dor&3",
    "I log into staging as root with hunter2hunter2",
    "My social security number is 078-05-1120",
    "door code 4-8-2-1-9, alarm code 7731",
    "The user's bank password is Tr0ub4dor&3.",
    "My IBAN is DE89 3704 0044 0532 0130 00",
    "The verification code is 482913",
    "My PIN is 4921",
    "p\u200bassword: hunter2hunter2",  # an invisible character in the label
]
# Issue 37 item 1: stored with the bundled model and with the fake LLM at 4ba7ee1.
STORED_IN_ROUND_4 = [
    "My password is h u n t e r 2 2.",
    "I use correct horse battery staple as the passphrase for my bank.",
    "My card number is 4111.1111.1111.1111.",
    "My new password will be Marigold.",
    "my password's Peregrine",
    "The password for the wifi is lemonade-stand",
    "password starts with Tr0ub",
    "My mother's maiden name is Smithers.",
    "For the bank's security question, my first pet's name is Biscuit.",
    "My IBAN is GB29 NWBK 6016 1331 9268 19",
    "Mon mot de passe est soleil2024",
    "Mi contraseña es girasol88",
    "Mein Passwort lautet Schmetterling7",
    "A minha senha é pastel123",
    "Il mio codice fiscale è RSSMRA85T10A562S",
    "我的密码是 panda1234",
    "私のパスワードは sakura2024 です",
    "제 비밀번호는 haneul77 입니다",
]
LOOK_ALIKES = [
    "I changed my password yesterday",
    "my card was declined",
    "My first pet was a hamster called Nibbles",
    "J'ai oublié mon mot de passe",
    "my flight is LH 4821",
    "room 7731",
    "The password policy requires 12 characters",
    "The zip code of the office is 10115",
    "Use promo code WELCOME10 at checkout",
    "My order number is 112-4451239-7731002",
]


@pytest.mark.parametrize("text", STORED_BY_THE_ATTACK_RUN)
def test_secrets_the_attack_run_stored_are_refused(text: str) -> None:
    assert secret_reason(text) is not None


@pytest.mark.parametrize("text", STORED_IN_ROUND_4)
def test_secrets_however_spaced_worded_or_written_are_refused(text: str) -> None:
    assert secret_reason(text) is not None


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_harmless_look_alikes_are_kept(text: str) -> None:
    assert secret_reason(text) is None


def test_a_secret_value_is_caught_when_a_candidate_repeats_it() -> None:
    known = secret_values(["I log into staging as root with hunter2hunter2"])
    assert "hunter2hunter2" in known
    assert secret_reason("Staging root uses hunter2hunter2", known)
    known = secret_values(["door code 4-8-2-1-9, alarm code 7731"])
    assert secret_reason("The alarm is 7731", known)


def test_an_admins_pattern_is_applied_and_its_group_becomes_a_known_secret() -> None:
    pattern = r"\bproject (bluebird)\b"
    assert secret_reason("We work on project bluebird") is None
    reason = secret_reason("We work on project bluebird", extra_patterns=[pattern])
    assert reason == "matches an admin's secret pattern"
    known = secret_values(["codename: project bluebird"], extra_patterns=[pattern])
    assert secret_reason("Bluebird ships soon", {"bluebird"}) is None  # case kept exact
    assert "bluebird" in known


def test_admin_patterns_are_a_setting_checked_when_saved(world: World) -> None:
    ok = world.call("admin", "PATCH", "/api/v1/settings", json={"secret_patterns": [r"\bACME-\d+"]})
    assert ok.status_code == 200, ok.text
    assert ok.json()["secret_patterns"] == [r"\bACME-\d+"]
    bad = world.call("admin", "PATCH", "/api/v1/settings", json={"secret_patterns": ["(unclosed"]})
    assert bad.status_code in (400, 422) and "regular expression" in bad.text
    user = world.call("alice", "PATCH", "/api/v1/settings", json={"secret_patterns": ["x"]})
    assert user.status_code == 403


def test_extraction_provider_must_be_a_registered_provider(world: World) -> None:
    """Item 18: an admin cannot point extraction at an arbitrary URL."""
    bad = world.call(
        "admin", "PATCH", "/api/v1/settings", json={"extraction_provider": "http://evil.example"}
    )
    assert bad.status_code in (400, 422) and "unknown LLM provider" in bad.text
    assert world.md.get_settings()["extraction_provider"] == ""
    ok = world.call("admin", "PATCH", "/api/v1/settings", json={"extraction_provider": "openai"})
    assert ok.status_code == 200


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as srv:
        yield srv


def test_a_run_stores_none_of_them_and_its_history_never_quotes_them(
    sqlite_url: str, fake_llm: FakeOpenAIServer, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    with make_md(sqlite_url, fake_llm, tmp_path, embedder, Clock()) as md:
        ana = md.create_user("ana").id
        md.create_workspace("lab")
        for line in STORED_IN_ROUND_4[:8]:
            md.record_chat(ana, "lab", line, "Noted.")
        fake_llm.script(observe(range(1, 9), []), observe(range(1, 9), []))

        result = md.extract(ana, "lab", force=True)

        assert md.list_memories(ana) == []
        history = json.dumps([r.pairs for r in md.extraction_runs()]) + json.dumps(result.to_dict())
        for secret in ("hunter", "horse battery", "4111", "Marigold", "Peregrine", "Smithers"):
            assert secret not in history
        sent = " ".join(str(r) for r in fake_llm.requests)
        assert "Smithers" not in sent and "Marigold" not in sent  # never shown to the model
