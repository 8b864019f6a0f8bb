"""Which language a user's sentence is in, and the words a memory uses for "the user" in it.

Extraction writes each memory in the language of the sentence it came from (R21): code
rewrites English itself (``memoryd.extraction.english_form.memory_form``), and the LLM
rewrites the other languages with examples in that language
(``memoryd.extraction.rewrite``). Both need to know the language; the checks need to know
how a memory in that language names its subject, and each language's persons and
pointing words (closed classes) tell a sentence that cannot be about the user
(``not_about_the_user``) and a note that keeps "I" or speaks to "you". The ``routed`` embedder
(``memoryd.models.embedding.routed``) scores a turn with the multilingual model when any of its
texts is not English. Pure functions, no I/O.

The language is told by script first (kana: Japanese; Hangul: Korean; Han alone:
Chinese), then, for Latin script, by the most frequent function words (pronouns,
articles, auxiliaries: a closed class of a few dozen words a language, not a fact list).
A sentence with no telling word is English, the language the rules were written in.
"""

from __future__ import annotations

import re

LANGUAGES = ("en", "fr", "es", "de", "pt", "it", "id", "zh", "ja", "ko")
# the language a user or the server chooses for the injected heading and the web UI
# (memoryd.app.i18n): a code, or "auto" for the language of each turn's text; a user may
# also choose "default", the server's MEMORYD_LANGUAGE
AUTO = "auto"
FOLLOW_SERVER = "default"
LANGUAGE_CHOICES = (AUTO, *LANGUAGES)
PREFERENCE_CHOICES = (FOLLOW_SERVER, *LANGUAGE_CHOICES)

# A request meant to hold from now on, not one task: "always", "never", "from now on" ...
# ("as always", "comme toujours", "wie immer": the way things went, not a rule)
STANDING = re.compile(
    r"(?<!\bas )(?<!comme )(?<!como )(?<!come )(?<!wie )"
    r"\b(?:always|never|from now on|going forward|every time|whenever|each time|by default|"
    r"in this project|in future|toujours|jamais|dorénavant|désormais|chaque fois|siempre|"
    r"nunca|jamás|a partir de ahora|cada vez|immer|nie|niemals|ab jetzt|künftig|jedes mal|"
    r"sempre|a partir de agora|toda vez|d'ora in poi|ogni volta|selalu|mulai sekarang|"
    r"setiap kali)\b|"
    r"总是|一直|永远|以后|每次|始终|いつも|常に|必ず|今後|毎回|항상|언제나|앞으로|매번",
    re.IGNORECASE,
)


def per_language(words: dict[str, str], flags: int = re.IGNORECASE) -> dict[str, re.Pattern[str]]:
    """A table of one regular expression per language, compiled."""
    return {language: re.compile(pattern, flags) for language, pattern in words.items()}


# The first person of each language but English (whose rules are in extraction), singular
# and plural: a note that keeps "I" reads as the assistant's words, one that keeps "we" or
# "our" is not about the user alone.
FIRST_PERSON = per_language(
    {
        "fr": r"\b(?:je|j'|me|m'|moi|mon|ma|mes|nous|notre|nos)\b|\bj'",
        "es": r"\b(?:yo|me|mi|mí|mis|conmigo|nosotr[oa]s|nuestr[oa]s?)\b",
        "de": r"\b(?:ich|mein|meine|meinen|meinem|meiner|mich|mir|wir|uns|unser\w*)\b",
        "pt": r"\b(?:eu|me|comigo|meu|minha|meus|minhas|nós|noss[oa]s?)\b",
        "it": r"\b(?:io|mi|me|mio|mia|miei|mie|noi|nostr[oaie])\b",
        "id": r"\b(?:saya|aku|kami|kita)\b",
        "zh": r"我",
        "ja": r"私|僕|俺|我々",
        "ko": r"저는|제가|나는|내가|저의|나의|나도|저도|나를|저를|\b내\b|우리",
    }
)
# He, she and they of each language: a sentence that has one and no first person is
# about someone else ("그는 토끼를 싫어해.", "dia lebih pop sekarang."), or leans on a name
# said before (English has its own, finer rule: ``extraction.sentences``).
THIRD_PERSON = per_language(
    {
        "fr": r"\b(?:il|elle|ils|elles|lui|leur)\b",
        "es": r"\b(?:él|ella|ellos|ellas)\b",
        "de": r"\b(?:er|ihm|ihn)\b",
        "pt": r"\b(?:ele|ela|eles|elas|dele|dela)\b",
        "it": r"\b(?:lui|lei|loro)\b",
        "id": r"\b(?:dia|ia|beliau|mereka)\b",
        "zh": r"(?<!其)[他她]",
        "ja": r"彼",
        "ko": r"(?<![가-힣])(?:그|그녀|그들)(?:는|가|의|를|도|에게|한테)(?![가-힣])",
    }
)
# The second person of each language (a closed class): a sentence that has it and no first
# person speaks about the other speaker; a note about the user never needs it. Ambiguous
# forms are left out (German "Sie", Portuguese "seu", Japanese "君" after a name).
SECOND_PERSON = per_language(
    {
        "en": r"\b(?:you|your|yours|yourself|you're|you've)\b",
        "fr": r"\b(?:tu|te|toi|ton|ta|tes|vous|votre|vos)\b|\bt'",
        "es": r"\b(?:tú|tu|tus|te|ti|contigo|usted|ustedes|vosotr[oa]s|vuestr[oa]s?)\b",
        "de": r"\b(?:du|dich|dir|dein|deine[mnrs]?|euch|euer|eure[mnrs]?)\b",
        "pt": r"\b(?:você|vocês|tu|te|ti|contigo|teu|tua|teus|tuas)\b",
        "it": r"\b(?:tu|ti|te|tuo|tua|tuoi|tue|voi|vostr[oaie])\b",
        "id": r"\b(?:anda|kamu|kau|engkau|kalian)\b",
        "zh": r"你|您",
        "ja": r"あなた|お前|おまえ|貴方",
        "ko": r"(?<![가-힣])(?:너|당신)(?:는|의|도|를|가|랑|한테|에게|희)?(?![가-힣])|네가",
    }
)
# The words of the other languages that only point at what was said before: "that"
# standing alone and "there" ("ça", "eso", "isso", "ciò", "di sana", "它", "それ", "거기");
# Indonesian "itu" / "ini" close what they point at ("Saya belum pernah melakukan itu!").
POINTING = per_language(
    {
        "fr": r"\b(?:ça|cela|ceci|là-bas)\b",
        "es": r"\b(?:eso|esto|aquello|ahí|allí|allá)\b",
        "de": r"\b(?:dort|dorthin|dies)\b",
        "pt": r"\b(?:isso|isto|aquilo|aí|ali|lá)\b",
        "it": r"\b(?:ciò|lì|là)\b|\b(?:questo|quello)\s*[.!,…]",
        "id": r"\b(?:di|ke|dari) (?:sana|sini|situ)\b|\bitu sebabnya\b|^\W*(?:itu|ini)\b"
        r"|\b(?:itu|ini)(?: (?:sebelumnya|lagi|juga|saja))?\W*$",
        "zh": r"它|这样|那样|这里|那里|这儿|那儿|这些|那些",
        "ja": r"それ|あれ(?!ば)|そこ|あそこ|ここ|これ(?!から|まで)",
        "ko": r"그것|그거|이것|이거|저것|저거|거기|여기|저기|그렇게|이렇게",
    }
)
# A remark on a thing, not the speaker: a sentence that opens with "it is" / "that is"
# ("c'est terrible", "è bellissimo", "这是真的", "그건 좋아"), or, in Japanese, Korean and
# Chinese, ends in the particles of a reaction or of seeking agreement ("カッコいいですね",
# "멋지네요", "真好啊"). With no "I" in it, it is about what the other speaker said (the
# English rule is ``extraction.sentences``: "It's my favourite", "That's great").
_YES = r"^\W*(?:(?:{})\W+)*"  # a reply's "yes", "no", "oh" before the remark ("Oui c'est vrai")
REMARK = per_language(
    {
        "fr": _YES.format("oui|ouais|non|ah|oh|eh|bah|ben|bon|wow")
        + r"(?:c['’]est|ce n['’]est|c['’]était|ce sont|il y a)\b",
        "es": _YES.format("sí|si|no|ah|oh|vaya|bueno")
        + r"(?:es|era|fue|eso es|esto es|está|hay)\b",
        "de": _YES.format("ja|nein|ach|oh|naja|wow")
        + r"(?:es ist|es war|das ist|das war|das sind|es gibt)\b",
        "pt": _YES.format("sim|não|ah|oh|nossa|bem") + r"(?:é|era|foi|isso é|isto é|está)\b",
        "it": _YES.format("sì|si|no|ah|oh|beh|wow") + r"(?:è|era|c['’]è|ci sono)(?!\w)",
        "id": _YES.format("ya|tidak|oh|wah|wow") + r"(?:itu|ini) (?:adalah|sangat|benar|bagus)\b",
        "zh": r"^\W*(?:这|那|它|真是)|^\W*太\S*了|[啊呀哇嘛]\W*$",
        "ja": r"(?:ね|ねえ|よね)\W*$",
        "ko": r"(?:네요|군요|구나|겠네요)\W*$|^\W*(?:그건|이건|저건)",
    }
)
# A state of the moment, as English has its own (``extraction.sentences``: "I'm so tired
# today", "I just got back from the gym"): being tired, having just come back or just
# finished (not "just married" or "just moved": those last), and leaving the chat ("I have
# to go, talk later").
MOMENTARY = per_language(
    {
        "fr": r"\bfatigu[ée]|\bvien[st] de (?:rentrer|revenir|finir|terminer)"
        r"|\bje dois (?:y aller|partir|filer|te laisser|vous laisser)|\bà plus tard\b",
        "es": r"\bcansad[oa]|\bacab[oa] de (?:llegar|volver|regresar|terminar)"
        r"|\b(?:tengo que irme|me tengo que ir|debo irme)\b|\bhasta luego\b",
        "de": r"\bmüde\b|\bgerade (?:zurück|heimgekommen|nach hause|fertig)"
        r"|\bich muss (?:jetzt )?(?:los|gehen|weg)\b|\bbis später\b",
        "pt": r"\bcansad[oa]|\bacab(?:ei|ou) de (?:chegar|voltar|terminar)"
        r"|\b(?:tenho|preciso) (?:que |de )?ir embora\b|\baté mais\b",
        "it": r"\bstanc[oa]\b|\bappena (?:tornat|rientrat|finit|terminat)"
        r"|\bdevo (?:andare|scappare|lasciarti)(?:\s+(?:ora|adesso|presto|via))?\s*(?:[,.!]|$)"
        r"|\ba dopo\b|\bci sentiamo\b",
        "id": r"\b(?:lelah|capek|capai)\b|\bbaru(?: saja)? (?:selesai|pulang|kembali)"
        r"|\b(?:harus|mau) pergi (?:dulu|sekarang)\b|\bsampai jumpa\b",
        "zh": r"(?<![积连])累(?![积计])"
        r"|刚(?:刚|才)?(?:下班|回来|回家|到家|结束|做完|忙完|吃完|起床)"
        r"|(?:得|要|先)走了|(?:下次|回头|待会儿?|晚点)再(?:聊|谈)",
        "ja": r"疲れ|(?:終わった|帰った|戻った|帰ってきた|着いた)(?:ところ|ばかり)"
        r"|(?:行か|帰ら)なきゃ|(?:もう|そろそろ)(?:行|帰|寝)(?:く|る|ます)",
        "ko": r"피곤|지쳤|방금.{0,20}?(?:돌아왔|끝났|끝냈|왔어|왔다)"
        r"|(?:이제|그만) 가(?:야|볼게|봐야)|나중에 (?:얘기|이야기)하",
    }
)
_KANA = re.compile(r"[\u3040-\u30ff]")
_HANGUL = re.compile(r"[\uac00-\ud7af\u1100-\u11ff]")
_HAN = re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf]")
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
_FUNCTION_WORDS = {
    "en": "i i'm i've my me the a an and is am are was to of in it that with for this",
    "fr": "je j'ai j'aime suis mon ma mes le la les des est et une un du au pour avec c'est "
    "ne pas dans sur qui que moi il en non mais très aussi",
    "es": "yo soy estoy mi mis el los las es y al para que en por muy me desde hace "
    "también pero porque tengo gusta hago mucho",
    "de": "ich bin mein meine der die das und ist ein eine einen mit nicht zu im auf habe "
    "seit mich mir",
    "pt": "eu sou estou meu minha o os as é um uma do da no na para não que em moro tenho "
    "também mas gosto muito faço nós",
    "it": "io sono mio mia miei mie il lo gli è e della per non che mi ho nel sulla di anche "
    "molto piace perché però questo sto faccio un una la le con da del dei al alla ma",
    "id": "saya aku dan yang di ini itu dengan untuk adalah tidak ke dari punya sudah",
}
_INDEX = {lang: frozenset(words.split()) for lang, words in _FUNCTION_WORDS.items()}
# How a memory in each language names its subject, and a stem the checks look for.
SUBJECT = {
    "en": ("The user", "the user"),
    "fr": ("L'utilisateur", "utilisat"),
    "es": ("El usuario", "usuari"),
    "de": ("Der Nutzer", "nutzer"),
    "pt": ("O usuário", "usuári"),
    "it": ("L'utente", "utent"),
    "id": ("Pengguna", "pengguna"),
    "zh": ("用户", "用户"),
    "ja": ("ユーザー", "ユーザー"),
    "ko": ("사용자", "사용자"),
}


def language_of(text: str, otherwise: str | None = None) -> str:
    """The language ``text`` is written in, one of ``LANGUAGES``. ``otherwise`` (say, the
    language of the turn a sentence is from) counts as one function word more of its
    language, and wins a tie: a short line says little alone ("Ho due gatti." holds no
    function word of any language; "I miei genitori ... con me" opens with an English-looking
    "I"), while a sentence that is plainly another language keeps its own."""
    if _KANA.search(text):
        return "ja"
    if _HANGUL.search(text):
        return "ko"
    if _HAN.search(text):
        return "zh"
    # one-letter words tell nothing ("a" is English, Italian, Spanish, Portuguese; "i" an
    # Italian article), except the English "I", which English writes as a capital
    words = [w.casefold().replace("’", "'") for w in _WORD.findall(text) if len(w) > 1 or w == "I"]
    scores = {lang: sum(w in index for w in words) for lang, index in _INDEX.items()}
    if otherwise in scores and scores[otherwise] + 1 >= max(scores.values()):
        return otherwise
    best = max(scores, key=lambda lang: (scores[lang], lang == "en"))
    return best if scores[best] > scores["en"] else "en"


# Words so common in English that a text using them is English unless another language's
# function words outnumber them: wider than the English list above, which was made for the
# statements extraction writes, so that questions and remarks ("What do you do for fun?",
# where "do" is Portuguese too) read as English.
# fmt: off
_ENGLISH_MORE = frozenset((
    "you", "your", "yours", "do", "does", "did", "don't", "what", "how", "why", "where",
    "when", "who", "which", "so", "no", "not", "as", "at", "on", "by", "be", "been", "have",
    "has", "had", "we", "our", "us", "they", "their", "them", "he", "she", "his", "her",
    "him", "there", "here", "can", "could", "would", "will", "just", "like", "were", "per",
))
# fmt: on
_ENGLISH = _INDEX["en"] | _ENGLISH_MORE


def is_english(text: str) -> bool:
    """Whether ``text`` reads as English, erring towards English (a text with no telling
    word is): not when it has kana, Hangul or Han, nor when the function words of another
    language outnumber English ones (words of two letters or more: "a" is English,
    Portuguese and Italian). Of 44,000 English texts of four genres (MADial-Bench,
    RealMem, the persona and hand-written retrieval sets) it calls 44 otherwise, each with
    Japanese or Korean in it; of XPersona's user lines (dev and test) it finds 95 % of the
    French, 92 % of the Indonesian and 87 % of the Italian (the rest too short to tell)."""
    if _KANA.search(text) or _HANGUL.search(text) or _HAN.search(text):
        return False
    words = [w for w in (w.casefold().replace("’", "'") for w in _WORD.findall(text)) if len(w) > 1]
    english = sum(w in _ENGLISH for w in words)
    other = max(sum(w in index for w in words) for lang, index in _INDEX.items() if lang != "en")
    return other <= english


def foreign_only(text: str) -> bool:
    """Whether ``text``, taken for English for want of telling words, holds words of
    another language's closed classes and no common English word ("Anda harus selalu
    mengambil mainan Anda.": Indonesian "you"). A line with neither is English ("Flour
    comes from Camas Country Mill, delivered every Thursday.")."""
    words = [w.casefold().replace("’", "'") for w in _WORD.findall(text)]
    if any(w in _ENGLISH or w == "i" for w in words):
        return False
    if any(w in index for lang, index in _INDEX.items() if lang != "en" for w in words):
        return True
    yours = [p for language, p in SECOND_PERSON.items() if language != "en"]
    return any(p.search(text) for p in (*FIRST_PERSON.values(), *THIRD_PERSON.values(), *yours))


# Languages whose verbs tell the person, so that a statement about oneself often has no
# "I" ("adoro i tacos!", "ワインが好きです！"): a short exclamation only is a reaction there.
_PRO_DROP = frozenset(("es", "it", "pt", "ja", "ko"))


def not_about_the_user(sentence: str, language: str) -> bool:
    """Whether a sentence of ``language`` (not English, whose rules are finer:
    ``extraction.sentences``) cannot hold a fact about the user, by its closed word
    classes: it points at what was said before ("J'adore ça", "我就是这样"), tells a state
    of the moment ("Je suis fatiguée", "방금 체육관에서 돌아왔어"), or has no
    "I" and speaks to the other person ("Anda harus selalu ..."), about someone else
    ("그는 토끼를 싫어해."), remarks on a thing ("c'est terrible", "カッコいいですね") or is
    an exclamation ("太好了！")."""
    if POINTING[language].search(sentence) or MOMENTARY[language].search(sentence):
        return True
    if FIRST_PERSON[language].search(sentence):
        return False
    others = (
        SECOND_PERSON[language].search(sentence)
        or THIRD_PERSON[language].search(sentence)
        or REMARK[language].search(sentence)
    )
    return bool(others) or _exclaimed(sentence, language)


def _exclaimed(sentence: str, language: str) -> bool:
    text = sentence.rstrip()
    if not text.endswith(("!", "！")):
        return False
    if language not in _PRO_DROP:
        return True
    if is_cjk(language):
        return len(re.sub(r"[\W_]", "", text)) <= 6
    return len(re.findall(r"\w+", text)) <= 2


def names_the_user(memory: str, language: str) -> bool:
    """Whether ``memory`` names its subject the way memories in ``language`` do."""
    return SUBJECT[language][1] in memory.casefold()


def is_cjk(language: str) -> bool:
    return language in ("zh", "ja", "ko")
