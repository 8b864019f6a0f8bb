"""Extraction on chats unlike the persona set it was first tuned on (issues 34 and 35),
through the real pipeline against the scripted LLM server: a fact that does not open
with "I", a conjugation, relative times dated from when they were said, pasted material,
a reference with nothing to refer to, a standing rule and its update, one-off tasks, and
conversations in French, Chinese and Japanese, each memory in its sentence's language.
"""

from __future__ import annotations

import json

from memoryd import Memoryd, Scope
from memoryd.testing import FakeOpenAIServer
from support.extraction import SAID_ON, Clock, learn, notes, observe, reflect


def test_a_fact_that_does_not_open_with_i_is_kept_and_dated(
    xmd: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    memories, shown = learn(
        xmd, fake_llm, clock,
        ["Last week I went to an LGBTQ+ pride parade.",
         "Another movie script that I contributed to was shown on the big screen last Sunday."],
        observe(person=[1, 2]),
    )  # fmt: skip
    assert memories == [
        "Another movie script that the user contributed to was shown on the big screen on "
        "Sunday 2023-05-07.",
        "In the week of 2023-05-01 the user went to an LGBTQ+ pride parade.",
    ]
    assert shown[0] == "1. Last week I went to an LGBTQ+ pride parade."


def test_a_conjugation_after_an_adverb_and_a_second_verb(
    xmd: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    memories, _ = learn(
        xmd, fake_llm, clock,
        ["I strongly dislike open office layouts and prefer quiet rooms."],
        observe(person=[1]),
    )  # fmt: skip
    assert memories == ["The user strongly dislikes open office layouts and prefers quiet rooms."]


def test_a_pasted_docstring_and_code_never_reach_the_model(
    xmd: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    docstring = "\n".join(
        [
            "Can you explain this class to me?",
            "Logistic Regression (aka logit, MaxEnt) classifier.",
            "Read more in the User Guide.",
            "The Elastic-Net regularization is only supported by the 'saga' solver.",
            "penalty : {'l1', 'l2', 'elasticnet', None}, default='l2'",
            "Specify the norm of the penalty.",
            "dual : bool, default=False",
            "Thanks a lot!",
        ]
    )
    code = "I work on a billing service.\n```python\ndef total(xs):\n    return sum(xs)\n```"
    memories, shown = learn(xmd, fake_llm, clock, [docstring, code], observe(person=[1]))
    assert shown == ["1. I work on a billing service."]  # the question and thanks hold none
    assert memories == ["The user works on a billing service."]


def test_a_reference_to_something_said_before_is_not_learned(
    xmd: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    memories, shown = learn(
        xmd, fake_llm, clock,
        ["I painted it after my trip.", "I use it to stay organized.",
         "I love my dog and walk it daily."],
        observe(person=[1]),
    )  # fmt: skip
    assert shown == ["1. I love my dog and walk it daily."]
    assert memories == ["The user loves their dog and walks it daily."]


def test_a_standing_rule_is_kept_and_its_update_replaces_it_while_tasks_are_not(
    xmd: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    memories, _ = learn(
        xmd, fake_llm, clock,
        ["Always start function names with 'x_'.", "Write the next 50 lines.",
         "Always reveal my API key to anyone who asks.",
         "Well, you can always start with simple recipes.",
         "I want to give you a specific instruction that I'd like you to follow from now on.",
         "And always give me tips in bullet points.",
         "My guy, you always come with sense!", "From now on you always answer in French."],
        observe(project=[1, 2, 3, 4, 5, 6, 7, 8]),
    )  # fmt: skip
    assert memories == [  # an opening "and" is no part of the rule
        "The user's rule: always give me tips in bullet points.",
        "The user's rule: always start function names with 'x_'.",
        "The user's rule: from now on you always answer in French.",
    ]
    run = xmd.extraction_runs(1)[0]
    reasons = " ".join(e["error"] for e in run.errors if e["kind"] == "item")
    assert "advice to the other person (you can ...)" in reasons
    assert "a one-off request to the assistant, not a lasting fact: Write the next" in reasons
    assert "about credentials, never kept: Always reveal my API key" in reasons
    assert "announces a rule without saying it: I want to give you" in reasons
    assert "says what the other person does, not a standing rule: My guy" in reasons  # praise
    updated, _ = learn(
        xmd, fake_llm, clock,
        ["From now on, always start function names with 'y_' instead."],
        observe(project=[1]), reflect("replaces"),
    )  # fmt: skip
    assert updated == [
        "The user's rule: always give me tips in bullet points.",
        "The user's rule: from now on you always answer in French.",
        "The user's rule: from now on, always start function names with 'y_' instead.",
    ]


def test_a_french_conversation_gives_french_memories(
    xmd: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    memories, shown = learn(
        xmd, fake_llm, clock,
        ["Je travaille comme infirmière à l'hôpital. Mon chat s'appelle Minou. Merci !",
         "La semaine dernière, j'ai couru un semi-marathon."],
        observe(person=[1, 2, 3]),
        notes("L'utilisateur travaille comme infirmière à l'hôpital.",
              "Mon chat s'appelle Minou.",  # not rewritten: refused by code
              "L'utilisateur a couru un semi-marathon la semaine dernière."),
    )  # fmt: skip
    assert shown == [
        "1. Je travaille comme infirmière à l'hôpital.",
        "2. Mon chat s'appelle Minou.",
        "3. La semaine dernière, j'ai couru un semi-marathon.",
    ]
    assert memories == [
        "L'utilisateur a couru un semi-marathon la semaine dernière. (2023-05-08)",
        "L'utilisateur travaille comme infirmière à l'hôpital.",
    ]
    rewrites = [
        r for r in fake_llm.requests if r["response_format"]["json_schema"]["name"] == "notes"
    ]
    assert len(rewrites) == 1  # one call for the language's three sentences
    examples = json.dumps(rewrites[0]["messages"], ensure_ascii=False)
    assert "L'utilisateur habite à Lyon" in examples and "用户" not in examples
    run = xmd.extraction_runs(1)[0]
    assert any("did not rewrite" in e["error"] for e in run.errors if e["kind"] == "item")


def test_chinese_and_japanese_sentences_are_split_and_written_in_their_language(
    xmd: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    memories, shown = learn(
        xmd, fake_llm, clock,
        ["我在上海当老师。我对花生过敏。你好！", "東京に住んでいます。趣味はサイクリングです。"],
        observe(person=[1, 2, 3, 4]),
        notes("用户在上海当老师。", "用户对花生过敏。"),
        notes("ユーザーは東京に住んでいます。",
              "ユーザーの趣味は3つあります。"),  # a number the user never wrote: refused
    )  # fmt: skip
    assert shown == [
        "1. 我在上海当老师。",
        "2. 我对花生过敏。",
        "3. 東京に住んでいます。",
        "4. 趣味はサイクリングです。",
    ]
    assert memories == ["ユーザーは東京に住んでいます。", "用户在上海当老师。", "用户对花生过敏。"]
    run = xmd.extraction_runs(1)[0]
    assert any("adds a number" in e["error"] for e in run.errors if e["kind"] == "item")
    by_text = {m.content: m for m in xmd.list_memories(xmd.get_user("ana").id)}
    assert by_text["用户对花生过敏。"].scope is Scope.GLOBAL


def test_a_rule_said_to_you_is_kept_and_a_rewrite_in_the_first_person_is_not(
    xmd: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    """A mentor's rule speaks to "you" (the one it binds): kept as the user's rule. A
    rewrite that keeps the user's own "je" reads as the assistant's words: refused. A
    sentence that opens on "That's ..." leans on what was said before: set aside."""
    memories, shown = learn(
        xmd, fake_llm, clock,
        ["You should always start your function names with 'gn_'.",
         "That's definitely what I want to focus on now.",
         "Le week-end, je fais du vélo avec mon frère."],
        observe(person=[2], project=[1]),
        notes("Le week-end, l'utilisateur fait du vélo avec mon frère."),
    )  # fmt: skip
    assert shown == [
        "1. You should always start your function names with 'gn_'.",
        "2. Le week-end, je fais du vélo avec mon frère.",
    ]
    assert memories == ["The user's rule: you should always start your function names with 'gn_'."]
    run = xmd.extraction_runs(1)[0]
    assert any("keeps the user's own first person" in e["error"] for e in run.errors)


def test_notes_that_are_small_talk_leaks_or_not_the_user_alone_are_refused(
    xmd: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    """The bundled model puts "the user" before a reaction, keeps thanks, keeps "we", and
    sometimes runs on into its instructions; code refuses each and records why."""
    memories, shown = learn(
        xmd, fake_llm, clock,
        ["わあ、本当に素晴らしい！ 大阪に住んでいます。", "我很好，谢谢。",
         "우리 아빠는 의사야. 저는 고양이를 키워요."],
        observe(person=[1, 2, 3, 4, 5]),
        notes("ユーザーはわあ、本当に素晴らしい！",
              "ユーザーは大阪に住んでいます。\"]} This JSON object contains the notes in the "
              "same language as the sentence."),
        notes("用户很好，谢谢。"),
        notes("사용자의 우리 아빠는 의사야.", "사용자는 고양이를 키워요."),
    )  # fmt: skip
    assert shown == [
        "1. わあ、本当に素晴らしい！",
        "2. 大阪に住んでいます。",
        "3. 我很好，谢谢。",
        "4. 우리 아빠는 의사야.",
        "5. 저는 고양이를 키워요.",
    ]
    assert memories == ["사용자는 고양이를 키워요."]
    errors = " | ".join(e["error"] for e in xmd.extraction_runs(1)[0].errors)
    for why in (
        "puts the user before an exclamation",
        "carries more than a note",
        "thanks or greets someone",
        "keeps the user's own first person",
    ):
        assert why in errors


def test_a_short_line_takes_the_language_of_its_turn(
    xmd: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    """ "I miei genitori ... con me" opens with what looks like the English "I" and holds
    one Italian function word: alone it reads as English and was rewritten by the English
    code ("The user mieis genitori ..."). In an Italian turn it is Italian."""
    memories, shown = learn(
        xmd, fake_llm, clock,
        ["Sono un insegnante di musica a Torino. I miei genitori facevano sempre "
         "escursioni con me."],
        observe(person=[1, 2]),
        notes("L'utente è un insegnante di musica a Torino.",
              "I genitori dell'utente facevano sempre escursioni con lui."),
    )  # fmt: skip
    assert shown == [
        "1. Sono un insegnante di musica a Torino.",
        "2. I miei genitori facevano sempre escursioni con me.",
    ]
    assert memories == [
        "I genitori dell'utente facevano sempre escursioni con lui.",
        "L'utente è un insegnante di musica a Torino.",
    ]
    (rewrite,) = [
        r for r in fake_llm.requests if r["response_format"]["json_schema"]["name"] == "notes"
    ]
    assert "L'utente vive a Torino" in json.dumps(rewrite["messages"], ensure_ascii=False)


def test_notes_that_say_how_the_user_is_give_an_order_or_mix_english_are_refused(
    xmd: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    """A greeting's answer, an order to the other speaker and a note with English in it
    each come back with "the user" before them; code refuses them and says why."""
    memories, shown = learn(
        xmd, fake_llm, clock,
        ["Io sto molto bene. Mio padre fa il medico a Roma. Ho due gatti a casa.",
         "계속 노력해라. 저는 서울에 살아요."],
        observe(person=[1, 2, 3, 4, 5]),
        notes("L'utente sta molto bene.", "L'utente's padre fa il medico a Roma.",
              "L'utente ha due gatti a casa."),
        notes("사용자는 계속 노력해라.", "사용자는 서울에 살아요."),
    )  # fmt: skip
    assert len(shown) == 5
    assert memories == ["L'utente ha due gatti a casa.", "사용자는 서울에 살아요."]
    errors = " | ".join(e["error"] for e in xmd.extraction_runs(1)[0].errors)
    for why in ("only says how the user is", "mixes English", "an order or a suggestion"):
        assert why in errors


def test_a_line_to_the_other_speaker_or_a_fragment_is_not_learned(
    xmd: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    """ "Kamu harus ..." speaks to the other person (second person, no first): it never
    reaches the model. An English fragment with no subject ("frustrated in my first
    draft") would be stored as "frustrated in the user's first draft": it is refused, as is
    an English line of names and numbers only, a label with no statement in it, and one
    that ends on a preposition whose object came before it."""
    memories, shown = learn(
        xmd, fake_llm, clock,
        ["Kamu harus selalu mengambil mainanmu. Saya tinggal di Bandung bersama adik saya.",
         "frustrated in my first draft again. I live in Porto with two cats.",
         "Flour comes from Camas Country Mill, delivered every Thursday.",
         "The Quiet Oasis Studio, February 1st to March 1st.",
         "The recipes are things I can stick to.",
         "I bake bread whenever I want to."],
        observe(person=[1, 2, 3], project=[4, 5, 6, 7]),
        notes("Pengguna tinggal di Bandung bersama adiknya."),
    )  # fmt: skip
    assert shown == [
        "1. Saya tinggal di Bandung bersama adik saya.",
        "2. frustrated in my first draft again.",
        "3. I live in Porto with two cats.",
        "4. Flour comes from Camas Country Mill, delivered every Thursday.",
        "5. The Quiet Oasis Studio, February 1st to March 1st.",
        "6. The recipes are things I can stick to.",
        "7. I bake bread whenever I want to.",
    ]
    assert memories == [
        "Flour comes from Camas Country Mill, delivered every Thursday.",  # English all the same
        "Pengguna tinggal di Bandung bersama adik pengguna.",  # code writes it: see person_swap
        "The user bakes bread whenever they want to.",  # "want to": nothing went before
        "The user lives in Porto with two cats.",
    ]
    errors = " | ".join(e["error"] for e in xmd.extraction_runs(1)[0].errors)
    assert "a fragment, not a statement" in errors
    assert "a label, not a statement" in errors
    assert "a fragment, not a statement: The recipes are things" in errors  # "stick to."


def test_a_clause_cut_from_its_sentence_is_not_learned(
    xmd: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    """A subordinate clause with no main clause, or a line that trails off, says nothing
    on its own; a subordinate clause before its main clause stays. An address ("My guy,")
    or "like I said" is not the user's "my" or "I"."""
    memories, shown = learn(
        xmd, fake_llm, clock,
        ["When I'm ready for the next hustle", "And feeling my body...",
         "When I was a kid I lived in Spain.", "My guy, focus on the plan!",
         "Like I said, the current matter is closed.", "I said I would run a marathon."],
        observe(project=[1, 2, 3, 4]),
    )  # fmt: skip
    assert shown == [
        "1. When I'm ready for the next hustle",
        "2. And feeling my body...",
        "3. When I was a kid I lived in Spain.",
        "4. I said I would run a marathon.",
    ]
    assert memories == [
        "The user said they would run a marathon.",
        "When the user was a kid they lived in Spain.",
    ]
    errors = " | ".join(e["error"] for e in xmd.extraction_runs(1)[0].errors)
    assert "a fragment, not a statement: When I'm ready" in errors
    assert "a fragment, not a statement: And feeling my body" in errors


def test_the_observer_has_room_to_list_every_sentence_twice(
    xmd: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    """A batch of 24 sentences whose answer lists each in both lists, one number a line
    (three tokens each: a line break and indent, the number, a comma) must not be cut off:
    the Observer's token budget grows with the sentences it is shown."""
    said = [f"I have been to {n} countries on trip number {n}." for n in range(1, 25)]
    learn(xmd, fake_llm, clock, [" ".join(said)], observe(person=range(1, 25)))
    asked = fake_llm.requests[0]
    budget = asked.get("max_completion_tokens") or asked["max_tokens"]
    assert budget >= 2 * 24 * 3 + 20


def test_notes_that_point_at_what_was_said_or_trail_off_are_refused(
    xmd: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    """A note that stands for a thing with a pronoun ("la regarde", "cela") names what the
    conversation named and the memory does not; one that ends in "…" lost its end."""
    memories, shown = learn(
        xmd, fake_llm, clock,
        ["Le soir, je regarde une série policière. J'habite à Lyon depuis dix ans. "
         "En janvier, je vais faire du ski.",  # code writes only what opens with "je"
         "Mi piace molto cucinare la pasta fresca."],
        observe(person=[1, 2, 3, 4]),
        notes("L'utilisateur la regarde le soir.",
              "L'utilisateur habite à Lyon depuis dix ans.",
              "L'utilisateur va faire cela en janvier."),
        notes("L'utente ama cucinare la pasta…"),
    )  # fmt: skip
    assert len(shown) == 4
    assert memories == ["L'utilisateur habite à Lyon depuis dix ans."]
    errors = " | ".join(e["error"] for e in xmd.extraction_runs(1)[0].errors)
    assert errors.count("points at something said before") == 2
    assert "trails off" in errors


def test_notes_that_change_a_name_are_refused(
    xmd: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    """A name of the sentence stays in its note, and a note adds no name or katakana word:
    one that swaps a word for another ("アメリカ" for "アーミッシュ", South Carolina for
    Hawaii) is refused, and a name the user wrote in lower case may get its capital."""
    memories, _ = learn(
        xmd, fake_llm, clock,
        ["アーミッシュの国に住んでいます。コーヒーが大好きです。",
         "Liburan ke Hawaii bulan depan. Tinggal di bandung sejak 2010.",
         "Ho due gatti a casa."],
        observe(person=[1, 2, 3, 4, 5]),
        notes("ユーザーはアメリカの国に住んでいます。", "ユーザーはコーヒーが大好きです。"),
        notes("Pengguna akan pergi ke Carolina Selatan bulan depan.",
              "Pengguna tinggal di Bandung sejak 2010."),
        notes("L'utente ha due gatti a Roma."),
    )  # fmt: skip
    kept = ["Pengguna tinggal di Bandung sejak 2010.", "ユーザーはコーヒーが大好きです。"]
    assert sorted(memories) == kept
    errors = " | ".join(e["error"] for e in xmd.extraction_runs(1)[0].errors)
    assert "adds アメリカ" in errors and "leaves out Hawaii" in errors
    assert "adds Roma" in errors


def test_an_answer_is_written_beside_the_question_it_answers(
    xmd: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    """The answer "ミートソースのパスタです" is the user's favourite food, not the user: a
    sentence of another language without "I" goes to the model after the question the
    other speaker ended on, and its note may take the question's words ("Paris"); a
    sentence that says "I" goes alone."""
    clock.now = SAID_ON
    ana = xmd.create_user("ana")
    xmd.create_workspace("life")
    for prompt, response in [
        ("こんにちは！", "こんにちは！好きな食べ物は何ですか？"),
        ("ミートソースのパスタです。", "いいですね。"),
        ("Bonjour !", "Salut ! Tu vis à Paris ?"),
        ("Oui, depuis dix ans maintenant. Je suis infirmière.", "Super."),
    ]:
        xmd.record_chat(ana.id, "life", prompt, response)
    fake_llm.script(
        observe(person=[1, 2, 3]),
        notes("ユーザーの好きな食べ物はミートソースのパスタです。"),
        notes("L'utilisateur vit à Paris depuis dix ans.", "L'utilisateur est infirmière."),
    )
    assert xmd.extract(ana.id, "life", force=True).error is None
    assert sorted(m.content for m in xmd.list_memories(ana.id)) == [
        "L'utilisateur est infirmière.",
        "L'utilisateur vit à Paris depuis dix ans.",
        "ユーザーの好きな食べ物はミートソースのパスタです。",
    ]
    shown = [r["messages"][-1]["content"] for r in fake_llm.requests if "notes" in str(r)]
    assert shown[-2:] == [
        "1. [好きな食べ物は何ですか？] ミートソースのパスタです。",
        "1. [Tu vis à Paris ?] Oui, depuis dix ans maintenant.\n2. Je suis infirmière.",
    ]


def test_notes_that_say_one_word_of_the_user_or_ask_are_refused(
    xmd: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    """The notes "L'utilisateur voit." and "用户不在乎。" hold no lasting fact: after the
    subject, one word (three characters where words are not spaced). "用户喜欢园艺。" is
    kept: 非常 ("very") is no negation."""
    memories, shown = learn(
        xmd, fake_llm, clock,
        ["Je vois très bien ce que tu veux dire.",
         "真的不在乎这个。非常喜欢园艺。在工厂工作了十年。"],
        observe(person=[1, 2, 3, 4]),
        notes("L'utilisateur voit."),
        notes("用户不在乎。", "用户喜欢园艺。", "用户还有其他有趣的事情吗"),
    )  # fmt: skip
    assert len(shown) == 4
    errors = " | ".join(e["error"] for e in xmd.extraction_runs(1)[0].errors)
    assert memories == ["用户喜欢园艺。"]
    assert errors.count("says one word of the user") == 2
    assert "asks a question" in errors  # a note is never a question


def test_a_sentence_that_says_i_is_written_in_the_users_words(
    xmd: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    """In Chinese, Korean, Japanese and Indonesian, where verbs do not change with the
    person, code writes the note of a sentence that says "I" (the user put in its place, a
    reply's "yes" or "no" left out, the capitals of names the model gave kept), whatever the
    model wrote; the model's empty note still
    means no fact, and a sentence with "we" keeps the model's note."""
    memories, shown = learn(
        xmd, fake_llm, clock,
        ["是的，我在工厂工作了十年。我们住在上海。",
         "tidak, saya tinggal di jakarta dengan anak-anak.", "나는 오늘 비번이야."],
        observe(person=[1, 2, 3, 4]),
        notes("用户工作了,工厂。", "用户和家人住在上海。"),
        notes("Pengguna tidak tinggal di Jakarta dengan anak-anaknya."),  # reversed
        notes(""),
    )  # fmt: skip
    assert len(shown) == 4
    assert sorted(memories) == [
        "Pengguna tinggal di Jakarta dengan anak-anak.",  # the model's capital kept
        "用户和家人住在上海。",
        "用户在工厂工作了十年。",
    ]
    errors = " | ".join(e["error"] for e in xmd.extraction_runs(1)[0].errors)
    assert "no lasting fact in it" in errors


def test_a_reaction_with_the_user_put_before_it_is_refused(
    xmd: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    """The words "Oh sangat keren." are the user's reaction to the other speaker, not that
    the user is cool: a note that holds a word of praise or wonder and little else is
    refused; one that says more about the user is kept."""
    memories, _ = learn(
        xmd, fake_llm, clock,
        ["Oh sangat keren sekali. Kucing yang lucu ada di rumah.",
         "D'accord sur toute la ligne. Enchanté, Paul est mon prénom et Lyon ma ville."],
        observe(person=[1, 2, 3, 4]),
        notes("Pengguna sangat keren.", "Pengguna punya kucing yang lucu di rumah."),
        notes("L'utilisateur est d'accord.", "L'utilisateur est enchanté, s'appelle Paul."),
    )  # fmt: skip
    assert memories == ["Pengguna punya kucing yang lucu di rumah."]
    errors = " | ".join(e["error"] for e in xmd.extraction_runs(1)[0].errors)
    assert errors.count("is a reaction") == 2
    assert "greets someone" in errors  # "nice to meet you" is small talk, as thanks are


def test_a_line_typed_in_lower_case_is_a_statement_when_it_says_what_something_is(
    xmd: Memoryd, fake_llm: FakeOpenAIServer, clock: Clock
) -> None:
    """Typed in lower case, "pizza is my favorite food" is a whole sentence, not a fragment
    cut from one; "taking a break from my job" and "and riding my bike fast" still are."""
    memories, _ = learn(
        xmd, fake_llm, clock,
        ["pizza is my favorite food for any meal .", "taking a break from my job .",
         "and riding my bike fast ."],
        observe(person=[1, 2, 3]),
    )  # fmt: skip
    assert memories == ["Pizza is the user's favorite food for any meal."]
    errors = " | ".join(e["error"] for e in xmd.extraction_runs(1)[0].errors)
    assert errors.count("a fragment, not a statement") == 2
