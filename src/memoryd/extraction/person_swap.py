"""A memory in the user's own words, where a language lets code write it (R21).

In Chinese, Japanese, Korean and Indonesian a verb does not change with its person, so
"我对花生过敏" becomes "用户对花生过敏" by putting the user where the sentence says "I";
French verbs take the third person by a rule of their ending ("je fais" -> "fait").
Spanish, Italian, Portuguese and German verbs cannot be told so without a dictionary.
The bundled 1.5B model, asked to rewrite such a sentence, sometimes garbles or reverses
it, so it only says whether the sentence holds a fact, and code writes the note
(``rewrite.rewrite``). A sentence that does not open with "I", or has "we", "you" or a
pronoun joined to a word (Indonesian "-ku"), keeps the model's note. Pure functions.
"""

from __future__ import annotations

import re

from memoryd.domain.language import FIRST_PERSON, SECOND_PERSON, SUBJECT, per_language

__all__ = ["swap_person"]

# "I" and its forms, each with what the user's name becomes there (Korean and Japanese
# keep the particle; "my" is the user's).
_I: dict[str, list[tuple[str, str]]] = {
    "zh": [(r"我", "用户")],
    "ja": [(r"(?:私(?![立服物鉄的用])|わたし|僕|俺)", "ユーザー")],
    "ko": [
        (r"(?<![가-힣])(?:저|나)(?=(?:는|가|도|를|의|에게|한테)(?![가-힣]))", "사용자"),
        (r"(?<![가-힣])(?:제|내)가(?![가-힣])", "사용자가"),
        (r"(?<![가-힣])(?:제|내)(?= )", "사용자의"),
        (r"(?<![가-힣])난(?= )", "사용자는"),
    ],
    "id": [(r"\b(?:saya|aku)\b", "pengguna")],
}
# What code cannot write: "we" and "our", a pronoun joined to a word (Indonesian "-ku",
# "-mu", and "-nya", which points at a thing said before: "mencobanya"), and words that
# hold the character of "I" without meaning it (自我 "self", 我国 "our country").
_UNSURE = per_language(
    {
        "zh": r"我们|咱|我国|自我|你|您",
        "ja": r"私たち|僕たち|僕ら|俺たち|我々|わたしたち",
        "ko": r"우리|저희",
        "id": r"\b(?:kami|kita)\b|\w(?:ku|mu)\b(?<!\baku)|\w{3,}nya\b(?<!tanya)",
    }
)
# A reply's opening words the fact does without: yes, no, oh, hello when a comma or a stop
# follows ("不，我喜欢猫" but not "不喜欢狗"), and "and", "but", "so", "well".
_OPENING = per_language(
    {
        "zh": r"^(?:(?:嗯+|哦|噢|啊|哈哈+|呵呵|是的|是啊|对啊|对|好的|好吧|不是|不|没有|当然|"
        r"真的|哇|嘿|你好|嗨)\s*[，,。！!、…~～]+\s*|(?:但是|但|而且|所以|其实|不过|可是|然后)"
        r"[，,\s]*)+",
        "ja": r"^(?:(?:はい|いいえ|ええ|うん|ああ|あー|そう|そうです|いや|こんにちは|こんばんは|"
        r"へえ|わあ|ええと)\s*[、，,。！!…〜~]+\s*|(?:でも|そして|だから|実は|それに|まあ|ただ)"
        r"[、，,\s]*)+",
        "ko": r"^(?:(?:응|네|예|아니|아니요|아뇨|그래|와|오|음|아|ㅋ+|ㅎ+|안녕)\s*[,.!…~]+\s*|"
        r"(?:그리고|하지만|그런데|근데|그래서|사실|그럼)[,\s]*)+",
        "id": r"^(?:(?:ya|yah|tidak|bukan|oh|wow|hai|halo|hmm|baiklah|oke|ok|nah)\s*[,.!…]+\s*|"
        r"(?:tapi|tetapi|dan|jadi|sebenarnya|namun)\b[,\s]*)+",
        "fr": r"^(?:(?:oui|non|ah|oh|eh bien|bah|ben|bon|haha|salut|bonjour|d'accord|ok)\s*"
        r"[,.!…]+\s*|(?:mais|et|alors|en fait)\b[,\s]*)+",
    }
)
# French: "je" + its verb, which the third person spells alike for most verbs ("j'aime",
# "je travaille") and by a rule of its ending for the rest ("je fais" -> "fait", "je
# prends" -> "prend", "je peux" -> "peut", "j'irai" -> "ira").
_JE = re.compile(r"\b(?:je\s+|j['’])(ne\s+|n['’])?(?:(me|m['’])\s*)?([^\W\d_]+)", re.IGNORECASE)
_FR_IRREGULAR = {"suis": "est", "vais": "va"}
_FR_MINE = {"mon": "son", "ma": "sa", "mes": "ses"}
_FR_MY = re.compile(r"\b(?:mon|ma|mes)\b", re.IGNORECASE)
# "on" ("we" as often as "one") and he, she, they: a sentence about others too
_FR_OTHERS = re.compile(r"\b(?:on|il|elle|ils|elles)\b", re.IGNORECASE)
_FR_AFTER_AND = re.compile(r"\b(?:et|mais|ou|puis)\s+$", re.IGNORECASE)
_OWN = {"ja": ("ユーザーの", "自分の", "はが"), "ko": ("사용자의", "자신의", "는가")}
# The end of a sentence a note does without: its stop, laughter, and Chinese particles
# of mood ("我喜欢猫啊！ 哈哈" -> "用户喜欢猫。")
_END = re.compile(r"(?:[\s.!?。！？…~～]|ㅋ|ㅎ|哈|\bhaha\b|(?<=\S)[啊呀呢哦嘛啦])*$", re.IGNORECASE)


def _third_person(verb: str) -> str:
    """The third person singular of a French verb said in the first person."""
    low = verb.casefold()
    if low in _FR_IRREGULAR:
        return _FR_IRREGULAR[low]
    if low.endswith(("ds", "ts", "cs")):
        return verb[:-1]
    if low.endswith(("x", "s")):
        return verb[:-1] + "t"
    if low.endswith("ai"):
        return verb[:-1]  # "j'ai" -> "a", "j'irai" -> "ira"
    return verb


def _french(said: str) -> tuple[str, str] | None:
    if not _JE.match(said) or _FR_OTHERS.search(said):
        return None

    def third(match: re.Match[str]) -> str:
        negation, reflexive, verb = match.group(1), match.group(2), _third_person(match.group(3))
        before = said[: match.start()]
        subject = "l'utilisateur " if before else "L'utilisateur "
        if _FR_AFTER_AND.search(before):
            subject = ""  # "… et vit à Paris"
        vowel = verb[:1].casefold() in "aeiouyéèêh"
        if reflexive:  # "je me suis marié" -> "s'est marié"
            reflexive = "s'" if vowel else "se "
        if negation:  # "je ne suis" -> "n'est"
            negation = "n'" if vowel and not reflexive else "ne "
        return f"{subject}{negation or ''}{reflexive or ''}{verb}"

    note = _JE.sub(third, said)
    note = _FR_MY.sub(lambda m: _FR_MINE[m.group().casefold()], note)
    if FIRST_PERSON["fr"].search(note):
        return None  # "moi", "nous", "il me dit": the model's note
    return note + ".", said


def swap_person(sentence: str, language: str) -> tuple[str, str] | None:
    """(the note, the part of ``sentence`` it says) when code can write it: the user put
    where the sentence says "I" ("saya tinggal di Bandung" -> "Pengguna tinggal di
    Bandung."), a reply's opening word left out ("是的，我是护士" -> "用户是护士。"); or
    None, and the model's note stands."""
    if language not in _OPENING or SECOND_PERSON[language].search(sentence):
        return None
    said = _END.sub("", _OPENING[language].sub("", sentence.strip()))
    if language == "fr":
        return _french(said)
    if _UNSURE[language].search(sentence):
        return None
    note = said
    for pattern, user in _I[language]:
        note = re.sub(pattern, user, note, flags=re.IGNORECASE)
    if not note.casefold().startswith(SUBJECT[language][0].casefold()):
        return None  # no "I" first ("Bagus, saya ...", "hewan saya ..."): the model's note
    subject = len(SUBJECT[language][0])
    if language in _OWN and note[subject : subject + 1] in _OWN[language][2]:
        mine, own, _ = _OWN[language]  # "my" after the user as subject is "one's own"
        note = note[:subject] + note[subject:].replace(mine, own)  # not in "ユーザーの髪…"
    if language == "id":  # "Pengguna" where a sentence opens
        note = re.sub(r"(^|[.!?] )pengguna", rf"\1{SUBJECT['id'][0]}", note)
        note = note[0].upper() + note[1:]
    return note + ("。" if language in ("zh", "ja") else "."), said
