"""The words that say "here comes a secret", in each language memoryd serves (R13, R21).

``memoryd.extraction.secrets`` finds a credential by its label ("password", "mot de
passe", "密码" ...) followed by a word that discloses it ("is", "lautet", "是" ...) and a
value that is not talk about it ("too short"). The lists live here, apart from the logic,
so a language is added in one place: regular-expression fragments matched
case-insensitively on NFKC text.
"""

from __future__ import annotations

# The characters of a Latin-script word: a label or a number is a word of its own among
# these, but may be written onto CJK text, a "_" or a "-" ("Amazonのpass", "番号24306115").
LATIN = r"A-Za-z0-9\u00c0-\u024f"

# A phrase that unlocks a thing: "encryption phrase", "phrase de chiffrement", "frase
# d'accesso", "frasa sandi", or a phrase for something locked ("the phrase for my vault").
_LOCKED = (
    r"vault|wallet|account|drive|disk|volume|partition|backup|safe|login|laptop|keystore|"
    r"coffre|compte|cofre|cuenta|conta|tresor|konto|cassaforte|conto|dompet|akun"
)
THING_PHRASES = (  # words of their own, but for German compounds
    rf"\b(?:encryption|decryption|unlock|{_LOCKED}|key)\s+(?:\S+\s+)?(?:pass)?"
    r"(?:phrase|frase|satz|frasa)\b|\b(?:phrase|frase)\s+(?:de\s+|di\s+)?"
    r"(?:chiffrement|déverrouillage|cifrado|desbloqueo|criptografia|"
    r"desbloqueio|crittografia|sblocco)|(?:phrase|frase)\s+d['’]acc[eè]s+o?|frase\s+de\s+acc?esso|"
    r"frasa\s+(?:sandi|rahasia|pemulihan)|(?:verschlüsselungs|entsperr)(?:pass)?(?:phrase|satz)|"
    rf"\b(?:phrase|frase|satz|frasa)\s+(?:\S+\s+){{0,3}}?(?:{_LOCKED})(?![\w-])"
)
# What something is opened with: "my notes app unlocks with ...", "s'ouvre avec".
UNLOCKS_WITH = (
    r"\b(?:opens|open\s+it|unlocks?)\s+with|s['’]ouvre\s+avec|se\s+(?:abre|desbloquea)\s+con|"
    r"(?:öffnet|entsperrt)\s+(?:sich\s+)?mit|(?:abre|desbloqueia)(?:-se)?\s+com|"
    r"si\s+(?:apre|sblocca)\s+con"
)
# German nouns that end compounds: "Routerpasswort", "Bankgeheimzahl", "Haustürcode".
GERMAN_HEADS = r"passwort|kennwort|geheimzahl|zugangscode|türcode|torcode"
# Something that is itself the secret: a password, a PIN or code, a security answer.
CREDENTIAL_LABELS = (
    # en
    r"pass?\s?wo?r?ds?|pwd|pw|pass|pass\s?phrases?|passcodes?|pins?(?:\s+(?:code|number))?|"
    r"puk|cvv2?|cvc2?|csc|cid|card\s+(?:security|verification)\s+code|code\s?word|master\s+(?:password|phrase)|seed\s+(?:phrase|words)|"
    r"recovery\s+(?:phrase|words)|mnemonic|combination|combo|"
    r"(?:door|gate|garage|alarm|entry|access|keypad|lockbox|safe|lock|building|disarm|"
    r"unlock|login|sign[- ]in|verification|confirmation|one[- ]time|sms|2fa|mfa|backup|"
    r"recovery|security|opener|voicemail)(?:\s+system)?\s+(?:code|codes|pin)|"
    r"(?:wi-?fi|wlan|wpa2?|network)\s+(?:key|password|pass)|"
    r"cl[ée]\s+(?:de\s+)?(?:réseau|wpa)|clave\s+(?:de\s+(?:la\s+)?)?red|netzwerkschlüssel|"
    r"wlan-schlüssel|chave\s+(?:de\s+)?rede|chiave\s+(?:di\s+)?rete|网络密钥|ネットワークキー|"
    r"네트워크\s?키|"
    # what unlocks something, by definition a credential: "the phrase to unlock the wallet"
    r"(?:word|phrase|sentence|code|number)s?\s+(?:to|that|which|i|we|you)\s+(?:\w+\s+){0,2}"
    r"(?:unlock|open|get\s+in|access|log\s+in)\w*|" + UNLOCKS_WITH + "|"
    r"(?:mot|phrase|code)\s+pour\s+(?:déverrouiller|ouvrir|accéder)|"
    r"(?:palabra|frase|código)\s+para\s+(?:desbloquear|abrir|acceder|acessar)|"
    r"(?:wort|satz|code)\s+zum\s+(?:entsperren|öffnen)|"
    r"(?:parola|frase|codice)\s+per\s+(?:sbloccare|aprire|accedere)|"
    # keys that are themselves the secret (a password manager's, a disk's, a licence's)
    r"(?:master|recovery|encryption|decryption|licen[cs]e|product|activation|setup)\s+key|"
    # a password manager's master: "1Password master: ..."
    r"(?:1password|lastpass|bitwarden|keepass\w*|dashlane|keeper|enpass|nordpass)\s+master|"
    + THING_PHRASES
    + "|"
    # fr
    r"mot\s+de\s+passe|mdp|digicode|phrase\s+secrète|cryptogramme(?:\s+visuel)?|"
    r"clé\s+(?:de\s+(?:récupération|chiffrement|sécurité)|wi-?fi)|"
    r"code\s+(?:secret|pin|confidentiel|d['’]accès|de\s+(?:la|l['’])\s*\w+|de\s+ma\s+carte(?:\s+bleue)?)|"
    # es, pt
    r"contraseña|clave|código(?:\s+de\s+(?:la|mi|acceso|seguridad|segurança)\s*\w*)?|senha|"
    r"palavra-passe|"
    # id
    r"kata\s+sandi|sandi|kode|"
    # de
     + GERMAN_HEADS + "|"
    r"(?:karten)?prüf(?:nummer|ziffer|code)|sicherheitscode|wiederherstellungsschlüssel|"
    # a card's code by where it is: "the 3 digits on the back", "les 3 chiffres au dos"
    r"(?:\d|three|four|trois|tres|três|drei|tre)\s+(?:digits|chiffres|d[ií]gitos|ziffern|cifre)\s+"
    r"(?:on\s+the\s+back|au\s+dos|(?:de\s+)?(?:atr[aá]s|detr[aá]s)|do\s+verso|hinten|sul\s+retro)|"
    # it
    r"parola\s+d['’]ordine|codice\s+(?:segreto|pin|del(?:la|l['’])?\s*\w+|di\s+\w+)|"
    # zh, ja, ko (no word boundaries: matched on their own, see CJK_LABELS)
    r"密码|密碼|口令|验证码|安全码|パスワード|暗証番号|合言葉|セキュリティコード|"
    r"비밀번호|비번|암호|보안\s?코드"
)
CJK_LABELS = (
    r"密码|密碼|口令|验证码|驗證碼|パスワード|パス(?![ァ-ヺー])|暗証番号|合言葉|認証コード|"
    r"비밀번호|비번|암호|인증번호|パスフレーズ|オートロック|安全码|セキュリティコード|"
    r"カードの裏の\d桁|卡背面的?\d位|카드\s?뒷면\s?\d자리|"
    # keys that are the secret: "暗号化キーは 320893932ef28", "WiFi密钥", "보안 키"
    r"(?:暗号化|セキュリティ|ネットワーク|WPA|wpa)キー|密钥|密鑰|(?:암호화|보안|네트워크)\s?키"
)

# A mother's maiden name, the classic security answer: a secret whoever asked (one's own
# maiden name is not: "my maiden name was Harper before I got married").
MOTHERS_MAIDEN_NAME = (
    r"\b(?:mother|mom|mum|mama|mommy|mummy|ma)['’]?s\s+maiden\s+name|"
    r"maiden\s+name\s+of\s+(?:my|your|his|her|the)\s+(?:mother|mom|mum)|"
    r"nom\s+de\s+jeune\s+fille\s+de\s+(?:ma|ta|sa|votre|la)\s+(?:mère|maman)|"
    r"apellido\s+de\s+soltera\s+de\s+(?:mi|tu|su|la)\s+(?:madre|mamá)|"
    r"(?:mädchen|geburts)namen?\s+(?:meiner|deiner|ihrer|seiner|der)\s+(?:mutter|mama)|"
    r"nama\s+(?:gadis\s+ibu|ibu\s+kandung)|"
    r"nome\s+de\s+solteira\s+da\s+(?:(?:minha|sua|tua)\s+)?(?:mãe|mae)|"
    r"cognome\s+da\s+nubile\s+di\s+(?:mia|tua|sua)\s+(?:madre|mamma)|"
    r"(?:母亲|母親|妈妈|媽媽|妈|媽|母)(?:的|の)?\s?(?:娘家姓|婚前姓|旧姓)|"
    r"어머니\s?(?:의\s?)?(?:결혼\s?전\s?)?(?:성|성함)"
)
# A security question's answer: a mother's maiden name whoever asked; a first pet or
# school only when said as the answer to one.
SECURITY_LABELS = (
    MOTHERS_MAIDEN_NAME + r"|security\s+(?:question|answer|q|word)s?(?:\s+answer)?|"
    r"memorable\s+(?:word|answer|name|place|date)|"
    r"secret\s+(?:question|answer|word)|"
    r"(?:recovery|verification|challenge)\s+(?:question|answer)s?|pregunta\s+de\s+seguridad|"
    r"question\s+secrète|sicherheitsfrage|domanda\s+di\s+sicurezza|sicherheitswort|"
    r"(?:mot|palabra|palavra|parola)\s+(?:de|di)\s+(?:sécurité|seguridad|segurança|sicurezza)"
)

# A name's label: the word it discloses names a user or a network, not a secret ("my
# reddit username is throwaway_gardener_88", "the Wi-Fi network is called CafeGuest5G").
USER_LABELS = (
    r"called|named|ssid|network\s+name|s['’]appelle|se\s+llama|heißt|chama-se|si\s+chiama|"
    r"user\s?names?|user\s?id|login\s+name|handle|screen\s?name|gamertag|nickname|benutzername|"
    r"nom\s+d['’]utilisateur|identifiant|pseudo|usuario|nombre\s+de\s+usuario|"
    r"nome\s+de\s+usu[aá]rio|nome\s+utente|utente|nama\s+pengguna|bernama|namanya|"
    r"用户名|ユーザー名|아이디|사용자\s?이름"
)

# A capital said as one: a password spelt out ("capital M, lowercase a r m ...").
SPELLED_LETTER = (
    r"(?:\b(?:capital|upper\s?case|majuscule|may[úu]scula|mai[úu]scula|maiuscola|gro(?:ß|ss)es)|"
    r"huruf\s+(?:besar|kapital)|大文字の?|大写|대문자)\s?(?-i:[A-Z])(?![\w'’])"
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
    r"features?|methods?|helpers?|on\s+(?:the\s+)?maps?|location|"
    r"manager|gestionnaire|oublié|gestor|verwaltung|gerenciador"
)
# Kinds of code or number that are public, said before the code word ("zip code",
# "Fehlercode", "エラーコード") or after it ("código postal", "code de la route",
# "código de rastreio", "codice errore"), in each language memoryd serves.
PUBLIC_CODE_KINDS = (
    r"zip|postal|postale|post|postleit\w*|cep|area|country|status|errors?|source|promo\w*|"
    r"discount|coupon|referral|course|class|dress|colou?r|qr|bar|barcode|"
    r"product|item|sku|exit|return|http|response|sort|tax|airport|station|billing|"
    r"diagnosis|project|school|branch|swift|bic|currency|language|model|flight|room|"
    r"ticket|order|tracking|booking|reservation|reference|invoice|shipping|"
    r"parcel|morse|cheat|machine|binary|byte|dial|genetic|highway|penal|civil|"
    # codes of public classifications and standards
    r"iso|hs|naics|sic|icd|iata|icao|isbn|ean|upc|gtin|unspsc|cpt|nace|"
    r"route|erreur|suivi|réduction|réservation|commande|vestimentaire|"
    r"fuente|descuento|seguimiento|rastreo|reserva|pedido|vestimenta|barras|"
    r"fehler|rabatt|gutschein|sendungs\w*|kleider|buchungs\w*|bestell\w*|"
    r"erro|rastreio|desconto|barra|pos|diskon|kupon|resi|pesanan|pemesanan|"
    r"errore|sconto|sorgente|tracciamento|prenotazione|ordine|abbigliamento|avviamento|"
    r"barres|produit|producto|produto|prodotto|cours|curso|corso|kurs\w*|"
    r"错误|邮政|郵便|优惠|快递|エラー|クーポン|追跡|에러|오류|할인|우편|운송장"
)
# The link between a code word and its kind in the Romance languages ("code de la",
# "código do", "codice di").
KIND_LINK = r"(?:\s+(?:de|di|da|do|du|des|del|della|dello|dos|das|la|le)\b|\s+d['’])*"
# Words that make the noun after them a particular one ("my password", "la contraseña",
# "die PIN"): in each Latin-script language memoryd serves.
_DETERMINERS = (
    "my the a an our your his her their its this that "
    "mon ma mes ton ta son sa notre votre le la les l' "
    "mi mis tu su sus el los las nuestra nuestro "
    "mein meine meinen dein deine sein seine ihr ihre das die der den dem "
    "o os as meu minha seu sua nossa "
    "il lo mio mia tuo tua suo nostra "
    "un une uno una ein eine einen um uma"
)
DETERMINERS = frozenset(_DETERMINERS.split())

# Words that start a complement of a noun: "the password for the wifi", "le mot de passe
# de la box", "das Passwort für das WLAN", "の" is written onto the noun.
_PREPOSITIONS = (
    "for of to on at in from with into onto "
    "de du des d' pour sur à au aux chez dans avec "
    "del para por en con a al "
    "für von vom zum zur zu auf am im bei mit an "
    "da do dos das na no nos em pra com "
    "di della dello dei degli per su al nel sul untuk buat ke dari pada"
)
PREPOSITIONS = frozenset(_PREPOSITIONS.split())

# Disclosing words after a label: the value follows them. ``ATTACHED_MARKERS`` may be
# written onto the label ("password's", "密码是", "비밀번호는").
ATTACHED_MARKERS = r"'s|’s|=|:|是|为|為|：|は|는|은|이|가"
MARKERS = (
    r"is|was|will\s+be|would\s+be|be|becomes|became|-|answered|answer|->|=>|→|=|:|"
    r"used\s+to\s+be|is\s+going\s+to\s+be|'s\s+going\s+to\s+be|’s\s+going\s+to\s+be|"
    r"(?:got\s+|was\s+|is\s+)?(?:changed|set|reset|updated|switched)\s+to|"
    r"starts?\s+with|starting\s+with|begins?\s+with|ends?\s+(?:with|in)|contains|reads|"
    r"est|c['’]est|était|sera|es|era|será|é|è|ist|lautet|war|wird|heißt|adalah|ialah|yaitu"
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
    "usually normally generally typically often sometimes rarely mostly "
    "weekly monthly yearly daily first second only best worst "
    # fr, es, pt, it, de
    "trop très toujours jamais expiré expirée changé oublié oubliée faux fausse "
    "dans sur le la les même un une stocké enregistré "
    "demasiado muy caducado caducada cambiado olvidado olvidada el mismo misma en "
    "guardada incorrecta "
    "muito expirou mudou errada igual no na em "
    "troppo molto scaduta scaduto cambiata sbagliata stessa nel nella "
    "zu sehr abgelaufen falsch gespeichert im immer gleich geändert vergessen "
    # usually, often, sometimes in fr, es, pt, it, de
    "souvent généralement normalement parfois habituellement "
    "normalmente generalmente habitualmente menudo veces "
    "geralmente frequentemente "
    "solitamente spesso talvolta "
    "normalerweise meistens oft manchmal gewöhnlich "
    # strong, weak, long, short, safe, simple, easy, hard in fr, es, pt, it, de
    "fort forte faible long longue court courte sûr sûre simple facile difficile "
    "fuerte débil largo larga corto corta seguro segura sencillo sencilla fácil difícil "
    "fraco fraca longo longa curto curta simples "
    "debole lungo lunga corto corta sicuro sicura semplice facile difficile "
    "stark schwach lang kurz sicher einfach schwer kompliziert "
    "terlalu sangat sudah udah salah lupa diganti"
)
TALK_WORDS = frozenset(_TALK_WORDS.split())
# Word forms that describe rather than name: past participles and adjectives of the
# languages memoryd serves ("changed", "affiché", "gesperrt", "caducada", "obrigatória"),
# applied to lower-case words only (a password written "Unlocked" is still one).
TALK_FORMS = (
    r"\w+ed|\w+ée?s?|\w+(?:ado|ada|ido|ida|ato|ata)s?|\w+(?:ória|ório|ária|ário)|"
    r"ge\w+(?:t|en)"
)
# Words skipped between a marker and the value: "is the word Tangerine", "is literally",
# "is four words: ...", "es una frase:".
_FILLER_WORDS = (
    "the a my our now still just literally simply actually currently new old word "
    "phrase: name: going words sentence mots palabras palavras wörter satz parole kata"
)
FILLER_WORDS = frozenset(_FILLER_WORDS.split())

# Digits said in words, for codes said so ("four five six seven", "cinco dois nove oito"),
# in each Latin-script language memoryd serves (en, fr, es, pt, it, de, id).
_DIGIT_WORDS = (
    "zero one two three four five six seven eight nine",
    "zéro un deux trois quatre cinq six sept huit neuf",
    "cero uno dos tres cuatro cinco seis siete ocho nueve",
    "zero um dois três quatro cinco seis sete oito nove",
    "zero uno due tre quattro cinque sei sette otto nove",
    "null eins zwei drei vier fünf sechs sieben acht neun",
    "nol satu dua tiga empat lima enam tujuh delapan sembilan",
)
NUMBER_WORDS = {w: str(n) for ws in _DIGIT_WORDS for n, w in enumerate(ws.split())} | {
    "oh": "0",
    "nil": "0",
}

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
    r"licen[cs]e\s+(?:number|no\.?|#)|(?:dmv|state)\s+id|account\s+(?:number|no\.?)|account|"
    r"acct(?:\s+(?:number|no\.?|#))?|"
    # a driving licence, a residence permit, an immigration number, in each language
    r"licen[cs]e(?!\s+plates?)|dl\s*(?:number|no\.?|#)|licencia(?:\s+de\s+conducir)?|"
    r"permis\s+de\s+conduire|"
    r"führerschein(?:nummer)?|carteira\s+de\s+(?:motorista|habilitação)|cnh|patente\s+di\s+guida|"
    r"a-number|alien\s+(?:registration\s+)?number|residence\s+permit(?:\s+number)?|"
    r"titre\s+de\s+séjour|permiso\s+de\s+residencia|tarjeta\s+de\s+residencia|"
    r"aufenthalts(?:titel|erlaubnis)|autorização\s+de\s+residência|permesso\s+di\s+soggiorno|"
    r"carteira\s+de\s+identidade|identidade|rg|n[úu]mero\s+de\s+contribuinte|contribuinte|"
    r"num[ée]ro\s+de\s+s[ée]cu|s[ée]cu|"
    r"sort\s+code|routing\s+number|bsb|iban|bic|swift|"
    r"numéro\s+de\s+sécurité\s+sociale|sécurité\s+sociale|nir|numéro\s+fiscal|"
    r"número\s+de\s+(?:la\s+)?seguridad\s+social|pasaporte|passeport|passaporte|passaporto|"
    r"reisepass|steuer-?id|steuernummer|steuer-identifikationsnummer|(?:personal)?ausweis|"
    r"ktp|nik|paspor|bpjs|"
    r"codice\s+fiscale|carta\s+d['’]identità|número\s+de\s+dni|cartão\s+de\s+cidadão|"
    r"kreditkartennummer|número\s+de\s+tarjeta|hkid|"
    # health insurance numbers, in each language
    r"health\s+(?:insurance|card)(?:\s+(?:number|no\.?))?|carte\s+vitale|tarjeta\s+sanitaria|"
    r"(?:kranken|renten|sozial)?versicherten(?:nummer)?|krankenkassennummer|tessera\s+sanitaria|"
    r"n[úu]mero\s+de\s+utente|cart[ãa]o\s+(?:de\s+saúde|sns)"
)
# In Chinese, Japanese and Korean: a document, or a document's number ("運転免許証の番号",
# "身分證字號", "여권 번호"); a number word alone names nothing.
CJK_ID_LABELS = (
    r"(?:(?:身份|身分)(?:证|證)|护照|護照|驾驶证|駕駛執照|社会保障|社會保障|社保卡|医保卡|"
    r"健保卡|居留证|居留證|マイナンバー|個人番号|旅券|パスポート|(?:運転)?免許証|在留カード|"
    r"基礎年金|(?:健康)?保険証|주민등록|여권|운전면허|외국인등록|건강보험)"
    r"(?:\s?(?:の|的|의)?\s?(?:番号|号码|號碼|号|號|字號|字号|번호|증\s?번호))?|"
    r"被保険者番号|주민\s?번호|"
    r"口座番号|支店番号|口座|账号|帐号|账户|银行卡号|卡号|계좌번호|계좌"
)

# The last digits of a number, in each language: of a government id they are still
# asked as a secret ("last 4 of my social is 7205"); of a card they are not.
LAST_DIGITS = (
    r"last\s+(?:4|four)(?:\s+digits)?|(?:4|quatre)\s+derniers(?:\s+chiffres)?|"
    r"(?:4|cuatro|quatro)\s+últimos(?:\s+dígitos)?|últimos\s+(?:4|cuatro|quatro)(?:\s+dígitos)?|"
    r"letzten\s+(?:4|vier)(?:\s+(?:ziffern|stellen))?|ultime\s+(?:4|quattro)(?:\s+cifre)?|"
    r"(?:4|empat)\s+(?:digit|angka)\s+terakhir|下4桁|末尾4桁|后四位|後四位|뒷\s?4자리|뒷자리"
)

# Bank account labels beyond "account number", "IBAN", "sort code" (same rule as ids).
BANK_LABELS = (
    r"rib|guichet|compte(?:\s+(?:courant|bancaire))?|num[ée]ro\s+de\s+compte|"
    r"cuenta(?:\s+corriente)?|n[úu]mero\s+de\s+cuenta|kontonummer|konto|blz|bankleitzahl|"
    r"ag[êe]ncia|conta(?:\s+corrente)?|n[úu]mero\s+da\s+conta|conto(?:\s+corrente)?|abi|cab|"
    r"aba|ifsc|clabe|sozialversicherungsnummer|rentenversicherungsnummer|"
    r"(?:nomor\s+|no\.?\s*)?rek(?:ening)?|norek"
)

# A bank or an account at one: a long number in the same sentence is its number
# ("振込先：... 銀行 渋谷支店 普通 4820193", "국민은행 482901-01-338172 로 보내줘").
BANK_CONTEXT = (
    r"\b(?:banks?|banking|checking|savings|acct|routing|wire|iban|swift|bic|sort\s+code|"
    r"banque|bancaire|virement|rib|banco|bancaria|transferencia|cuenta\s+(?:corriente|de\s+ahorro)|"
    r"bankverbindung|überweisung|kontonummer|girokonto|sparkonto|"
    r"transferência|conta\s+(?:corrente|poupança)|pix|banca|bonifico|conto\s+corrente|"
    # a cheque: its MICR line holds the routing and account numbers
    r"cheques?|chèques?|schecks?|assegn[oi]|(?:paper|bank|personal|voided?|blank)\s+checks?|"
    r"check\s*book|rekening|norek|no\.?\s*rek|(?:transfer|tf)\s+ke)\b|[⑆⑇⑈⑉]|小切手|支票|수표|"
    r"银行|銀行|账户|帳戶|账号|帳號|口座|振込|振り込|支店|은행|뱅크|バンク|계좌|송금|이체|"
    r"ゆうちょ|信用金庫|信金|労働金庫|農協|信用社|신협|농협|새마을금고|신한|입금"
)
# Banks that keep no money: "food bank", "banque alimentaire", "Blutbank".
NOT_A_BANK = (
    r"\b(?:food|blood|sperm|seed|power|data|river)\s+banks?|bank\s+holidays?|"
    r"banques?\s+(?:alimentaires?|du\s+sang)|bancos?\s+de\s+(?:alimentos|sangre|sangue)|"
    r"blutbank|banco\s+alimentare|banca\s+del\s+sangue|bank\s+(?:sampah|darah)"
)
# Calling someone: a long number in the same sentence is a phone number.
PHONE_WORDS = (
    r"\b(?:phone|call|calling|tel|telephone|mobile|cell|fax|whatsapp|hotline|téléphone|"
    r"appel\w*|portable|teléfono|llam\w+|móvil|celular|telefon\w*|handy|anruf\w*|ruf|"
    r"telefone|ligar|liga|telefono|cellulare|chiam\w+|telepon|telp|nelpon)\b|"
    r"电话|電話|手机|携帯|전화|휴대폰|핸드폰"
)

# Labels of a phrase that is itself the secret: what follows their colon is the value.
PHRASE_LABELS = (
    THING_PHRASES + r"|(?:復元|シード)フレーズ|恢复短语|恢復短語|种子短语|"
    r"pass[\s-]?phrase|seed\s+(?:phrase|words)|recovery\s+(?:phrase|words)|backup\s+phrase|"
    r"mnemonic|secret\s+recovery\s+phrase|phrase\s+de\s+(?:passe|récupération)|"
    r"phrase\s+secrète|frase[\s-]+(?:semilla|(?:de\s+)?(?:contraseña|recuperaci[óo]n|"
    r"recupera[çc][ãa]o|paso|senha)|secreta|segreta|mnemonica)|wiederherstellungsphrase|passfrase|"
    r"助记词|助記詞|パスフレーズ|リカバリーフレーズ|패스프레이즈|복구\s?문구|시드\s?문구|암호\s?문구"
)

# Naming a recovery phrase or part of one: what follows may be its words.
SEED_CONTEXT = (
    PHRASE_LABELS + r"|\bseed\b|\bwallet\s+words|"
    r"\b(?:words?|mots|palabras|wörter|palavras|parole)\s+\d{1,2}\s*(?:to|-|–|through|à|a|bis|al)\s*\d{1,2}\b|"
    r"graine|semilla|semente|\bseme\b|シード|リカバリー|시드"
)

# Words about one-time codes: a short number in the same sentence is the code.
OTP_CONTEXT = (
    # a service sending six digits, as one-time codes are shown: "Instagram sent 304 992"
    r"\b(?:sent|texted|got|received|envoyé|reçu|envió|mandó|recibí|llegó|geschickt|"
    r"bekommen|erhalten|enviou|mandou|recebi|chegou|inviato|mandato|ricevuto|arrivato)\s+"
    r"(?:me\s+|mir\s+|mi\s+)?(?=\d{3}[ -]?\d{3}\b(?![ -]?\d))|"
    r"\b(?:texted|sms(?:ed)?)\s+(?:me\s+)?(?=\d{4,8}\b)|"
    r"\b(?:otp|2fa|mfa|totp|one[- ]time|single[- ]use|verification|confirmation|"
    r"authenticator|backup\s+codes?|recovery\s+codes?|magic\s+link|sms|text(?:ed)?\s+me|"
    r"e-?mailed\s+me|login\s+code|sign[- ]in\s+code|security\s+code|usage\s+unique|"
    r"code\s+(?:de\s+)?(?:vérification|confirmation|sécurité)|un\s+solo\s+uso|"
    r"uso\s+único|de\s+respaldo|verificaci[óo]n|verifica[çc][ãa]o|confirmaci[óo]n|"
    r"confirma[çc][ãa]o|verifikasi|konfirmasi|monouso|einmal\w*|bestätigungs\w*|verifizierungs\w*|"
    r"sicherheitscode|codice\s+(?:di\s+verifica|otp|temporaneo)|zwei-?faktor\w*)\b|"
    r"codes?\b[^.!?]{0,30}\b(?:e-?mail|sms|text|message|app|sent|received)\b|"
    r"验证码|驗證碼|验证|驗證|备用码|動態碼|动态码|認証(?:番号)?|確認コード|ワンタイム|인증(?:번호)?|OTP|"
    # a code a message says to use: "Use 55810 to confirm", "utilisez 123456 pour"
    r"\b(?:use|enter|utilisez|saisissez|usa|ingresa|introduce|verwenden\s+sie|gib|digite|inserisci)"
    r"\s+(?=\d(?:[ -]?\d){3,7}\s+(?:to|pour|para|um|zum|per|untuk)\b)"
)
# A lock, door, gate or safe, and a word for what opens it: its digits are a code.
LOCK_CONTEXT = (
    r"padlock|lock|locker|safe|door|gate|garage|alarm|keypad|lockbox|shed|entry|entrance|"
    r"schloss|alarmanlage|tür|\btor\b|tresor|spind|schließfach|eingang|cadenas|porte|portail|"
    r"casier|entrée|taquilla|casillero|cacifo|armadietto|ingresso|entrada|"
    r"alarme|coffre|candado|puerta|port[óo]n|alarma|caja\s+fuerte|cadeado|porta|port[ãa]o|"
    r"cofre|lucchetto|cancello|allarme|cassaforte|brankas|gembok|pintu|pagar|loker|"
    r"门锁|密码锁|门禁|保险箱|保險箱|"
    r"オートロック|南京錠|金庫|玄関|도어락|자물쇠|금고|현관|"
    # a box for keys: "boîte à clés", "Schlüsselkasten", "キーボックス"
    r"bo[îi]t(?:e|ier)\s+à\s+clés?|caja\s+(?:de\s+)?llaves|schlüssel(?:kasten|safe|tresor)|"
    r"caixa\s+de\s+chaves|cassett[ae]\s+(?:porta)?chiavi|キーボックス|키\s?박스|"
    # a phone's or a screen's lock: "スマホのロック解除は 190827"
    r"unlock|déverrouill\w*|desbloque\w*|entsperr\w*|desbloqueio|sblocc\w*|"
    r"解锁|解鎖|锁屏|ロック|잠금"
)
LOCK_CODE_WORDS = (
    UNLOCKS_WITH + r"|\bcode|\bcombo|\bcombination|kombination|"
    r"\bpin\b|\bkeypad|\bclavier|\bteclado|\btastenfeld|\btastierino|\bcombinaison|\bcombinación|\bcombinação|\bcombinazione|\bcódigo|\bcodice|"
    r"\bkode|\bsandi|\bzahlen|番号|コード|密码|码|번호|비번|비밀번호|"
    # what an alarm's codes do, a lock's digits, a number used for it: "disarm 6021",
    # "a 3-digit lock", "i use 2580 for everything"
    r"\b(?:disarm|duress|désarm\w*|desarm\w*|desactiv\w*|unscharf\w*|disattiv\w*|disinser\w*)|"
    r"\d[- ]?(?:digits?|chiffres?|d[ií]gitos?|stellig\w*|cifre)\b|"
    r"\b(?:use[sd]?|using|utilise\w*|us[oaé]|benutze\w*|verwende\w*|(?:set|changed)(?:\s+it)?\s+to)"
    r"\s+(?=\d{3,8}\b)|"
    # keying it in: "press 9, 2, 6, 6 then enter", "tape 4417", "digita 1357"
    r"\b(?:press|punch\s+in|key\s+in|enter|type|tape[rz]?|compose[rz]?|teclea[r]?|marca[r]?|digita[r]?|"
    r"tippe[n]?|drücke[n]?|eingeben|premi|premere|inserisci)\b|押して|입력|按|输入"
)
# Between the numbers of a dial lock's combination: "3 turns right to 41, left past 41 to
# 17", "R 12 L 30 R 4", "droite 12 gauche 30".
DIAL_WORDS = (
    r"to|then|past|turns?|right|left|[LR]|à|puis|droite|gauche|tours?|a|luego|derecha|"
    r"izquierda|vueltas?|dann|rechts|links|bis|umdrehungen|poi|destra|sinistra|giri|"
    r"direita|esquerda|voltas|depois|右|左"
)
# Words that make what follows a phrase label a sentence about it, not the phrase:
# "passphrase: I never wrote it down".
_CLAUSE_WORDS = (
    "i i'm i've it it's we you never not don't didn't forgot forgotten "
    "je j'ai jamais ne pas yo nunca no ich nie nicht eu não io mai non"
)
CLAUSE_WORDS = frozenset(_CLAUSE_WORDS.split())
# Words that start a new clause or close one, after a value said in a sentence: "my
# password is sunshine and I never change it", "PIN is 4417 lol".
_CLAUSE_STARTERS = (
    "and but so or because then though lol haha ok okay please pls btw "
    "et mais donc ou car puis y pero o porque pues und aber oder denn weil dann "
    "e mas ou porque então ma o perché però poi "
    "dan tapi atau karena terus jadi ya dong deh sih nih"
)
CLAUSE_STARTERS = frozenset(_CLAUSE_STARTERS.split()) | CLAUSE_WORDS
# A number after these is a year, a count or a reference, not a code.
NOT_A_CODE_BEFORE = (
    r"(?:\b(?:(?<!punch\s)(?<!key\s)in|since|until|from|by|before|after|en|depuis|desde|seit|im|dal|nel|em|"
    r"error|status|order|ticket|invoice|case|issue|page|step|room|flight|version|about|"
    r"over|under|only|every|after|within|expires?\s+in|valid\s+for|took|than|que|als|"
    r"zip|postal|area|port|line|de|ending|ends\s+in|ending\s+in|last|the|of|this|next|bin|iin|"
    # "les années 2010", "the 1990s": a decade or a year
    r"years?|années|ans|años|anos|anni|jahre[n]?|decades?|décennies?|décadas?|jahrzehnte?|decenni)|[#№])"
)
# A number before these is an amount or a measure, not a code.
NOT_A_CODE_AFTER = (
    r"\s*(?:[%€$£¥₩]|(?:yen|euros?|eur|dollars?|usd|reais|pesos|pounds|won|yuan|minutes?|"
    r"mins?|seconds?|secs?|hours?|days?|weeks?|months?|years?|mm|cm|km|kg|m|g|times|people|"
    r"items|points|lines|lignes|l[ií]neas|zeilen|linhas|righe|"
    # counts: "600000 iterations", "128 bits", "1000 caractères", "300 Zeichen"
    r"iterations?|rounds?|bits?|bytes?|characters?|chars?|digits?|letters?|attempts?|tries|"
    r"users?|caract[eè]res?|chiffres?|tentatives?|d[ií]gitos?|letras?|intentos?|"
    r"zeichen|ziffern|stellen|versuche|tentativas?|caratteri|cifre|lettere|tentativi|karakter|"
    r"angka|huruf|kali|hari|menit|detik|jam|bulan|tahun|orang)\b|"
    r"文字|字符|位|桁|자리?|回|次|번)"
)
# "Passwort: hab ich vergessen": a sentence saying the credential is forgotten or unknown
# discloses no common word as its value.
FORGET_WORDS = (
    r"forgot|forgotten|forget|don'?t\s+(?:know|remember)|can'?t\s+remember|oublié|oubliée|"
    r"olvidé|olvidado|olvidada|olvido|esqueci|esquecida|esquecido|vergessen|vergesse|"
    r"dimenticato|dimenticata|dimentico|lupa|忘れ|忘了|忘记|잊어|까먹"
)

# A sentence with these says its key, card or code is an example, a test value or a
# public one: "the example key from the docs", "Stripe's test card", "my public SSH key".
EXAMPLE_WORDS = (
    r"examples?|e\.g\.|for\s+instance|samples?|placeholders?|dummy|tutorials?|docs|"
    r"documentation|readme|testing|sandbox|de\s+test|"
    r"test\s+(?:cards?|keys?|numbers?|mode|ibans?|accounts?|tokens?|visa|mastercard|amex)|"
    r"exemples?|par\s+exemple|fictif|fictive|factice|tutoriel|carte\s+de\s+test|"
    r"ejemplos?|por\s+ejemplo|fictici[oa]|(?:de|para)\s+pruebas?|documentación|"
    r"beispiel\w*|platzhalter|testkarte|testschlüssel|doku(?:mentation)?|"
    r"contoh|misalnya|uji\s+coba|exemplos?|por\s+exemplo|fictíci[oa]|de\s+teste|documentação|"
    r"esempi[oa]?|per\s+esempio|ad\s+esempio|fittizi[oa]|di\s+prova|segnaposto|documentazione|"
    r"例如|示例|例子|样例|占位符|例えば|サンプル|ダミー|テスト用|예시|예를\s?들어|샘플|더미|테스트용"
)
PUBLIC_WORDS = (
    r"public\s+(?:ssh\s+)?keys?|publishable(?:\s+keys?)?|clés?\s+publiques?|claves?\s+públicas?|"
    r"öffentliche[nr]?\s+schlüssel|chaves?\s+públicas?|chiavi?\s+pubblic[ah]e?|公钥|公開鍵|"
    r"공개\s?키|kunci\s+publik|(?:wallet|bitcoin|btc|ethereum|eth|crypto|deposit)\s+address|"
    r"adresse\s+(?:bitcoin|du\s+portefeuille)|dirección\s+(?:de\s+)?(?:la\s+)?(?:billetera|cartera|bitcoin)|"
    r"wallet-?adresse|endereço\s+(?:da\s+carteira|bitcoin)|indirizzo\s+(?:del\s+wallet|bitcoin)|"
    r"钱包地址|ウォレットアドレス|지갑\s?주소|"
    # a number said to be published: "it's on every invoice", "auf jeder Rechnung"
    r"on\s+(?:every|each|all)\s+(?:invoices?|receipts?)|"
    r"(?:on|according\s+to)\s+(?:our|their|the)\s+website|"
    r"sur\s+(?:chaque|toutes\s+les)\s+factures?|en\s+(?:cada|todas\s+las)\s+facturas?|"
    r"auf\s+(?:jeder|allen)\s+rechnung(?:en)?|em\s+(?:cada|todas\s+as)\s+(?:faturas?|notas)|"
    r"su\s+(?:ogni|tutte\s+le)\s+fattur[ae]|di\s+(?:setiap|semua)\s+(?:faktur|invoice)"
)
