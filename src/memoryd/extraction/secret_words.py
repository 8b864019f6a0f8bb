"""The words that say "here comes a secret", in each language memoryd serves (R13, R21).

``memoryd.extraction.secrets`` finds a credential by its label ("password", "mot de
passe", "Passwort", "密码", "비밀번호" ...) followed by a word that discloses it ("is",
"'s", "will be", "starts with", "est", "lautet", "是", "は" ...) and a value that is not
talk about it ("too short", "stored in 1Password", "abgelaufen"). The lists live here,
apart from the logic, so a language is added in one place. Labels, markers and talk
words are regular-expression fragments matched case-insensitively on NFKC text.
"""

from __future__ import annotations

# Something that is itself the secret: a password, a PIN or code, a security answer.
CREDENTIAL_LABELS = (
    # en
    r"pass\s?words?|passwd|pwd|pw|pass|pass\s?phrases?|passcodes?|pins?(?:\s+(?:code|number))?|"
    r"puk|cvv2?|cvc2?|csc|card\s+(?:security|verification)\s+code|code\s?word|master\s+(?:password|phrase)|seed\s+(?:phrase|words)|"
    r"recovery\s+(?:phrase|words)|mnemonic|combination|combo|"
    r"(?:door|gate|garage|alarm|entry|access|keypad|lockbox|safe|lock|building|disarm|"
    r"unlock|login|sign[- ]in|verification|confirmation|one[- ]time|sms|2fa|mfa|backup|"
    r"recovery|security|opener|voicemail)(?:\s+system)?\s+(?:code|codes|pin|number)|"
    r"(?:wi-?fi|wlan|wpa2?|network)\s+(?:key|password|pass)|"
    # fr
    r"mot\s+de\s+passe|mdp|digicode|phrase\s+secrète|"
    r"code\s+(?:secret|pin|confidentiel|d['’]accès|de\s+(?:la|l['’])\s*\w+|de\s+ma\s+carte(?:\s+bleue)?)|"
    # es, pt
    r"contraseña|clave|código(?:\s+de\s+(?:la|mi|acceso)\s*\w*)?|senha|palavra-passe|"
    # de
    r"passwort|kennwort|geheimzahl|zugangscode|wlan-passwort|(?:haus)?türcode|torcode|"
    # it
    r"parola\s+d['’]ordine|codice\s+(?:segreto|pin|del(?:la|l['’])?\s*\w+|di\s+\w+)|"
    # zh, ja, ko (no word boundaries: matched on their own, see CJK_LABELS)
    r"密码|密碼|口令|验证码|パスワード|暗証番号|合言葉|비밀번호|비번|암호"
)
CJK_LABELS = (
    r"密码|密碼|口令|验证码|驗證碼|パスワード|暗証番号|合言葉|認証コード|"
    r"비밀번호|비번|암호|인증번호"
)

# A security question's answer: the classic ones (mother's maiden name) are secrets
# whoever asked; a first pet or school only when said as the answer to one.
SECURITY_LABELS = (
    r"maiden\s+name|security\s+(?:question|answer)s?(?:\s+answer)?|"
    r"memorable\s+(?:word|answer|name|place|date)|password\s+hint|secret\s+(?:question|answer)|"
    r"nom\s+de\s+jeune\s+fille|apellido\s+de\s+soltera|nome\s+de\s+solteira|"
    r"mädchenname|geburtsname|cognome\s+da\s+nubile|pregunta\s+de\s+seguridad|"
    r"question\s+secrète|sicherheitsfrage|domanda\s+di\s+sicurezza"
)

# Words after a label that make it a compound noun about the thing, not the thing:
# "password manager", "PIN pad", "code review".
COMPOUND_NOUNS = (
    r"manager|managers|policy|policies|rules?|field|fields|reset|resets|requirements?|"
    r"strength|checker|hash|hashes|protected|protection|less|entry\s+device|pad|screen|"
    r"prompt|change|changes|expiry|length|form|page|login|review|reviews|vault|generator|"
    r"store|sharing|leak|breach|hashing|storage|attempts?|algorithms?|schemes?|system|"
    r"bugs?|issues?|errors?|flows?|services?|servers?|endpoints?|tests?|fix|fixes|crash|"
    r"problems?|regressions?|timeouts?|cookies?|sessions?|logs?|buttons?|modules?|"
    r"features?|methods?|helpers?|"
    r"manager|gestionnaire|oublié|gestor|verwaltung|gerenciador|"
    # kinds of code that are public: "código postal", "code source", "código de barras"
    r"postale?|fuente|source|sorgente|barras|barres|descuento|réduction|promocional|"
    r"promo|produit|producto|produto|prodotto|avviamento"
)
# Words that make the noun after them a particular one ("my password", "la contraseña",
# "die PIN"): in each Latin-script language memoryd serves.
_DETERMINERS = (
    "my the a an our your his her their its this that "
    "mon ma mes ton ta son sa notre votre le la les l' "
    "mi mis tu su sus el los las nuestra nuestro "
    "mein meine meinen dein deine sein seine ihr ihre das die der den dem "
    "o os as meu minha seu sua nossa "
    "il lo mio mia tuo tua suo nostra"
)
DETERMINERS = frozenset(_DETERMINERS.split())

# Disclosing words after a label: the value follows them. ``ATTACHED_MARKERS`` may be
# written onto the label ("password's", "密码是", "비밀번호는").
ATTACHED_MARKERS = r"'s|’s|=|:|是|为|為|：|は|는|은|이|가"
MARKERS = (
    r"is|was|will\s+be|would\s+be|be|becomes|became|-|answered|answer|=|:|"
    r"used\s+to\s+be|is\s+going\s+to\s+be|'s\s+going\s+to\s+be|’s\s+going\s+to\s+be|"
    r"(?:got\s+|was\s+|is\s+)?(?:changed|set|reset|updated|switched)\s+to|"
    r"starts?\s+with|starting\s+with|begins?\s+with|ends?\s+(?:with|in)|contains|reads|"
    r"est|c['’]est|était|sera|es|era|será|é|è|ist|lautet|war|wird|heißt"
)

# Words that follow "password is" when the line talks about the password, not its value.
_TALK_WORDS = (
    # en
    "too very quite really so not never always still stored saved kept written "
    "managed handled required needed mandatory optional rotated changed reset expired "
    "shared missing wrong invalid incorrect expiring expires "
    "being same different similar long short weak strong secure insecure easy hard "
    "simple complex complicated fine ok okay good bad terrible great hashed encrypted "
    "masked hidden visible blank empty case-sensitive locked blocked used sent lost "
    "forgotten known unknown in on at under inside behind somewhere nowhere printed "
    "taped stuck set printed a an one that which what this these those it there here "
    "like unique random same-as generated automatic protected also required "
    "at least more less than and or but because when for if last this next every "
    "again after before once twice recently yesterday today tomorrow soon later "
    "weekly monthly yearly daily first second only best worst "
    # fr, es, pt, it, de
    "trop très toujours jamais expiré expirée changé oublié oubliée faux fausse "
    "dans sur le la les même un une stocké enregistré "
    "demasiado muy caducado caducada cambiado olvidado olvidada el mismo misma en "
    "guardada incorrecta "
    "muito expirou mudou errada igual no na em "
    "troppo molto scaduta scaduto cambiata sbagliata stessa nel nella "
    "zu sehr abgelaufen falsch gespeichert im immer gleich geändert vergessen"
)
TALK_WORDS = frozenset(_TALK_WORDS.split())
# Word forms that describe rather than name: past participles and adjectives of the
# languages memoryd serves ("changed", "affiché", "gesperrt", "caducada", "obrigatória"),
# applied to lower-case words only (a password written "Unlocked" is still one).
TALK_FORMS = (
    r"\w+ed|\w+ée?s?|\w+(?:ado|ada|ido|ida|ato|ata)s?|\w+(?:ória|ório|ária|ário)|"
    r"ge\w+(?:t|en)"
)
# Words skipped between a marker and the value: "is the word Tangerine", "is literally".
_FILLER_WORDS = (
    "the a my our now still just literally simply actually currently new old word "
    "phrase: name: going"
)
FILLER_WORDS = frozenset(_FILLER_WORDS.split())

# English number words, for codes said in words ("four five six seven").
_DIGIT_WORDS = "zero one two three four five six seven eight nine"
NUMBER_WORDS = {w: str(n) for n, w in enumerate(_DIGIT_WORDS.split())} | {"oh": "0", "nil": "0"}

# Government and bank identifiers: a label, then a value holding five or more digits.
ID_LABELS = (
    r"social\s+security(?:\s+(?:number|no\.?|#))?|social\s+insurance\s+(?:number|no\.?)|"
    r"social|ssn|"
    r"national\s+insurance(?:\s+(?:number|no\.?))?|ni\s+(?:number|no\.?)|nino|"
    r"passport(?:\s+(?:number|no\.?|#))?|(?:identity|id)\s+card(?:\s+(?:number|no\.?))?|"
    r"national\s+id(?:entity)?(?:\s+number)?|id\s+number|aadhaar(?:\s+number)?|"
    r"sin|tax\s+(?:id|number|code)|tin|bsn|"
    r"personnummer|dni|nie|nif|cpf|medicare\s+(?:number|no\.?)|"
    r"driver'?s\s+licen[cs]e(?:\s+(?:number|no\.?))?|driving\s+licen[cs]e(?:\s+number)?|"
    r"licen[cs]e\s+number|account\s+(?:number|no\.?)|account|acct\s+(?:number|no\.?)|"
    r"sort\s+code|routing\s+number|bsb|iban|bic|swift|"
    r"numéro\s+de\s+sécurité\s+sociale|sécurité\s+sociale|nir|numéro\s+fiscal|"
    r"número\s+de\s+(?:la\s+)?seguridad\s+social|pasaporte|passeport|passaporte|passaporto|"
    r"reisepass|steuer-?id|steuernummer|steuer-identifikationsnummer|personalausweis|"
    r"codice\s+fiscale|carta\s+d['’]identità|número\s+de\s+dni|cartão\s+de\s+cidadão|"
    r"kreditkartennummer|número\s+de\s+tarjeta"
)
CJK_ID_LABELS = (
    r"身份证号?码?|身份證|护照号?码?|マイナンバー|個人番号|旅券番号|주민등록번호|여권번호"
)
