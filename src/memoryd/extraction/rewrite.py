"""Writing a chosen sentence of another language as a memory in that language (R21).

Code turns an English first-person sentence into a memory itself ("I run a bakery." ->
"The user runs a bakery.", ``memoryd.extraction.sentences.memory_form``); it cannot do
that for French, Chinese or Japanese. For those the extraction LLM rewrites one sentence
per call, shown three worked examples in the sentence's own language: measured with the
bundled 1.5B model, one sentence with same-language examples comes back right where a
batch of mixed languages came back in the wrong language or copied. Code then checks the
answer: it must name the user the way that language does ("L'utilisateur", "用户"), hold
no number the sentence does not, and be other than the sentence itself; otherwise the
fact is not stored (its reason is recorded with the run).
"""

from __future__ import annotations

import json
import re
from typing import Any

from memoryd.domain.language import names_the_user
from memoryd.llm.base import LLMProvider, Message
from memoryd.llm.json_output import UnusableOutput, Usage, complete_json

MAX_TOKENS = 120
SYSTEM = (
    "Rewrite the user's sentence as a note about the user: in the third person, in the "
    "same language as the sentence, keeping every detail and adding nothing. A standing "
    'request becomes what the user wants. Answer with JSON: {"note": "..."}.'
)
SCHEMA = {
    "type": "object",
    "properties": {"note": {"type": "string", "maxLength": 400}},
    "required": ["note"],
}
# (sentence, note) per language: a fact, a relation, a standing request
SHOTS: dict[str, tuple[tuple[str, str], ...]] = {
    "fr": (
        ("J'habite à Lyon avec ma sœur.", "L'utilisateur habite à Lyon avec sa sœur."),
        ("Mon fils joue au foot le samedi.", "Le fils de l'utilisateur joue au foot le samedi."),
        ("Réponds toujours en français.", "L'utilisateur veut toujours des réponses en français."),
    ),
    "es": (
        ("Vivo en Sevilla con mi hermana.", "El usuario vive en Sevilla con su hermana."),
        (
            "Mi hijo juega al fútbol los sábados.",
            "El hijo del usuario juega al fútbol los sábados.",
        ),
        ("Responde siempre en español.", "El usuario quiere respuestas siempre en español."),
    ),
    "de": (
        (
            "Ich wohne mit meiner Schwester in Köln.",
            "Der Nutzer wohnt mit seiner Schwester in Köln.",
        ),
        ("Mein Sohn spielt samstags Fußball.", "Der Sohn des Nutzers spielt samstags Fußball."),
        ("Antworte immer auf Deutsch.", "Der Nutzer möchte Antworten immer auf Deutsch."),
    ),
    "pt": (
        ("Moro em Lisboa com a minha irmã.", "O usuário mora em Lisboa com a irmã."),
        ("Meu filho joga futebol aos sábados.", "O filho do usuário joga futebol aos sábados."),
        ("Responda sempre em português.", "O usuário quer respostas sempre em português."),
    ),
    "it": (
        ("Vivo a Torino con mia sorella.", "L'utente vive a Torino con sua sorella."),
        ("Mio figlio gioca a calcio il sabato.", "Il figlio dell'utente gioca a calcio il sabato."),
        ("Rispondi sempre in italiano.", "L'utente vuole sempre risposte in italiano."),
    ),
    "id": (
        (
            "Saya tinggal di Bandung bersama adik saya.",
            "Pengguna tinggal di Bandung bersama adiknya.",
        ),
        ("Anak saya main sepak bola setiap Sabtu.", "Anak pengguna main sepak bola setiap Sabtu."),
        (
            "Selalu jawab dalam bahasa Indonesia.",
            "Pengguna selalu ingin jawaban dalam bahasa Indonesia.",
        ),
    ),
    "zh": (
        ("我住在北京，有两只猫。", "用户住在北京，有两只猫。"),
        ("我的女儿在学钢琴。", "用户的女儿在学钢琴。"),
        ("以后请一直用中文回答。", "用户希望一直用中文回答。"),
    ),
    "ja": (
        ("私は大阪に住んでいます。", "ユーザーは大阪に住んでいます。"),
        ("妹は医者です。", "ユーザーの妹は医者です。"),
        ("いつも日本語で答えてください。", "ユーザーはいつも日本語での回答を望んでいます。"),
    ),
    "ko": (
        ("저는 부산에 살아요.", "사용자는 부산에 살아요."),
        ("제 딸은 피아노를 배워요.", "사용자의 딸은 피아노를 배워요."),
        ("항상 한국어로 대답해 주세요.", "사용자는 항상 한국어로 된 대답을 원해요."),
    ),
}
_DIGITS = re.compile(r"\d+")


def messages(sentence: str, language: str) -> list[Message]:
    """The request for one sentence: the instructions, the language's examples, it."""
    out: list[Message] = [{"role": "system", "content": SYSTEM}]
    for said, note in SHOTS[language]:
        out.append({"role": "user", "content": said})
        out.append({"role": "assistant", "content": json.dumps({"note": note}, ensure_ascii=False)})
    out.append({"role": "user", "content": sentence})
    return out


def problem(note: str, sentence: str, language: str) -> str | None:
    """Why ``note`` is not a faithful memory of ``sentence``, or None."""
    if not note.strip() or note.strip() == sentence.strip():
        return "the model did not rewrite it"
    if not names_the_user(note, language):
        return "the rewrite does not name the user"
    invented = set(_DIGITS.findall(note)) - set(_DIGITS.findall(sentence))
    if invented:
        return f"the rewrite adds a number the user did not write ({sorted(invented)[0]})"
    return None


def _has_note(value: dict[str, Any]) -> str | None:
    note = value.get("note")
    return None if isinstance(note, str) and note.strip() else '"note" must be a non-empty string'


def rewrite(
    provider: LLMProvider, sentence: str, language: str, usage: Usage
) -> tuple[str | None, str | None]:
    """(the memory, None), or (None, why not) for a sentence in ``language`` (not English).
    An LLM error propagates: the batch fails and is retried, as for the Observer."""
    try:
        answer = complete_json(
            provider,
            messages(sentence, language),
            schema=SCHEMA,
            schema_name="note",
            check=_has_note,
            max_tokens=MAX_TOKENS,
            usage=usage,
        )
    except UnusableOutput as exc:
        return None, f"the model gave no usable note ({exc})"
    note = " ".join(str(answer.value["note"]).split())
    why = problem(note, sentence, language)
    return (None, why) if why else (note, None)
