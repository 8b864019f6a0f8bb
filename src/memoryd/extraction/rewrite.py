"""Writing chosen sentences of another language as memories in that language (R21).

Code turns an English sentence into a memory itself (``_english``, which refuses a
fragment); it cannot for French, Chinese or Japanese, so the extraction LLM rewrites
them, one call per language, shown a worked example in that language (small talk gets
an empty note: "no fact here"); a sentence without "I" comes after the question it
answers, in brackets. Where code can turn "I" into the user (``person_swap``), the model
only decides whether the sentence holds a fact. Measured with the bundled 1.5B model, one
request mixing languages came back in the wrong language or copied. Code then checks
each answer (``problem``); a refused fact is not stored and its reason is recorded.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from memoryd.domain.language import (
    FIRST_PERSON,
    POINTING,
    SUBJECT,
    foreign_only,
    is_cjk,
    names_the_user,
    per_language,
)
from memoryd.domain.models import Scope
from memoryd.extraction.english_form import QUOTED, memory_form
from memoryd.extraction.instructions import instruction_reason
from memoryd.extraction.person_swap import swap_person
from memoryd.extraction.schema import Fact
from memoryd.extraction.sentences import Sentence, copies, word_runs
from memoryd.extraction.timebound import dated
from memoryd.models.llm.base import LLMProvider, Message
from memoryd.models.llm.json_output import UnusableOutput, Usage, complete_json

MAX_TOKENS = 120  # per sentence
SYSTEM = (
    "Rewrite each numbered sentence the user wrote as a note about the user: in the third "
    "person, in the same language as the sentence, keeping every detail and adding "
    "nothing. A standing request becomes what the user wants. A sentence that says nothing "
    "lasting about the user (a greeting, thanks, how they are or what they do right now) "
    "gets an empty note. A sentence may follow the question it answers, in brackets: its "
    "note says what the answer tells about the user. Answer with JSON: "
    '{"notes": ["...", ...]}, one note per sentence, in order.'
)


def schema(count: int) -> dict[str, Any]:
    notes = {"type": "string", "maxLength": 400}
    return {
        "type": "object",
        "properties": {
            "notes": {"type": "array", "items": notes, "minItems": count, "maxItems": count}
        },
        "required": ["notes"],
    }


# (sentence, note) per language: a fact, a relation, small talk (no note), a standing
# request, and an answer beside its question, which must not become what the user is
# ("the user is pizza")
SHOTS: dict[str, tuple[tuple[str, str], ...]] = {
    "fr": (
        ("J'habite à Lyon avec ma sœur.", "L'utilisateur habite à Lyon avec sa sœur."),
        ("Mon fils joue au foot le samedi.", "Le fils de l'utilisateur joue au foot le samedi."),
        ("Je vais très bien, merci, juste un peu fatigué aujourd'hui.", ""),
        ("Réponds toujours en français.", "L'utilisateur veut toujours des réponses en français."),
        (
            "[Quel est ton plat préféré ?] Les lasagnes, sans hésiter.",
            "Le plat préféré de l'utilisateur est les lasagnes.",
        ),
    ),
    "es": (
        ("Vivo en Sevilla con mi hermana.", "El usuario vive en Sevilla con su hermana."),
        (
            "Mi hijo juega al fútbol los sábados.",
            "El hijo del usuario juega al fútbol los sábados.",
        ),
        ("Estoy muy bien, gracias, solo un poco cansado hoy.", ""),
        ("Responde siempre en español.", "El usuario quiere respuestas siempre en español."),
        (
            "[¿Cuál es tu comida favorita?] La paella, sin duda.",
            "La comida favorita del usuario es la paella.",
        ),
    ),
    "de": (
        (
            "Ich wohne mit meiner Schwester in Köln.",
            "Der Nutzer wohnt mit seiner Schwester in Köln.",
        ),
        ("Mein Sohn spielt samstags Fußball.", "Der Sohn des Nutzers spielt samstags Fußball."),
        ("Mir geht es gut, danke, heute bin ich nur etwas müde.", ""),
        ("Antworte immer auf Deutsch.", "Der Nutzer möchte Antworten immer auf Deutsch."),
        (
            "[Was ist dein Lieblingsessen?] Lasagne, ganz klar.",
            "Das Lieblingsessen des Nutzers ist Lasagne.",
        ),
    ),
    "pt": (
        ("Moro em Lisboa com a minha irmã.", "O usuário mora em Lisboa com a irmã."),
        ("Meu filho joga futebol aos sábados.", "O filho do usuário joga futebol aos sábados."),
        ("Estou muito bem, obrigado, só um pouco cansado hoje.", ""),
        ("Responda sempre em português.", "O usuário quer respostas sempre em português."),
        (
            "[Qual é a sua comida favorita?] Lasanha, sem dúvida.",
            "A comida favorita do usuário é lasanha.",
        ),
    ),
    "it": (
        ("Vivo a Torino con mia sorella.", "L'utente vive a Torino con sua sorella."),
        ("Mio figlio gioca a calcio il sabato.", "Il figlio dell'utente gioca a calcio il sabato."),
        ("Sto benissimo, grazie, oggi sono solo un po' stanco.", ""),
        ("Rispondi sempre in italiano.", "L'utente vuole sempre risposte in italiano."),
        (
            "[Qual è il tuo piatto preferito?] La lasagna, senza dubbio.",
            "Il piatto preferito dell'utente è la lasagna.",
        ),
    ),
    "id": (
        (
            "Saya tinggal di Bandung bersama adik saya.",
            "Pengguna tinggal di Bandung bersama adiknya.",
        ),
        ("Anak saya main sepak bola setiap Sabtu.", "Anak pengguna main sepak bola setiap Sabtu."),
        ("Saya baik-baik saja, terima kasih, hari ini cuma agak capek.", ""),
        (
            "Selalu jawab dalam bahasa Indonesia.",
            "Pengguna selalu ingin jawaban dalam bahasa Indonesia.",
        ),
        (
            "[Apa makanan favoritmu?] Nasi goreng, pastinya.",
            "Makanan favorit pengguna adalah nasi goreng.",
        ),
    ),
    "zh": (
        ("我住在北京，有两只猫。", "用户住在北京，有两只猫。"),
        ("我的女儿在学钢琴。", "用户的女儿在学钢琴。"),
        ("我很好，谢谢，今天只是有点累。", ""),
        ("以后请一直用中文回答。", "用户希望一直用中文回答。"),
        ("[你最喜欢吃什么？] 当然是饺子。", "用户最喜欢吃饺子。"),
    ),
    "ja": (
        ("私は大阪に住んでいます。", "ユーザーは大阪に住んでいます。"),
        ("妹は医者です。", "ユーザーの妹は医者です。"),
        ("元気です、ありがとう、今日はちょっと疲れています。", ""),
        ("いつも日本語で答えてください。", "ユーザーはいつも日本語での回答を望んでいます。"),
        ("[好きな食べ物は何ですか？] もちろんお寿司です。", "ユーザーの好きな食べ物はお寿司です。"),
    ),
    "ko": (
        ("저는 부산에 살아요.", "사용자는 부산에 살아요."),
        ("제 딸은 피아노를 배워요.", "사용자의 딸은 피아노를 배워요."),
        ("저는 잘 지내요, 고마워요, 오늘은 좀 피곤해요.", ""),
        ("항상 한국어로 대답해 주세요.", "사용자는 항상 한국어로 된 대답을 원해요."),
        (
            "[제일 좋아하는 음식이 뭐예요?] 당연히 김치찌개예요.",
            "사용자가 제일 좋아하는 음식은 김치찌개예요.",
        ),
    ),
}
_DIGITS = re.compile(r"\d+")
# Thanks in each language: a note that keeps it is small talk written as a fact ("the user
# is fine, thanks").
_THANKS = re.compile(
    r"\b(?:merci|gracias|danke|obrigad[oa]|grazie|terima kasih|makasih)\b"
    r"|谢谢|謝謝|多谢|ありがとう|감사|고마"
    # and "nice to meet you" ("사용자는 반가워 준호를 만나서 반가워졌습니다")
    r"|\b(?:enchanté|enchantée|ravie? de (?:te|vous) (?:rencontrer|connaître)|encantad[oa]|"
    r"mucho gusto|freut mich|prazer em|piacere di conoscer\w*|senang (?:bertemu|berkenalan))\b"
    r"|很高兴认识|认识你很高兴|はじめまして|初めまして|よろしくお願い|반갑|반가워|반가웠",
    re.IGNORECASE,
)
# What a note never holds but the request around it does: JSON, markup, the instructions.
_MARKUP = re.compile(r"[{}\[\]`<>]")
_INSTRUCTION_RUNS = word_runs(SYSTEM, 4)
_EXCLAIMED = re.compile(r"[!！?？]\s*$")
# A note that asks, anywhere ("사용자의 결혼했니? 응 …") or with a question particle at its end
# ("用户还有其他有趣的事情吗"): the other speaker's question, not a fact.
_ASKS = re.compile(r"[?？]|(?:吗|ですか|ますか)[。.]?\s*$")
_SQUEEZE = re.compile(r"[\s\W]+")
# Negation in each language (particles, negative pronouns and adverbs, "without"): a
# note with more or fewer of them than its sentence says the opposite of what was said.
_NEGATION = per_language(
    {
        "fr": r"\b(?:pas|jamais|rien|personne|aucune?|sans|ni)\b",  # not "ne … que" (only)
        "es": r"\b(?:no|nunca|jamás|nada|nadie|ningun[oa]?|ningún|tampoco|sin|ni)\b",
        "de": r"\b(?:nicht|kein\w*|nie|niemals|nichts|niemand|ohne|weder)\b",
        "pt": r"\b(?:não|nunca|jamais|nada|ninguém|nenhum|nenhuma|sem|nem)\b",
        "it": r"\b(?:non|mai|niente|nulla|nessun[oa]?|senza|né)\b",
        "id": r"\b(?:tidak|tak|bukan|belum|jangan|tanpa|enggak|nggak|gak|ga)\b",
        "zh": r"不|没|沒|(?<!特)别|無|无|未(?!来)|非(?!常)",  # not 特别, 未来, 非常
        "ja": r"ない|ません|なかった|ず[にも]?|無い|無し|なし",
        "ko": r"않|안\s|못|없|아니|말아|마세요",
    }
)
# An order or a suggestion at the end of a note ("사용자는 계속 노력해라", "…なさい",
# "…吧"): said to the other speaker, the user's name put before it.
_ORDER = re.compile(
    r"(?:해라|하라|어라|아라|거라|십시오|하자|해\s?봐|なさい|しろ|ください|ましょう|吧)"
    r"[\s.!。！~]*$"
)
# How one is, in each language (a closed class of greeting answers and bare moods, with
# the intensifiers and "too" they come with): a note that says only that is small talk.
_WELL = per_language(
    {
        "fr": r"(?:va|allait|est|se sent|était)( (?:très|plutôt|assez|super|trop))? "
        r"(?:bien|mal|en forme|heureux|heureuse|content|contente)( aussi)?",
        "es": r"(?:está|estaba|se siente|es)( (?:muy|bastante|súper))? "
        r"(?:bien|mal|genial|feliz|content[oa])( también)?",
        "pt": r"(?:está|estava|se sente|vai|é)( (?:muito|bem|super))? "
        r"(?:bem|mal|ótim[oa]|feliz|content[ea])( também)?",
        "it": r"(?:sta|stava|è|si sente)( (?:molto|abbastanza|proprio|davvero))? "
        r"(?:bene|benissimo|male|alla grande|felice|content[oa])( anche)?",
        "de": r"(?:geht es|es geht|ist)( (?:sehr|ganz|richtig|echt))? "
        r"(?:gut|schlecht|glücklich|froh)( auch)?",
        "id": r"(?:sedang |merasa )?(?:sangat |baik )?(?:baik|baik baik saja|sehat|senang|bahagia)"
        r"( juga)?",
        "zh": r"(?:也|都)?(?:很|挺|还|非常|真)?(?:好|不错|健康|开心|高兴|快乐)(?:的|啊|呀)?",
        "ja": r"(?:は|も)?(?:とても|すごく)?(?:元気|大丈夫|幸せ|嬉しい)(?:です|だ)?",
        "ko": r"(?:는|도)? ?(?:(?:매우|아주|정말|너무|요즘) )*(?:잘 )?"
        r"(?:지내\w*|괜찮\w*|행복\w*|좋아\w*)(?: 있\w*)?",
    },
    0,
)
# Words of praise, wonder or agreement in each language (a closed class): a note that
# says little else is the user's reaction to what the other speaker said, with the user
# put before it ("Pengguna sangat keren").
_PRAISE = per_language(
    {
        "fr": r"\b(?:génial|géniale|super|cool|sympa|chouette|incroyable|intéressante?|"
        r"formidable|magnifique|adorable|mignon|mignonne|drôle|jaloux|jalouse|d\W?accord|vrai)\b",
        "es": r"\b(?:genial|guay|increíble|interesante|fantástic[oa]|precios[oa]|lind[oa]|"
        r"divertid[oa]|celos[oa])\b",
        "de": r"\b(?:toll|super|cool|geil|krass|interessant|fantastisch|süß|lustig|neidisch)\b",
        "pt": r"\b(?:legal|ótim[oa]|incrível|interessante|fantástic[oa]|fofo|fofa|"
        r"engraçad[oa]|invejos[oa])\b",
        "it": r"\b(?:bell[oa]|bellissim[oa]|fantastic[oa]|figo|figa|interessante|carin[oa]|"
        r"stupend[oa]|divertente|incredibile|invidios[oa]|d\W?accordo|esatto|vero)\b",
        "id": r"\b(?:keren|bagus|hebat|menarik|lucu|luar biasa|mantap|asyik|seru|iri|setuju|"
        r"betul|benar)\b",
        "zh": r"厉害|棒|酷|好玩|有趣|羡慕|可爱|了不起|不错|精彩|同意|没错|说得对",
        "ja": r"すごい|凄い|素晴らしい|面白い|カッコいい|かっこいい|可愛い|かわいい|羨ましい|"
        r"素敵|最高|その通り|同感|賛成",
        "ko": r"대단|멋지|멋있|훌륭|재미있|흥미롭|부럽|부러|신기|귀엽|최고|굉장|맞아|동의|그래요",
    }
)
# English a model puts into a note of another language ("L'utilisateur's parents", "le
# user"): the possessive 's and the word "user".
_ENGLISH_IN_NOTE = re.compile(r"\w['’]s\b|\buser\b", re.IGNORECASE)
# "the user" as a subject, not as an owner ("the user's draft")
_USER_SUBJECT = re.compile(r"\bthe user\b(?!['’]s)", re.IGNORECASE)
_COPULA = re.compile(r"^\S.*?\s(?:is|are|was|were)\s")  # a subject, then its "is"
# An object pronoun right after the note's subject ("L'utilisateur le regarde", "El usuario
# lo tiene", "L'utente ne ha due"): it stands for a thing named only in the conversation.
_OBJECT_CLITIC = per_language(
    {
        "fr": r"^\S+ (?:ne |n')?(?:le|la|les|y|en)\b|^\S+ (?:ne |n')?l'",
        "es": r"^\S+ \S+ (?:no )?(?:lo|la|los|las)\b",
        "it": r"^\S+ (?:non )?(?:lo|la|li|ne|ci)\b|^\S+ (?:non )?l'",
    }
)
# A note that trails off ("…", "...") has lost the end of what was said.
_TRAILING_OFF = re.compile(r"(?:\.\.\.|…)\s*$")
# An English line of names, numbers and joining words only: a label, not a statement
# ("The "Quiet Oasis" Studio.", "February 1st to March 1st.")
_JOINING_WORDS = "the a an and or to from of in on at for with by vs"
_JOINING = frozenset(_JOINING_WORDS.split())
# A note ending on a preposition whose object went before it ("things the user can stick
# to."); not "to" closing an elided infinitive ("as they want to")
_STRANDED = re.compile(r"(\w+)\s+(to|with|for|about|of|at|from|into)\s*[.!…]*$", re.IGNORECASE)
_ELIDES_AFTER_WORDS = "want wants love need have has used able going ought like"
_ELIDES_AFTER = frozenset(_ELIDES_AFTER_WORDS.split())
# A subordinate clause with no main clause ("When the user is ready for the next hustle.",
# "Because the user loves dogs."): no comma and no second subject after the user
_SUBORDINATE_ONLY = re.compile(
    r"^(?:when|whenever|if|unless|because|since|although|though|while|until|after|before|"
    r"once)\s+the user\b(?![^,]*(?:,|\b(?:they|they're|they've|they'd|they'll|he|she|it|"
    r"we|you)\b))",
    re.IGNORECASE,
)
# A name the user wrote in a Latin-script language, which the note must keep; a note adds
# no name and no word in katakana (names and loanwords) the sentence does not have.
_NAME = re.compile(r"\b[A-ZÀ-Ý][a-zà-ÿ]+\b")
_KATAKANA = re.compile(r"[\u30a1-\u30fa\u30fc\u30fb]{2,}")


def _listing(sentences: Sequence[tuple[str, str]]) -> str:
    return "\n".join(
        f"{n}. [{asked}] {text}" if asked else f"{n}. {text}"
        for n, (text, asked) in enumerate(sentences, 1)
    )


def messages(sentences: Sequence[tuple[str, str]], language: str) -> list[Message]:
    """The request for a language's (sentence, question it answers) pairs: the
    instructions, its worked example (five sentences and their notes), then the
    sentences, numbered."""
    said, notes = zip(*SHOTS[language], strict=True)
    example = json.dumps({"notes": list(notes)}, ensure_ascii=False)
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": _listing([(text, "") for text in said])},
        {"role": "assistant", "content": example},
        {"role": "user", "content": _listing(sentences)},
    ]


def problem(note: str, sentence: str, language: str, asked: str = "") -> str | None:
    """Why ``note`` is not a faithful memory of ``sentence`` (said in answer to ``asked``,
    if it was), or None: a name, a number or a negation it has must come from one of them.
    """
    if not note.strip():
        return "no lasting fact in it (the model wrote no note)"
    if note.strip() == sentence.strip():
        return "the model did not rewrite it"
    if not names_the_user(note, language):
        return "the rewrite does not name the user"
    invented = set(_DIGITS.findall(note)) - set(_DIGITS.findall(f"{asked} {sentence}"))
    if invented:
        return f"the rewrite adds a number the user did not write ({sorted(invented)[0]})"
    negation = _NEGATION.get(language)
    if negation is not None and len(negation.findall(note)) not in {
        len(negation.findall(sentence)),
        len(negation.findall(f"{asked} {sentence}")),
    }:
        return "the rewrite drops or adds a negation"
    if _THANKS.search(note):
        return "the rewrite thanks or greets someone: small talk, not a fact"
    if _leaks(note, sentence):
        return "the rewrite carries more than a note (the request's JSON or instructions)"
    if len(note) > 2 * len(sentence) + 40 + len(asked):
        return "the rewrite is far longer than the sentence"
    if _EXCLAIMED.search(sentence) and _prefixed(note, sentence, language):
        return "the rewrite puts the user before an exclamation or a question"
    if FIRST_PERSON[language].search(note):
        return "the rewrite keeps the user's own first person"
    if _ORDER.search(note):
        return "the rewrite is an order or a suggestion, not a fact"
    if _ASKS.search(note):
        return "the rewrite asks a question, which states no fact"
    if _how_they_are(note, language):
        return "the rewrite only says how the user is: small talk"
    if _thin(note, language):
        return "the rewrite says one word of the user: no lasting fact"
    if _reaction(note, language):
        return "the rewrite is a reaction (praise, wonder, agreement) with the user put before it"
    if POINTING[language].search(note) or (
        language in _OBJECT_CLITIC and _OBJECT_CLITIC[language].search(note)
    ):
        return "the rewrite points at something said before, which it does not name"
    if _TRAILING_OFF.search(note):
        return "the rewrite trails off"
    english = set(_ENGLISH_IN_NOTE.findall(note)) - set(_ENGLISH_IN_NOTE.findall(sentence))
    if english and not is_cjk(language):
        return "the rewrite mixes English into another language"
    return _changed_names(note, sentence, language, asked)


def _changed_names(note: str, sentence: str, language: str, asked: str) -> str | None:
    """A name of the sentence the note leaves out, or a name or katakana word it adds
    ("ユーザーはアメリカの国です" from "アーミッシュの国です"). A katakana word may be left
    out: many are loanwords a note can do without ("ジャーマンシェパード")."""
    subject = SUBJECT[language][0]
    lost = [name for name in _names(sentence) if name not in note]
    if lost:
        return f"the rewrite leaves out {lost[0]}"
    said = f"{asked} {sentence}".casefold()
    found = _names(note) + _KATAKANA.findall(note)
    added = [name for name in found if name not in subject and name.casefold() not in said]
    if added:
        return f"the rewrite adds {added[0]}, which the user did not write"
    return None


def _names(text: str) -> list[str]:
    """The capitalised words of ``text`` but its first, capitalised as any first word is."""
    return [m.group() for m in _NAME.finditer(text) if m.start() > 0]


def _capitalised(text: str, note: str) -> str:
    """``text`` with the names ``note`` capitalises and it does not ("taylor", "new york")."""
    names = {name.casefold(): name for name in _names(note)}
    return re.sub(r"\b\w+\b", lambda word: names.get(word.group(), word.group()), text)


def _how_they_are(note: str, language: str) -> bool:
    """Whether the note says no more than how the user is ("L'utente sta bene.",
    "用户很健康。"): the answer to a greeting."""
    return bool(_WELL[language].fullmatch(_after_subject(note, language)))


def _thin(note: str, language: str) -> bool:
    """Whether the note says at most one word of the user ("L'utilisateur voit."), or
    three characters where words are not spaced ("用户希望。")."""
    return _size(_after_subject(note, language), language) <= (3 if is_cjk(language) else 1)


def _reaction(note: str, language: str) -> bool:
    """Whether the note says no more than a word of praise, wonder or agreement and two
    words beside it, or eight characters where words are not spaced ("Pengguna sangat
    keren.")."""
    body = _after_subject(note, language)
    limit = 8 if is_cjk(language) else 3
    return bool(_PRAISE[language].search(body)) and _size(body, language) <= limit


def _size(body: str, language: str) -> int:
    """Words in ``body``, or characters where words are not spaced (after a particle: は,
    는, 가)."""
    if is_cjk(language):
        return len(body.replace(" ", "").lstrip("はがもの는은가이도의"))
    return len(body.split())


def _after_subject(note: str, language: str) -> str:
    """The note after its subject, case-folded, its words one space apart."""
    body = note.casefold().removeprefix(SUBJECT[language][0].casefold())
    return _SQUEEZE.sub(" ", body).strip()


def _leaks(note: str, sentence: str) -> bool:
    added_markup = set(_MARKUP.findall(note)) - set(_MARKUP.findall(sentence))
    return bool(added_markup) or copies(note, _INSTRUCTION_RUNS, 4)


def _prefixed(note: str, sentence: str, language: str) -> bool:
    """Whether the note is the sentence as it was with only the user's name put before it
    ("ユーザーはああすごい!"): the model named the user without reading the sentence."""
    subject = SUBJECT[language][0]
    if not note.casefold().startswith(subject.casefold()):
        return False
    rest = _SQUEEZE.sub("", note[len(subject) :]).casefold()
    said = _SQUEEZE.sub("", sentence).casefold()
    return rest.endswith(said) and len(rest) - len(said) <= 2  # a particle: は, 는, 가


def rewrite(
    provider: LLMProvider, sentences: Sequence[tuple[str, str]], language: str, usage: Usage
) -> list[tuple[str | None, str | None]]:
    """Per (sentence, question it answers) of ``language`` (not English): (the memory,
    None) or (None, why not), from one LLM call. An LLM error propagates: the batch fails
    and is retried later, as for the Observer."""
    count = len(sentences)

    def one_per_sentence(value: dict[str, Any]) -> str | None:
        notes = value.get("notes")
        if (
            isinstance(notes, list)
            and len(notes) == count
            and all(isinstance(n, str) for n in notes)
        ):
            return None
        return f'"notes" must be a list of {count} strings, one per sentence'

    try:
        answer = complete_json(
            provider,
            messages(sentences, language),
            schema=schema(count),
            schema_name="notes",
            check=one_per_sentence,
            max_tokens=MAX_TOKENS * count,
            usage=usage,
        )
    except UnusableOutput as exc:
        return [(None, f"the model gave no usable notes ({exc})")] * count
    out: list[tuple[str | None, str | None]] = []
    for raw, (sentence, asked) in zip(answer.value["notes"], sentences, strict=True):
        note = " ".join(str(raw).split())
        own = swap_person(sentence, language) if note else None
        if own is not None:  # the model found a fact; code writes it in the user's words
            note, sentence = _capitalised(own[0], note), own[1]
        why = problem(note, sentence, language, asked)
        out.append((None, why) if why else (note, None))
    return out


def _english(sentence: str, scope: Scope) -> tuple[str | None, str | None]:
    """Code's memory of an English sentence (``memory_form``), or None and why not."""
    memory = memory_form(sentence)
    if memory[:1].islower() and not _USER_SUBJECT.search(memory):
        if _COPULA.search(memory) and sentence == sentence.lower():
            # typed in lower case, a whole sentence all the same: "pizza is my favorite food"
            memory = memory[0].upper() + memory[1:]
        else:
            # "frustrated in the user's draft.", "and riding the user's motorcycle fast ."; not
            # a line typed in lower case with the user as its subject ("no, the user was ...")
            return None, "a fragment, not a statement"
    if _TRAILING_OFF.search(memory) or _SUBORDINATE_ONLY.match(memory):
        return None, "a fragment, not a statement"  # "And feeling the user's body..."
    stranded = _STRANDED.search(memory)
    if stranded and not (stranded[2].lower() == "to" and stranded[1].lower() in _ELIDES_AFTER):
        return None, "a fragment, not a statement"
    if memory.startswith("The user") and len(memory.split()) <= 3:
        return None, "says one word of the user: no lasting fact"  # "The user has."
    if not memory.startswith(("The user", QUOTED)) and all(
        w[0].isupper() or any(c.isdigit() for c in w) or w.lower() in _JOINING
        for w in re.findall(r"\w[\w'’.-]*", memory)
    ):
        return None, "a label, not a statement"
    if foreign_only(sentence):
        return None, "in a language memoryd cannot tell"  # taken for English by default
    if (
        scope is Scope.GLOBAL
        and memory.startswith(QUOTED)
        and not instruction_reason(sentence)  # a request: verify_facts makes it a rule
    ):
        return None, "not about the user alone"
    return memory, None


def write_facts(
    provider: LLMProvider,
    sentences: list[Sentence],
    chosen: dict[int, Scope],
    said_at: dict[int, datetime],
    usage: Usage,
) -> tuple[list[Fact], list[str]]:
    """The chosen sentences as memories in their own language, relative times dated by
    when they were said. Code writes English (``memory_form``); a sentence it can only
    quote ("We ...") is kept as a project fact, never as a fact about the person: it is
    not about them alone. The LLM writes the other languages (``rewrite``, one call per
    language), checked in code."""
    written: dict[int, tuple[str | None, str | None]] = {}
    by_language: dict[str, list[int]] = {}
    for number, scope in chosen.items():
        text, language = sentences[number - 1].text, sentences[number - 1].language
        if language != "en":
            by_language.setdefault(language, []).append(number)
        else:
            written[number] = _english(text, scope)
    for language, numbers in by_language.items():
        asked = [(sentences[n - 1].text, sentences[n - 1].asked) for n in numbers]
        notes = rewrite(provider, asked, language, usage)
        written.update(zip(numbers, notes, strict=True))
    facts: list[Fact] = []
    rejected: list[str] = []
    for number, scope in chosen.items():
        sentence = sentences[number - 1]
        memory, why = written[number]
        if memory is None:
            rejected.append(f"sentence {number}: {why}: {sentence.text}")
            continue
        when = said_at[sentence.chat_id]
        facts.append(Fact(number, dated(memory, when, sentence.language), scope))
    return facts, rejected
