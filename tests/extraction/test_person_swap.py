"""Code writes the note of a sentence that opens with "I" where a language lets it
(``memoryd.extraction.person_swap``); elsewhere the model's note stands (None)."""

from __future__ import annotations

import pytest

from memoryd.extraction.person_swap import swap_person


@pytest.mark.parametrize(
    ("sentence", "language", "note"),
    [
        ("是的，我是护士！", "zh", "用户是护士。"),
        ("但是我喜欢猫", "zh", "用户喜欢猫。"),
        ("不喜欢狗，我喜欢猫", "zh", None),  # 不 with no comma is "not", not "no"
        ("我们住在上海。", "zh", None),  # "we"
        ("我喜欢你的狗。", "zh", None),  # "you"
        ("大概为什么我成了帮人遛狗的人。", "zh", None),  # does not open with "I"
        ("はい、私の犬はポチです！", "ja", "ユーザーの犬はポチです。"),
        ("私は私立の学校で働いています。", "ja", "ユーザーは私立の学校で働いています。"),
        ("私は私の犬が大好きです。", "ja", "ユーザーは自分の犬が大好きです。"),
        ("私の髪が好きなのは私の夫です。", "ja", "ユーザーの髪が好きなのはユーザーの夫です。"),
        ("ミートソースのパスタです。", "ja", None),  # no "I": the model, beside its question
        ("응, 제가 학생이에요", "ko", "사용자가 학생이에요."),
        ("내 머리는 땀투성이야.", "ko", "사용자의 머리는 땀투성이야."),
        ("우리는 부산에 살아.", "ko", None),
        ("나는 나의 개를 사랑해 ㅋㅋㅋ", "ko", "사용자는 자신의 개를 사랑해."),
        ("我喜欢猫啊！哈哈", "zh", "用户喜欢猫。"),
        ("tidak, saya tinggal dengan anak-anak", "id", "Pengguna tinggal dengan anak-anak."),
        ("Saya punya buku", "id", None),  # "-ku" may be "my": the model
        ("hewan peliharaan saya tidak bisa jalan-jalan.", "id", None),
        ("saya tidak pernah mencobanya.", "id", None),  # "-nya": a thing said before
        ("Oui, j'ai deux chats et je vis à Paris.", "fr",
         "L'utilisateur a deux chats et vit à Paris."),
        ("Je ne m'ennuie jamais.", "fr", "L'utilisateur ne s'ennuie jamais."),
        ("Je fais du vélo avec mon frère", "fr", "L'utilisateur fait du vélo avec son frère."),
        ("J'irai en Espagne en mai.", "fr", "L'utilisateur ira en Espagne en mai."),
        ("Je prends le bus parce que je n'ai pas de voiture.", "fr",
         "L'utilisateur prend le bus parce que l'utilisateur n'a pas de voiture."),
        ("Mes parents faisaient de la randonnée avec moi.", "fr", None),
        ("Non, je ne suis pas très buveur.", "fr", "L'utilisateur n'est pas très buveur."),
        ("Je ne bois ni ne fume comme ils le font.", "fr", None),  # "ils": others too
        ("On va au cinéma le vendredi.", "fr", None),  # "on" is "we" as often as "one"
        ("Vivo en Sevilla.", "es", None),  # verbs that change with the person: the model
    ],
)  # fmt: skip
def test_swap_person(sentence: str, language: str, note: str | None) -> None:
    written = swap_person(sentence, language)
    assert (written[0] if written else None) == note
