"""engramdb.patterns: the trie alternation matches what the longest-first alternation matches, and
a Needles gate never turns away a text the gated case-insensitive pattern matches. Then the rules
gated this way, read through their public functions, on the texts a gate is most likely to get
wrong: upper case, mixed case, non-ASCII letters that fold to ASCII ones."""
from __future__ import annotations

import re

import pytest
from hypothesis import given, settings, strategies as st

from engramdb.changes import change_report, gives_value
from engramdb.chatter import CONTENT_FREE, QUESTION, STATEMENT, speech_act
from engramdb.kinds import protected_category
from engramdb.facts import fact_signature, frames_a_value, tokens
from engramdb.patterns import Needles, alternation

# few letters, so that words share prefixes and texts hold them often
_LETTERS = "abK\u212a\u017fsS"   # with the Kelvin sign and the long s, which fold to "k" and "s"
words = st.lists(st.text(alphabet="abks", min_size=1, max_size=5), min_size=1, max_size=8, unique=True)
texts = st.text(alphabet=_LETTERS + " -.", max_size=30)


@settings(max_examples=300, deadline=None)
@given(words=words, text=texts, flags=st.sampled_from([0, re.IGNORECASE]))
def test_alternation_finds_what_the_longest_first_alternation_finds(words, text, flags):
    plain = re.compile(r"(?:" + "|".join(map(re.escape, sorted(words, key=len, reverse=True))) + r")(?:-|\b)", flags)
    trie = re.compile(alternation(words) + r"(?:-|\b)", flags)
    assert [m.span() for m in trie.finditer(text)] == [m.span() for m in plain.finditer(text)]


@settings(max_examples=300, deadline=None)
@given(words=words, text=texts)
def test_needles_never_turn_away_a_match(words, text):
    gated = re.compile("|".join(map(re.escape, words)), re.IGNORECASE)
    if gated.search(text) is not None:
        assert Needles(words).may_hold(text)


def test_needles_turn_away_an_ascii_text_without_them():
    gate = Needles(["room", "gate"])
    assert not gate.may_hold("synthetic memory 17")
    assert gate.may_hold("Meet me at GATE B12") and gate.may_hold("the Boardroom")
    assert gate.may_hold("caf\u00e9 at noon")   # not ASCII: always may


@pytest.mark.parametrize("bad", [[], [""], ["Room"]])
def test_needles_and_alternation_refuse_bad_words(bad):
    with pytest.raises(ValueError):
        Needles(bad)


@pytest.mark.parametrize("text, value", [
    ("The landlord raised our rent to 2,100 dollars.", ("amount", "$", "2100")),
    ("STANDUP MOVED TO 10AM.", ("time", "", "10:00")),
    ("Book club moved to SEPTEMBER 3.", ("date", "", "09-03")),
    ("Book club moved to Thursdays.", ("date", "", "thursday")),
    ("Pilates moved to Room 4 — caf\u00e9 closed.", ("label", "room", "4")),
])
def test_change_reports_of_each_sort_in_any_case(text, value):
    report = change_report(text)
    assert report is not None and report.value == value
    assert gives_value(text)


@pytest.mark.parametrize("text, gives", [
    ("synthetic memory 17", False),   # a bare number counts nothing
    ("I love hiking in the mountains.", False),
    ("We meet on MONDAY.", True),
    ("Gate B12 is closed.", True),
    ("Pilates moved to STUDIO B.", True),
    ("Yoga moved to \u017ftudio B.", True),   # the long s folds to "s": "studio" in any case
    ("Yoga moved to \u017ftudio.", False),
    ("I take 20 mg.", True),
    ("The party is 3 May.", True),
])
def test_gives_value(text, gives):
    assert gives_value(text) is gives


@pytest.mark.parametrize("text, frames", [
    ("My email is priya@gmail.com", True),
    ("MY EMAIL IS PRIYA@GMAIL.COM", True),
    ("My E-Mail is priya@gmail.com", True),
    ("Our administrator is Dana.", True),
    ("Mon adresse e-mail est caf\u00e9@x.fr; my email is x@y.z", True),
    ("I live in Lisbon.", True),
    ("We're on the Pro plan.", True),
    ("Email me later.", False),
    ("The admin panel is down.", False),   # "panel" is no attribute noun
])
def test_frames_a_value(text, frames):
    assert frames_a_value(text) is frames


@pytest.mark.parametrize("text, act", [
    ("How have you been?", CONTENT_FREE),
    ("HOW ARE YOU?", CONTENT_FREE),
    ("Long time no see! How's it going?", CONTENT_FREE),
    ("How have you been? Did you finish the mural?", QUESTION),
    ("Thanks, hope you're doing well!", CONTENT_FREE),
    ("Hope this finds you well. I moved to Porto.", STATEMENT),
    ("It's been ages!", CONTENT_FREE),
])
def test_greetings_are_read_in_any_case(text, act):
    assert speech_act(text) == act


def test_tokens_are_a_new_list_each_call():
    first = tokens("I take 5 mg of lisinopril")
    first.append("mutated")
    assert tokens("I take 5 mg of lisinopril") == ["I", "take", "5", "mg", "of", "lisinopril"]


@pytest.mark.parametrize("text, number, idents", [
    ("Fixed example_27.py today", set(), {"example_27.py"}),
    ("Fixed example.py today", set(), set()),
    ("Version 2.3 of the app", {"2", "3"}, set()),
    ("I ran 5 km", {"5"}, set()),
    ("I ran x\u00b2 km", {"x\u00b2"}, set()),   # a superscript two is a digit (str.isdigit)
])
def test_fact_signature_numbers_and_file_names(text, number, idents):
    sig = fact_signature(text)
    assert sig["number"] == number
    assert idents <= sig["name"]


@pytest.mark.parametrize("text, category, quoted", [
    ("I'M VEGAN", "identity", "I'M VEGAN"),
    ("i don't eat pork", "identity", "i don't eat pork"),
    ("I am \u212aosher now", "identity", "I am \u212aosher"),   # the Kelvin sign folds to "k"
    ("I speak Portuguese", "identity", "I speak Portuguese"),
    ("native Spanish speaker", "identity", "native Spanish speaker"),
    ("My dad PASSED AWAY last year", "family", "My dad PASSED AWAY"),
    ("we lost my mom in March", "family", "we lost my mom"),
    ("we just got ENGAGED", "family", "we just got ENGAGED"),
    ("I'm divorced", "family", "I'm divorced"),
    ("I'm 34", "identity", "I'm 34"),
    ("I TAKE 50MG of sertraline", "health", "50MG"),
    ("I take metformin twice a day", "health", "take metformin twice"),
    ("I SPRAINED my ankle", "health", "I SPRAINED my ankle"),
    ("I sprained my \u212anee", "health", "I sprained my \u212anee"),
    ("My last day at Acme is Friday", "identity", "last day at Acme"),
    ("Plain text with nothing", None, ""),
    ("I'm 5 minutes away", None, ""),
])
def test_protected_categories_in_any_case(text, category, quoted):
    got, reason = protected_category(text)
    assert got == category and quoted in reason
