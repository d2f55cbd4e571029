"""Index terms of a text: the tokenizer of the keyword index, used alike for memories and queries.

Words: text is NFKC-normalised, stripped of accents (café = cafe) and case-folded; words are runs
of letters and digits (``[^\\W_]+``); English stop words of scikit-learn less the content words
it holds (:data:`CONTENT_WORDS`: "name", "move", "call", ...), plus the auxiliary verb forms its
list lacks (:data:`AUXILIARY_FORMS`), are dropped (:data:`STOP_WORDS`); the past forms of irregular
verbs are the verb (:data:`IRREGULAR_FORMS`: "ran" is "run"), so are a few nouns of an act
(:data:`NOUN_FORMS`: "decision" is "decide"), and the rest get Snowball English
stems (PyStemmer). Runs of CJK ideographs, kana and hangul become overlapping character bigrams
(CJK has no spaces between words).

Technical tokens are kept whole and their parts are indexed too, so an exact match of the whole
token ranks above a memory that shares only a part, and a query by the parts still finds it:

======================  =======================================================================
text                    terms: whole (and sub-compounds) + parts
======================  =======================================================================
``12.5``                ``12.5`` + ``12`` ``5``
``v2.10.1``             ``v2.10.1`` ``2.10.1`` + ``v2`` ``v`` ``2`` ``10`` ``1``
``10.0.0.12``           ``10.0.0.12`` + ``10`` ``0`` ``0`` ``12``
``TP-218``              ``tp-218`` + ``tp`` ``218``
``5kg``, ``3pm``        ``5kg`` + ``5`` ``kg``; ``3pm`` + ``3`` ``pm``
``12.5%``               ``12.5%`` ``12.5`` ``percent`` + ``12`` ``5``
``$1,200``              ``$1200`` ``1200`` ``dollar`` + ``1`` ``200``
``getUserById``         ``getuserbyid`` + ``user`` ``id`` (``get``, ``by``: stop words)
``XMLHttpRequest``      ``xmlhttprequest`` + ``xml`` ``http`` ``request``
``user_id``             ``user_id`` + ``user`` ``id``
``dairy-free``          ``dairy-free`` + ``dairi`` ``free``
``C++``, ``.NET``       ``c++`` + ``c``; ``.net`` + ``net``
``#tag``, ``@ann``      ``#tag`` + ``tag``; ``@ann`` + ``ann``
``ann@example.com``     ``ann@example.com`` ``example.com`` + ``ann`` ``exampl`` ``com``
``src/app/main.py``     ``src/app/main.py`` ``main.py`` + ``src`` ``app`` ``main`` ``py``
``https://x.org/a-b``   its first 64 characters, ``x.org`` ``a-b`` + ``https`` ``x`` ``org`` ``b``
======================  =======================================================================

Rules:

- A compound is word runs joined by single connectors ``- . / \\ @ : _ + &`` (and a comma
  between digit groups, ``1,200``, dropped from the whole), with an optional sigil in front
  (``# @ $ € £ ¥ / .``, after a space, bracket or quote only) and an optional ``++``, ``+``, ``#`` or
  ``%`` at the end; a URL (``scheme://...`` or ``www....``) is one compound up to a space or
  bracket, its trailing punctuation cut. The compound is kept whole (case-folded, not stemmed,
  except a hyphenated word, whose last part is stemmed: ``meet-ups`` = ``meet-up``), and so is its
  core without the sigil and suffix when that core is itself a compound (``12.5%`` -> ``12.5``),
  a version without its ``v`` (``v2.10.1`` -> ``2.10.1``), and each piece between
  ``/ \\ @ : ? # = &`` that is itself a compound (``main.py`` of a path, ``example.com`` of an
  address). ``% $ € £ ¥`` also give the words ``percent dollar euro pound yen``.
- A word run is split into parts where the case changes (``getUser`` -> ``get User``,
  ``XMLHttp`` -> ``XML Http``, digits apart as well: ``iPhone15`` -> ``i Phone 15``), or,
  without a case change, at its single letter-digit boundary (``5kg``, ``COVID19``, ``2nd``). A
  run that alternates more than once (``QX7Z9M``) is an opaque code and stays one term.
- Parts follow the word rules (stop words dropped, stems); the whole run is a term as before, so
  every term the plain word rule gives is still there, in text order, each compound's whole
  first. A sentence end such as ``end.Then`` is not a compound: a dot followed by a capital and
  a lower-case letter joins nothing (``J.K.`` and ``node.js`` are joined).
- Length: BM25 normalises by the number of words (:func:`index_terms`), the terms of the word
  rule alone; a whole, its sub-compounds and the parts split from a run stand where their words
  stand and are not counted again (Lucene's ``BM25Similarity`` discounts such overlapping tokens,
  ``discountOverlaps``), so holding a code does not make a memory longer.

Every term is cut to 64 characters. No rule looks across white space, so the terms of each piece
of text between spaces are cached (pieces up to 40 characters, 2**14 of them, then the cache
starts afresh): tokenizing a conversation turn is mostly dictionary look-ups.

References
----------
Porter (2001), "Snowball: A language for stemming algorithms" (the English stemmer).
"""
from __future__ import annotations

import re
import unicodedata

import Stemmer

from .stopwords import ENGLISH_STOP_WORDS

__all__ = ["AUXILIARY_FORMS", "CLITICS", "CONTENT_WORDS", "IRREGULAR_FORMS", "NOUN_FORMS", "STOP_WORDS", "index_terms",
           "tokenize"]

#: Auxiliary verb forms missing from scikit-learn's list (it has "do", "done", "has", "have" but
#: not these), so the "does"/"did" of a question never decide a keyword match; the contraction
#: stems ("doesn't" -> "doesn" + "t") too.
AUXILIARY_FORMS = frozenset({"does", "did", "doing", "having", "doesn", "didn", "shall"})
#: What an apostrophe leaves behind: the possessive "s" ("cat's" -> "cat" + "s"), and the
#: clitics of "don't", "I'd", "I'm", "we'll", "I've" ("re" is in scikit-learn's list). As terms
#: they are rare, so "What's my cat's name?" matched any text with a possessive twice as
#: strongly as "cat".
CLITICS = frozenset({"s", "t", "d", "m", "ll", "ve"})
#: Content words in scikit-learn's list, kept as terms: nouns, main verbs, adjectives and numerals
#: ("name", "move", "call", "fire", "bill", "system", "find", "show", "top", "back", "two",
#: "last", ...). Its list came from an IR list meant for long documents, and these words name
#: what short questions ask about: "where did we move?" kept no term at all, so neither the
#: keyword leg nor (for a long memory, whose hashed n-gram cosine falls under
#: ``RecallConfig.cosine_floor``) the vector leg found "We moved to Porto in March", and a stored
#: "named" was indexed as "name" while the question's "name" was dropped. Chosen by word class,
#: not by score; on LoCoMo's tuning conversations (hashing embedder) R@5 / R@10 / R@20 of
#: engramdb went from 65.1 / 74.4 / 81.6 to 66.1 / 75.8 / 82.3. scikit-learn's user guide ("Using
#: stop words") itself warns of known issues with the list, after Nothman, Qin & Yurchak (2018),
#: "Stop Word Lists in Free Open-source Software Packages", NLP-OSS.
CONTENT_WORDS = frozenset((
    "bill call fire name system interest detail side top bottom front back part mill amount "
    "move find found show describe fill keep give take put see made cry "
    "empty full thick thin serious sincere first last next third "
    "two three four five six eight nine ten eleven twelve fifteen twenty forty fifty sixty hundred"
).split())
#: Past forms of irregular English verbs -> the verb ("ran" -> "run", "bought" -> "buy"), indexed
#: as the verb: a stemmer reaches "running" and "runs" from "run" but never "ran", so "how far did I
#: run?" found no word of "Ran 5 km this morning" and "what did I buy?" none of "I bought a bike".
#: A lemmatizer's table for the common verbs (WordNet's exception lists, ``verb.exc``, hold
#: these), less the forms that are as often another word, or whose verb is: "left" (the side),
#: "bit" ("a bit"), "saw" and "thought" (their plurals stay nouns), "broke" (no money), "fell",
#: "met" (the Met), "won" (the currency), "hung", "sung" (names), "rang", "tore" (a ring, a
#: tear), "stuck", "dealt", "meant", "spoke", "rose", "lay", "sat", "led", "fed", "shot", "drew",
#: "ground", "bound", "wound", "lit", "frozen". A form is a term even when its verb is a stop
#: word, as "going" is: "went" and "going" are "go", though "go" itself is dropped.
IRREGULAR_FORMS = {form: verb for verb, forms in (
    ("begin", "began begun"), ("break", "broken"), ("bring", "brought"), ("build", "built"),
    ("burn", "burnt"), ("buy", "bought"), ("catch", "caught"), ("choose", "chose chosen"), ("come", "came"),
    ("dig", "dug"), ("dream", "dreamt"), ("drink", "drank drunk"), ("drive", "drove driven"),
    ("eat", "ate eaten"), ("fall", "fallen"), ("feel", "felt"), ("fight", "fought"), ("find", "found"),
    ("flee", "fled"), ("fly", "flew flown"), ("forget", "forgot forgotten"), ("forgive", "forgave forgiven"),
    ("freeze", "froze"), ("get", "got gotten"), ("give", "gave given"), ("go", "went gone"), ("grow", "grew grown"),
    ("hear", "heard"), ("hide", "hid hidden"), ("hold", "held"), ("keep", "kept"),
    ("know", "knew known"), ("learn", "learnt"), ("lend", "lent"), ("lose", "lost"), ("make", "made"),
    ("pay", "paid"), ("ride", "rode ridden"), ("run", "ran"),
    ("say", "said"), ("see", "seen"), ("seek", "sought"), ("sell", "sold"), ("send", "sent"),
    ("shake", "shook shaken"), ("sing", "sang"), ("sink", "sank sunk"), ("sleep", "slept"), ("speak", "spoken"),
    ("spend", "spent"), ("spin", "spun"), ("stand", "stood"), ("steal", "stole stolen"),
    ("strike", "struck"), ("swim", "swam swum"), ("swing", "swung"), ("take", "took taken"), ("teach", "taught"),
    ("tell", "told"), ("throw", "threw thrown"),
    ("understand", "understood"), ("wake", "woke woken"), ("wear", "wore worn"), ("weep", "wept"),
    ("write", "wrote written"),
) for form in forms.split()}
#: Nouns of an act whose stem is not the verb's, read as the verb ("decision" is "decide": "What
#: decisions have we made?" found no "We decided to ...", helper-232; "death" is "die").
NOUN_FORMS = {form: verb for verb, forms in (
    ("decide", "decision decisions"), ("choose", "choice choices"), ("fail", "failure failures"),
    ("depart", "departure departures"), ("pay", "payment payments"), ("agree", "agreement agreements"),
    ("die", "death deaths"),
) for form in forms.split()}
#: The words the tokenizer drops: scikit-learn's list less :data:`CONTENT_WORDS`, plus
#: :data:`AUXILIARY_FORMS` and :data:`CLITICS`.
STOP_WORDS = (frozenset(ENGLISH_STOP_WORDS) - CONTENT_WORDS) | AUXILIARY_FORMS | CLITICS
_STOP = STOP_WORDS
_VERB = IRREGULAR_FORMS | NOUN_FORMS
_stemmer = Stemmer.Stemmer("english")
_MAX_TOKEN_CHARS = 64
_CACHE_SIZE = 1 << 14   # about 290 bytes an entry on LoCoMo: under 5 MB
_CACHE_KEY_CHARS = 40
_CACHE: dict[str, tuple[tuple[str, ...], int]] = {}   # piece -> (terms, length)

# CJK ideographs, hiragana, katakana and hangul syllables
_CJK_CLASS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_CJK = re.compile(f"[{_CJK_CLASS}]")
_CJK_SPLIT = re.compile(f"([{_CJK_CLASS}]+)")
_ACCENTS = re.compile("[\u0300-\u036f]")   # combining diacritical marks
_RUN = re.compile(r"[^\W_]+")
_RUN_FULL = re.compile(r"[^\W_]+\Z")

_URL = r"(?i:(?:[a-z][a-z0-9+.-]*://|www\.)[^\s<>\"'`()\[\]{}]*[^\s<>\"'`()\[\]{}.,;:!?*])"
# connectors; a dot before "Then" ends a sentence, and a comma joins digit groups only
_JOIN = r"(?:[-/\\@:_+&]|\.(?![A-Z][a-z])|(?<=\d),(?=\d{3}(?!\d)))"
_CHUNK_BODY = (
    r"(?:(?<![^\s(\[{<\"'])[#@$€£¥/.](?=[^\W_]))?"   # a sigil after a space or bracket
    + r"[^\W_]+(?:" + _JOIN + r"[^\W_]+)*"              # runs joined by connectors
    + r"(?:\+\+|[+#%](?![^\W_]))?")                     # C++, C#, 12.5%
_CHUNK = re.compile(_CHUNK_BODY)
_CHUNK_URL = re.compile(_URL + "|" + _CHUNK_BODY)
_SIGIL = "#@$€£¥/."
_SUFFIX = "+#%"
_SYMBOL_WORDS = {"%": "percent", "$": "dollar", "€": "euro", "£": "pound", "¥": "yen"}
_PIECES = re.compile(r"://|[/\\@:?#=&]")
_SUBJOIN = re.compile(r"[-._]")
_VERSION = re.compile(r"v\d+(?:\.\d+)+\Z")
_DIGIT_GROUPS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")


def tokenize(text: str) -> list[str]:
    """Index terms of ``text``: words (folded, stop words dropped, stemmed), CJK bigrams, and
    technical tokens kept whole beside their parts (the module docstring lists the rules).

    Parameters
    ----------
    text : str

    Returns
    -------
    list of str
        In text order, with repeats (term frequency counts them); a compound's whole comes
        before its parts. Terms longer than 64 characters are cut to 64.
    """
    return index_terms(text)[0]


def index_terms(text: str) -> tuple[list[str], int]:
    """:func:`tokenize`, and the length of ``text`` in words for BM25's length normalisation.

    The length counts the terms of the word rule alone (each run of letters and digits that
    is no stop word, each CJK bigram): a compound's whole, its sub-compounds and the parts
    split from a run stand at the same place as the words they come from and are not counted
    again, as Lucene's ``BM25Similarity`` discounts overlapping tokens (``discountOverlaps``).
    So a memory does not get longer, and score lower on its other words, for holding a code.

    Parameters
    ----------
    text : str

    Returns
    -------
    terms : list of str
        As :func:`tokenize`.
    length : int
        <= len(terms).
    """
    out: list[str] = []
    length = 0
    cache = _CACHE
    for word in text.split():   # no rule looks across white space: its pieces are cached
        entry = cache.get(word)
        if entry is None:
            entry = _piece_terms(word)
            if len(word) <= _CACHE_KEY_CHARS:
                if len(cache) >= _CACHE_SIZE:
                    cache.clear()
                cache[word] = entry
        out.extend(entry[0])
        length += entry[1]
    return out, length


def _piece_terms(piece: str) -> tuple[tuple[str, ...], int]:
    """Terms and length of a piece of text without white space: accents off, then each chunk."""
    if not piece.isascii():
        piece = unicodedata.normalize("NFC", _ACCENTS.sub("", unicodedata.normalize("NFKD", piece)))
    chunks = _CHUNK_URL if "://" in piece or "www." in piece.lower() else _CHUNK
    out: list[str] = []
    length = 0
    for chunk in chunks.findall(piece):
        length += _chunk_terms(chunk, out)
    return tuple(out), length


def _fold(s: str) -> str:
    """Case-folded, accents off (casefold can bring combining marks: İ -> i + dot above)."""
    if s.isascii():
        return s.lower()
    s = s.casefold()
    if not s.isascii():
        s = unicodedata.normalize("NFC", _ACCENTS.sub("", unicodedata.normalize("NFKD", s)))
    return s


def _word(run: str, out: list[str]) -> int:
    """The word rule for one run of letters and digits (original case): the run, then its parts,
    appended to ``out``; returns the number of words counted in the length."""
    if not run.isascii() and _CJK.search(run):   # no spaces between CJK words: bigrams
        # (a unigram when alone)
        n = 0
        for seg in _CJK_SPLIT.split(run):
            if not seg:
                continue
            if _CJK.match(seg):
                grams = [seg] if len(seg) == 1 else [seg[i:i + 2] for i in range(len(seg) - 1)]
                out.extend(grams)
                n += len(grams)
            else:
                n += _word(seg, out)
        return n
    w = _fold(run)
    if w in _STOP:
        n = 0
    else:
        out.append(_stemmer.stemWord(_VERB.get(w, w)[:_MAX_TOKEN_CHARS]))
        n = 1
    for p in _parts(run):
        p = _fold(p)
        if p not in _STOP:
            out.append(_stemmer.stemWord(_VERB.get(p, p)[:_MAX_TOKEN_CHARS]))
    return n


def _parts(run: str) -> list[str]:
    """Split a run at case changes (and then digits apart), else at its single letter-digit
    boundary; [] when there is nothing to split or the run is an opaque code."""
    if run.isdigit() or (run.isalpha() and (run.islower() or run.isupper() or run.istitle())):
        return []
    cuts, case_cut, digit_cuts = [], False, 0
    n = len(run)
    for i in range(1, n):
        a, b = run[i - 1], run[i]
        if a.isdigit() != b.isdigit():
            cuts.append(i)
            digit_cuts += 1
        elif b.isupper() and (a.islower() or (a.isupper() and i + 1 < n and run[i + 1].islower())):
            cuts.append(i)
            case_cut = True
    if not case_cut and digit_cuts != 1:
        return []
    bounds = [0, *cuts, n]
    return [run[bounds[j]:bounds[j + 1]] for j in range(len(bounds) - 1)]


def _chunk_terms(chunk: str, out: list[str]) -> int:
    """Terms of one chunk, a plain run or a compound (whole, sub-compounds, then its runs),
    appended to ``out``; returns the number of words counted in the length."""
    if _RUN_FULL.match(chunk):
        return _word(chunk, out)
    core, sigil, suffix = chunk, "", ""
    if core[0] in _SIGIL:
        sigil, core = core[0], core[1:]
    if core.endswith("++"):
        suffix, core = "++", core[:-2]
    elif core[-1] in _SUFFIX:
        suffix, core = core[-1], core[:-1]
    runs = _RUN.findall(core)
    if not _CJK.search(chunk):
        whole = _fold(_DIGIT_GROUPS.sub("", chunk))
        core_f = _fold(_DIGIT_GROUPS.sub("", core))
        if core_f.replace("-", "").isalpha() and "-" in core_f and not (sigil or suffix):
            head, _, last = core_f.rpartition("-")   # a hyphenated word inflects at its end
            whole = f"{head}-{_stemmer.stemWord(last)}"
        out.append(whole[:_MAX_TOKEN_CHARS])
        if (sigil or suffix) and len(runs) > 1:
            out.append(core_f[:_MAX_TOKEN_CHARS])
        if _VERSION.match(core_f):
            out.append(core_f[1:_MAX_TOKEN_CHARS + 1])
        if _PIECES.search(core_f):
            for piece in _PIECES.split(core_f):
                if _SUBJOIN.search(piece) and len(_RUN.findall(piece)) > 1:
                    out.append(piece[:_MAX_TOKEN_CHARS])
        for sym in (sigil, suffix):
            if sym in _SYMBOL_WORDS:
                out.append(_SYMBOL_WORDS[sym])
    return sum(_word(run, out) for run in runs)
