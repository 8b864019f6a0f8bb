"""The words of security questions and of answers to a question, in each language memoryd
serves (R13, R21): a question's topic ("mother's maiden name", "母の旧姓"), how a value
follows it, and the words that answer what the other speaker asked. Regular-expression
fragments like ``memoryd.extraction.secret_words``'s, kept apart so each stays readable.
"""

from __future__ import annotations

from memoryd.extraction.secret_words import MOTHERS_MAIDEN_NAME

# A classic security question's topic, as banks and sites offer them: said with a value
# ("first pet's name = Biscuit") that value is a security answer whoever asked. Topics
# that are names take any value; topics that are things (a first pet, car or school) take
# a name, said to be one or written as one ("was Rex"), not a kind ("was a hamster").
NAME_TOPICS = (
    MOTHERS_MAIDEN_NAME + r"|maiden\s+name|street\s+(?:(?:did\s+)?(?:you|i|we)\s+)?"
    r"gr[eo]w\s+up(?:\s+on)?|"
    r"(?:(?:city|town|place)\s+)?where\s+(?:your|my|our)?\s*parents\s+met|"
    r"childhood\s+(?:best\s+friend|nickname|street)|nom\s+de\s+jeune\s+fille|"
    r"apellido\s+de\s+soltera|nome\s+de\s+solteira|mädchenname|geburtsname|"
    r"cognome\s+da\s+nubile|娘家姓|旧姓"
)
THING_TOPICS = (
    r"first[\s-]+(?:grade\s+)?(?:pet|dog|cat|car|school|teacher)|"
    r"premi(?:er|ère)\s+(?:animal|voiture|école|professeur|chien|chat|maîtresse|instit\w*)|"
    r"primer[ao]?\s+(?:mascota|perro|gato|coche|auto|carro|escuela|colegio|maestr[oa]|profesor[a]?)|"
    r"primeir[oa]\s+(?:animal|c[ãa]o|cachorro|gato|carro|escola|professor[a]?)|"
    r"erste[nmrs]?\s+(?:haustier\w*|hund\w*|katze|auto\w*|schule|lehrer(?:in)?)|"
    r"prim[oa]\s+(?:animale|cane|gatto|auto|macchina|scuola|maestr[oa]|insegnante)|"
    r"第一(?:只|個|个|隻)(?:宠物|寵物|狗|猫|貓)|第一(?:辆|輛)车|"
    r"(?:初めて|最初)の(?:ペット|車|学校|先生)|첫\s?(?:애완동물|반려동물|차|학교)|"
    r"(?:hewan\s+peliharaan|peliharaan|anjing|kucing|mobil|sekolah|guru)\s+pertama|"
    # a primary school, as forms ask it: "name of your elementary school"
    r"(?:elementary|primary|grade)\s+school|école\s+primaire|escuela\s+primaria|grundschule|"
    r"escola\s+primária|scuola\s+elementare|sekolah\s+dasar|小学校|초등학교"
)
SECURITY_TOPICS_ALONE = NAME_TOPICS + "|" + THING_TOPICS
# Words that say a name is given: "name of my first pet", "was called", "叫", "の名前".
NAMING_WORDS = (
    r"\b(?:name|names|named|called|nom|nommé|appel\w*|nombre|llama\w*|nome|chama\w*|"
    r"namen?|hieß|heißt|chiama\w*|nama\w*|bernama)\b|叫|名前|名字|이름"
)
# Topics that are secret only when said as a security question's answer: a favourite
# teacher or a first job is also just a memory ("My first car was a blue Fiat").
SECURITY_TOPICS = SECURITY_TOPICS_ALONE + (
    r"|first[\s-]+(?:boss|job|love|concert)|gr[eo]w(?:ing)?\s+up\s+on|"
    r"(?:city|town|where)\s+(?:you\s+were|i\s+was|were\s+you|was\s+i)\s+born|"
    r"favou?rite[\s-]+(?:teacher|food|book|movie|film|"
    r"colou?r|team|band|singer)|(?:childhood|first)\s+(?:best\s+)?(?:friend|hero)|"
    r"(?:(?:grand)?(?:mother|father)|cousin|aunt|uncle|sister|brother)'?s\s+"
    r"(?:first\s+|middle\s+)?name|kota\s+kelahiran|"
    r"ville\s+de\s+naissance|ciudad\s+natal|cidade\s+natal|nome\s+da\s+m[ãa]e|geburtsstadt|"
    r"citt[àa]\s+natale|"
    r"母亲的(?:姓名|名字)|母親的(?:姓名|名字)|宠物的名字|出生(?:城市|地)|"
    r"出身(?:小学校|地)|어머니\s?(?:성함|이름)"
)
# After a topic, the words that give its value: "first pet's name = Biscuit", "my first
# school was called ...", "nom de mon premier animal : Caramel", "第一只宠物叫 豆豆".
TOPIC_NAME = r"(?:'s|’s)?(?:\s+name)?(?:の名前|の名|的名字|的名|\s?이름)?"
TOPIC_MARKERS = (
    r"(?:is|was)\s+(?:called|named)|is|was|->|=>|→|=|:|：|called|named|"
    r"est|était|s['’]appel(?:ait|le)|es|era|se\s+llama(?:ba)?|é|foi|se\s+chamava|"
    r"chamava-se|chama-se|"
    r"ist|war|hieß|heißt|lautet|è|si\s+chiamava|adalah|ialah|yaitu|namanya|"
    r"as|comme|como|als|come|sebagai"  # "wrote mother's maiden name as Haddad"
)
CJK_TOPIC_MARKERS = r"叫|是|为|為|は|은|는|이|가|：|:"
# Saying it is a security question or answer, in each language: by name, or as a
# question for recovering an account or checking who one is ("비밀번호 찾기 질문",
# "本人確認の質問", "question de récupération").
SECURITY_CONTEXT = (
    r"(?:respuesta|pregunta)s?\s+de\s+seguridad|(?:resposta|pergunta)s?\s+d[ea]\s+seguran[çc]a|"
    r"(?:réponse|question)s?\s+(?:secrète|de\s+sécurité)|sicherheits(?:frage|antwort)\w*|"
    r"(?:risposta|domanda)\s+(?:di\s+sicurezza|segreta)|"
    r"(?:pertanyaan|jawaban)\s+(?:keamanan|rahasia)|密保|安全问题|安全問題|秘密の質問|"
    r"(?:respuesta|pregunta|resposta|pergunta)s?\s+secretas?|geheim(?:e\s+)?fragen?|"
    r"セキュリティ(?:質問|の質問)|보안\s?질문|비밀\s?질문|"
    r"(?:recovery|verification|identity|hint|récupération|vérification|recuperaci[óo]n|"
    r"verificaci[óo]n|wiederherstellungs|recupera[çc][ãa]o|verifica[çc][ãa]o|recupero|verifica|"
    r"비밀번호\s?찾기|본인\s?확인|계정\s?복구|找回密码|身份验证|本人確認)\S*\s*(?:の\s*)?"
    r"(?:questions?|pregunta|frage|pergunta|domanda|질문|问题|問題|質問)"
)
# Asking it of the user, as a form does: "name of your first pet", "what street did you
# grow up on", "nom de ton premier animal".
SECOND_PERSON = (
    r"\b(?:your|you|votre|vos|ton|ta|tes|tu|su|sus|dein\w*|ihr\w*|seu|sua|teu|tua|tuo|"
    r"tuoi)\b|你的|あなたの|당신의"
)
# With a topic, these make it an answer: "the answer to ...", "I always put ...".
ANSWER_WORDS = (
    r"\b(?:answers?|respuesta|resposta|réponse|antwort|risposta|put|enter|type|"
    # someone asking it: "when the rep asks my favorite food", "me demande"
    r"ask|asks|asked|asking|demande\w*|pregunta[nr]?|preguntó|fragt|gefragt|pergunta[mr]?|"
    r"perguntou|chiede|chiedono|chiesto|jawab\w*|ditanya|tanya\w*|"
    r"verification|verify|bank|banque|banco|banca|recovery|récupération|recuperaci[óo]n|"
    r"recupera[çc][ãa]o|wiederherstellung|recupero)\b|"
    r"答案|答え|답은|답"
)
ANSWER_MARKERS = (
    r"(?<![\w'’])(?:is|was|es|era|est|était|ist|war|lautet|è|é|foi|(?:it|that)['’]s|c['’]est|"
    # giving an answer, in each language: "I put", "j'ai mis", "puse", "coloquei", "ho risposto"
    r"put|type|typed|enter|entered|write|wrote|use|used|say|said|answered|gave|chose|picked|"
    r"told|tell|went\s+with|go\s+with|"
    r"(?<=ai |as |ns |ez |nt | a )mis|mets|mettre|écrit|répondu|choisi|donné|tapé|saisi|"
    r"puse|pongo|puesto|escribí|escrito|respondí|contesté|elegí|"
    r"coloquei|coloco|escrevi|respondi|escolhi|usei|"
    r"messo|metto|scritto|risposto|scelto|inserito|usato|adalah|ialah|yaitu|itu|isi|pakai|pake|"
    r"jawab(?:nya)?)(?![\w'’])|"
    r"->|=>|→|[:=：]|(?:答案|答え|답|정답)\s*(?:是|は|은|는|：|:)|(?:填|写|寫|选|選)(?:的是|了|成)?"
)
# Whom an answer is given to: "I told them ...", "je leur ai dit ...".
OBJECT_PRONOUNS = r"them|him|her|us|leur|lui|les|les|ihnen|ihm|lhes|lhe|loro|gli"
# Subject pronouns: "was your ...", "I put ...", not an answer.
PRONOUNS = "i you he she it we they je tu il elle yo él ich du er sie es eu ele ela io lui"
# Verbs that follow the answer they give: "hab ich Bello angegeben".
ANSWER_AFTER = (
    r"angegeben|eingegeben|geschrieben|genommen|gewählt|benutzt|verwendet|"
    r"と(?:入力|答え|書い)|って(?:入力|答え|書い)|(?:로|으로|라고)\s?(?:해|적|썼|답)"
)
