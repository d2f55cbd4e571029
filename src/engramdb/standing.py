"""The speaker's standing relations, read from one statement: where they live (``"home"``: "I
live in Boston", "I'm based in Berlin", "I moved to Seattle"), whom they work for
(``"employer"``: "I work at Google", "I started a new job at Stripe") and their own name
(``"name"``: "Hi, I'm Dana.", "My name is Priya Rao", "Please call me Dee", "I go by Sam",
"I changed my name to Robin Hale"; a person's name of at most four capitalised words, no
nationality, faith or common word, "I'm Canadian", "I'm OK!", no possessive, "I'm Dana's mom",
and after "I'm" nothing but its end, punctuation or "and", "from", "here" ...: not "I'm Apple
certified").

Rule-based, no model, like :mod:`engramdb.changes`, which asks this module for a change report
of either relation: "I moved to Seattle last month." changes "I live in Boston." in other
words than the statement's own (which :func:`engramdb.facts.fact_change` reads only when the
two are worded alike, "I live in Boston." / "I live in Seattle."), and the write path links the
two ``contradicts`` (never supersedes: recall puts the later first and warns).

A standing relation is read from a clause whose subject is the speaker ("I", "we", "my wife
and I", "after six years in Ohio I finally", with "just", "recently", "have" and the like
between; or no subject where the sentence's is the speaker or it opens with the verb: "I left
Initech and now work at Hooli", "Just moved to Lisbon") and whose value is a name: its words
capitalised, in any script ("Seattle", "the Bay Area", "Portland, Oregon", "St. Louis", "Bank of
the West", "Łódź"; a text is read in NFC), never a lower-case word ("i live in denial") nor a
team, plan or piece of software ("I moved to Linux"). A statement: live / living / reside /
based / settled in, based out of, a resident of, "my home (house, apartment) is in", rent or
renting (a(n) apartment, flat, house, room, studio, ...) in ("I rent an apartment in Oakland"); work /
working at or for, employed at or by, "my employer (company) is", "I'm a <role> at" (an
occupation: not a regular, member, customer, fan, sucker, nor a former one). Or a report that
it changed: moved or relocated to (optionally "back", "again (, this time)", "from <old name>",
"then (back) to <name>"), moved into (or to) the (a, our, my) new place (home, flat...) in, signed a
lease on a place (home, 2BR, ...) in; started a new job at, took a job or position with, accepted a (job)
offer from (not one on a house or for a card), was hired at, joined <name> as <an occupation>,
"(my) new job at". Of each relation the one said last counts ("I moved to Seattle last year but
now I live in Portland"). Not read: a clause negated, planned, wished or conditional (a word of
:data:`engramdb.facts.NOT_DONE` before the verb: "I might move to Seattle", "I don't live in
Boston anymore", "when I moved to Boston"), an infinitive ("I'd love to live in Paris"), a
question (also "Do I live in Boston."), someone's words (in quotation marks, "My mom thinks I
live in Paris"), a story, game or exercise ("Imagine I moved to Paris", "Translate to Spanish:
I live in Madrid"), a text taken back ("Just kidding!"), a stay ("for the summer", "for six
months"), a change told as history (in a named year, "when I was a kid", "growing up"), a value
added to another ("I also work at a bakery on weekends"), another person's ("My sister moved to
Seattle", "My husband's new job at Stripe").

Examples
--------
>>> standing("I moved to Seattle last month.")
Standing(relation='home', value=('seattle',), was=None)
>>> standing("user: I started a new job at Stripe.")
Standing(relation='employer', value=('stripe',), was=None)
>>> standing("My sister moved to Seattle.") is None
True
"""
from __future__ import annotations

import bisect
import re
import unicodedata
from functools import lru_cache
from typing import NamedTuple

from .facts import FUNCTION_WORDS, SPEAKER_LABEL, _adds_value, not_done, speaker_label, tokens
from .index.tokens import tokenize
from .sentences import several_claims, split_sentences
from .speakers import PERSON_NOUNS
from .thirdperson import in_first_person
from .timeref import CALENDAR_WORDS

__all__ = ["MAY_STATE_BITS", "STANDING_BITS", "STANDING_WORDS", "Standing", "asked_standing", "asks_only_standing", "changes_standing",
           "changed_standing",
           "asks_for_place", "may_name", "may_state", "RELAYED", "names_no_place", "refines_standing", "standing", "standing_bits",
           "standings"]


class Standing(NamedTuple):
    """A standing relation of the speaker: ``relation`` ("home" or "employer"), ``value`` (the
    name's words, lower-cased, without "the" and a possessive "'s") and ``was`` (the old value a
    "moved from <name> to <name>" report names, else None)."""

    relation: str
    value: tuple[str, ...]
    was: tuple[str, ...] | None = None


_S = r"[^\S\n]+"
#: A name: up to six words, read generously here and cut by :func:`_name` to its capitalised
#: run ("Boston with my wife" -> Boston; "Bank of America", "Portland, Oregon", "St. Louis",
#: "Łódź"); "the" before it dropped; "I" after it is none of it ("at Stripe, I start on June 1").
_CAP = r"(?-i:[^\W\d_a-z])[\w'’.&-]*"   # a word that opens with a letter other than a-z (A-Z, Ł, Ö, ...)
def _capitalised_run(joiners: str, comma: bool) -> str:
    """A name's regex: up to six capitalised words, ``joiners`` between them, a comma too where
    ``comma`` ("Portland, Oregon"; a person's name ends at one: "I'm Dana, nice to meet you")."""
    sep = ",?" if comma else ""
    return (rf"(?:the{_S})?({_CAP}(?:{sep}{_S}(?!I(?!\w))(?:{_CAP}|(?:{joiners})"
            rf"(?=(?:{_S}(?:the|la|de))?{_S}{_CAP}))){{0,5}})")


_NAME = _capitalised_run("of|the|de|la|del|da|von|van|&", comma=True)
#: Words that may join the capitalised words of one name ("Bank of America", "Procter & Gamble").
_JOINERS = frozenset("of the de la del da do dos das du von van & upon am bin ibn al el le di ter ten".split())
#: Abbreviations a name may hold, whose full stop it keeps ("St. Louis", "Washington, D.C.").
_ABBREVIATIONS = frozenset("st mt ft dr mr mrs ms jr sr inc co corp ltd d.c u.s u.k n.y l.a".split())
#: Last words of a name that say it is no home or employer ("the Platform Team", "the Pro plan"),
#: a place inside a building one moves to ("I moved to Apartment 4B", "... to Suite 300"), and
#: names of software one moves to ("I moved to Linux").
_NOT_NAMES = frozenset("team teams group department dept division squad channel plan tier version server branch "
                       "account app room apartment apt unit suite floor desk shift "
                       "linux windows mac macos android ios ubuntu debian fedora python rust java "
                       "javascript typescript kubernetes aws azure gcp vim emacs vscode excel chrome firefox".split())
#: Departments, a name of one word of which is no home or employer ("I moved to Marketing"; "I work
#: at Microsoft Research" is one).
_DEPARTMENTS = frozenset("marketing sales engineering finance accounting legal operations ops support hr design "
                         "research product products it security compliance procurement".split())
#: Who the speaker is at a place of work ("I'm a nurse at Mass General", "joined Hooli as an
#: engineer"): the last word looks like an occupation (these endings, or a word of
#: :data:`_ROLE_WORDS`), and no word says a place one goes to or a past role (:data:`_NOT_ROLES`).
_ROLE_ENDINGS = ("er", "or", "ist", "ian", "ant", "ent", "eer", "man", "woman", "person")
_ROLE_WORDS = frozenset("nurse chef cook pilot clerk intern vp svp evp ceo cto cfo coo cmo pm sre swe dev staff partner "
                        "associate lead head barista attorney medic paramedic tutor coach teacher aide analyst "
                        "scientist professor resident fellow rn lpn lvn cna crna emt np md gp pa pt ot slp cpa qa "
                        "sde tpm surgeon midwife vet cop mechanic architect paralegal secretary actuary".split())
_NOT_ROLES = frozenset("regular member members customer client guest patient visitor student fan subscriber user "
                       "volunteer sucker believer lover follower shopper reader viewer listener player gamer winner "
                       "loser former ex retired previous past old future aspiring wannabe bit little big huge "
                       "total favor favour beginner novice newbie rookie".split())
#: Each relation's patterns, each with the words (lower case) of which the text must hold one
#: before it is read, and whether it reports a change (a move, a new job: told with a year or
#: "when I was a kid", it is history).
#: Who the speaker works with ("our compliance people here at Brightwell", "my team here at
#: Acme"): the speaker's colleagues at a place name it the speaker's employer.
_COLLEAGUES = ("people|folks|team|teams|colleagues|coworkers|co-workers|engineers|developers|devs|staff|office|"
               "department|managers?|boss|leads?|leadership|cto|ceo|hr|it|ops|legal|security|compliance|finance")
#: Roles of a place that employs nobody in them: a student's, a member's, a volunteer's ("I'm
#: starting as a freshman at Stanford", "as a volunteer at the shelter").
_NOT_A_JOB = (r"(?:student|freshman|freshmen|sophomore|undergrad|undergraduate|grad\s+student|postgrad|"
              r"phd\s+student|pupil|member|volunteer|patient|client|customer|guest|trainee\s+driver)")
#: What may follow the place a home is rented in: the clause's end, or words that say no purpose
#: or occasion ("with my partner", "now", "for three years"; not "for the conference", "to
#: tourists", "on Airbnb").
_RENT_END = (rf"(?=[^\S\n]*(?:[.!?;,)]|$)|{_S}(?:with|now|since|near|these|and|but|because|so|still|right|at|"
             rf"for{_S}(?:now|the{_S}past|a{_S}while|(?:\d+|a{_S}few|a{_S}couple{_S}of|two|three|four|five|six|"
             rf"seven|eight|nine|ten|several|many){_S}years?))\b)")
#: Words after the place rented, in its sentence, that make it no home of the speaker's: a purpose,
#: a place let out, a while, another home, someone's words ("..., for my office", "... and Airbnb
#: it out", "... now and then for gigs", "my primary home is still Boston", "..., my sister says").
_RENTED_AFTER = re.compile(
    r"\b(?:for(?!\s+(?:now|the\s+past|a\s+while|\d+|a\s+few|a\s+couple|two|three|four|five|six|seven|eight|nine|"
    r"ten|several|many)\b)|airbnb|sublet\w*|out|office|studio|practice|gigs?|now\s+and\s+then|primary|main|"
    r"storage|says|said|told)\b", re.I)
#: Words before "rent" that make the place rented a stay, not a home.
_RENTED_FOR = frozenset("every each anniversary honeymoon vacation holiday holidays trip weekend conference wedding "
                        "getaway season summer winter".split())
#: What a home is called after "a lease on" ("a 2BR", "a one-bedroom", "a cute little house").
_HOME_NOUN = (r"(?:place|home|house|apartment|apt|flat|condo|studio|townhouse|townhome|loft|duplex|bungalow|"
              r"cottage|rowhouse|[1-5]\s?br|[1-5]-?bed(?:room)?|(?:one|two|three|four)-bed(?:room)?)")
#: A street address before its town: a house number (or "Flat 2", "Apt 4B"), a few words, a comma.
_STREET = (r"(?:(?:flat|apt\.?|apartment|unit|suite)\s+\w+,?\s+)?\d+[a-z]?(?:\s+[^\W\d_][\w'’.-]*){1,6}?,\s+")
_VERBS = {
    "home": (
        (("live in", "living in", "reside in", "residing in", "based in", "based out", "settled in"), False,
         rf"\b(?:(?:live|living|reside|residing)(?:{_S}in)|based{_S}out{_S}of|based{_S}in|settled{_S}in){_S}NAME"),
        (("moved ", "relocated "), True,
         rf"\b(?:moved|relocated)(?:{_S}(?:back|over|out|away|down|up))?"
         rf"(?:,?{_S}(?:again|once{_S}(?:more|again)|yet{_S}again)(?:(?:,|{_S}[-–—]){_S}this{_S}time|,)?)?"
         rf"(?:{_S}from{_S}NAME)?{_S}to{_S}NAME"
         rf"(?:,?{_S}(?:and{_S})?then{_S}(?:back{_S})?to{_S}NAME)?"),
        (("resident",), False, rf"\b(?:i'm|i’m|i{_S}am|we're|we{_S}are){_S}(?:a{_S})?residents?{_S}of{_S}NAME"),
        (("home is", "house is", "apartment is", "flat is", "place is"), False,
         rf"\bmy{_S}(?:home|house|apartment|flat|place){_S}is{_S}in{_S}NAME"),
        (("new place", "new home", "new house", "new apartment", "new flat", "new condo"), True,
         rf"\b(?:my|our){_S}new{_S}(?:place|home|house|apartment|flat|condo){_S}in{_S}NAME"),
        (("rent ", "renting "), False,   # "I rent an apartment in Oakland": where the speaker lives
         # (not "rent our house in Asheville" out, nor one rented for something or some time: "a
         # room in Paris for the conference", "a studio in Brooklyn for my pottery", "... on Airbnb")
         # ("I rent in Somerville", "Still renting a cheap place in Austin": helper-229)
         rf"\b(?:rent|renting){_S}(?:(?:an?|the){_S}(?:(?:new|small|tiny|little|nice|cheap|shared|basement|"
         rf"one-bedroom|two-bedroom|1-bedroom|2-bedroom|studio){_S})?(?:place|home|house|apartment|flat|condo|"
         rf"studio|room|loft|townhouse){_S})?in{_S}NAME{_RENT_END}"),
        (("live at", "living at", "address is"), False,   # a street address, then its town: "I live at 14 Rue
         # des Lilas, Lyon.", "My address is 12 Oak Street, Springfield." (helper-239; not "I live at
         # the beach", nor an address without its town)
         rf"\b(?:(?:live|living){_S}at|(?:my|our){_S}(?:home{_S}|current{_S})?address{_S}is)"
         rf"{_S}{_STREET}NAME"),
        (("new address",), True,   # "My new address is 3 Avenue Foch, Paris."
         rf"\b(?:my|our){_S}new{_S}(?:home{_S})?address{_S}is{_S}{_STREET}NAME"),
        (("signed a lease", "signed the lease", "signed our lease", "signed my lease", "signed a new lease"), True,
         # "I signed a lease on a 2BR in St. Paul, moving June 1!" (helper-250): a new home, not
         # an office, shop or garage leased ("a lease for an office in Denver")
         rf"\bsigned{_S}(?:a|the|our|my){_S}(?:new{_S})?lease{_S}(?:on|for){_S}(?:(?:a|an|the|our|my){_S})?"
         rf"(?:[\w-]+{_S}){{0,2}}?{_HOME_NOUN}{_S}in{_S}NAME"),
        (("moved into", "moved in to", "moved to a", "moved to the", "moved to our", "moved to my"), True,
         # "We moved into the new place in Chorlton", "We moved to a new apartment in Jamaica Plain"
         # (helper-244): the speaker's move
         rf"\bmoved{_S}(?:in(?:to|{_S}to)|to){_S}(?:the|a|our|my){_S}(?:new{_S})?"
         rf"(?:place|home|house|apartment|flat|condo){_S}in{_S}NAME"),
    ),
    "employer": (
        (("work at", "work for", "working at", "working for", "employed at", "employed by"), False,
         rf"\b(?:work|working|employed){_S}(?:at|for|by){_S}NAME"),
        (("work as", "working as", "shifts as", "shift as", "nights as", "days as", "weekends as", "time as"), False,
         # ("I work night shifts as an ER nurse at Denver Health", "I work part-time as a barista at ...":
         # helper-224, the shifts hid the employer and its change)
         rf"\b(?:work|working)(?:{_S}(?:(?:night|day|evening|late|early|weekend|overnight|double){_S})?"
         rf"(?:shifts?|nights|days|weekends)|{_S}(?:part|full)(?:-|{_S})time)?"
         rf"{_S}as{_S}(?:an?{_S})?(?P<role>[\w-]+(?:{_S}[\w-]+){{0,2}}?){_S}(?:at|for|with){_S}NAME"),
        (("job at", "job with", "job for", "position at", "position with", "role at", "role with", "offer from",
          "hired", "job as", "position as", "role as", "working as", "started working", "start working",
          "began working"), True,
         rf"\b(?:(?:started|start|began){_S}(?:a{_S}|my{_S})?(?:new{_S})?(?:job|position|role|working(?!{_S}(?:with|by|from)\b))"
         rf"|(?:got|took|accepted|landed){_S}(?:a|an|the){_S}(?:new{_S})?(?:job|position|role|job{_S}offer)"
         rf"|accepted{_S}(?:an|the){_S}offer|(?:(?:was|got|been){_S})?hired)"
         rf"(?:{_S}as{_S}(?:an?{_S})?(?P<role>[\w-]+(?:{_S}[\w-]+){{0,2}}?))?"   # "... a new job as a senior analyst at"
         rf"{_S}(?:at|with|for|by|from){_S}NAME"),
        (("joined",), True, rf"\bjoined{_S}NAME{_S}as{_S}(?:an?{_S})?(?P<role>[\w-]+(?:{_S}[\w-]+){{0,2}})"),
        (("started at", "starting at", "start at"), True,   # "I started at Globex as a data engineer", "I'm
         # starting at Skyscanner as a senior analyst in May" (not "started at 9am"; without a role,
         # "starting at Stanford / Planet Fitness / Christmas" names no employer: helper-204)
         # (a day between: "I start at Fabrikam on March 10 as a senior analyst", helper-230)
         rf"\b(?:started|starting|start){_S}at{_S}NAME(?:,?{_S}(?:on|in|from|next|this)(?:{_S}[\w]+){{1,2}}?,?)?"
         rf"{_S}as{_S}(?!(?:an?{_S})?{_NOT_A_JOB}\b)(?:an?{_S})?"
         rf"(?P<role>[\w-]+(?:{_S}[\w-]+){{0,2}}?)"
         rf"(?={_S}(?:in|on|at|from|next|this|last|starting|today|tomorrow|yesterday|soon)\b|[^\w\s-]|\s*$)"),
        (("started as", "starting as", "start as"), True,   # "I'm starting as a clinical research
         # coordinator at Abbott in April" (helper-203; not "as a freshman at Stanford": helper-204)
         rf"\b(?:started|starting|start){_S}as{_S}(?!(?:an?{_S})?{_NOT_A_JOB}\b)(?:an?{_S})?(?P<role>[\w-]+(?:{_S}[\w-]+){{0,3}}?)"
         rf"{_S}(?:at|with|for){_S}NAME"),
        (("new job",), True, rf"\bnew{_S}job{_S}(?:at|with){_S}NAME"),
        (("employer is", "company is"), False, rf"\bmy{_S}(?:employer|company){_S}is{_S}NAME"),
        (("i'm a", "i’m a", "i am a", "i'm now a", "i'm currently a", "i'm still a"), False,
         rf"\b(?:i'm|i’m|i{_S}am)(?:{_S}(?:now|currently|still))?{_S}(?:an?){_S}(?P<role>[\w-]+(?:{_S}[\w-]+){{0,2}}?)"
         rf"{_S}(?:at|for|with){_S}NAME"),
        (("here at",), False,
         rf"\b(?:(?:our|my){_S}(?:[\w-]+{_S}){{0,2}}(?:{_COLLEAGUES})|we(?:{_S}all)?)"
         rf"{_S}(?:\w+{_S})?here{_S}at{_S}NAME"),
    ),
    "name": (
        (("my name", "my first name", "my full name", "my real name", "my legal name"), False,
         rf"\bmy{_S}(?:(?:first|full|real|given|legal){_S})?name(?:{_S}is|['’]s)(?:{_S}now)?{_S}PERSON"),
        (("i'm ", "i’m ", "i am "), False, rf"\b(?:i'm|i’m|i{_S}am){_S}PERSON"),
        (("call me",), False, rf"\bcall{_S}me{_S}PERSON"),
        (("go by", "going by"), False, rf"\bi(?:['’]m{_S}going|{_S}now{_S}go|{_S}go){_S}by{_S}PERSON"),
        (("changed my", "my new name"), True,
         rf"\b(?:(?:legally{_S})?changed{_S}my{_S}(?:(?:first|last|middle|legal){_S})?name{_S}to"
         rf"|my{_S}new{_S}name{_S}is){_S}PERSON"),
    ),
}
#: Patterns whose words say whose it is ("my home is in", "I'm a nurse at", "my new job at"; and
#: every pattern of the speaker's name, "call me Dee"): no subject is asked of their clause.
_OWNED = re.compile(r"^(?:my|our|i'm|i’m|i\s+am|we're|we\s+are|new)\b", re.I)
#: Of those, the ones that need "my" before them, or nothing ("New job at Dropbox!", not "My
#: wife's new job at Stripe").
_MINE_BEFORE = re.compile(r"^new\b", re.I)
#: A person's name: as a place's, with a person's particles ("dos", "bin"), no comma inside.
_PERSON = _capitalised_run("of|the|de|la|del|da|do|dos|das|du|von|van|bin|ibn|al|el|le|di|ter|ten", comma=False)
_PATTERNS = [(relation, cues, change, re.compile(p.replace("NAME", _NAME).replace("PERSON", _PERSON), re.I))
             for relation, ps in _VERBS.items() for cues, change, p in ps]
#: The patterns of a name said after a phrase as common as "I'm" ("I'm Dana", "call me Dee", "I go
#: by Sam") are read only where :data:`_NAME_GATE` finds a capital after one (its cue alone,
#: "i'm ", sent most chat messages through the sentence splitter).
_CAPITAL_CUES = frozenset({"i'm ", "i’m ", "i am ", "call me", "go by", "going by"})
_PATTERNS_UNNAMED = [p for p in _PATTERNS if _CAPITAL_CUES.isdisjoint(p[1])]
#: The first test of every text, on the set of its words (one regex of the patterns' words took
#: 11 us a text, a substring test of each 6 us): a word of some pattern, or for "I'm a <role>
#: at", a word of each of the two sets.
_GATE = frozenset("live living reside residing resident residents based settled moved relocated address work working "
                  "employed job position role offer hired joined started starting start home house apartment flat condo place employer "
                  "company here name name's rent renting lease".split())
_ROLE_GATE = (frozenset("i'm i’m am".split()), frozenset("at for with".split()))
#: The speaker's own name ("Hi, I'm Dana.", "Call me Dee", "I go by Sam"): what passes the gate
#: besides its words (a capital after the phrase, in the text as written).
_NAME_GATE = re.compile(r"(?:\b[Ii](?:['’]m|\s+am)|\b[Cc]all\s+me|\bgo(?:ing)?\s+by)\s+(?-i:[^\W\d_a-z])")
#: What may follow the speaker's name ("I'm Dana.", "I'm Dana, a nurse", "I'm Dana and ...", "I'm
#: Dana from Leeds", "Please call me Dee from now on", "I go by Sam these days", "I changed my name
#: to Robin Hale last month"), not more words of another reading ("I'm Apple certified", "Call me
#: Maybe is my favorite song", "I go by Starbucks every morning", "... to DarkKnight on Discord").
_AFTER_NAME = re.compile(r"\s*(?:$|[^\w\s'’-]|[-–—]\s)|\s+(?:and|but|from|here|btw|by\s+the\s+way|"
                         r"these\s+days|nowadays|now|instead|please|professionally|at\s+work|for\s+short|"
                         r"(?:last|this)\s+(?:week|month|year)|yesterday|today|recently|officially|legally)\b", re.I)
#: Words before "I'm <name>" that make it an introduction: a greeting and its fillers ("Hi, I'm
#: Dana", "Hello everyone! I'm Dana"); without one, or a "nice to meet you" after it, "I'm
#: <capitalised word>" is mostly no name ("I'm Texan", "I'm Batman", "I'm Grandma now!").
_GREETINGS = frozenset("hi hello hey hiya howdy greetings yo good morning afternoon evening day there all "
                       "everyone everybody folks again oh so well ok okay btw and yes yeah first of off".split())
_MEETING = re.compile(r"[^.!?\n]{0,40}?\b(?:(?:nice|pleased|glad|good|great)\s+(?:to\s+meet|meeting)\s+you|btw|by\s+the\s+way)\b",
                      re.I)
#: Words before "call me <name>" in its clause: a request ("Please call me Dee", "You can call me
#: Sam"), not what others call the speaker ("My grandkids call me Nana").
_CALL_ME = frozenset("please just you can may feel free to and so oh ok okay but also hi hello hey btw".split())
#: Cues of someone else's words, a text relayed, drafted or played, a story or a game: a name
#: read after one in a message is none of the speaker's ("My landlord texted me: Hi, I'm Mark",
#: "Help me reply to this message: Hey! I'm Jordan", "Let's role-play: I'm Gandalf", "In D&D I'm
#: Thorin"), nor is a rename in a message holding one (:mod:`engramdb.renames`: "In Animal
#: Crossing I renamed my cat Sir Fluff", "My coworker said we renamed ...", "... according to my
#: son").
RELAYED = re.compile(r"\b(?:texted|texts|email|emailed|emails|dm|dms|letter|message|messages|scam|spam|got\s+this|"
                     r"messaged|wrote|writes|said|says|told|tells|thinks|think|according\s+to|introduced|intro|"
                     r"proofread|reply|respond|forwarded|forward|draft|template|example|translate|translation|"
                     r"role-?play|roleplay|rp|d&d|dnd|playing|character|pretend|imagine|story|novel|game|games|"
                     r"animal\s+crossing|minecraft|sims|pokemon|script|quote|lyrics|song|movie|film|book|dialogue|"
                     r"scene|by\s+the\s+whole\s+family)\b", re.I)
#: Capitalised words after "I'm" that name no person: nationalities, faiths, politics and words
#: written in capitals for emphasis ("I'm Canadian", "I'm Catholic", "I'm Back!").
_NO_PERSON = frozenset(
    "american canadian mexican british english scottish welsh irish french german dutch swiss italian spanish "
    "portuguese greek polish russian ukrainian swedish norwegian danish finnish chinese japanese korean thai "
    "vietnamese filipino indian pakistani bangladeshi iranian iraqi israeli turkish egyptian nigerian kenyan "
    "african asian european australian brazilian argentinian colombian peruvian chilean cuban latino latina "
    "latinx hispanic black white native jewish muslim christian catholic protestant mormon hindu buddhist sikh "
    "atheist agnostic democrat republican liberal conservative libertarian independent vegan vegetarian gen "
    "ok okay fine good great sorry back here home done ready in out so not just really very still also "
    "happy glad sure tired busy new old free off on up down there thanks thank yes no hi hello hey "
    "the a an it this that mom mum dad mother father grandma grandpa nana papa auntie aunt uncle sister brother "
    "wife husband team pro anti married pregnant single divorced widowed engaged retired going "
    "aries taurus gemini cancer leo virgo libra scorpio sagittarius capricorn aquarius pisces "
    "they them she her he him "
    # "Call me Tomorrow", "Call me Crazy, but ...", "I go by Bus", "My name is Mud"
    "tomorrow tonight later anytime sometime soon whenever crazy old-fashioned paranoid biased naive lazy "
    "selfish cynical silly weird picky skeptical sentimental bus train car bike taxi uber lyft subway metro "
    "plane amtrak foot mud legion "
    # identities, states and ages said capitalised ("Hi, I'm Filipina", "Hi, I'm Autistic", "I'm Forty")
    "filipina filipino cherokee hawaiian indigenous arab persian chicana chicano latine autistic bipolar gay "
    "lesbian trans queer bi nonbinary non-binary asexual deaf blind disabled diabetic neurodivergent hungry "
    "bored confused nervous overwhelmed devastated sick remote twenty thirty forty fifty sixty seventy senior "
    "junior born bilingual introverted extroverted".split())
#: Words that may stand between the speaker and the verb ("I have just moved to", "we're now based in").
_FILLERS = frozenset("am are have has 've 'm 're just recently finally now currently still actually "
                     "officially already eventually since then been got".split())
_SPEAKER = frozenset("i we i'm we're i've we've".split())
#: Words before the verb that make the clause no standing fact besides facts.NOT_DONE: the
#: contractions of would and will.
_CONDITIONAL = frozenset("i'd we'd i'll we'll".split())
#: Words before the verb, in its sentence, that make it someone else's words, a story, an
#: exercise or a game ("My mom thinks I live in Paris", "Imagine I moved to Paris", "In my
#: novel, I live in Paris", "Translate to Spanish: I live in Madrid").
_UNREAL = frozenset("think thinks thought believe believes believed say says said tell tells told claim claims claimed "
                    "imagine imagined pretend pretending suppose supposing hypothetically novel story book game dream "
                    "dreamed dreamt roleplay character fiction poem translate translation write sentence example "
                    "quote lyrics script".split())
#: A text that takes back what it said ("I moved to Seattle. Just kidding!", "I accepted an
#: offer from Meta but then declined it").
#: A text that takes back a name it gives ("Hi, I'm Claude - just kidding"), of those.
_JOKING = re.compile(r"\b(?:kidding|joking|jk)\b", re.I)
_TAKEN_BACK = re.compile(rf"{_JOKING.pattern}|\b(?:declined|turned{_S}(?:it{_S})?down|backed{_S}out|fell{_S}through)\b",
                         re.I)
#: A sentence whose main clause holds only on a condition ("If I get the offer, I work at Google").
_CONDITION = re.compile(r"^\W*(?:(?:and|but|so|also|well|oh|ok|okay)\W+)?(?:if|unless|in\s+case)\b", re.I)
#: A sentence that asks without a question mark ("Do I live in Boston.").
_ASKS = re.compile(r"^\s*(?:do|does|did|am|are|is|can|could|should|would|will|have|has)\s+(?:i|we)\b", re.I)
_CLAUSE = re.compile(r"(?:[:;,](?!\d)|\s[-–—]\s|\b(?:and|so|then|but|because)\b)", re.I)
#: A change told as the speaker's history, not the standing value: in a named year, in childhood,
#: "back then" ("I moved to Boston in 2019", "I moved to Seattle when I was a kid").
_HISTORY = re.compile(r"\b(?:(?:19|20)\d\d|when{_S}(?:i|we){_S}(?:was|were)|as{_S}a{_S}"
                      r"(?:kid|child|teen|teenager|baby)|growing{_S}up|back{_S}then)\b".replace("{_S}", _S), re.I)
#: A stay for a while, not a home ("moved to Seattle for the summer", "for six months").
_TEMPORARY = re.compile(r"\b(?:temporar(?:y|ily)|for{_S}(?:the|a|this|one|two|a{_S}few){_S}(?:summer|winter|spring|fall|"
                        r"semester|term|month|week|weekend|night|holidays?|year)|"
                        r"for{_S}(?:a|one|two|three|four|five|six|several|a{_S}few|few|"
                        r"a{_S}couple{_S}of|\d+){_S}(?:days?|weeks?|months?))\b".replace("{_S}", _S), re.I)
#: An offer that is no job ("accepted an offer from Zillow on our house").
_NOT_JOB = frozenset("house home car card credit loan mortgage apartment condo property sale".split())
#: Words that open a sentence before its subject ("so", "btw"), and verbs that open one without
#: a subject, the speaker's ("Just moved to Tacoma", "Started a new job at Stripe").
_OPENERS = frozenset("so well oh ok okay yeah yes btw update fyi lol anyway honestly".split())
_FIRST_VERBS = frozenset("moved relocated started living working got took accepted landed settled joined renting signed".split())
_QUOTE = re.compile(r"[\"“”«»]")


def _name(text: str | None, relation: str = "home") -> tuple[str, ...] | None:
    """The capitalised run that opens ``text`` (what a pattern read after its verb), as lower-case
    words without a possessive "'s", or None: "Boston with my wife" -> ("boston",), "Bank of
    America" -> ("bank", "of", "america"), "the Platform Team" -> None (:data:`_NOT_NAMES`)."""
    if text is None:
        return None
    words: list[str] = []
    for w in text.split():
        bare = w.strip(",")
        if bare[:1].isupper() or (bare[:1].isalpha() and not bare[:1].islower()) or (words and bare.lower() in _JOINERS):
            words.append(bare)
            if w.endswith(",") and words and (not bare[:1].isupper() or relation == "name"):
                break   # ("Portland, Oregon" is one place; "I'm Dana, Nice to meet you" one name)
        else:
            break
    while words and words[-1].lower() in _JOINERS:
        words.pop()
    if not words:
        return None
    if relation == "name" and not _a_persons(words):
        return None
    out = []
    for w in words:
        w = w.lower()
        if w.endswith(".") and w not in _ABBREVIATIONS and w.rstrip(".") not in _ABBREVIATIONS:
            w = w.rstrip(".")
        out.append(re.sub(r"['’]s$", "", w))
    return None if names_no_place(out, relation) else tuple(out)


def _introduces(text: str, sentence: str, body: str, m: re.Match) -> bool:
    """Whether the match ``m`` of a name pattern in ``body`` (a sentence of ``text`` after its
    label) gives the speaker's own name: nothing relayed, drafted or played before it in the
    message (:data:`_RELAYED`), the name's end followed by :data:`_AFTER_NAME`; "I'm <name>" after
    a greeting opening the message or before "nice to meet you", "call me <name>" as a request."""
    before = text[: max(text.find(sentence), 0) + len(sentence) - len(body) + m.start()]   # (in the message)
    if RELAYED.search(before):
        return False
    if not _AFTER_NAME.match(body, m.end()):
        return False
    words = [w for w in re.findall(r"[^\W\d_][\w'’-]*", body[: m.start()] + " " + body[m.end():])
             if w not in ("I", "I'm", "I’m")]   # (the words around the name)
    if len(words) >= 3 and sum(w[0].isupper() for w in words) >= 0.8 * len(words):
        return False   # Title Case: every word capitalised ("Good Morning! I'm Excited To Start.")
    opening = m.group(0).lower()
    if re.match(r"i(?:['’]m|\s+am)\s+(?!going\s+by\b)", opening):
        lead = [w.lower() for w in re.findall(r"[\w'’]+", SPEAKER_LABEL.sub("", before, count=1))]   # (after a label)
        greeted = bool(lead) and all(w in _GREETINGS for w in lead) and lead[0] in _GREETINGS - {"and", "so", "well"}
        return greeted or _MEETING.match(body, m.end()) is not None
    if opening.startswith("call"):
        k = max(body.rfind(c, 0, m.start()) for c in ",;:!.")   # (its clause's words before "call")
        return all(w.lower() in _CALL_ME for w in re.findall(r"[\w'’]+", body[k + 1: m.start()]))
    return True


def _a_persons(words: list[str]) -> bool:
    """Whether ``words`` (a capitalised run as written) may be a person's name: at most four
    words, no digit, no possessive, none written in capitals alone ("OK", "ADHD"), and a first
    word that is no nationality, faith, word of politics or common word (:data:`_NO_PERSON`)
    nor a day or month ("I'm Canadian", "Call me Tuesday")."""
    if len(words) > 4 or any(c.isdigit() for w in words for c in w):
        return False
    if re.search(r"['’]s$", words[-1]):
        return False
    for w in words:   # capitals alone: initials ("AJ", "D.J."), not a word in capitals ("OK", "ADHD")
        if len(w) > 1 and w.isupper() and not re.fullmatch(r"(?:[A-Z]\.){1,3}|[A-Z]{2,3}", w):
            return False
    if any(w.lower() in FUNCTION_WORDS and w.lower() not in _JOINERS for w in words[1:]):
        return False   # ("I'm Excited To Start": Title Case words, no name)
    parts = [x for x in re.split(r"[-–]", words[0].lower().rstrip(".")) if x]
    if any(x in _NO_PERSON for x in parts[1:]):
        return False   # ("Korean-American", "Boston-born")
    if len(words) > 1:
        return True   # (a first and a last name: "My name is April Chen")
    first = words[0].lower().rstrip(".")
    return first not in _NO_PERSON and first not in CALENDAR_WORDS and not (parts and parts[0] in _NO_PERSON)


#: A clock time as one word or two ("7pm", "10:30", "7 pm", "noon"): what a meeting, not a home,
#: moves to.
_CLOCK = re.compile(r"^(?:\d{1,2}(?:[:.]\d\d)?(?:am|pm|a\.m\.|p\.m\.)?|am|pm|a\.m\.|p\.m\.|noon|midnight)$")


def names_no_place(words, relation: str = "home") -> bool:
    """Whether a name names no home or employer, only where one goes inside one or when.

    Parameters
    ----------
    words : sequence of str
        The name's words, lower case ("apartment", "4b").
    relation : str
        "home" (a move's destination) or "employer".

    Returns
    -------
    bool
        True for a team, plan, room or software as the last word, a room's number apart ("the
        Platform Team", "Apartment 4B": :data:`_NOT_NAMES`), and one department word
        ("Marketing"); for a home, also a name made only of weekdays, months and clock times
        ("Tuesdays", "7pm", "Friday at 10": "Yoga moved to 7pm.", "We moved to Tuesdays." move no
        home). Not a season ("We moved to Spring, just north of Houston") nor an employer named
        so ("I work at Fridays", "Noon"). False for an empty name.
    """
    words = [w.strip(".,!?;:") for w in words]
    if not words or not any(words):
        return False
    core = list(words)
    while len(core) > 1 and any(c.isdigit() for c in core[-1]):
        core.pop()   # "Apartment 4B", "Suite 300": the room's number
    if core[-1] in _NOT_NAMES or (len(core) == 1 and core[0] in _DEPARTMENTS):
        return True
    return relation == "home" and all(
        not w or w in _WHEN_WORDS or (w.endswith("s") and w[:-1] in _WEEKDAY_WORDS) or _CLOCK.match(w)
        for w in words)


#: Words of a name that say when, not where a home is ("moved to Tuesdays", "to March", "to Friday at
#: 10"): weekdays, months, the words joining them; seasons name towns too ("Spring, Texas").
_WEEKDAY_WORDS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
_WHEN_WORDS = (CALENDAR_WORDS - frozenset("spring summer autumn fall winter".split())) | {"at", "on", "and"}


#: Words that, before a change ("I also started a new job at Dell", "We also moved to Austin"), add
#: news to other news, not a second value: a change replaces the one held.
_NEWS = frozenset({"also", "plus"})
#: Words after such news that keep the other value ("..., while keeping my job at Ball", "as a
#: contractor"): a second job still; in the news's own clause, also its days ("on Saturdays").
_SIDE = frozenset("keeping contractor freelance freelancing part-time gig".split())
_SIDE_DAYS = frozenset("saturdays sundays weekends evenings nights".split())


def _second_value(words: list[str]) -> bool:
    """Whether ``words`` (lower-cased) add a value to one held ("I also work at X", "... as
    well", "Besides Acme I work at X", "In addition to Acme": a second job); an opening "also"
    or "plus", after openers such as "oh", is news, not a second value ("Also I started a new
    job at Globex", "Oh also, I got a job at Globex!")."""
    lead = 0
    while lead < len(words) and words[lead] in _OPENERS | {"and"}:
        lead += 1   # ("Oh also, I got a job at Globex!")
    if words[lead: lead + 1] in (["also"], ["plus"]):
        words = words[lead + 1:]
    return _adds_value(words) or _besides(words)


def _besides(words: list[str]) -> bool:
    """Whether ``words`` (lower-cased) name a value held besides another ("besides Acme", "in
    addition to Acme")."""
    return "besides" in words or ("in", "addition") in zip(words, words[1:])


def _speakers_clause(words: list[str], sentence_subject: bool) -> bool:
    """Whether a clause that ends at a verb (its words before the verb, lower-cased) has the
    speaker as its subject ("I", "we", "after ten years in Philly I finally", "my wife and I"),
    or none when the sentence's own subject is the speaker (``sentence_subject``: "I left Target
    and now work at Walmart", or a sentence that starts at the verb, "Just moved to Tacoma"),
    and nothing that makes the verb no fact."""
    if not_done(words) or _CONDITIONAL.intersection(words) or words[-1:] == ["to"]:   # (a second value: the caller)
        return False
    last = max((i for i, w in enumerate(words) if w in _SPEAKER), default=None)
    if last is None:
        return sentence_subject and all(w in _FILLERS for w in words)
    return all(w in _FILLERS for w in words[last + 1:])


#: A label of news before the sentence proper ("Big news: I quit ...", "Life update: I moved ...";
#: not "Fake news:", "Jake update:"; a dash may join a clause of another's: "Family update - I'm
#: ok, dad retired and moved ...").
_NEWS_LEAD = re.compile(r"\s*(?:(?:big|huge|exciting|good|great|some|quick|life|small|major|personal|little|happy|"
                        r"career|job|work|home|family)\s+)?(?:news|update|updates)\s*:\s+", re.I)


def _speaker_opens(body: str) -> bool:
    """Whether the sentence ``body`` (without a speaker label) opens with the speaker as its
    subject, which a verb joined later without a subject of its own then has ("I quit the
    hospital and started as a UX designer at Shopify"): "I", "we" (after openers such as "so",
    "well"), a verb without a subject of :data:`_FIRST_VERBS` ("Just moved to Tacoma and ..."),
    each also after a label of news (:data:`_NEWS_LEAD`: "user: Big news: I quit ..."; helper-211).

    The subject of the clauses between is not read: five hostile passes found each reading of
    it (the nearest clause's subject, another person after "but" / "because", "Jake and I" as
    the speaker, a mood carried over) wrong on as many real messages as it mended ("I quit, my
    manager cried lol, and started ...", "I moved in with my gf and her parents and got a job
    at ...", "Me and Jake broke up, Jake kept the apartment and moved ...")."""
    lead = _NEWS_LEAD.match(body)
    first = next((w for w in (t.lower() for t in tokens(body[lead.end() if lead else 0:]))
                  if w not in _FILLERS and w not in _OPENERS), None)
    return first in _SPEAKER or first in _FIRST_VERBS


def _role(role: str | None) -> bool:
    """Whether the words of ``role`` ("senior engineer", "gold member") name an occupation."""
    if role is None:
        return True
    words = role.lower().split()
    return (not _NOT_ROLES.intersection(words)
            and (words[-1] in _ROLE_WORDS or words[-1].endswith(_ROLE_ENDINGS)))


@lru_cache(maxsize=1 << 14)
def standings(text: str) -> tuple[Standing, ...]:
    """Each standing relation of the speaker that ``text`` states or reports (module docstring):
    the one said last of each relation, in the order said.

    Parameters
    ----------
    text : str
        One memory's text; a leading speaker label ("user:", "Ana:") is read past.

    Returns
    -------
    tuple of Standing
        Empty when the text gives none.
    """
    text = in_first_person(text)   # ("User lives in Boston.", as a model's memory tool writes it)
    low = text.lower()
    words = set(low.split())
    named = _NAME_GATE.search(text) is not None
    if _GATE.isdisjoint(words) and (_ROLE_GATE[0].isdisjoint(words) or _ROLE_GATE[1].isdisjoint(words)) and not named:
        return ()
    patterns = _PATTERNS if named else _PATTERNS_UNNAMED
    spaced = low.replace("\xa0", " ")
    if not any(c in spaced for _r, cues, _c, _p in patterns for c in cues):
        return ()   # (a word of a pattern, but none of its phrases: most texts that pass the gate)
    if re.match(r"\s*assistant\s*:", low):
        return ()
    if _TAKEN_BACK.search(low):   # ("I moved to Seattle. Just kidding!"; a name stays one: "My card got declined")
        patterns = [p for p in patterns if p[0] == "name" and not _JOKING.search(low)]
        if not patterns:
            return ()
    user = speaker_label(text) in (None, ("user",))   # (a name of another speaker's is theirs)
    text = unicodedata.normalize("NFC", text).replace("\xa0", " ")
    found: dict[str, tuple[tuple[int, int], Standing]] = {}   # relation -> (where said, reading)
    for at, sentence in enumerate(split_sentences(text)):   # (sentencex: "St. Louis" is one)
        said = sentence.lower()
        runs = [(relation, change, p) for relation, cues, change, p in patterns if any(c in said for c in cues)
                and (relation != "name" or user)]
        if sentence.rstrip().endswith("?") or _TEMPORARY.search(sentence):   # (an introduction may ask:
            runs = [r for r in runs if r[0] == "name"]   # "Hi, I'm Dana, can you help me?")
        if not runs:
            continue
        label = re.match(r"\s*(?:(?:user|[^\W\d_][\w'.\-]*(?: [^\W\d_][\w'.\-]*){0,2}):\s+)?", sentence)
        body = sentence[label.end():]
        if _ASKS.match(body) or _CONDITION.match(body):
            continue
        bounds = [m.end() for m in _CLAUSE.finditer(body)]   # where each clause starts
        quotes = [m.start() for m in _QUOTE.finditer(body)]
        unreal = next((m.start() - label.end() for m in re.finditer(r"[\w']+", sentence)
                       if m.group(0).lower() in _UNREAL), None)   # (in the label too: "Translate to Spanish:")
        sentence_subject = history = None   # (read at the first match that needs them)
        for relation, change, pattern in runs:
            for m in pattern.finditer(body):
                if bisect.bisect_left(quotes, m.start()) % 2 == 1:
                    continue   # inside a quotation: someone else's words
                if sentence_subject is None:
                    sentence_subject = _speaker_opens(body)
                if unreal is not None and unreal < m.start():
                    continue
                k = bisect.bisect_right(bounds, m.start())
                start = max(bounds[k - 1] if k else 0, m.start() - 160)   # (its last words are the subject)
                clause = [t.lower() for t in tokens(body[start: m.start()])]
                end = next((b for b in bounds if b > m.end()), len(body))
                news = change and not _NEWS.isdisjoint(clause)
                if news:   # ("also" before a change is news, unless the rest of the sentence keeps the
                    clause = [w for w in clause if w not in _NEWS]   # other job: "..., besides Ball")
                after = [t.lower() for t in tokens(body[m.end(): end])]
                rest = [t.lower() for t in tokens(body[m.end():])] if news else after
                if (_second_value(clause) or _second_value(after) or _besides(rest)
                        or (news and (_SIDE.intersection(rest) or _SIDE_DAYS.intersection(after)))
                        or ("on", "the", "side") in zip(rest, rest[1:], rest[2:])
                        or _besides([t.lower() for t in tokens(body[: m.start()])])):
                    continue   # "I also work at X", "I work at X too", "In addition to Acme, ...": a second job
                    # (but "I also started a new job at Dell": news besides other news, a change)
                if not (relation == "name" or _OWNED.match(m.group(0))):
                    if not _speakers_clause(clause, sentence_subject):
                        continue
                elif (not_done([w for w in clause if w not in _CALL_ME] if relation == "name" else clause)
                      or (_MINE_BEFORE.match(m.group(0)) and clause[-1:] not in ([], ["my"]))):
                    continue   # (a request to call the speaker by a name is no plan: "Please call me Dee")
                role = m.groupdict().get("role")
                if not _role(role):
                    continue
                if relation == "name" and not _introduces(text, sentence, body, m):
                    continue
                skip = m.re.groupindex.get("role")
                names = [g for i, g in enumerate(m.groups(), 1) if g is not None and i != skip]
                value = _name(names[-1], relation) if names else None
                was = _name(names[0], relation) if len(names) >= 2 and relation == "home" and re.search(
                    r"\bfrom\b", m.group(0), re.I) else None
                if value is None:
                    continue
                if change:
                    if history is None:
                        history = _HISTORY.search(body) is not None
                    if history:
                        continue
                if m.group(0)[:4].lower() == "rent" and (not _RENTED_FOR.isdisjoint(clause)
                                                         or _RENTED_AFTER.search(body, m.end())):
                    continue   # "Every summer I rent a house in Cape Cod", "For our anniversary we're renting ...",
                    # "I rent a room in Cambridge with my band for practice" (helper-233)
                if relation == "employer" and "offer" in m.group(0).lower() \
                        and _NOT_JOB.intersection(t.lower() for t in tokens(body[m.end(): m.end() + 60])):
                    continue
                place = (at, m.start())
                if relation not in found or found[relation][0] <= place:
                    found[relation] = (place, Standing(relation, value, was))
    return tuple(got for _place, got in sorted(found.values(), key=lambda f: f[0]))


def standing(text: str) -> Standing | None:
    """The standing relation of the speaker said last in ``text`` (:func:`standings`), or None.

    Parameters
    ----------
    text : str

    Returns
    -------
    Standing or None
    """
    got = standings(text)
    return got[-1] if got else None


#: The bit of each relation in :func:`standing_bits` (``Columns.standing``): stated, as
#: :func:`standings` reads it; and maybe stated, as :func:`may_state` reads it.
STANDING_BITS = {"home": 1, "employer": 2, "name": 16}
MAY_STATE_BITS = {"home": 4, "employer": 8, "name": 32}


def standing_bits(text: str) -> int:
    """The relations ``text`` states (:func:`standings`) as bits of :data:`STANDING_BITS` (1
    home, 2 employer, 16 name), and those it may state, read loosely (:func:`may_state`), as bits
    of :data:`MAY_STATE_BITS` (4 home, 8 employer, 32 name): 0 for none, 63 for all ("I'm Dana, I
    live in Boston and work at Acme."). What the column ``Columns.standing`` holds, so that recall finds
    every statement of a relation, whatever its words ("I'm a nurse at Mass General." holds none
    of the relation's words), and knows when no memory may say it."""
    bits = 0
    for got in standings(text):
        bits |= STANDING_BITS[got.relation] | MAY_STATE_BITS[got.relation]
    for relation, bit in MAY_STATE_BITS.items():
        if not bits & bit and may_state(text, relation):
            bits |= bit
    return bits


#: Index terms (:func:`engramdb.index.tokens.tokenize`) of each relation's statements, by which
#: the write path finds a namespace's earlier ones ("I live in Boston." for "I moved to Seattle.").
STANDING_WORDS = {"home": tuple(dict.fromkeys(tokenize("live living reside residing based settled moved relocated "
                                                      "resident home house apartment"))),
                  "employer": tuple(dict.fromkeys(tokenize("work working employed employer company job position role "
                                                          "offer hired joined"))),
                  "name": tuple(dict.fromkeys(tokenize("name call")))}


#: A question that asks for the speaker's home or employer now ("where do I live?", "what city
#: am I based in?", "which city am I in these days?", "my address?"; "where do I work?", "which company employs me?"), not for
#: another person's ("where does my sister live?"), another thing ("what do I work on?") or a
#: past one (:data:`_ASKS_PAST`). With :data:`_ASKED_IN_ORDER`.
_ASKS_FOR = {
    "home": re.compile(r"\b(?:i|we)\s+call\s+home\b|\b(?:my|our)\s+(?:(?:old|previous|former|new)\s+)?(?:home|address|hometown|current\s+city)\b"
                       r"|\b(?:what|which)\s+(?:city|town|country|neighbou?rhood)\s+(?:am\s+i|are\s+we)\s+"
                       r"(?:in|living|staying|based)\b(?!\s+(?:the|a|an|my|our|your|for|of)\b)", re.I),
    "employer": re.compile(r"\b(?:what|which)\s+(?:company|employer|firm)\b|\b(?:i|we)\s+do\s+for\s+a\s+living\b"
                           r"|\b(?:my|our)\s+(?:(?:old|previous|former|new)\s+)?(?:employer|company|job|workplace|"
                           r"occupation|profession|career)\b"
                           r"|\bwho\s+(?:employs|hired)\s+(?:me|us)\b",
                           re.I),
    "name": re.compile(r"\bwhat(?:['’]?s|\s+is)?\s+my\s+(?:(?:first|full|real|given|legal|last|middle|family)\s+)?"
                       r"name\b|\bwhat(?:['’]?s|\s+is)?\s+my\s+surname\b|\bwhat\s+do\s+i\s+go\s+by\b"
                       r"|\bwho\s+am\s+i(?:\s+again)?\s*(?:\?|$)|\bwhat\s+(?:do|will)\s+you\s+call\s+me\b"
                       r"|\b(?:do|can|could)\s+you\s+(?:know|remember|recall|tell\s+me)\s+my\s+name\b"
                       r"|\b(?:tell|remind)\s+me\s+my\s+name\b"
                       r"|\bwhat\s+name\s+do\s+i\s+go\s+by\b|^\W*(?:my\s+name|name)\s*\?", re.I),
}
#: The other form of such a question: a wh-word, then the speaker ("I", "we"), then a verb of the
#: relation not followed by one of the given words, in that order within one question (no "?"
#: between): "where do I live?", "which company am I working for these days?", not "what do I
#: work on?". Read in one pass over the words (:func:`_asks_in_order`): as a regex,
#: ``wh[^?]*?speaker[^?]*?verb`` backtracked cubically on a long text holding many of the first
#: two words and none of the verbs (a 12 KB diary as the question took a minute).
_ASKED_IN_ORDER = {
    "home": (frozenset("where what which".split()), frozenset("live living based staying reside".split()), frozenset()),
    "employer": (frozenset("where what which who".split()), frozenset("work working employed".split()),
                 frozenset({"on", "out"})),
}
_WORD = re.compile(r"\w+")
_NEXT_WORD = re.compile(r"\s+(\w+)")


def _asks_in_order(question: str, relation: str) -> bool:
    """Whether ``question`` holds, within one question, a wh-word, then "I" or "we", then a verb
    of ``relation`` (:data:`_ASKED_IN_ORDER`); O(length)."""
    spec = _ASKED_IN_ORDER.get(relation)
    if spec is None:
        return False
    wh, verbs, not_before = spec
    for part in question.split("?"):
        step = 0   # 0: before a wh-word, 1: after one, 2: after the speaker too
        prev = ""
        for m in _WORD.finditer(part):
            w, before = m.group(0).lower(), prev
            prev = w
            if w == "living" and before == "a":
                continue   # ("what do I do for a living?": a job, not a home)
            if step == 0:
                step = 1 if w in wh else 0
            elif step == 1:
                step = 2 if w in ("i", "we") else 1
            elif w in verbs:
                after = _NEXT_WORD.match(part, m.end())
                if after is None or after.group(1).lower() not in not_before:
                    return True
    return False


_FIRST_NAME = re.compile(r"\bfirst\s+name\b", re.I)
_ASKS_PAST = re.compile(r"\b(?:did|didn't|was|were|used|before|ever|previously|formerly|earlier|ago|first|originally|"
                        r"grew|old|how\s+long)\b", re.I)
#: A question for where the speaker stayed or worked from at a past time, not their home or employer
#: then ("Where was I staying in February?", "Where was I working from in March?").
_ASKS_STAY = re.compile(r"\b(?:stay|stayed|staying|visit|visited|visiting|travel\w*)\b|\b(?:work|working|worked)\s+from\b",
                        re.I)
#: A question about a wish, plan or supposition, not the value that holds ("where would I like to
#: live?", "where do I want to work?", "where would I live if I got the job?").
_ASKS_WISH = re.compile(r"\b(?:would|wanna|want|wants|wanted|wish|hope|plan|plans|planning|should|could|might|if|"
                        r"someday|ideally|dream|prefer|rather)\b|\b(?:i|we)'d\b|\blike\s+to\b|\blove\s+to\b", re.I)


def asked_standing(question: str, *, past: bool = False) -> frozenset[str]:
    """The relations ("home", "employer", "name") whose current value ``question`` asks for ("where
    do I live?": {"home"}; "what's my name?", "who am I?": {"name"}); empty for a question about the past ("where did I live before?",
    "did I ever work at Google?"), a wish or supposition ("where would I like to live?", "where
    would I live if I got the job?") or about someone else. With ``past=True`` the value at a past
    time the caller has found in the question ("where did I live in March?": {"home"}; not a stay
    then, "where was I staying in February?", "where was I working from in March?").

    >>> sorted(asked_standing("Where do I live these days?"))
    ['home']
    >>> asked_standing("What do I work on?")
    frozenset()
    >>> sorted(asked_standing("Where did I live in March?", past=True))
    ['home']
    """
    question = in_first_person(question)   # ("where does the user live?")
    if _ASKS_STAY.search(question) if past else _ASKS_PAST.search(_FIRST_NAME.sub("name", question)):
        return frozenset()   # (a first name is no first value: "what's my first name?")
    if _ASKS_WISH.search(question):
        return frozenset()
    return frozenset(rel for rel, pattern in _ASKS_FOR.items()
                     if pattern.search(question) or _asks_in_order(question, rel))


#: A question for the place itself ("where do I work?", "which company employs me?", "what city
#: do I live in?"), not for a job ("what's my job?": "I'm a nurse." answers it), an address, a
#: hometown or a stay ("where am I staying?"): the form :func:`asks_for_place` accepts.
_ASKS_PLACE = {"home": re.compile(r"\b(?:where|city|town|country)\b", re.I),
               "employer": re.compile(r"\b(?:where|employer|employs|employed|company|firm)\b", re.I),
               "name": re.compile(r"\b(?:name|who|call)\b", re.I)}
_NOT_PLACE = re.compile(r"\b(?:stay|stayed|staying|address|hometown|job|jobs|role|position|title)\b", re.I)
#: What a text may state of each relation, read loosely (its words, then within two words a
#: preposition and a word: "I work full-time at Acme", "i live in berlin", "I've been at Google for
#: 3 years", "I'm a Seattle resident"): where :func:`standings` reads nothing, a memory of these
#: words may still say it. Lower-case words, searched in the lower-cased text.
_MAY_STATE = {
    "home": re.compile(r"\b(?:live|lives|lived|living|home|house|apartment|flat|place|condo|moved|move|moving|based|"
                       r"settled|reside|resides|residing|rent|renting|bought|grew)\b"
                       r"(?:\s+[\w'’-]+){0,2}?\s+(?:in|into|to|at|near|from)\s+\w"
                       r"|\b(?:i'm|i’m|im|am|we're|we’re|been)\b(?:\s+[\w'’-]+){0,2}?\s+(?:in|from)\s+\w|\bresidents?\b"
                       r"|\b(?:home|address)\s+is\s+\w|\buser\s+(?:is|was|has\s+been)\s+(?:[\w-]+\s+){0,2}(?:in|from)\s+\w"),
    "employer": re.compile(r"\b(?:work|works|worked|working|job|jobs|employer|employed|company|office|hired|started|"
                           r"start|teach|teaches|teaching|intern|interning|internship|day|shift|gig|position|role|"
                           r"team|i'm|i’m|im|am|we're|we’re|been)\b"
                           r"(?:\s+[\w'’-]+){0,2}?\s+(?:at|for|with|by)\s+\w|\bjoined\s+\w|"
                           r"\b(?:employer|company|workplace)\s+is\s+\w|\bself-employed\b|\bfreelanc|\bunemployed\b|"
                           r"\bretired\b|\buser\s+(?:is|was|has\s+been)\s+(?:[\w-]+\s+){0,3}(?:at|for|with|by)\s+\w"),
    "name": re.compile(r"\bmy\s+(?:\w+\s+)?name\b|\b(?:i'm|i’m|i\s+am)\s+called\b|\bcall(?:ed)?\s+me\b|\bgo\s+by\b"
                       r"|^\W*(?:[^:\n]{1,40}:\s+)?name(?:['’]s|\s+is)\s+\w"
                       r"|\b(?:hi|hello|hey|hiya)\b\W{0,3}(?:there\W{0,3})?(?:i['’]?m|i\s+am)\s+\w"),
}
#: Of the name, what is read in the text as written: a capital after "I'm", "I am", "this is" ("I'm
#: Dana", "this is Dee"), or a capitalised word then "here" opening it ("Dana here!").
_MAY_STATE_AS_WRITTEN = {
    "name": re.compile(r"(?:\b[Ii](?:['’]?m|\s+am)|\b[Tt]his\s+is)\s+[^\W\d_a-z]|^\W*[^\W\d_a-z]\w+\s+here\b"),
}
#: A place named after "at", "for", "with" (where one may work: "my first week at Leeds General
#: Infirmary", "I nurse on the cardiac ward at St. Mary's") or after "in", "from", "near" (where one
#: may live: "a flat in Leeds"), as a capitalised word that names no month or weekday ("in May").
_NAMED = {"employer": re.compile(r"\b(?:at|for|with)\s+(?:the\s+)?(?P<n>[A-Z][\w'’&.-]*)"),
          "home": re.compile(r"\b(?:in|from|near)\s+(?:the\s+)?(?P<n>[A-Z][\w'’&.-]*)")}
#: Whose statement a sentence is: the speaker's ("I", "we", "my", a chat label's "user") and not
#: another person's ("My sister works at Google.").
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i’m|im|i've|i’ve|ive|i'd|we|we're|we’re|we've|our|my|me|us|user)\b", re.I)
_OTHERS = re.compile(r"\b(?:my|our)\s+(?:[\w-]+\s+)?(?:" + "|".join(sorted(PERSON_NOUNS)) + r")s?\b", re.I)


def asks_for_place(question: str, relation: str) -> bool:
    """Whether ``question``, one that asks for the speaker's ``relation`` ("home" or "employer":
    :func:`asks_only_standing`), asks for the place itself ("where do I work?", "which company
    employs me?", "what city do I live in?"), not for a job, an address, a hometown or a stay."""
    return _ASKS_PLACE[relation].search(question) is not None and _NOT_PLACE.search(question) is None


def may_name(text: str) -> bool:
    """Whether ``text`` may name the speaker, read or loosely (:func:`standings`, :func:`may_state`
    of "name"): a cheap test, true for every text whose name bits are set, made of the patterns
    those readings start from (the word "name"; a capital after "I'm", "call me", "go by"; the
    loose reading's own patterns)."""
    low = text.lower()
    return ("name" in low or _NAME_GATE.search(text) is not None or _MAY_STATE["name"].search(low) is not None
            or _MAY_STATE_AS_WRITTEN["name"].search(text) is not None)


def may_state(text: str, relation: str) -> bool:
    """Whether ``text`` may state the speaker's ``relation`` ("home", "employer" or "name"), read loosely:
    a word of the relation followed, within two words, by a preposition and a word ("I work
    remotely for Acme", "i live in berlin", "I've been at Google for 3 years"), "joined X",
    "self-employed", "resident", or a place named after "at" / "for" / "with" (employer: "my first
    week at Leeds General Infirmary") or "in" / "from" / "near" (home: "our flat in Edinburgh"). Looser than :func:`standings`, which reads few wordings: what
    says none of these says nothing of the relation ("My commute to work is 30 minutes."). Only
    in a sentence of the speaker's, one saying "I", "we", "my" or "user" and no "my <person>"
    ("My sister works at Google." says where the sister works). The relation's words are read
    in the lower-cased text by patterns of lower-case words (a case-insensitive regex of the same
    words took four times as long: 21-29 us a chat message, a third of the column's time)."""
    pattern, named, written = _MAY_STATE[relation], _NAMED.get(relation), _MAY_STATE_AS_WRITTEN.get(relation)

    def says(sentence: str) -> bool:
        return (pattern.search(sentence.lower()) is not None
                or (written is not None and written.search(sentence) is not None)
                or (named is not None and any(m["n"].lower().rstrip(".") not in CALENDAR_WORDS
                                              for m in named.finditer(sentence))))

    if not says(text):
        return False
    return any(says(s) and (_FIRST_PERSON.search(s) or (relation == "name" and _OWN_NAME.match(s)))
               and not _OTHERS.search(s)
               and not (relation == "name" and s.rstrip().endswith("?"))   # ("What should I name my puppy?")
               for s in re.split(r"(?<=[.!?])\s+|\n+", text))


#: A sentence that opens with a name given without a subject, the speaker's own ("Name's Sam.",
#: "Name is Dana, by the way."), after a chat label or not.
_OWN_NAME = re.compile(r"^\s*(?:[^:\n]{1,40}:\s+)?(?:(?:oh|and|also|btw|anyway)\W+)*name(?:['’]s|\s+is)\s+\w", re.I)


#: The words a question that asks for nothing but the speaker's home or employer is made of
#: (:func:`asks_only_standing`): question and function words, the relations' own words, and
#: words of time that hold now.
_ONLY_WORDS = frozenset(
    "where what what's whats which who who's whos do does did am is are was were i i'm im we we're me us my our "
    "in at for to from of a an the by currently current now these days today nowadays presently "
    "right moment still live lives living based staying reside residing city town country state place "
    "neighborhood neighbourhood home address hometown work works working employed employer employs company "
    "firm job workplace hired old previous former new before earlier prior previously formerly originally "
    "name name's names first full real given legal call you know remember recall tell go by again yet hey hi sorry "
    "please whats remind could can occupation profession career living last middle family surname".split())
_QUESTION_WORD = re.compile(r"[\w'’]+")
_FOR_A_LIVING = re.compile(r"\bfor\s+a\s+living\b", re.I)
_DOES = re.compile(r"\b(?:do|does|did)\s+(?:i|we)\s+(?:\w+\s+)?do\b", re.I)


def asks_only_standing(question: str, *, past: bool = False, times: tuple[str, ...] = ()) -> frozenset[str]:
    """:func:`asked_standing` of a question that asks for nothing else: every word of it (the
    time expressions ``times`` cut out) is a question or function word, a word of the relation
    or a word of time that holds now ("what city am I in these days?", "who is my employer?";
    not "What bus do I take to work?", "What's my home Wi-Fi password?", "Which company
    employs Alice?", "Where don't I live anymore?"). Recall brings the namespace's statements
    of the relation in for such a question alone (:func:`engramdb.recall.seeds.standing_seeds`).

    >>> sorted(asks_only_standing("What city am I in these days?"))
    ['home']
    >>> asks_only_standing("What bus do I take to work?")
    frozenset()
    """
    question = in_first_person(question)
    asked = asked_standing(question, past=past)
    if not asked or (_DOES.search(question) and not _FOR_A_LIVING.search(question)):   # ("what do I do at
        return frozenset()   # work?": the work itself; "what do I do for a living?" asks the job)
    for t in times:
        question = question.replace(t, " ")
    words = [w.lower().replace("’", "'") for w in _QUESTION_WORD.findall(question)]
    return asked if all(w in _ONLY_WORDS for w in words) else frozenset()


def _same_party(new: str, old: str) -> bool:
    """Whether the two texts can be the same speaker's: their labels agree ("Bob: ..." is no
    "Alice: ...") and a text of another speaker's label is no change of an unlabelled one
    ("Mom: I moved to Seattle." after "I live in Boston.")."""
    a, b = speaker_label(new), speaker_label(old)
    if a is not None and b is not None:
        return a == b
    label = a if a is not None else b
    return label is None or label == ("user",)


def _refined(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether one name opens or ends the other ("Boston" / "Boston's Back Bay", "Portland" /
    "Portland, Oregon", "Texas" / "Austin, Texas", "Google" / "Google Zurich"; not "Bank of
    America" / "Bank of the West")."""
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    return long_[: len(short)] == short or long_[len(long_) - len(short):] == short


#: Words that make a place more precise ("... Back Bay neighborhood", "... office").
_PLACE_WORDS = frozenset("neighborhood neighbourhood area district part side downtown suburb suburbs city state county "
                         "borough office campus branch team hq headquarters location region".split())


def _pairs(new: str, old: str):
    """The (new, old) readings of one relation in the two texts."""
    olds = {s.relation: s for s in standings(old)}
    return [(a, olds[a.relation]) for a in standings(new) if a.relation in olds]


def _words(text: str) -> set[str]:
    """The lower-cased words of ``text``, a possessive "'s" dropped."""
    return {re.sub(r"['’]s$", "", t.lower()) for t in tokens(text)}


def refines_standing(new: str, old: str) -> bool:
    """Whether ``new`` and ``old`` say the speaker's home or employer alike but for one name made
    more precise ("I live in Boston's Back Bay neighborhood." / "I live in Boston."): one name
    opens the other, and the rest of the two texts differs at most by words of a place
    ("neighborhood", "area", "office"). Such a pair is no conflict of that value; a number the
    two texts give otherwise (rent, a salary) is not this function's to judge.

    >>> refines_standing("I live in Portland, Oregon.", "I live in Portland.")
    True
    >>> refines_standing("I live in Boston and my manager is Priya.", "I live in Boston and my manager is Sarah.")
    False
    """
    for a, b in _pairs(new, old):
        if _refined(a.value, b.value):
            rest_a = _words(new) - set(a.value) - FUNCTION_WORDS
            rest_b = _words(old) - set(b.value) - FUNCTION_WORDS
            if (rest_a ^ rest_b) <= _PLACE_WORDS:
                return True
    return False


def _within(new: str, old: str) -> bool:
    """Whether ``new`` names its home or employer as a part of the one ``old`` names: the new
    name followed, in ``new``, by up to three words, then "of" or "in" and the old name ("I live
    in the Back Bay area of Boston now.", "Jamaica Plain in Boston" against "I live in
    Boston."). :func:`standings` reads such a name without its city ("back bay"):
    :func:`changes_standing` reads no change then. (A comma is no sign: "I moved to Denver,
    Boston was too cold." moves.)

    >>> _within("I live in the Back Bay area of Boston now.", "I live in Boston.")
    True
    >>> _within("I moved from Boston to Denver.", "I live in Boston.")
    False
    >>> _within("I moved to Denver, Boston was too cold.", "I live in Boston.")
    False
    """
    low = new.lower()
    for a, b in _pairs(new, old):
        name = r"\W+".join(map(re.escape, a.value))
        part = r"\W+".join(map(re.escape, b.value))
        if re.search(rf"\b{name}(?:\W+\w+){{0,3}}?\s+(?:of|in)\s+(?:the\s+)?{part}\b", low):
            return True
    return False


def changed_standing(old: str, new: str) -> frozenset[str]:
    """The relations ("home", "employer", "name") that ``new`` gives another value of than
    ``old`` does, when ``old`` says more than them (another relation, or another sentence or
    claim: "Hi! I'm Maya. I live in Denver with my partner Sam." and "We moved to Boulder."
    changed the home alone); empty otherwise, and for a text that states nothing else.

    >>> sorted(changed_standing("Hi! I'm Maya. I live in Denver.", "We moved to Boulder."))
    ['home']
    >>> changed_standing("I live in Denver.", "We moved to Boulder.")
    frozenset()
    """
    before, after = standings(old), standings(new)
    if not before or not after:
        return frozenset()
    now = {s.relation: s.value for s in after}
    changed = frozenset(s.relation for s in before if s.relation in now and not _refined(now[s.relation], s.value))
    if not changed:
        return changed
    more = {s.relation for s in before} - changed or several_claims(old) is not None
    return changed if more else frozenset()


def changes_standing(new: str, old: str) -> bool:
    """Whether ``new`` gives the speaker's home or employer as another name than ``old`` gives it
    (both read by :func:`standings`, one relation, neither name opening or ending the other)
    and can be
    the same speaker's; a "moved from X to Y" report changes only a statement of X.

    >>> changes_standing("I moved to Seattle last month.", "I live in Boston.")
    True
    >>> changes_standing("I moved to Back Bay, Boston.", "I live in Boston.")
    False
    >>> changes_standing("I moved to New York.", "I live in Boston.")
    True
    >>> changes_standing("I live in the Back Bay area of Boston now.", "I live in Boston.")
    False
    """
    if not _same_party(new, old):   # (a sentence that asks gives no reading: standings)
        return False
    for a, b in _pairs(new, old):
        if not _refined(a.value, b.value) and (a.was is None or _refined(a.was, b.value)):
            return not _within(new, old)   # ("the Back Bay area of Boston" is in Boston)
    return False
