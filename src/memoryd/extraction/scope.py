"""Which scope a learned fact is filed in: global only when it matters in every workspace.

A fact is global only when it is about who the user is, whatever they work on: name,
age and identity, family, health and diet, home, languages and how they want answers
(docs/extraction.md, "Which scope"). A small model files most facts under ``person`` all
the same, so a sentence is filed globally only when the model put it there **and** it
speaks of one of those categories in its own language (``global_topic``: a closed list
of everyday words, not fitted to any data set). Pure functions, no I/O.
"""

from __future__ import annotations

import re

from memoryd.domain.language import language_of, per_language
from memoryd.domain.models import Scope
from memoryd.extraction.sentences import self_names

# An answer-style request ("Always answer me in Spanish", "Keep your replies short").
_ANSWERING_EN = (
    r"(?:answer|reply|respond|talk|speak|write|explain)\w*\s+(?:to\s+)?me|answers|replies|"
    r"responses|explanations"
)
_LANGUAGES_EN = (
    r"english|spanish|french|german|italian|portuguese|chinese|mandarin|cantonese|japanese|"
    r"korean|indonesian|russian|arabic|hindi|dutch|polish|turkish|greek|swedish|hebrew"
)
_FAMILY_EN = (
    r"wife|husband|partner|spouse|fianc[ée]e?|boyfriend|girlfriend|sons?|daughters?|kids?|"
    r"child|children|bab(?:y|ies)|mom|mum|mother|dad|father|parents?|brothers?|sisters?|"
    r"siblings?|grand\w+|aunt|uncle|cousins?|nieces?|nephews?|family|twins?|in-laws?|"
    r"step\w+"
)
_EN = re.compile(
    rf"\bmy\s+(?:\w+\s+)?(?:{_FAMILY_EN})\b|\b(?:married|divorced|widow(?:ed|er)?|engaged|"
    rf"pregnant|(?:mother|father|mom|dad) of)\b|"
    rf"\bi have (?:\w+ )?(?:kids|children|sons?|daughters?|brothers?|sisters?|siblings)\b|"
    r"\b(?:allerg\w*|intoleran\w*|diabet\w*|asthma\w*|celiac|coeliac|gluten|lactose|vegan|"
    r"vegetarian|pescatarian|kosher|halal|epilep\w*|migraines?|arthritis|cancer|adhd|"
    r"autis\w*|dyslexi\w*|disabilit\w*|disabled|wheelchair|deaf|blind|medication|chronic|"
    r"diagnosed|sober|diet)\b|\b(?:don't|do not|can't|cannot) (?:eat|drink)\b|"
    r"\bi (?:\w+ )?(?:live|lived|living|reside|grew up|moved|relocated)\b|"
    r"\b(?:i'm|i am|im|come|originally) from\b|\bborn\b|"
    r"\bmy (?:home ?town|home|house|apartment|flat|neighbou?rhood|country)\b|"
    r"\b\d{1,3}\s*(?:years?|yrs?)\s*old\b|\b(?:i'm|i am|im) \d{1,3}\b|"
    r"\bmy (?:name|age|birthday)\b|\bcall me\b|\b(?:i'm|i am) called\b|"
    r"\b(?:christian|muslim|jewish|catholic|buddhist|hindu|atheist|gay|lesbian|bisexual|"
    r"transgender|non-?binary)\b|"
    rf"\b(?:speak|native|mother tongue|fluent|bilingual|first language)\b|"
    rf"\b(?:in|speak|speaks|learning) (?:{_LANGUAGES_EN})\b|\b(?:{_ANSWERING_EN})\b",
    re.IGNORECASE,
)
# The same categories in the other languages: family, health and diet, home, age, name,
# languages, answers.
_OTHER = {
    "fr": r"\b(?:mari|femme|époux|épouse|copain|copine|fiancée?|fils|filles?|enfants?|bébé|"
    r"mère|maman|père|papa|parents|frères?|s(?:œ|oe)urs?|grand-\w+|oncle|tante|cousine?s?|"
    r"neveu|nièce|famille|mariée?|divorcée?|enceinte|allergi\w*|intoléran\w*|diabét\w*|"
    r"asthm\w*|végétarien\w*|végétalien\w*|vegan\w*|gluten|lactose|handicap\w*|malad\w*|"
    r"médicaments?|habite|vis|vit|vivons|déménagé|originaire|née?|ans|appelle|nom|prénom|"
    r"parle|langue|réponds|répondre|réponses?|explique)\b",
    "es": r"\b(?:esposo|esposa|marido|mujer|novi[oa]|hij[oa]s?|niños|bebé|madre|mamá|padre|"
    r"papá|padres|herman[oa]s?|abuel[oa]s?|tí[oa]|prim[oa]s?|sobrin[oa]s?|familia|casad[oa]|"
    r"divorciad[oa]|embarazada|alérgic[oa]|alergias?|diabét\w*|asma|vegetarian[oa]|"
    r"vegan[oa]|celíac[oa]|gluten|lactosa|discapacidad|enfermedad|medicamentos?|vivo|"
    r"vivimos|viví|mudé|nací|años|llamo|nombre|hablo|idioma|lengua|responde\w*|respuestas?)\b",
    "de": r"\b(?:mann|frau|ehemann|ehefrau|partner\w*|freundin|sohn|söhne|tochter|töchter|"
    r"kinder?|baby|mutter|mama|vater|papa|eltern|br[uü]der|schwester\w*|geschwister|"
    r"großeltern|oma|opa|onkel|tante|cousin\w*|familie|verheiratet|geschieden|schwanger|"
    r"allergi\w*|unverträglich\w*|diabet\w*|asthma|vegetarier\w*|vegetarisch|vegan\w*|"
    r"zöliakie|gluten|laktose|behindert\w*|krankheit|medikament\w*|wohne|lebe|wohnen|"
    r"umgezogen|komme aus|geboren|jahre alt|heiße|name|spreche|sprache|antworte\w*|"
    r"antworten?)\b",
    "pt": r"\b(?:marido|esposa|esposo|mulher|namorad[oa]|filh[oa]s?|crianças|bebê|mãe|pai|"
    r"pais|irmã[os]?|irmãs|avós?|avô|ti[oa]|prim[oa]s?|sobrinh[oa]s?|família|casad[oa]|"
    r"divorciad[oa]|grávida|alérgic[oa]|alergias?|diabét\w*|asma|vegetarian[oa]|vegan[oa]|"
    r"celíac[oa]|glúten|lactose|deficiência|doença|remédios?|medicamentos?|moro|vivo|morei|"
    r"mudei|nasci|anos|chamo|nome|falo|idioma|língua|responda\w*|respostas?)\b",
    "it": r"\b(?:marito|moglie|fidanzat[oa]|compagn[oa]|figli[oa]?|figlie|bambin[oia]|"
    r"madre|mamma|padre|papà|genitori|fratell[oi]|sorell[ae]|nonn[oia]|zi[oa]|"
    r"cugin[oiae]|nipot[ei]|famiglia|sposat[oa]|divorziat[oa]|incinta|allergic\w*|allergia|"
    r"diabet\w*|asma|vegetarian[oa]|vegan[oa]|celiac\w*|glutine|lattosio|disabil\w*|"
    r"malattia|farmac\w*|vivo|abito|viviamo|trasferit[oa]|nat[oa]|anni|chiamo|nome|parlo|"
    r"lingua|rispondi\w*|risposte?)\b",
    "id": r"\b(?:suami|istri|pacar|tunangan|anak|bayi|ibu|mama|ayah|bapak|papa|orang ?tua|"
    r"kakak|adik|saudara|kakek|nenek|paman|bibi|tante|sepupu|keponakan|keluarga|menikah|"
    r"cerai|bercerai|hamil|alergi|diabetes|asma|vegetarian|vegan|gluten|laktosa|cacat|"
    r"penyakit|obat|tinggal|pindah|berasal|lahir|umur|usia|berusia|berumur|nama|bahasa|"
    r"jawab\w*|jawaban)\b",
    "zh": r"丈夫|老公|妻子|老婆|太太|男朋友|女朋友|儿子|女儿|孩子|宝宝|妈妈|母亲|爸爸|父亲|父母|"
    r"哥哥|姐姐|弟弟|妹妹|兄弟|姐妹|爷爷|奶奶|外公|外婆|叔叔|阿姨|舅舅|家人|家里|结婚|离婚|怀孕|"
    r"过敏|糖尿病|哮喘|素食|吃素|麸质|乳糖|残疾|疾病|生病|药|住在|搬到|来自|出生|岁|名字|我叫|"
    r"[说講讲].{0,3}[语話话]|语言|回答|回复",
    "ja": r"夫|妻|旦那|嫁|彼氏|彼女|息子|娘|子供|子ども|赤ちゃん|母|父|両親|兄|姉|弟|妹|祖父|"
    r"祖母|おじいちゃん|おばあちゃん|叔父|叔母|いとこ|家族|結婚|離婚|妊娠|アレルギー|糖尿病|"
    r"喘息|ベジタリアン|ヴィーガン|菜食|グルテン|乳糖|障害|病気|薬|住んで|住む|引っ越|出身|"
    r"生まれ|歳|名前|と申します|話せ|話します|言語|語で|答え|返事|回答",
    "ko": r"남편|아내|와이프|부인|남자친구|여자친구|남친|여친|아들|딸|아이|아기|엄마|어머니|아빠|"
    r"아버지|부모|오빠|누나|언니|남동생|여동생|동생|형제|자매|할아버지|할머니|삼촌|이모|고모|사촌|"
    r"조카|가족|결혼|이혼|임신|알레르기|알러지|당뇨|천식|채식|비건|글루텐|유당|장애|병원|질병|약을|"
    r"살아|살고|사는|이사|출신|태어|\d+\s*살|이름|언어|대답|답변",
}
_CUES = {"en": _EN} | per_language(_OTHER)


def global_topic(sentence: str) -> bool:
    """Whether ``sentence`` speaks of something that matters in every workspace (see
    the module doc): a family member, health or diet, home, age, name, language, or how
    the assistant should answer."""
    found = _CUES[language_of(sentence)].search(sentence) is not None
    return found or bool(self_names([sentence]))  # "Hi, I'm Ana."


def scope_for(sentence: str, said: Scope) -> Scope:
    """The scope a sentence's fact is filed in: global only when the model said it is
    about the person (``said``) and it is about one of the global topics; else the
    workspace of the chat."""
    return Scope.GLOBAL if said is Scope.GLOBAL and global_topic(sentence) else Scope.WORKSPACE
