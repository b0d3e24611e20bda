"""Antecedent words and chain stopwords for each language we have lists for.

SpotSigs' antecedents are a language's articles and the forms of its auxiliaries (SIGIR'08
§3.1, §5.3.2: articles and *be, can, will, have, do*). English keeps exactly the lists of
:mod:`workbench.text.stopwords`, so English runs do not change. For the other languages the
antecedents below are written from each grammar:

* articles, definite and indefinite, with the fused preposition+article forms and the
  pieces the tokenizer leaves of elided ones (French ``l'`` -> ``l``, Italian ``dell'`` ->
  ``dell``; the tokenizer is ``\\w+``, so accents stay inside words and apostrophes split);
* the verbs for *be*, *have* and *can*, and the future auxiliary where the language has one
  (German *werden*, Dutch *zullen*, the *aller*/*ir* + infinitive futures of French,
  Spanish and Portuguese): present and past indicative, the future and conditional
  (the counterparts of English *will*/*would*, *could*), infinitive and participles.
  Subjunctives are left out (English has none in the list either), except the German
  Konjunktiv forms that news prose uses for every reported statement (*sei*, *hätte*...).
  No language here has an auxiliary *do*.

Chain stopwords come from the ``stop-words`` package (the maintained Python packaging of
widely used per-language lists, close to Snowball's), less the few content words those
lists carry (a stopword is skipped inside chains, so a noun listed there could never be
part of a signature), plus the language's antecedents: an antecedent met inside a chain is
skipped like any stopword, exactly as every English antecedent is an English stopword.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from stop_words import get_stop_words

from workbench.text.stopwords import DEFAULT_ANTECEDENTS, ENGLISH_STOPWORDS
from workbench.text.tokenize import words_of

ENGLISH = "en"


def _words(text: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(text.split()))


_ANTECEDENTS: dict[str, tuple[str, ...]] = {
    ENGLISH: DEFAULT_ANTECEDENTS,
    "de": _words(
        # articles, and the fused forms (an dem -> am, in das -> ins, zu der -> zur ...)
        "der die das den dem des ein eine einen einem einer eines "
        "am ans im ins zum zur vom beim "
        # sein
        "bin bist ist sind seid war warst waren wart sein gewesen sei seien wäre wärst wären wärt "
        # haben
        "habe hast hat haben habt hatte hattest hatten hattet gehabt hätte hättest hätten hättet "
        # können
        "kann kannst können könnt konnte konntest konnten konntet könnte könntest könnten könntet "
        "könne gekonnt "
        # werden: the future (and passive) auxiliary
        "werde wirst wird werden werdet wurde wurdest wurden wurdet würde würdest würden würdet "
        "geworden worden"
    ),
    "fr": _words(
        # articles: le/la elided to l', de + le -> du, à + le -> au, à + les -> aux
        "le la les l un une des du au aux "
        # être
        "suis es est sommes êtes sont étais était étions étiez étaient fus fut fûmes fûtes furent "
        "serai seras sera serons serez seront serais serait serions seriez seraient être été étant "
        # avoir
        "ai as a avons avez ont avais avait avions aviez avaient eus eut eûmes eûtes eurent "
        "aurai auras aura aurons aurez auront aurais aurait aurions auriez auraient avoir eu ayant "
        # pouvoir
        "peux peut pouvons pouvez peuvent pouvais pouvait pouvions pouviez pouvaient "
        "pus put pûmes pûtes purent pourrai pourras pourra pourrons pourrez pourront "
        "pourrais pourrait pourrions pourriez pourraient pouvoir pu pouvant "
        # aller + infinitive: the near future
        "vais vas va allons allez vont"
    ),
    "es": _words(
        # articles (lo: the neuter article), a + el -> al, de + el -> del
        "el la los las lo un una unos unas al del "
        # ser
        "soy eres es somos sois son era eras éramos erais eran fui fuiste fue fuimos fuisteis fueron "
        "seré serás será seremos seréis serán sería serías seríamos seríais serían ser sido siendo "
        # estar
        "estoy estás está estamos estáis están estaba estabas estábamos estabais estaban "
        "estuve estuviste estuvo estuvimos estuvisteis estuvieron "
        "estaré estarás estará estaremos estaréis estarán "
        "estaría estarías estaríamos estaríais estarían estar estado estando "
        # haber (the perfect auxiliary, and existential hay)
        "he has ha hemos habéis han hay había habías habíamos habíais habían "
        "hube hubiste hubo hubimos hubisteis hubieron habré habrás habrá habremos habréis habrán "
        "habría habrías habríamos habríais habrían haber habido habiendo "
        # tener (have: possession and obligation)
        "tengo tienes tiene tenemos tenéis tienen tenía tenías teníamos teníais tenían "
        "tuve tuviste tuvo tuvimos tuvisteis tuvieron tendré tendrás tendrá tendremos tendréis "
        "tendrán tendría tendrías tendríamos tendríais tendrían tener tenido teniendo "
        # poder
        "puedo puedes puede podemos podéis pueden podía podías podíamos podíais podían "
        "pude pudiste pudo pudimos pudisteis pudieron podré podrás podrá podremos podréis podrán "
        "podría podrías podríamos podríais podrían poder podido pudiendo "
        # ir a + infinitive: the near future
        "voy vas va vamos vais van iba ibas íbamos ibais iban"
    ),
    "it": _words(
        # articles, un' -> un, and the articulated prepositions (di/a/da/in/su + article)
        "il lo la i gli le l un uno una "
        "del dello della dei degli delle dell al allo alla ai agli alle all "
        "dal dallo dalla dai dagli dalle dall nel nello nella nei negli nelle nell "
        "sul sullo sulla sui sugli sulle sull col coi "
        # essere
        "sono sei è siamo siete ero eri era eravamo eravate erano fui fosti fu fummo foste furono "
        "sarò sarai sarà saremo sarete saranno sarei saresti sarebbe saremmo sareste sarebbero "
        "essere stato stata stati state essendo "
        # avere
        "ho hai ha abbiamo avete hanno avevo avevi aveva avevamo avevate avevano "
        "ebbi avesti ebbe avemmo aveste ebbero avrò avrai avrà avremo avrete avranno "
        "avrei avresti avrebbe avremmo avreste avrebbero avere avuto avendo "
        # potere
        "posso puoi può possiamo potete possono potevo potevi poteva potevamo potevate potevano "
        "potei potesti poté potemmo poteste poterono potrò potrai potrà potremo potrete potranno "
        "potrei potresti potrebbe potremmo potreste potrebbero potere potuto potendo"
    ),
    "nl": _words(
        # articles
        "de het een "
        # zijn
        "ben bent is zijn was waren geweest "
        # hebben
        "heb hebt heeft hebben had hadden gehad "
        # kunnen
        "kan kunt kun kunnen kon konden gekund "
        # zullen: the future auxiliary
        "zal zult zullen zou zouden"
    ),
    "pt": _words(
        # articles, and a/de/em/por + article (ao, à, do, da, no, na, pelo, pela, num ...)
        "o a os as um uma uns umas ao aos à às do da dos das no na nos nas "
        "pelo pela pelos pelas num numa nuns numas dum duma duns dumas "
        # ser
        "sou és é somos sois são era eras éramos éreis eram fui foste foi fomos fostes foram "
        "serei serás será seremos sereis serão seria serias seríamos seríeis seriam ser sido sendo "
        # estar
        "estou estás está estamos estais estão estava estavas estávamos estáveis estavam "
        "estive estiveste esteve estivemos estivestes estiveram "
        "estarei estarás estará estaremos estareis estarão "
        "estaria estarias estaríamos estaríeis estariam estar estado estando "
        # ter (have, also the perfect auxiliary) and haver
        "tenho tens tem temos tendes têm tinha tinhas tínhamos tínheis tinham "
        "tive tiveste teve tivemos tivestes tiveram terei terás terá teremos tereis terão "
        "teria terias teríamos teríeis teriam ter tido tendo "
        "hei hás há havemos haveis hão havia havias havíamos havíeis haviam houve houveram "
        "haverá haverão haveria haveriam haver havido havendo "
        # poder
        "posso podes pode podemos podeis podem podia podias podíamos podíeis podiam "
        "pude pudeste pôde pudemos pudestes puderam poderei poderás poderá poderemos podereis "
        "poderão poderia poderias poderíamos poderíeis poderiam poder podido podendo "
        # ir + infinitive: the usual future
        "vou vais vai vamos ides vão ia ias íamos íeis iam"
    ),
}

# Content words the package lists carry (nouns, adjectives, content verbs): a listed word is
# skipped inside chains, so it could never be part of a signature.
_NOT_STOPWORDS: dict[str, frozenset[str]] = {
    "fr": frozenset(
        "chose choses droite début essai état force mot nom nommé nommée nommés parole personnes "
        "pièce sujet valeur".split()
    ),
    "es": frozenset(
        "cosas ejemplo empleo emplear emplean empleas empleais ampleamos fuerza intento lado lugar "
        "manera momento sentido sentidos sentida sentidas sentir tiempo trabajo trabaja trabajan "
        "trabajar trabajas trabajamos trabajais uso valor verdad verdadera verdadero".split()
    ),
    "it": frozenset("comprare consecutivi consecutivo gente lavoro nome persone promesso".split()),
    "pt": frozenset(
        "caminho cara comprido conhecido corrente desligado direita horas inicio ligado maioria "
        "maiorias nome povo quieto tempo tipo trabalhar trabalho valor verdade verdadeiro".split()
    ),
}

# Our ISO 639-1 codes (those of the language detector) to the package's language names.
_PACKAGE_NAMES = {"de": "german", "fr": "french", "es": "spanish", "it": "italian", "nl": "dutch",
                  "pt": "portuguese"}

LANGUAGES: tuple[str, ...] = tuple(_ANTECEDENTS)


@dataclass(frozen=True, slots=True)
class Language:
    code: str
    antecedents: tuple[str, ...]
    stopwords: frozenset[str]


@cache
def language(code: str | None) -> Language | None:
    """The antecedents and stopwords of a language, or None when we have no lists for it."""
    if code not in _ANTECEDENTS:
        return None
    antecedents = _ANTECEDENTS[code]
    if code == ENGLISH:
        return Language(code, antecedents, ENGLISH_STOPWORDS)
    listed: set[str] = set()
    for entry in get_stop_words(_PACKAGE_NAMES[code]):
        # Entries such as "l'" or "par-devant" become the tokens our tokenizer makes of them.
        listed.update(words_of(entry))
    stopwords = (listed - _NOT_STOPWORDS.get(code, frozenset())) | set(antecedents)
    return Language(code, antecedents, frozenset(stopwords))
