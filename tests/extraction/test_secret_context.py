"""Secrets told by their context (memoryd.extraction.secret_context): recovery phrases,
security answers, one-time and lock codes, personal and bank numbers after a label.
Each class has secrets that must be dropped and look-alikes that must be kept."""

from __future__ import annotations

import pytest

from memoryd.extraction.secret_context import seed_phrases
from memoryd.extraction.secrets import secret_reason, secret_values

SECRETS = {
    "recovery phrase": [
        # a phrase for a locked thing, in Italian and Indonesian; an aside in brackets
        'the phrase for my backup drive is "seven owls read maps"',
        "frase d'accesso del NAS: la luna dorme sopra il porto",
        "frasa sandi dompet: gajah biru makan pisang goreng",
        "the disk passphrase (the long one, not the pin, ok?) is TangerineRiver",
        # a pass phrase however given after its label (secrets9): uncommon words after a
        # marker or a verb, joined words, a sentence typed with a capital and a number
        "the restic repo passphrase is three words: walnut gazebo lichen trombone",
        "gpg wanted a passphrase, I entered kettle-marmot-sextant-plume",
        "my keepass master password → Purple elephants never forget 41",
        "das Passwort fürs NAS lautet vier Wörter: Kompass Holunder Zwieback Ginster",
        "for the backup disk the phrase is Otter Saffron Cobweb Lantern, keep it safe",
        "the sentence we use to get into the router is Grumpy cats hate wet Mondays 57",
        # all twelve words listed, three of them common
        "wallet backup: orbit tackle much ribbon swamp very fatal humble case vessel glove pistol",
        # dashed words after a phrase label, a bracketed aside before its colon
        "frase secreta del disco: nube-roja-sobre-el-mar",
        "backup 패스프레이즈: 바다가-노래를-한다",
        "passphrase for the archive (the old one, not the new): paper lanterns drifting",
        # part of a phrase, after a word naming it
        "last four words of my wallet seed: tribe velvet oyster glide",
        "words 5 to 8 are canyon lemon frost pilot",
        "My Coinbase seed words: orbit tackle ribbon swamp fatal humble vessel glove "
        "pistol crane embark meadow",
        "keep these safe: 1. orbit 2. tackle 3. ribbon 4. swamp 5. fatal 6. humble "
        "7. vessel 8. glove 9. pistol 10. crane 11. embark 12. meadow",
        "passphrase = purple monkey dishwasher forever",
        "鍵のパスフレーズは「あおいそらとうみ」",
    ],
    "security answer": [
        # an answer given "as" the topic, a form's field and its value in CJK (secrets9)
        "At the branch I gave my mother's maiden name as Okonkwo for the phone checks",
        "安全问题答案：第一只宠物 旺财",
        # Indonesian: a mother's birth name, a security question; a cousin's or aunt's name,
        # a primary school, asked in the second person after the topic
        "nama ibu kandung aku itu Simanjuntak",
        "pertanyaan keamanan: kota kelahiran = Medan",
        'for "your aunt\'s middle name" I answered Rosalind',
        "form asks the name of your primary school, I put Greenfield",
        "pour « ville de naissance de votre mère » j'ai répondu Tlemcen",
        "the hint question is 'childhood hero' and I answered zorro77",
        # a security word; a topic written with a hyphen
        "the security word on my phone banking is marigold",
        "the first-pet answer for my bank is Biscuit",
        "If the bank asks my first school, the answer is Saint Mary's",
        "Security question answer for the credit union: Hollyhock",
        "For the bank's verification, my favourite teacher was Mrs Abernathy",
        "Respuesta a la pregunta de seguridad: Toledo",
        "Street you grew up on? I type 'Birchwood' every time",
        # a mother's maiden name, whoever asked; another classic topic given as on a form
        "mother's maiden name -> Schultz",
        "my mum's maiden name is Fairweather",
        "我妈妈的娘家姓是欧阳",
        "The town where my parents met → Sligo",
        "first dog's name: Pickles",
        # asked in the second person, for recovering an account, or as a security question
        "Mi primera mascota se llamaba Toby, es la respuesta de seguridad del banco",
        "on the bank form, for 'your first concert' I typed Radiohead",
        "the answer I gave to 'what city were you born in' was Dayton",
        "the verification question is my favourite film and I answered Amelie",
        "the account recovery answer is Juniper Hollow",
        # given with a verb of answering, in each language
        "à la question de sécurité j'ai répondu Moustache",
        "en la pregunta secreta escribí Pelusa",
        "bei der Sicherheitsfrage nach dem ersten Haustier habe ich Krümel eingegeben",
        "na pergunta de segurança escrevi Biscoito",
        "alla domanda segreta ho scritto Pallino",
        "安全问题的答案我写的是小白",
        "秘密の質問の答えは「たま」にした",
        "비밀번호 찾기 질문 답은 '나비'야",
        # a numbered question: "Q3"
        "Q3 favourite teacher => Mrs Hall",
    ],
    "one-time code": [
        # a numbered list after its label, a code answering a question (secrets9)
        "Dropbox recovery codes\n1. 4821 0937\n2. 5530 1186\n3. 7702 4419",
        "which code did it send? → 481903",
        # Indonesian; a spaced code a message says to use; a code of capital groups
        "kode OTP Tokopedia kamu 552 910",
        'SMS said "Enter 204 117 to verify"',
        "the sign-in code is QRT-MNP",
        # a TAN by its kind, a CJK verification number, a message's "Use ... to"
        "pushTAN: 58 21 90",
        "인증번호:5521 입력해 주세요",
        'the bank texted "Enter 551203 to approve the transfer"',
        "WhatsApp sent 482 915, do you need it?",
        "il codice che mi è arrivato è 558102",
        "o código que chegou por SMS é 381 552",
        "코드 770312 입력하면 돼",
        "Q-739105 is the code they texted me",
        "The 2FA backup codes are 4471-2209 and 9938-1120",
        "Your verification code: 883 142",
        "Código de verificación 774 201",
        "Der Bestätigungscode lautet 55 81 90",
        "验证码 482913",
        "인증번호 553 920 입니다",
        "the login link code they emailed me is ZK4-R7T",
    ],
    "password": [
        # a capital spelt, the password named a sentence on; Indonesian
        "capital R then abbit then 77. that is my netflix password",
        "kata sandi wifi rumah: melati2024",
        "I always forget it, so note this: my password is sunflower",
    ],
    "lock code": [
        "kode brankas kamar hotel 4-8-1-5",
        # a lock set to digits, a locker's combination, an entrance, digits in words
        "the bike lock is set to 5521",
        "Schließfach am Bahnhof: Kombination 12-40-07",
        "the side entrance is 40417 after 8pm",
        "il PIN della carta è tre otto uno cinque",
        # a lock said to be digits, with no word for its code
        "the shed padlock is 4 7 1 2 if you need the mower",
        "le boîtier à clés devant la maison c'est 2580",
        "スマホのロック解除は 041927",
        "the back door keypad takes 8806 then the tick",
        "The gym locker opens with 5519",
        "Le cadenas du vélo s'ouvre avec 3 8 1",
        "Der Code für das Garagentor ist 7 7 3 1",
        # keyed in, digit by digit
        "Garage: punch in 4, 4, 1, 7",
        "The alarm keypad: enter 7, 7, 3, 1",
    ],
    "id or bank number": [
        # Indonesian accounts and ids, a Korean bank by name; "Ausweis", "DMV ID", "PPS No"
        "nomor rekening BNI 0281736450 atas nama Sari",
        "tf ke BRI 4452019388471 ya",
        "NIK aku 3201234509870006",
        "신한 110-555-123456 으로 입금해줘",
        "Ausweis-Nr. L01X00T47",
        "DMV ID 555 12 3456",
        "my PPS number is 1234567T",
        # an SSN spaced; a Japanese kind of bank
        "her SSN is 212 48 7719",
        "信用金庫 普通 5820193 に振り込んで",
        # a long number in a sentence about a bank
        "wire it to my savings, account 004417829301 at Chase",
        "みずほ銀行 新宿支店 普通 1234567",
        "신한은행 110-123-456789 으로 보내줘",
        "工商银行 6222 0212 3456 7890",
        "pay it into BE68 5390 0754 7034",  # an IBAN's check digits, whatever the country's
        # python-stdnum's names without their country, and more ids in each language
        "my tax file number is 123 456 782",
        "my Social Insurance Number is 046 454 286",
        "número de contribuinte (NIF) 123 456 789",
        "permesso di soggiorno n. 123456789",
        "my DL number is D1234567",
        "RG SP-12.345.678",
        "주민번호 8001011234567",
        # by form, where a check digit makes it safe: a French NIR, a Korean RRN
        "2 55 08 14 168 025 38",
        "800101-1234560",
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
        "the seed packets say carrot, onion and lettuce",
        "I use a seed phrase backup on steel plates, stored in a safe place",
        "my passphrase: I never wrote it down anywhere",
        "all the rights that you have you must make sure that they know theirs",
        "Please buy milk, bread, eggs, butter, apples, rice, beans, coffee, tea, sugar, "
        "salt and oil",
    ],
    "security answer": [
        # a memory, not an answer: no security question, no form
        "my first dog's name is Pickles",
        "our first dog was called Biscuit and he loved the beach",
        "Mi primera mascota se llamaba Toby",
        "O meu primeiro cão chamava-se Rex",
        "我的第一只狗叫旺财",
        "最初のペットの名前はポチです",
        "첫 반려동물 이름은 초코",
        "my maiden name is Okonkwo, I took my husband's name",
        "My grandmother's maiden name was Welsh, I think",
        "my childhood nickname was Sprout because I was small",
        # talk of answering, with no answer
        "for my security questions I always use made-up answers",
        "bei der Sicherheitsfrage habe ich irgendwas angegeben",
        "en la pregunta de seguridad puse cualquier cosa",
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
        "npm ERR! code E403 when I publish",  # an error code after "code"
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
        # "tor" inside a word, a store's street number
        "the zip code is 60614 and the store never delivers",
        "door number 221 is the dentist",
        "the locker number is 117, next to the showers",
        "We moved the safe to the basement in 2019",
        "The garage door has been broken since 2022",
        "The gate code changed last week, I will ask for it",
        "I bought a padlock for 12 euros",
        "Il codice di abbigliamento è casual",
        "Press 1, 2 or 3 to choose a language",
        "The gate opens at 7:30 every morning",
    ],
    "id or bank number": [
        # a plate, a company's numbers (said to be published, or a company label), a hash
        "license plate 8KLM442 got towed last night",
        "the firm's EIN 12-3456789 is on every invoice",
        "numéro de TVA intracommunautaire : FR44732829320",
        "法人番号 8444839939933 は国税庁のサイトで公開されている",
        "bank sampah di RT kami buka jam 8, bawa 2 kg plastik",
        # a bank that keeps no money, a card issuer's prefix
        "the food bank's registration is 77-4410298",
        "which bank issues the BIN 411111?",
        # a bank's phone number, counts and amounts
        "call the bank on 0345 300 0000 about the card",
        "my bank has 250000 customers in Portugal",
        "the bank charged me 25000 won in fees",
        "I opened a savings account in 2018 with 500 euros",
        "my bank account was opened on 12.03.2019",
        "I moved 2000 dollars from savings to checking",
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
        # talk after a pass phrase's label, not a phrase (secrets9)
        "that passphrase was stored in plain text on the old server, sadly",
        "the vault passphrase needs at least twelve characters, doesn't it?",
        "my password manager browser extension update broke autofill",
        "we stopped sharing passwords anymore after the breach",
        # Indonesian: the word after a bare label names what it is for; a hint is no answer
        "aku lupa password wifi, harus ke mana?",
        "kode pos rumah aku 40115",
        "the password hint was 'where we met' and it didn't help",
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
