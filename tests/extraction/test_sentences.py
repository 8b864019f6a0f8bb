"""The user's own sentences (``memoryd.extraction.sentences``): cutting, choosing, names,
and rewriting a sentence as a memory about the user. Pure functions, no LLM."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memoryd.domain.language import language_of
from memoryd.domain.models import Chat
from memoryd.extraction.english_form import memory_form
from memoryd.extraction.instructions import instruction_reason, standing_rule
from memoryd.extraction.sentences import (
    MAX_SENTENCE_CHARS,
    addressed_names,
    could_hold_fact,
    kept_clauses,
    self_names,
    split_clauses,
    split_sentences,
    user_sentences,
)


def test_split_sentences_on_end_marks_and_line_breaks() -> None:
    text = "Hi!  I run a dog school. Is it hard?\nWe moved…  Yes (mostly).\n\n ok"
    assert split_sentences(text) == [
        "Hi!",
        "I run a dog school.",
        "Is it hard?",
        "We moved…",
        "Yes (mostly).",
        "ok",
    ]
    assert split_sentences("Version 3.12 is out") == ["Version 3.12 is out"]
    # a closing quote after the stop stays with its sentence
    assert split_sentences('I hate "soon." It never comes.') == [
        'I hate "soon."',
        "It never comes.",
    ]
    assert split_sentences(" \n ") == []


@pytest.mark.parametrize(
    ("sentence", "clauses"),
    [
        ("I'm 45, I grew up on a farm and I teach math.",
         ["I'm 45", "I grew up on a farm", "I teach math."]),
        ("I have a dog but my wife prefers cats.", ["I have a dog", "my wife prefers cats."]),
        ("I love pizza, My sister hates it.", ["I love pizza", "My sister hates it."]),
        ("I like salt and pepper on eggs.", ["I like salt and pepper on eggs."]),
        # a phrase that sets the scene stays with its clause
        ("As a nurse, I work nights.", ["As a nurse, I work nights."]),
        ("Last week, I went to a pride parade.", ["Last week, I went to a pride parade."]),
        ("When I was a kid, I lived in Ohio.", ["When I was a kid, I lived in Ohio."]),
        # unless it is a scene of the talk itself: then the clause stands alone
        ("As we discussed, I moved the meeting.", ["I moved the meeting."]),
        ("Ana, I teach math.", ["Ana", "I teach math."]),  # a name is no scene
        # what makes it a rule stays too; a clause of the user's own is cut as before
        ("From now on, I want short answers.", ["From now on, I want short answers."]),
        ("I've always loved jazz, I play sax.", ["I've always loved jazz", "I play sax."]),
    ],
)  # fmt: skip
def test_split_clauses_where_a_new_clause_about_the_user_starts(
    sentence: str, clauses: list[str]
) -> None:
    assert split_clauses(sentence) == clauses


def test_a_clause_keeps_its_scene_only_when_kept_whole() -> None:
    def keeps(text: str) -> bool:
        return could_hold_fact(text)

    assert list(kept_clauses("As a trans woman, I want to help others like me.", keeps)) == [
        "As a trans woman, I want to help others like me."
    ]
    # whole, it leans on "these"; its second clause stands alone
    said = "While I expect precision with these, I'm always available for questions."
    assert list(kept_clauses(said, keeps)) == ["I'm always available for questions."]


@pytest.mark.parametrize(
    "sentence",
    [
        "I run a dog obedience school.",
        "I need a quiet room to work in.",  # a need, with no "now"
        "I want you to focus on tests for now.",  # a request: instructions.py reads it
        "My sister is a pole dancer.",
        "We adopted a third cat.",
        "I volunteer at the shelter.",
        "Phoenix ships in Q3.",  # impersonal, with a name
        "The budget is 40000 euros.",  # impersonal, with a number
        "I'm Ana",  # the user's name, however short
        "I love working with kids and helping them learn.",  # "them" has its "kids"
        "My brother says he will visit in May.",  # "he" has its "my brother"
        "I work from home these days.",  # a time, not a thing said before
        "I teach this semester at two schools.",
        "I have two dogs and a cat...",  # trails off after a whole clause
        "I have to go to Porto for work.",  # going somewhere, not leaving the chat
        "I'm anxious about flying.",
        "My eyes are blue.",  # how the body is
        "My knees are bad from years of running.",
        "From now on, use black for formatting.",
        "I'm trying to lose weight before the wedding.",  # an aim that lasts
        "I don't know how to swim.",  # a skill
        "I can't hear well in my left ear.",
        "I told you, voice notes are a must for me.",  # what the user wants follows
        "I'll reach 40 next spring.",
        "I grew up in a village and still live there.",  # a place before "there"
        "My god mother lives in trenton up there.",
        "I just got an apartment here in new jersey.",  # "here" is where the user is
    ],
)
def test_sentences_that_may_hold_a_fact(sentence: str) -> None:
    assert could_hold_fact(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "Do you have any pets?",  # a question
        "My job is [job title].",  # a placeholder
        "Hi! I'm User 1.",
        "I'm (user 1's name), nice to meet you.",
        "The user's name is {name}.",
        "Oh wow, that's great!",  # a reaction
        "Thanks, that helps.",
        "Hey John!",
        "I'm sure it is.",  # a passing thought
        "I think so too.",
        "I'll send over the relevant documentation and guidelines.",  # a one-off promise
        "I want to emphasize the importance of documentation.",  # a move in the talk
        "I'd recommend subscribing to a few Python newsletters.",  # advice to the listener
        "I think that's a terrific first step.",  # on what the other said
        "I remember that section felt particularly...",  # breaks off
        "You must be very busy.",  # about the other party
        "John, you are a great listener.",
        "I love that one.",  # nothing stands alone
        "I've always wanted one.",  # "always" makes no rule of a sentence that stands on "one"
        "From now on.",  # a standing phrase with no rule in it
        "Sorry, I have to go now.",  # leaving the chat
        "I suppose I can.",  # a hedge, as "I guess"
        "I'm getting more anxious waiting.",  # a state of the moment
        "I'm still panicking!",
        "My heart is still pounding like crazy.",  # how the body feels right now
        "My hands won't stop shaking.",
        "my chest is *still* so tight.",  # Markdown emphasis hides nothing
        "My guy, focus on the plan!",  # an address, not the user's own guy
        "Like I said, the current matter is closed.",  # no "I" once the marker goes
        "I need those three apartment options *now*.",  # a need of the moment
        "I don't have time for a step-by-step explanation right now.",
        "mate, that's what I'm saying.",
        "I'm ready to dive in right now.",  # moves in the talk
        "I'll be in touch when I'm ready.",
        "I'm really looking forward to getting started on it.",
        "I'm still feeling absolutely terrible.",
        "I'm trying to focus on my breathing.",  # an effort of the moment
        "But I'm just trying to count.",
        "I really don't know what to do.",  # a doubt of the moment
        "I don't know if this is working.",
        "I can feel the chair beneath me.",  # a sensation of the moment
        "I can't think straight.",
        "I've uploaded the quarterly report.",  # a move in the talk about the talk
        "My next question is about the data logging.",
        "I just said I'm fine with Python.",
        "I'll keep you posted on the next steps.",
        "Lots has gone down since we last caught up.",  # catching up
        "Here's a photo of the cake I baked for my son.",  # a caption: its fact is a clause
        "I love their song Bless the Broken Road.",  # whose song: only said earlier
        "I've seen him live a few times.",
        "I'm going to see them again in August.",
        "I really want this to hit hard.",  # what "this" is was said before
        "I designed these workshops myself.",
        "I love both of those genres.",  # "both" counts nothing "those" could stand for
        "My dad used to work there.",  # "there" is a place said before, not "my dad"
        "the weather is nice today",  # impersonal, no name, no number
        "...",
        "ok",
    ],
)
def test_sentences_that_cannot_hold_a_fact(sentence: str) -> None:
    assert not could_hold_fact(sentence)


@pytest.mark.parametrize(
    ("sentence", "language", "kept"),
    [
        ("c'est vraiment génial !", "fr", False),  # a reaction
        ("J'adore le ski !", "fr", True),  # an exclamation about oneself
        ("苏打水更糟！", "zh", False),
        ("멋지다!", "ko", False),
        ("나도 컨트리 음악을 좋아해!", "ko", True),
        ("adoro i tacos messicani!", "it", True),  # "I" is in the verb
        ("è stupefacente !", "it", False),
        ("Kamu harus selalu mengambil mainanmu.", "id", False),  # to the other speaker
        ("Tu travailles dans quelle ville maintenant.", "fr", False),
        ("Je pense que tu as raison sur le vin.", "fr", True),  # has "I"
        ("그는 토끼를 싫어해.", "ko", False),  # about someone else
        ("il aime tout le monde ici.", "fr", False),
        ("Ma sœur dit qu'elle viendra en mai.", "fr", True),  # "elle" has "ma sœur"
        ("公司的其他同事都很忙。", "zh", True),  # 其他, "other", is no "he"
        ("Saya belum pernah melakukan itu sebelumnya!", "id", False),  # "itu" points back
        ("Saya suka rumah itu.", "id", False),
        ("Saya tinggal di Bandung dengan istri saya.", "id", True),
        ("c'est terrible.", "fr", False),  # a remark on a thing, no "I"
        ("Oui c'est vrai.", "fr", False),  # after a reply's "yes"
        ("Ya, itu benar sekali.", "id", False),
        ("C'est mon métier depuis dix ans.", "fr", True),  # "mon"
        ("è bellissimo il mare.", "it", False),
        ("Das ist toll, wirklich.", "de", False),
        ("这是真的。", "zh", False),
        ("カッコいいですね。", "ja", False),  # seeks agreement: a reaction
        ("東京に住んでいます。", "ja", True),
        ("멋지네요.", "ko", False),
        ("나는 방금 체육관에서 돌아왔어.", "ko", False),  # a state of the moment
        ("Je suis fatiguée de nettoyer toute la journée.", "fr", False),
        ("仕事が終わったところです。", "ja", False),
        ("我刚结婚了，很开心。", "zh", True),  # just married lasts
        ("我积累了十年的经验。", "zh", True),
        ("désolé je dois y aller maintenant!", "fr", False),  # leaving the chat
        ("comunque devo andare, ciao!", "it", False),
        ("devo andare in palestra molto perché mangio molto", "it", True),  # a habit
        ("我得走了，待会儿再谈。", "zh", False),
        ("나 이제 가야 해.", "ko", False),
        ("Saya harus pergi sekarang.", "id", False),
    ],
)
def test_other_languages_set_aside_reactions_and_lines_to_the_other_speaker(
    sentence: str, language: str, kept: bool
) -> None:
    assert could_hold_fact(sentence, language) is kept


def test_addressed_names_are_the_assistants_and_self_names_the_users() -> None:
    prompts = ["Hey John! I adopted a third cat.", "Thanks, Mel.", "Good morning Sam Lee"]
    assert addressed_names(prompts) == {"john", "mel", "sam", "lee"}
    assert self_names(prompts) == set()
    # a name the user gives as their own is never the assistant's
    told = ["Hi Ana, my name is Ana too!", "Call me Bo.", "I'm Rui Costa."]
    assert self_names(told) == {"ana", "bo", "rui", "costa"}
    assert addressed_names(told) == set()
    # words that are not names
    assert addressed_names(["Hi there, I'm Going now."]) == set()
    assert self_names(["I'm Going to the gym.", "I am Sorry"]) == set()


@pytest.mark.parametrize(
    ("sentence", "memory"),
    [
        ("I run a dog obedience school.", "The user runs a dog obedience school."),
        ("I study law at night.", "The user studies law at night."),
        ("I watch movies and I fix cars.", "The user watches movies and they fix cars."),
        ("I really love country music too!", "The user really loves country music."),
        ("I have two kids.", "The user has two kids."),
        ("I'm a nurse", "The user is a nurse."),
        ("I've lived in Porto for ten years.", "The user has lived in Porto for ten years."),
        ("I'd rather work from home.", "The user would rather work from home."),
        ("I grew up on a farm with my grandma.", "The user grew up on a farm with their grandma."),
        ("I am learning Japanese.", "The user is learning Japanese."),
        ("I meant white wine.", "The user meant white wine."),
        ("I need a quiet desk.", "The user needs a quiet desk."),  # "-ed" that is present
        ('I hate "soon."', 'The user hates "soon."'),  # ends at the stop inside the quote
        ("hi , i just came back from hunting .", "The user just came back from hunting."),
        ("very cool , i would love to sail.", "The user would love to sail."),
        ("Tell me more about what I did.", "Tell me more about what the user did."),
        ("although , i'm a fan of fish and chips .", "The user is a fan of fish and chips."),
        ("i don't type slow , .", "The user doesn't type slow."),
        ("If I had a dog I would walk it.", "If the user had a dog they would walk it."),
        ("I like to swim and play tennis.", "The user likes to swim and play tennis."),
        ("I moved to Porto and work at a bank.", "The user moved to Porto and works at a bank."),
        ("i am engaged and am a bit crazy lol.", "The user is engaged and is a bit crazy."),
        ("I'm single and don't have kids.", "The user is single and doesn't have kids."),
        ("I'm a nurse and work nights.", "The user is a nurse and works nights."),
        ("I said I would come.", "The user said they would come."),  # "said" is a past
        ("yea i do !", "The user does."),
        ("I really need to proceed.", "The user really needs to proceed."),
        ("I spoke French as a kid.", "The user spoke French as a kid."),
        ("My sister is a pole dancer.", "The user's sister is a pole dancer."),
        ("Oh yeah, my dog is named Rex!", "The user's dog is named Rex."),
        ("Phoenix ships in Q3.", "Phoenix ships in Q3."),
        ("Hi, I'm Ana.", "The user's name is Ana."),
        ("My name is Ana Lima.", "The user's name is Ana Lima."),
        ("Call me Bo.", "The user's name is Bo."),
        ("We moved the launch to March 28.", 'The user said: "We moved the launch to March 28."'),
        ("I'm Mel's neighbour.", "The user is Mel's neighbour."),
        ("I am Canadian.", "The user is Canadian."),
        ("I'm a big fan of Carrie Underwood myself.", "The user is a big fan of Carrie Underwood."),
        ("I first met my wife in 2010.", "The user first met their wife in 2010."),  # adverbs
        ("I later moved to Paris.", "The user later moved to Paris."),
        ("I sort of like jazz.", "The user sort of likes jazz."),  # "sort" only before "of"
        ("I sort files for a living.", "The user sorts files for a living."),
        ("As a nurse, I work nights.", "As a nurse, the user works nights."),  # a scene first
        ("My cat's name is Mittens.", "The user's cat's name is Mittens."),  # not the user's
        ("Hi, my name is John.", "The user's name is John."),
        ("My favorite is My Sister's Keeper.", "The user's favorite is My Sister's Keeper."),
    ],
)  # fmt: skip
def test_memory_form_is_about_the_user_in_the_third_person(sentence: str, memory: str) -> None:
    assert memory_form(sentence) == memory


@pytest.mark.parametrize(
    ("sentence", "why"),
    [
        ("Hi, my name is John.", None),  # a greeting set apart by its comma: no verb
        ("nice , my dad was a bartender", None),
        ("Show me the plan.", "an instruction"),
        ("Now, always use tabs.", "an instruction"),
        ("Just give me the link.", "an instruction"),  # an order after "just"
        ("Don't just show me more examples.", "an instruction"),
        ("Just to confirm: my weight is 75kg.", None),  # no verb after it
        ("Always a pleasure to help.", None),
        # English word order is not read into another language ("je" + "me", "a" + "me")
        ("je me souviens du collège.", None),
        ("oui, je me suis fixé pour objectif de courir un 10 km.", None),
        ("Anche a me piace la musica country!", None),
    ],
)
def test_what_is_an_order_to_the_other_person(sentence: str, why: str | None) -> None:
    found = instruction_reason(sentence)
    assert found is None if why is None else why in (found or "")


@pytest.mark.parametrize(
    ("sentence", "rule"),
    [
        ("Firstly, always add comments to your code.", "always add comments to your code."),
        ("When naming classes, always use CamelCase.", "when naming classes, always use"),
        ("I want you to always include a digit in names.", "wants you to always include"),
        ("From now on you always answer in French.", "from now on you always answer"),
        ("Your plan was always flawed.", None),  # says something of the other: no rule
        ("My door is always open if you need anything.", None),
        ("You're never too old to try gymnastics!", None),
    ],
)
def test_a_rule_asks_something_of_the_other_person(sentence: str, rule: str | None) -> None:
    memory, why = standing_rule(sentence, memory_form(sentence))
    assert (memory is None and bool(why)) if rule is None else rule in (memory or "")


def chats(*turns: tuple[str, str]) -> list[Chat]:
    at = datetime(2026, 1, 1, tzinfo=UTC)
    return [Chat(n, 1, "lab", p, r, at) for n, (p, r) in enumerate(turns, 1)]


def test_user_sentences_are_the_users_only_numbered_from_one() -> None:
    batch = chats(
        ("Hi! I'm Ana, I teach math.", "I'm Bob and I teach physics."),
        ("I love physics too! Do you like chess?", "I play chess every day."),
        ("Thanks. My brother plays chess in a club.", "Nice."),
    )
    found = user_sentences(batch, limit=10)
    assert [(s.number, s.text, s.chat_id) for s in found] == [
        (1, "I'm Ana", 1),
        (2, "I teach math.", 1),
        (3, "I love physics too!", 2),  # the user's own, though the other said it first
        (4, "My brother plays chess in a club.", 3),
    ]
    assert found[0].turn == "Hi! I'm Ana, I teach math."
    assert [s.text for s in user_sentences(batch, limit=2)] == ["I'm Ana", "I teach math."]


def test_a_sentence_that_points_at_what_the_other_party_wrote_is_set_aside() -> None:
    """ "this section" means something only beside the reply that wrote it; a fact the
    user shares with the other party ("I love rock music too!") is the user's own."""
    batch = chats(
        ("Can you tighten the greenwashing section?", "Here is the new section. I love rock."),
        ("I feel this section now has the punch it needs. I love rock music too!", "Great."),
        ("From now on, always keep this section short.", "Will do."),
    )
    assert [s.text for s in user_sentences(batch, limit=10)] == [
        "I love rock music too!",
        "From now on, always keep this section short.",  # a rule: instructions.py reads it
    ]


def test_a_short_turn_takes_the_language_of_its_batch_but_english_its_own() -> None:
    """Alone, "amo le esplosioni nei film!" reads as French ("le"); in an Italian
    conversation it is Italian ("I love explosions in films"). An English turn stays
    English in any batch."""
    batch = chats(
        ("Io sono un medico e lavoro in ospedale da molti anni.", "Che bello!"),
        ("Ho anche due figli e il mio cane si chiama Bruno.", "Che bello!"),
        ("amo le esplosioni nei film!", "Anche io."),
        ("I also teach math on weekends.", "Ok."),
    )
    assert [(s.text, s.language) for s in user_sentences(batch, limit=10)] == [
        ("Io sono un medico e lavoro in ospedale da molti anni.", "it"),
        ("Ho anche due figli e il mio cane si chiama Bruno.", "it"),
        ("amo le esplosioni nei film!", "it"),
        ("I also teach math on weekends.", "en"),
    ]
    # alone it reads as French, where an exclamation without "je" is a reaction: set aside
    assert user_sentences(chats(("amo le esplosioni nei film!", "Anche io.")), limit=5) == []


@pytest.mark.parametrize(
    ("line", "language"),
    [
        ("voglio correre un 10k un giorno.", "it"),  # "un" is French too
        ("è stata una domenica rilassata.", "it"),
        ("non, il y a seulement ma tante en amérique", "fr"),  # "il", "ma" are Italian too
    ],
)
def test_articles_shared_by_romance_languages_count_for_each(line: str, language: str) -> None:
    """In a turn of its language, a line of words its language shares with another (and
    none of its own) is read as its language."""
    assert language_of(line, language) == language


def test_an_english_line_with_portuguese_looking_words_stays_english() -> None:
    """ "no" and "do" are Portuguese function words too: in an English conversation a line
    that reads as English at all is English, so code writes its note in English."""
    batch = chats(
        ("i am sort of a genius and i know all the languages .", "wow"),
        ("no , i never went . i do own a mansion though .", "nice"),
        ("i live in florida and i work at the harbour with my two brothers .", "cool"),
        ("Eu moro em Lisboa.", "ok"),  # Portuguese all the same
    )
    assert [(s.text, s.language) for s in user_sentences(batch, limit=10)] == [
        ("i am sort of a genius and i know all the languages .", "en"),
        ("no , i never went .", "en"),
        ("i do own a mansion though .", "en"),
        ("i live in florida and i work at the harbour with my two brothers .", "en"),
        ("Eu moro em Lisboa.", "pt"),
    ]


def test_a_very_long_sentence_is_not_a_candidate() -> None:
    long = "I " + "really " * (MAX_SENTENCE_CHARS // 7) + "like tea."
    assert len(long) > MAX_SENTENCE_CHARS
    assert user_sentences(chats((long, "ok")), 5) == []
