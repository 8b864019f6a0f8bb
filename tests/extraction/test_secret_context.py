"""Secrets told by their context (memoryd.extraction.secret_context): recovery phrases,
security answers, one-time and lock codes, personal and bank numbers after a label.
Each class has secrets that must be dropped and look-alikes that must be kept."""

from __future__ import annotations

import pytest

from memoryd.extraction.secret_context import seed_phrases
from memoryd.extraction.secrets import secret_reason, secret_values

SECRETS = {
    "recovery phrase": [
        "My Coinbase seed words: orbit tackle ribbon swamp fatal humble vessel glove "
        "pistol crane embark meadow",
        "keep these safe: 1. orbit 2. tackle 3. ribbon 4. swamp 5. fatal 6. humble "
        "7. vessel 8. glove 9. pistol 10. crane 11. embark 12. meadow",
        "passphrase = purple monkey dishwasher forever",
        "鍵のパスフレーズは「あおいそらとうみ」",
    ],
    "security answer": [
        "If the bank asks my first school, the answer is Saint Mary's",
        "Security question answer for the credit union: Hollyhock",
        "For the bank's verification, my favourite teacher was Mrs Abernathy",
        "Respuesta a la pregunta de seguridad: Toledo",
        "Street you grew up on? I type 'Birchwood' every time",
        # a classic topic said with a name, whoever asked
        "my first dog's name is Pickles",
        "mother's maiden name -> Schultz",
        "The town where my parents met → Sligo",
        "Mi primera mascota se llamaba Toby",
        "O meu primeiro cão chamava-se Rex",
        "我的第一只狗叫旺财",
        "最初のペットの名前はポチです",
        "첫 반려동물 이름은 초코",
        # a numbered question: "Q3"
        "Q3 favourite teacher => Mrs Hall",
    ],
    "one-time code": [
        "The 2FA backup codes are 4471-2209 and 9938-1120",
        "Your verification code: 883 142",
        "Código de verificación 774 201",
        "Der Bestätigungscode lautet 55 81 90",
        "验证码 482913",
        "인증번호 553 920 입니다",
        "the login link code they emailed me is ZK4-R7T",
    ],
    "password": [
        "I always forget it, so note this: my password is sunflower",
    ],
    "lock code": [
        "The gym locker opens with 5519",
        "Le cadenas du vélo s'ouvre avec 3 8 1",
        "Der Code für das Garagentor ist 7 7 3 1",
        # keyed in, digit by digit
        "Garage: punch in 4, 4, 1, 7",
        "The alarm keypad: enter 7, 7, 3, 1",
    ],
    "id or bank number": [
        "My Aadhaar is 2345 6789 0123",
        "My NHS number is 943 476 5919",
        "PESEL 44051401359",
        "PAN: AFZPK7190K",
        "Bankleitzahl 370 400 44, Kontonummer 0532 0130 00",
        "numéro de compte 0001 2345 678",
        "conta corrente 0012345-6 agência 1234",
        "conto corrente n. 000098765432",
        "口座番号 4471920",
        # a document number right after its label (ICAO 9303: capitals and digits)
        "Reisepassnummer: C01X00T47",
        # a kind of number a stdnum module lists as covered: EIN under the U.S. TIN
        "Employer ID (EIN): 98-7654321",
        # the value after a marker a few words on
        "passport, just in case: 533380006",
        "運転免許証番号 123456789012",
    ],
}

LOOK_ALIKES = {
    "recovery phrase": [
        "I use a seed phrase backup on steel plates, stored in a safe place",
        "my passphrase: I never wrote it down anywhere",
        "all the rights that you have you must make sure that they know theirs",
        "Please buy milk, bread, eggs, butter, apples, rice, beans, coffee, tea, sugar, "
        "salt and oil",
    ],
    "security answer": [
        "My first pet was a hamster, I loved him",
        "I should pick better security questions, first pet is too easy",
        "La pregunta de seguridad de mi banco es muy fácil de adivinar",
        "The bank asked me about my first school, I laughed",
        # a kind, not a name, for a topic that is a thing
        "My first car was a used Honda",
        "My first school is now a museum",
        "我的第一只宠物是一只乌龟",
        "初めてのペットは猫でした",
        "첫 반려동물은 강아지였어",
        "The security question was about my first pet",
    ],
    "one-time code": [
        "I turned on 2FA for my GitHub account in 2021",
        "SMS codes are 6 digits and expire after 10 minutes",
        "The SMS from the bank said my card ending 4821 was used",
        "The SMS plan costs 1299 yen a month",
        "Verification of the 2023 accounts is done",
        "Verification: passed on 12 March, flight BA2490 booked",
        "The 2FA code arrived after 45 seconds",
        "验证码一直收不到",
    ],
    "lock code": [
        "We moved the safe to the basement in 2019",
        "The garage door has been broken since 2022",
        "The gate code changed last week, I will ask for it",
        "I bought a padlock for 12 euros",
        "Il codice di abbigliamento è casual",
        "Press 1, 2 or 3 to choose a language",
        "The gate opens at 7:30 every morning",
    ],
    "id or bank number": [
        "The ICE 578 train to Berlin was late",
        "Mein Konto hat 2500 Euro Guthaben",
        "La cuenta del restaurante fue de 85 euros",
        "我的账号被锁了",
        # a model's number after an id label, a window's letter
        "The ID card reader model is XR2000",
        "I renewed my passport at window B12",
        "Account ABC123 was suspended",
    ],
    "credential talk": [
        "Passwort: weiß ich nicht mehr, ich habe es vergessen",
        "Mi PIN: no me acuerdo, lo olvidé",
        "I reset my password. Then I upgraded to Python3.12 on the laptop",
    ],
}


@pytest.mark.parametrize(
    "text", [t for texts in SECRETS.values() for t in texts], ids=lambda t: t[:30]
)
def test_secrets_told_by_context_are_dropped(text: str) -> None:
    assert secret_reason(text) is not None


@pytest.mark.parametrize(
    "text", [t for texts in LOOK_ALIKES.values() for t in texts], ids=lambda t: t[:30]
)
def test_look_alikes_of_context_secrets_are_kept(text: str) -> None:
    assert secret_reason(text) is None, secret_reason(text)


def test_a_recovery_phrase_is_recognised_with_a_word_or_two_off_the_list() -> None:
    phrase = "orbit tackle ribbon swamp fatal humble vessel glove pistol crane embark meadowy"
    assert seed_phrases(phrase)
    # its words are remembered, so a candidate repeating them is dropped as well
    values = secret_values([f"seed: {phrase}"])
    assert secret_reason(f"The wallet words are {phrase}", values) is not None
