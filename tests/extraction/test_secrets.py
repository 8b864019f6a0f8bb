"""Secret detection (R13): credentials are recognised, ordinary facts are not."""

from __future__ import annotations

import pytest

from memoryd.extraction.secrets import secret_reason, secret_values


@pytest.mark.parametrize(
    "text",
    [
        "The OpenAI key is sk-proj-7fQ2mZx9LkP4vR8tW1yB3nC6dH0jS5aE.",
        "Anthropic key sk-ant-api03-abcdefghijklmnopqrstuvwx",
        "AWS access key AKIAIOSFODNN7EXAMPLE is used in CI.",
        "GitHub token ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "Slack bot token xoxb-123456789012-abcdefghijkl",
        "The admin password is Rye&Honey!2024",
        "Wi-Fi passcode: hunter22",
        "Her card is 4539 1488 0343 6467, exp 09/27.",
        "Card 4539-1488-0343-6467 is on file.",
        "The CVV is 318 for that card",
        "DB url postgres://app:s3cr3tpw@db.internal/app",
        "Token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
        "-----BEGIN RSA PRIVATE KEY----- MIIEpAIBAAKCAQEA",
        "The deploy secret is 9f8e7d6c5b4a39281706f5e4d3c2b1a0ffee",
    ],
)
def test_credentials_are_recognised(text: str) -> None:
    assert secret_reason(text) is not None


@pytest.mark.parametrize(
    "text",
    [
        "Priya stores money as integer cents, never floats.",
        "The password reset flow must ship by March 14.",
        "Passwords are stored in 1Password by the team.",
        "The API key is loaded from an environment variable.",
        "Jamal flies to Lisbon on November 11 to 14.",
        "The service handles 200000 log lines per second.",
        "Call the office at +44 20 7946 0958 on weekdays.",
        "The ticket number is 1234567812345678 in Jira.",  # fails the Luhn check
        "CI uses actions-runner-controller in the EKS cluster.",
        "The token limit of the model is 128000.",
    ],
)
def test_ordinary_facts_are_not_secrets(text: str) -> None:
    assert secret_reason(text) is None


def test_a_secret_from_the_chats_is_caught_when_repeated_in_other_words() -> None:
    chats = [
        "The admin login is elena.admin and the password is Rye&Honey!2024 if you need it.",
        "My card is 4539 1488 0343 6467, exp 09/27, CVV 318.",
    ]
    known = secret_values(chats)
    assert {"Rye&Honey!2024", "4539 1488 0343 6467"} <= known
    assert secret_reason("Elena's WordPress login uses Rye&Honey!2024", known)
    assert secret_reason("Jamal pays with 4539148803436467", known)
    assert secret_reason("Elena owns a bakery called Crumb & Co.", known) is None


@pytest.mark.parametrize(
    "text",
    [
        # a hex string in talk of commits, builds and digests
        "Commit 4e2d9a1 fixed the sign-in redirect.",
        "git bisect blames 77c0de3 for the login crash.",
        "The login proxy image digest is 5d41402abc4b2a76b9719d911017c592ae3f1c0e",
        # algorithm, standard and product names next to a credential word
        "We hash every password with PBKDF2 and a random salt.",
        "The login cookie is sealed with HMAC-SHA256.",
        "Passwords are hashed with Argon2id before they are stored.",
        "My login works on my Pixel9 and the work laptop.",
        # versions and UUIDs
        "The login fix ships in v4.2.0-rc1.",
        "The failed sign in has request id 0f8fad5b-d9cb-469f-a165-70867728950e.",
        # an ordinary word after "my password", in each language
        "J'ai réinitialisé mon mot de passe hier.",
        "Eu troquei a minha senha ontem.",
        "Cambié mi contraseña ayer.",
        "Ich ändere mein Passwort morgen.",
        "Ho cambiato la mia password ieri.",
        # "code" that names a public kind of code
        "The item code 30917 is sold out.",
        "El código postal es 08001.",
    ],
)
def test_look_alikes_of_new_kinds_are_kept(text: str) -> None:
    assert secret_reason(text) is None, secret_reason(text)


@pytest.mark.parametrize(
    "text",
    [
        "My password is sunshine.",  # a dictionary word the sentence says is the password
        "Le mot de passe de la box est citron.",
        "Wi-Fi network Aurora, password lighthouse",  # a bare label, then the value
        "My password is 7c3e9a1f0b",  # hex, labelled
        "Our deploy token is 1b4e28ba-2fa1-11d2-883f-0016d3cca427",  # a UUID as a key
        "The build server's API token is 7d1e9c3a2b4f5e6d7c8b9a0f1e2d3c4b5a6f7e8d",
        "Le digicode de l'immeuble est 45B12",
        "Der Türcode ist 5582",
    ],
)
def test_secrets_of_new_kinds_are_dropped(text: str) -> None:
    assert secret_reason(text) is not None


@pytest.mark.parametrize(
    "text",
    [
        "my pin... 4417",  # an ellipsis is a pause, not the end of the sentence
        "the password... it's hunter22",
        "the guest wifi key: sunnyday2024",  # a password-shaped word after "key"
        "La clé du wifi est soleil2024",
        "Windows product key: VK7JG-NPHTM-C97JM-9MPGT-3V66T",
        "my laptop's disk encryption key is 4f9a-77c2-b1e0",
        "Netflix sign-in code: K9X2M7",  # capitals and digits after "code:"
        "Le cryptogramme de ma carte est 318",  # the card code's names
        "Die Prüfnummer meiner Karte ist 318",
        "El código de seguridad de mi tarjeta es 902",
        "卡的安全码是 455",
        # a common word, then a word that starts a new clause: still the value
        "my password is sunshine and I never change it",
        "the password is pineapple lol",
        "password is tiger but with a capital T",
        "La contraseña del portátil es manzana, no se lo digas a nadie",
        # a pass phrase's words go on
        "my vault passphrase is quiet river under stone",
        # a setup key after a bracketed aside, gift card codes, a CJK number word
        "TOTP setup key (paste it if scanning fails): ab2c d3ef gh4i jk5l",
        "Xbox gift card code: 7HKW2PQZ9XRT4MFD",
        "Steamカードのコード QW7E-R9TYUP-2ZXC",
        "PIN 번호 5521-8830",
        # gift card codes in spaced or dashed groups, a PIN after "#" (secrets9)
        "Roblox card PIN QX7K 2MPL 9TRW 4VN8",
        "Gutschein für Papa: K4TR-9XMW2P-77QD",
        "pin# 6650 for the garage opener",
    ],
)
def test_secrets_by_label_in_more_forms_are_dropped(text: str) -> None:
    assert secret_reason(text) is not None


@pytest.mark.parametrize(
    "text",
    [
        # a common word the clause goes on from: talk about the password
        "My password is pretty secure, I think",
        "My password is basically my dog's name plus a number",
        "Le mot de passe est affiché sur l'écran",
        "Das Passwort ist irgendwo im Schrank",
        "A senha é a mesma de sempre",
        "La password è scritta sul frigo",
        "The recovery phrase is usually twelve words",
        # adjectives about a password in the other languages
        "Mi contraseña es fuerte, la cambio cada año",
        # no Latin letter or digit after a CJK label: a sentence, not a password
        "密码：上周已经换了",
        "비밀번호: 지난주에 바꿨어요",
        # "key" before digits or a model's capitals
        "The hotel key card for room 1204 stopped working",
        "My car key fob model is HX2021B",
        "I need a USB key with 64GB",
        # a hex digest named by its algorithm (hashlib's names)
        "the MD5 of the file is 9e107d9d372bb6826bd81d3542a419d6",
        # letter codes of public kinds, or not after "is" or a colon
        "The coupon code is SUMMER25",
        "The course code is CS2040",
        # a fingerprint in hex groups, a product name with a question mark, a masked
        # value after "=", a test card by its brand, a number from the bank's site (secrets9)
        "SSH host fingerprint: 9C1E 44AB 07F2 D3E8 6A5B 1F90 C2D4 8E37 05BA 6F11",
        "is my LastPass vault safe to move to 1Password?",
        "OPENAI_API_KEY=sk-proj-xxxxxxxxxxxxxxxx goes in the .env file, right?",
        "5555 5555 5555 4444 is the standard test Mastercard for sandbox checkout",
        "the BSB for my branch is 062000 according to the website",
        "someone asked for my recovery phrase to 'unlock a bonus' — obviously a scam",
    ],
)
def test_talk_and_look_alikes_of_labelled_secrets_are_kept(text: str) -> None:
    assert secret_reason(text) is None, secret_reason(text)


# Sentence-wide values (secrets5): a value anywhere in a sentence that talks of a
# credential, not only right after its label.
@pytest.mark.parametrize(
    "text",
    [
        "for the router I ended up with Kestrel88 as the admin password",
        "my work password, which IT made me change today, is now Plover#2027",
        "j'ai choisi Tournesol93 comme mot de passe pour la box",
        "ich nehme Wanderlust77 als Passwort für das Forum",
        "my banking app pin is the year dad was born, 1962",
        "o PIN do cartão novo ficou 5820, não conta pra ninguém",
        "den Sicherheitscode auf der Rückseite, 482, brauchst du für die Buchung",
        # a credential by what it does, or by its name in each language
        "the word that opens the shared drive is 'lanterns over the harbour'",
        "la chiave di rete del modem è 7B2C91AF04",
        "la clé réseau de la box est 4F7A9C21B0",
        "ログインのパスは neko2020 だよ",
        # a provider's prefix and a random body
        "my replicate token is r8_Fg7KwPqZ2mTsVx9LbNcHd4YjRu6EaWoQi",
        # a value a sentence on, a misspelt label, an account and its password
        "locked out of the forum again. the pw was r4ven_song",
        "my pasword for the bank is Tulip_42",
        "Netflix: Br1ghtM00n7",
        # a spelt capital, what a thing unlocks with, a command line, a licence key
        "the password is capital K, then cobalt, then 88",
        "the backup drive unlocks with 'seven lanterns over the bay'",
        "the phrase I log in with is 'tea before dawn'",
        "curl --user ops:Blue-Harbor9 https://example.org/api",
        "Office key: 7QK4M-P2XW9-HN8RT",
        "カードの裏の3桁は 227",
    ],
)
def test_a_value_anywhere_in_a_sentence_about_a_credential_is_dropped(text: str) -> None:
    assert secret_reason(text) is not None


@pytest.mark.parametrize(
    "text",
    [
        # the sentence's own words with their punctuation, counts, years, amounts
        "did the bank really ask for my password, right?",
        "should I change my PIN on Monday?",
        "my password has to be 16 characters now, since 2023",
        "my password is older than 2015, I should change it",
        "changed my password 15 times this year, ridiculous",
        "the PIN reader at the shop costs $249",
        "our door code system was installed in 2019 for 1200 euros",
        "the season ticket pass was €450 this year",
        "パスワードは10文字以上にしてください",
        "密码至少要12位",
        # another subject for the marker: a noun after the label, a new clause
        "the password game on the show was hilarious",
        "le mot de passe doit avoir 12 caractères, c'est long",
        # public kinds of code, in each language and either order
        "il codice del corso è 4478",
        "o código de barras termina em 7891",
        "der Fehlercode 4012 erscheint am Drucker",
        "the HS code for bicycles is 8712",
        "my flight confirmation number is 55721409",
        "the locker number is 221 at the gym",
        # a name with a plus, a service after "my password", a map's pin, a PIN pad
        "should I share my Paramount+ password with my roommate?",
        "J'ai oublié mon mot de passe Doctolib, encore une fois.",
        "our house is 2231, I'll drop a pin on the map",
        "the PIN pad froze, just like 2017",
    ],
)
def test_counts_amounts_and_public_codes_near_credential_words_are_kept(text: str) -> None:
    assert secret_reason(text) is None, secret_reason(text)


@pytest.mark.parametrize(
    "text",
    [
        # a placeholder, an example, a test or a public value stands for a secret
        "replace YOUR_API_KEY with the real one in config.yaml",
        "the README shows ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx as the token",
        "the docs show sk_test_4eC39HqLyjWDarjtT1zdp7dcQwXYz as the example key",
        "Stripe's test card 4000 0566 5566 5556 works in the sandbox",
        "the quickstart uses mysql://root:password@localhost/app",
        "the public key is ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7xq9 bob@host",
        "send the tip to my ETH address 0x52908400098527886E0F7030069857D2E4169EE7",
        "base64 of 'user profile' is dXNlciBwcm9maWxl",
        "the token header decodes fine: eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9",
        "for testing we use 4242 4242 4242 4242 with any CVC",
        "the host key is SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s, right?",
        # a test IBAN, CJK example words on their noun, a 0x hash, a host's part, a stored hash
        "the test IBAN DE89 3704 0044 0532 0130 00 fails validation",
        "テスト用カード番号 4000 0000 0000 0002 で試した",
        "tx hash 0x5f3c8e21a9b04d6677e1f0c2b3a4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6 pending",
        "client id 1234567890-abcdefghijklmnopq.apps.googleusercontent.com for the web app",
        "bcrypt stores $2b$10$N9qo8uLOQ7.abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLM per user",
        "which file holds the ssh key for the server, authorized_keys?",
    ],
)
def test_values_that_stand_for_a_secret_are_kept(text: str) -> None:
    assert secret_reason(text) is None, secret_reason(text)
