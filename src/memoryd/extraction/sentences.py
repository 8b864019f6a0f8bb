"""The user's own sentences: where every extracted fact must come from (speaker in code).

Extraction never asks a model "what do you know about the user?" over a whole chat log:
small models then file the assistant's words, greetings and prompt text as the user's
facts. Instead code takes the sentences of the ``user`` turns only, drops those that
cannot hold a lasting fact, and numbers the rest; each fact the model returns names its
sentence. Names are decided here too: a name the user *addresses* ("Hey John!") belongs
to the assistant; a name is the user's only when they say so ("my name is ...").
Pure functions, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import partial

from memoryd.domain.language import (
    FIRST_PERSON,
    STANDING,
    is_cjk,
    is_english,
    language_of,
    not_about_the_user,
)
from memoryd.domain.models import Chat

# a closing quote or bracket after the stop stays with its sentence ('... "soon." Next')
_SPLIT = re.compile(r"(?:(?<=[.!?…])|(?<=[.!?…][\"'”’)\]]))\s+|(?<=[。！？])|\n+")
# Pasted material is not the user speaking (R20): fenced code, quoted lines, code lines.
_FENCE = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)", re.DOTALL)
_CODE_LINE = re.compile(
    r"^\s*(?:>|#include|import\s|from\s+\S+\s+import\s|def\s|class\s|return\b|"
    r"(?:public|private|static|const|let|var|function|fn|func)\s|//|/\*|\*\s|<[a-z/!])"
    r"|[;{}]\s*$|^\s{4,}\S|\t"
)
_SYMBOLS = re.compile(r"[=(){}\[\];<>_/\\|$@]")
PASTE_LINES = 6  # a turn this many lines long, this long, whose first line asks about
PASTE_CHARS = 300  # what follows ("Can you explain this?", "Convert this:") pasted it
_FRAMES = re.compile(r"[?？:：]\s*$")
# A new clause with the user as its subject: "I'm 45, I grew up on a farm and I ..."
_CLAUSE = re.compile(
    r"(?:,\s*|\s+)(?:and|but|so)\s+(?=(?:I|I'm|I've|I'd|my|My)\b)|,\s+(?=(?:I|I'm|I've|My)\b)"
)
# A phrase that sets the scene for the clause after its comma: a subordinate clause, a
# time, a role ("As a nurse, I ...", "Last week, I ...", "After my divorce, I ...")
_SCENE = re.compile(
    r"\W*(?:as|when|whenever|if|since|after|before|because|while|although|though|once|"
    r"until|unless|during|last|this|next|every|in|on|at|back|over|growing up)\b",
    re.IGNORECASE,
)
_OTHERS_IN_SCENE = re.compile(r"\b(?:we|our|us|you|your|me|myself|mine)\b", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z0-9][\w'’-]*")
# Template holes: "[job title]", "{name}", "<city>", "(user 1's name)", "User 1".
_PLACEHOLDER = re.compile(
    r"\[[^\]]*\]|\{[^}]*\}|<[^>]*>|\((?i:user|your|my|name)\b[^)]*\)|\b(?i:user|speaker)\s*[12]\b"
)
_I_WORD_LIST = "i i'm im i've ive i'd i'll me my mine myself"
_I_WORDS = frozenset(_I_WORD_LIST.split())
EN_FIRST_PERSON = _I_WORDS | {"we", "we're", "we've", "we'll", "our", "ours", "us"}
_SECOND_PERSON_WORDS = "you you're youre you've you'd you'll your yours yourself"
EN_SECOND_PERSON = frozenset(_SECOND_PERSON_WORDS.split())
# Openings that only react to the other party or manage the conversation.
_REACTION = re.compile(
    r"^(?:(?:oh|well|yeah|yes|no|wow|haha|lol|ok|okay|sure|cool|great|awesome|nice|my gosh|"
    r"my god|my goodness|oh my|"
    r"thanks?|thank you|hi|hello|hey|me too|same here|i agree|i see|i know|i hope|"
    r"i think so|i'm glad|i am glad|i'm sorry|i am sorry|i'm sure|i bet|i guess|"
    r"i understand|i can imagine|i can't wait|that's|that is|that sounds|sounds|it's been|"
    r"it was nice|nice to meet|good to|glad to|you too|bye|goodbye|see you)\b[\s,!.]*)+$",
    re.IGNORECASE,
)
_GREETING = r"(?i:hi|hello|hey|thanks|thank you|bye|goodbye|good morning|good night|dear|ok|okay)"
_NAME = r"([A-Z][a-z]+(?:\s[A-Z][a-z]+)?)"
_VOCATIVE = (
    re.compile(rf"\b{_GREETING}[,!]?\s+(?:there\s+)?{_NAME}\b(?!\s+(?:is|was|and|said))"),
    re.compile(rf"^{_NAME},\s", re.MULTILINE),
    re.compile(rf",\s*{_NAME}\s*[!?.]\s*$"),
)
# "I'm Ana" names the user; "I'm John's biggest fan" and "I am Canadian" do not.
_SELF_NAME = re.compile(
    rf"\b(?:(?i:my name is|my name's|call me|(?<![\w'’]\s)name is)\s+{_NAME}\b(?!['’]s)|"
    rf"(?i:i am|i'm|im)\s+{_NAME}(?!['’]s)(?=\s*(?:[.,!;]|$|\s(?i:and|but|from|by)\b)))"
)
_NOT_OWN_NAME_WORDS = (
    "american canadian british english french german italian spanish chinese japanese "
    "indian mexican brazilian australian irish scottish dutch swedish polish russian korean "
    "christian muslim jewish catholic buddhist hindu atheist vegan vegetarian"
)
_NOT_OWN_NAMES = frozenset(_NOT_OWN_NAME_WORDS.split())
_NOT_NAME_WORDS = (
    "I Im It The A An And But So Well Yes No Oh Not Just Really Very Glad Happy Sorry Good "
    "Great Fine Okay Ok Sure Going Doing Here There Thanks Thank Hi Hello Hey Me My You"
)
_NOT_NAMES = frozenset(_NOT_NAME_WORDS.split())

# Openings of a passing remark rather than a lasting fact ("I'm sure it is", a one-off
# promise, a move in the talk: "I want to emphasize ...", leaving it: "I have to go now");
# opinions, hopes and wishes ("I think ...", "I'd love to ...") may be lasting.
_HEDGE = re.compile(
    r"^(?:\W*(?:oh|well|yeah|yes|so|and|but|haha)\b[\s,!.]*)*(?:i'm sure|i am sure|"
    r"i'm not sure|i am not sure|i might|i may|maybe|perhaps|i'll try|i will try|"
    r"i guess|i suppose|i reckon|i wonder|i'm (?:so |really |very )?glad|i am glad|i can't wait|"
    r"i'll have to|i will have to|i'll definitely|i'll let|i'll check|i'll look|i agree|"
    r"i'm happy to|i'd be happy|i bet|i'm excited|i am excited|"
    r"i(?:'m| am| was)(?: really| so)? looking forward|i(?:'m| am) (?:\w+ )?ready to|"
    r"i can see|i can tell|i see|"
    r"i(?:'ll| will) (?:send|share|forward|email|get back|follow up|be in touch|provide)|"
    r"(?:i (?:just )?(?:want|wanted) to|i(?:'d| would) like to|let me) (?:emphasi[sz]e|stress|"
    r"highlight|point out|mention|remind|note|add|clarify|reiterate|reassure|assure)|"
    r"i(?:'d| would)? (?:strongly |highly )?(?:recommend|suggest|advise))\b|"
    r"^(?:\W*(?:oh|well|ok|okay|sorry|so)\b[\s,!.]*)*i (?:have|need|got|gotta) (?:to )?"
    r"(?:go|run|leave|head out|get going|sign off)(?:\s+(?:now|soon))?\s*[.!…]*$",
    re.IGNORECASE,
)
# A state of the moment: how the user feels or what they are doing ("I'm so tired today").
_MOMENTARY = re.compile(
    r"^(?:i'm|i am|im)\s+(?:(?:so|very|really|pretty|quite|a bit|a little|kind of|kinda|"
    r"absolutely|extremely|super|totally|"
    r"just|still|feeling|doing|getting|all|finally|now|more|even more)\s+)*(?:(?:tired|"
    r"exhausted|sleepy|hungry|thirsty|bored|fine|good|great|well|ok|okay|alright|busy|"
    r"excited|nervous|anxious|worried|scared|panicking|overwhelmed|confused|stressed|happy|"
    r"terrible|awful|horrible|dizzy|shaky|sick|better|worse|"
    r"sad|upset|annoyed|frustrated|ready|back|here|home|awake|done|free|full|cold|hot|late|"
    r"around|off)(?:\s+(?:today|tonight|now|right now|at the moment|waiting|"
    r"this (?:morning|afternoon|evening|week)|to \w+|for \w+|too|thanks?|though|then|"
    r"here|there|thank you)|[,\s]+(?:thanks?|thank you))*\s*[.!…]*$|"
    r"(?:just\s+)?(?:eating|having|grabbing|making|cooking|drinking)\s+(?:my\s+|some\s+|a\s+)?"
    r"(?:breakfast|lunch|dinner|brunch|supper|snacks?|coffee|tea)\b|(?:just\s+)?(?:sitting|"
    r"lying|relaxing|resting|chilling|waiting|hanging out)\b|"
    r"\w+ing\b[^.!?]*\b(?:right now|at the moment)\s*[.!…]*$)",
    re.IGNORECASE,
)
# A need of the moment ("I need those options now", "I don't have time for that right
# now"): not "I want you to ... from now on" (a rule) nor "... for now"
_NEED_NOW = re.compile(
    r"^i\s+(?:really\s+|just\s+|still\s+|simply\s+)*(?:need|want|don't want|do not want|"
    r"don't have (?:the )?time|have to|must)\b(?![^.!?]*\byou\b)[^.!?]*(?<!\bfor )\b(?:"
    r"now(?!\s+on\b)|right now|immediately|right away|asap|this second|at the moment|today|"
    r"tonight|quickly)\b",
    re.IGNORECASE,
)
# An effort, a doubt or a sensation of the moment ("I'm trying to focus on my breathing",
# "I don't know what to do", "I can feel the chair under me"), not a lasting aim ("I'm
# trying to lose weight") nor a skill ("I don't know how to swim")
_EFFORT_NOW = re.compile(
    r"^i(?:'m| am)\s+(?:(?:just|still|really|now|desperately)\s+)*trying\s+(?:not\s+)?to\s+"
    r"(?:count|focus|concentrate|breathe|look|feel|listen|relax|calm down|stay calm|keep calm|"
    r"sleep|remember|hold|ground|catch)\b|"
    r"^i\s+(?:really\s+|just\s+|still\s+|honestly\s+)*(?:don't|do not)\s+know\s+(?:what to "
    r"(?:do|say|think)|where to (?:start|begin)|what(?:'s| is) (?:going on|happening)|why\b|"
    r"(?:if|whether) (?:this|that|it)\b)|"
    r"^i\s+(?:can feel|can't (?:think|focus|concentrate)|cannot (?:think|focus|concentrate))\b",
    re.IGNORECASE,
)
_CAUGHT_UP = r"(?:last )?(?:talked|spoke|chatted|caught up)(?: last)?"  # "since we ..."
# A move in the talk about the talk itself, as in a chat with an assistant: the user's
# material ("I've attached the report"), their questions ("My next question is ..."), what
# they just said ("I just said ...") or will report ("I'll let you know how it goes"),
# catching up ("Lots has happened since we last talked") and a photo's caption ("Here's a
# photo of the cake I baked": its fact is in a clause code cannot write alone); not "I
# told you, ...", which often comes before what the user wants
_TALK_MOVE = re.compile(
    r"^i(?:'ve| have)?\s+(?:just\s+|already\s+)?(?:uploaded|attached|pasted|included|copied)\b|"
    r"^my\s+(?:next|last|first|main|other|follow-up|final)\s+question\b|"
    r"^i\s+(?:just\s+|already\s+)(?:said|mentioned|asked|explained)\b|"
    r"^i(?:'ll| will)\s+(?:reach out|let you know|keep you posted|update you|report back)\b|"
    rf"^.*\bsince we {_CAUGHT_UP}\s*[.!…]*$|"
    r"^(?:here's|here is|this is|check out|look at)\s+(?:a |an |my |the |this )?"
    r"(?:photo|pic|picture|snap|shot|video|selfie|screenshot)s?\b",
    re.IGNORECASE,
)
# Openings before the user's words: "Oh, I ...", "Well I ...", "Yes! My ..."
LEAD_IN = re.compile(
    r"^(?:(?:oh|well|yeah|yea|yep|yup|yes|no|nah|nope|wow|haha|lol|ok|okay|so|actually|"
    r"honestly|also|and|but|hi|hey|hello|guess what|cool|great|awesome|nice|same|me too|"
    r"oh yeah|oh wow|oh my gosh|my gosh|my god|oh my|my (?:guy|man|dude|bro|goodness|lord|word)|"
    r"like i said|as i said|like i say|mate|buddy|dude|bro|man|"
    rf"since (?:we|i) {_CAUGHT_UP})"
    r"(?:\s*[,!.]+\s*|\s+(?=(?:i|i'm|i've|my)\b)))+",
    re.IGNORECASE,
)
# How the body feels in the moment ("My heart is pounding"), not how it is ("My eyes are blue")
_BODY_NOW = re.compile(
    r"^my\s+(?:chest|heart|head|hands?|legs?|knees?|stomach|eyes|body|throat|breathing|mind|"
    r"face|palms|vision)\s+(?:(?:is|are|feels?|keeps?|still|just)\s+)*"
    r"(?:still|so|incredibly|really|won't|can't|tight|blurry|fuzzy|numb|heavy|dizzy|sore|"
    r"\w+ing)\b",
    re.IGNORECASE,
)
_ANAPHORS = frozenset(
    ["it", "that", "those", "them", "one", "this", "these", "there", "they", "ones"]
)
_LIGHT_WORDS = (
    "the a an and or but so to of in on at for with about as is are was were be been am do "
    "does did have has had can could will would should might may must not no never also too "
    "just really very so much more most all some any lot lots of thing things stuff way get "
    "got go going like love enjoy want try sure think know good great nice fun always own "
    "i i'm i've i'd i'll me my mine we our us you your yeah yes oh well"
)
_LIGHT = frozenset(_LIGHT_WORDS.split()) | _ANAPHORS
_NUMBER_WORD_LIST = "one two three four five six seven eight nine ten both several few many"
_NUMBER_WORDS = frozenset(_NUMBER_WORD_LIST.split())
_SHARED_WE = re.compile(
    r"\b(?:we|let's|us)\b.*\b(?:in common|together|should|could|can|might)\b|"
    r"\b(?:we should|we could|we can|let's|we'll|we will|we might)\b",
    re.IGNORECASE,
)
_PRONOUN_SUBJECT = re.compile(
    r"^\W*(?:it|it's|its|that|that's|this|this is|they|they're|there|there's|he|she|"
    r"he's|she's|i (?:think|believe|feel|guess|agree) (?:that's|that is|this is))\b",
    re.IGNORECASE,
)
# A sentence that breaks off where a clause cannot end ("that section felt particularly...")
_TRAILING_OFF = re.compile(
    r"\b(?:the|a|an|and|or|but|to|of|with|for|in|on|at|from|so|very|really|particularly|"
    r"quite|too|more|most|my|your|our|their|his|her|its|that|which|who|because|if|when|"
    r"like|just|is|are|was|were|be|am)\s*(?:\.{2,}|…)\s*$",
    re.IGNORECASE,
)
# A person the sentence names only by pronoun ("I love his music", "I've seen them live").
_PLURAL_THIRD_WORDS = "they them their theirs they're they've"
_PLURAL_THIRD = frozenset(_PLURAL_THIRD_WORDS.split())
_THIRD_PERSON_WORDS = f"he him his he's she her hers she's {_PLURAL_THIRD_WORDS}"
_THIRD_PERSON = frozenset(_THIRD_PERSON_WORDS.split())
_NOT_PLURAL_WORDS = "is was this his has as us yes its it's"
_NOT_PLURAL = frozenset(_NOT_PLURAL_WORDS.split())
EMPHASIS = re.compile(r"(?<!\w)[*_]{1,3}([^*_\n]+?)[*_]{1,3}(?!\w)")  # Markdown *word*
_ANTECEDENT = re.compile(r"\b(?:my|our|a|an|the)\s+\w+", re.IGNORECASE)
_PLACE_ANTECEDENT = re.compile(
    r"\b(?:to\s+(?:my|our|a|an|the)|(?:in|at|from|near|by|into|visit(?:ed|ing)?|move[ds]?|"
    r"moving)(?:\s+(?:my|our|a|an|the))?)\s+\w+",
    re.IGNORECASE,
)
_THANKS = re.compile(r"^\W*(?:thanks|thank you|you|you're|your)\b", re.IGNORECASE)
# what a sentence of the moment opens with: none of it lasts
_MOMENTS = (_HEDGE, _THANKS, _MOMENTARY, _NEED_NOW, _BODY_NOW, _EFFORT_NOW, _TALK_MOVE)

MIN_WORDS = 3
MAX_SENTENCE_CHARS = 300


@dataclass(frozen=True)
class Sentence:
    """One candidate sentence of a user turn, with the chat it came from."""

    number: int
    text: str
    chat_id: int
    turn: str  # the whole user prompt it belongs to: context for grounding a rewrite
    language: str = "en"  # its own, or its turn's where its words do not tell
    asked: str = ""  # the other party's question it may answer ("Your favourite food?")


def own_words(prompt: str) -> str:
    """What the user wrote themselves in a turn, without what they pasted: fenced code,
    quoted (``>``) and code-like lines, and, in a long turn of many lines whose first line
    asks about what follows (a document or a quiz pasted to be worked on), everything
    between its first and last line."""
    text = _FENCE.sub("\n", prompt)
    lines = [
        line
        for line in text.splitlines()
        if line.strip()
        and not _CODE_LINE.search(line)
        and len(_SYMBOLS.findall(line)) * 8 < max(len(line), 1)
    ]
    if len(lines) >= PASTE_LINES and len(prompt) >= PASTE_CHARS and _FRAMES.search(lines[0]):
        lines = [lines[0], lines[-1]]
    return "\n".join(lines)


def split_sentences(text: str) -> list[str]:
    """``text`` cut into sentences (on . ! ? … 。！？ and line breaks), whitespace folded."""
    parts = (" ".join(p.split()) for p in _SPLIT.split(text))
    return [p for p in parts if p]


def split_clauses(sentence: str, scenes: bool = True) -> list[str]:
    """A sentence cut where a new clause about the user starts ("..., and I volunteer"),
    but not after a phrase that sets the scene for it ("As a nurse, I ...", "Last week, I
    ...", "When I was a kid, I ..."), or makes it a rule ("From now on, I want ..."): cut
    off, the phrase means nothing and the clause loses who, when, why or for how long. A
    scene of the talk itself ("As we discussed, I ...") is left out: the clause stands
    alone."""
    parts, start = [], 0
    for cut in _CLAUSE.finditer(sentence):
        lead = sentence[start : cut.start()]
        if scenes and cut.group().startswith(",") and (_SCENE.match(lead) or _rule_lead(lead)):
            if not _OTHERS_IN_SCENE.search(lead):
                continue
            lead = ""  # "As we discussed, I ...", "When you asked, I ...": the clause alone
        parts.append(lead)
        start = cut.end()
    parts.append(sentence[start:])
    return [p.strip(" ,") for p in parts if p.strip(" ,")]


def _rule_lead(lead: str) -> bool:
    """Whether ``lead`` makes the clause after it a rule ("From now on,", "Going forward,")
    without being a clause of the user's itself ("I've always loved music, ...")."""
    return bool(STANDING.search(lead)) and not set(_words(lead)) & _I_WORDS


def kept_clauses(sentence: str, keeps: Callable[[str], bool]) -> Iterator[str]:
    """The clauses of ``sentence`` that ``keeps`` accepts: a clause with the phrase that
    sets its scene when it is kept whole ("As a nurse, I work nights"), else its parts
    ("While I expect precision in these guidelines, I'm always available": the first
    part leans on "these", the second stands alone)."""
    for clause in split_clauses(sentence):
        if keeps(clause):
            yield clause
            continue
        parts = split_clauses(clause, scenes=False)
        if len(parts) > 1:
            yield from (part for part in parts if keeps(part))


def _words(text: str) -> list[str]:
    return [w.casefold().replace("’", "'") for w in _WORD.findall(text)]


def could_hold_fact(sentence: str, language: str | None = None) -> bool:
    """Whether a sentence may state something lasting about the user or their project.

    Kept: statements in the first person, and impersonal statements that carry a name or
    a number ("Phoenix ships in Q3"). Dropped: questions, placeholders, pure reactions,
    and sentences about the other party with nothing about the user. Another language
    has its own closed word classes (``not_about_the_user``): the English rules below are
    not its door (R21). ``language`` is the sentence's, if known (else read from it).
    """
    sentence = EMPHASIS.sub(r"\1", sentence)  # "my heart is *still* pounding"
    if sentence.endswith(("?", "？")) or _PLACEHOLDER.search(sentence):
        return False
    language = language or language_of(sentence)
    if language != "en":
        size = len(sentence.replace(" ", "")) if is_cjk(language) else len(sentence.split())
        if not_about_the_user(sentence, language):
            return False  # "J'adore ça", "Anda harus ...", "il aime tout.", "멋지다!"
        return size >= (4 if is_cjk(language) else MIN_WORDS)
    if _SELF_NAME.search(sentence):
        return True
    sentence = LEAD_IN.sub("", sentence).strip()
    if _leans_on_someone(sentence) or _leans_on_something(sentence):
        return False  # "I love their music", "I never did that": what is said only before
    words = _words(sentence)
    standing = STANDING.search(sentence)
    if standing and not set(words) & _I_WORDS:
        # a standing rule ("Always start names with 'x_'"): decide.py reads it; not a
        # sentence that is little more than its "from now on"
        rest = _words(sentence[: standing.start()] + sentence[standing.end() :])
        return len(rest) >= MIN_WORDS - 1
    if len(words) < MIN_WORDS or _REACTION.match(sentence.strip()):
        return False
    if any(p.match(sentence) for p in _MOMENTS):
        return False  # "I'm sure it is", "Thanks for ...", "I'm tired today", "I'm trying to focus"
    if any(p.search(sentence) for p in _VOCATIVE):
        return False  # spoken to the other party
    content = [w for w in words if w not in _LIGHT]
    if (
        not content
        or all(w in _NUMBER_WORDS or w.isdigit() for w in content)
        or (len(content) < 2 and any(w in _ANAPHORS for w in words))
    ):
        return False  # "I love that one", "I have two of my own": nothing stands alone
    if _SHARED_WE.search(sentence):
        return False  # "we" is the user and the assistant: "we have a lot in common"
    if _PRONOUN_SUBJECT.match(sentence) or _TRAILING_OFF.search(sentence):
        return False  # "That's what I want", "I think that's a great step", "I felt so..."
    first = any(w in EN_FIRST_PERSON for w in words)
    if first:
        return True
    if any(w in EN_SECOND_PERSON for w in words):
        return False  # about the other party, or leaning on what came before ("It's ...")
    return _names_one(_WORD.findall(sentence)) or any(ch.isdigit() for ch in sentence)


def _names_one(tokens: Sequence[str]) -> bool:
    """Whether a capitalised word but the first of ``tokens`` is a name."""
    return any(t[0].isupper() and t not in _NOT_NAMES for t in tokens[1:])


def _plural(word: str) -> bool:
    """Whether a case-folded word is a plural "them" can stand for ("kids", "people")."""
    return word.endswith(("s", "people", "children")) and word not in _NOT_PLURAL


def _leans_on_someone(sentence: str) -> bool:
    """Whether a he / she / they in ``sentence`` has no one it can refer to before it."""
    tokens = _WORD.findall(sentence)
    for index, token in enumerate(tokens):
        word = token.casefold().replace("’", "'")
        if word not in _THIRD_PERSON:
            continue
        before = tokens[:index]
        if _ANTECEDENT.search(" ".join(before)) or _names_one(before):
            return False
        # "I love working with kids and helping them learn": "them" has its "kids"
        return word not in _PLURAL_THIRD or not any(_plural(t.casefold()) for t in before)
    return False


_OBJECT_REFERENCE = re.compile(r"\b(?:it|them|this one|that one)\b", re.IGNORECASE)
_DUMMY_IT = re.compile(r"it\s+\w+\s+(?:to|that)\b", re.IGNORECASE)
# A demonstrative standing for a thing ("I never did that before", "I want this to hit
# hard", "these workshops"; not "I think that ...", "these days"), and a place word that
# points at a place ("I went there twice"; not "there is").
_DEMONSTRATIVE = re.compile(
    r"\b(?:that|this|those|these)(?=\s*(?:[.!,;…]|$)|\s+(?:before|again|too|anymore|a lot|"
    r"so much|very much|all the time|every day|yet|now|either|myself)\b)"
    r"|\b(?:this|these|those)(?=\s+(?:to|for|with|in|on|at|from|into|about|because)\b)"
    r"|\b(?:these|those)(?=\s+(?!days\b|times\b|who\b|which\b|that\b|of\b)[a-z]+s\b)",
    re.IGNORECASE,
)
_PLACE_WORD = re.compile(
    r"\b(?:there|here)\b(?!\s*(?:is|are|was|were|isn't|aren't|wasn't|weren't|'s|’s|will|"
    r"has|have|had|used|must|might|may|should|could|would|seems?|exists?)\b)",
    re.IGNORECASE,
)


def _leans_on_something(sentence: str) -> bool:
    """Whether an "it", "them", a demonstrative or "there" / "here" in ``sentence`` has
    nothing before it to refer to ("them" needs something plural)."""
    for pattern in (_OBJECT_REFERENCE, _DEMONSTRATIVE, _PLACE_WORD):
        for match in pattern.finditer(sentence):
            if pattern is _OBJECT_REFERENCE and _DUMMY_IT.match(sentence, match.start()):
                continue  # "I find it hard to ...": an "it" that stands for nothing
            if not _has_antecedent(sentence[: match.start()], match.group(0).lower()):
                return True
    return False


def _has_antecedent(before: str, word: str) -> bool:
    """Whether ``before`` names something ``word`` can refer to: a name or a number,
    and a plural for "them", a noun with its article or "my" for the others."""
    words = _words(before)
    # "both" and "one" count nothing ("I love both of those genres")
    if any(w.isdigit() or (w in _NUMBER_WORDS and w not in ("one", "both")) for w in words):
        return True
    if _names_one(_WORD.findall(before)):
        return True
    if word == "them":
        return any(_plural(w) for w in words)
    if word == "there":  # a place: "I grew up in a village and still live there"; "here"
        return _PLACE_ANTECEDENT.search(before) is not None  # is where the user is
    return _ANTECEDENT.search(before) is not None


# "this section": up to three words after a demonstrative, one the other party used
_POINTED = re.compile(r"\b(?:this|these|those)((?:\s+[\w'’-]+){1,3})", re.IGNORECASE)
_TO_YOU = re.compile(r"\b(?:you|your|yours)\b", re.IGNORECASE)


def points_back(sentence: str, other_words: set[str]) -> bool:
    """Whether ``sentence`` points at a thing the other party spoke of ("I feel this
    section now has the punch it needs" after "Here is the new section ..."): it means
    something only beside that reply. Not a request or a rule to the other party
    (instructions.py reads those), nor "I love rock music too"."""
    if _TO_YOU.search(sentence) or STANDING.search(sentence):
        return False
    return any(
        w in other_words and w not in _LIGHT
        for match in _POINTED.finditer(sentence)
        for w in _words(match.group(1))
    )


COPIED_WORDS = 6  # a run of this many words the assistant wrote before is its text


def word_runs(text: str, size: int = COPIED_WORDS) -> set[tuple[str, ...]]:
    """Every run of ``size`` words of ``text`` (case-folded, punctuation left out)."""
    words = _words(text)
    return {tuple(words[i : i + size]) for i in range(len(words) - size + 1)}


def copies(sentence: str, runs: set[tuple[str, ...]], size: int = COPIED_WORDS) -> bool:
    """Whether ``sentence`` repeats a run of ``size`` words of another text (the
    assistant's summary, plan or draft, quoted back or pasted: its material, not the
    user's fact; the extraction request's instructions in a note)."""
    return not word_runs(sentence, size).isdisjoint(runs)


def user_sentences(chats: Sequence[Chat], limit: int, said_before: str = "") -> list[Sentence]:
    """The batch's candidate sentences from its user turns only, numbered from 1.

    ``said_before`` is the assistant's reply before the first chat, if known. A sentence
    in another language than English with no "I" carries the question the reply before
    it ended with ("ミートソースのパスタです" answers "What is your favourite food?").
    """
    found: list[Sentence] = []
    assistant_runs = word_runs(said_before)
    other_words = set(_words(said_before))
    last_reply = said_before
    # a short turn says little of its language ("amo le esplosioni!" reads as French): the
    # batch's settles a turn read as another one. In an English batch a turn or sentence
    # that reads as English at all is English ("no , i never went" has Portuguese "no")
    owns = [own_words(chat.prompt) for chat in chats]
    batch_language = language_of("\n".join(owns))
    for chat, own in zip(chats, owns, strict=True):
        turn_language = language_of(own)
        if batch_language == "en" and is_english(own):
            turn_language = "en"
        elif "en" not in (turn_language, batch_language) and turn_language != batch_language:
            turn_language = language_of(own, batch_language)
        asked = _question_ending(last_reply)

        keeps = partial(_candidate, turn=turn_language, runs=assistant_runs, said=other_words)
        for text in (c for s in split_sentences(own) for c in kept_clauses(s, keeps)):
            if len(found) >= limit:
                return found
            language = _language_in(text, turn_language)
            # FIRST_PERSON holds every language but English
            alone = language in FIRST_PERSON and not FIRST_PERSON[language].search(text)
            answers = asked if alone else ""
            found.append(Sentence(len(found) + 1, text, chat.id, chat.prompt, language, answers))
        last_reply = chat.response
        assistant_runs |= word_runs(chat.response)
        other_words |= set(_words(chat.response))
    return found


def _language_in(text: str, turn: str) -> str:
    return "en" if turn == "en" and is_english(text) else language_of(text, turn)


def _candidate(text: str, turn: str, runs: set[tuple[str, ...]], said: set[str]) -> bool:
    """Whether a clause of a turn in language ``turn`` is a candidate: it may hold a fact,
    copies no run of words the assistant wrote (``runs``) and, in English, points back at
    nothing the assistant said (``said``, its words)."""
    language = _language_in(text, turn)
    return (
        len(text) <= MAX_SENTENCE_CHARS
        and could_hold_fact(text, language)
        and not copies(text, runs)
        and not (language == "en" and points_back(text, said))
    )


def _question_ending(reply: str) -> str:
    """The question a reply ends with ("… And what do you do?"), or ""."""
    said = split_sentences(reply)
    last = said[-1] if said else ""
    return last[-MAX_SENTENCE_CHARS:] if last.endswith(("?", "？")) else ""


def renumber(sentences: Sequence[Sentence]) -> list[Sentence]:
    """The same sentences numbered 1..n again (after some were set aside)."""
    return [replace(s, number=n) for n, s in enumerate(sentences, 1)]


def addressed_names(texts: Sequence[str]) -> set[str]:
    """Names the user calls the other party by ("Hey John!", "Thanks, Mel."), casefolded."""
    names = {
        name.casefold()
        for text in texts
        for pattern in _VOCATIVE
        for match in pattern.finditer(text)
        for name in match.group(1).split()
        if name not in _NOT_NAMES
    }
    return names - self_names(texts)


def self_names(texts: Sequence[str]) -> set[str]:
    """Names the user says are their own ("my name is Ana", "I'm Ana", "call me Ana")."""
    return {
        name.casefold()
        for text in texts
        for match in _SELF_NAME.finditer(text)
        for name in (match.group(1) or match.group(2)).split()
        if name not in _NOT_NAMES and name.casefold() not in _NOT_OWN_NAMES
    }


def own_name(sentence: str) -> str | None:
    """The name a short sentence gives the user ("My name is Ana." -> "Ana"), or None."""
    found = _SELF_NAME.search(sentence)
    name = (found.group(1) or found.group(2)) if found else ""
    if name and len(_words(sentence)) <= 6 and name.casefold() not in _NOT_OWN_NAMES:
        return name
    return None
