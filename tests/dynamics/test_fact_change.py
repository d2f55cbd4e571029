"""The rule-based fact-change checker: a changed number, date, name or negation is never a duplicate."""
import pytest

from engramdb.dynamics.admission import fact_change, fact_signature

CHANGED = [
    ("The meeting is at 3pm", "The meeting is at 4pm", "number"),
    ("Budget is $1,200", "Budget is $1,500", "number"),
    ("We have two kids", "We have three kids", "number"),
    ("Confirmation code QX7Z9M", "Confirmation code QX7Z9N", "number"),
    ("The wedding is on 2026-05-16", "The wedding is on 2026-05-17", "number"),
    ("We leave in May", "We leave in June", "date"),
    ("The call moved to Friday", "The call moved to Monday", "date"),
    ("Dentist appointment tomorrow", "Dentist appointment today", "date"),
    ("We fly to Lisbon with TAP", "We fly to Porto with TAP", "name"),
    ("Caroline went to the support group", "Melanie went to the support group", "name"),
    ("I like sushi", "I don't like sushi", "negation"),
    ("The hotel has parking", "The hotel has no parking", "negation"),
    ("She can come", "She cannot come", "negation"),
    ("He never drinks coffee", "He drinks coffee", "negation"),
]

SAME = [
    ("Dinner with Ana on Friday", "dinner with Ana on Friday!"),
    ("The flight leaves at 7", "the flight leaves at 7 ."),
    ("I really love hiking in the mountains", "I love hiking in the mountains a lot"),
    ("The hotel is near the river", "Our hotel is near the river"),
    ("We may bring snacks", "We may bring some snacks"),      # "may" lower-case is not a month
]


@pytest.mark.parametrize("new,old,kind", CHANGED)
def test_changed_fact_detected(new, old, kind):
    assert fact_change(new, old) == kind
    assert fact_change(old, new) == kind     # symmetric


@pytest.mark.parametrize("new,old", SAME)
def test_rewording_is_no_change(new, old):
    assert fact_change(new, old) is None


def test_signature_parts():
    sig = fact_signature("On May 14 Ana didn't take flight TP 218 to Lisbon")
    assert sig["number"] == {"14", "218"}
    assert sig["date"] == {"may"}
    assert sig["name"] == {"ana", "tp", "lisbon"}
    assert sig["negation"] == 1


@pytest.mark.parametrize("a,b,clash", [
    ("I take lisinopril 5 mg daily", "I take lisinopril 10 mg daily", True),
    ("rent went up to 900 euros", "My rent is 900 euros and I walk 5 km", False),   # only shared quantities
    ("Bake at 220 degrees for 20 minutes", "Preheat to 220 degrees", False),
    ("I take 10 MG daily", "I take 10 mg daily", False),
    ("no numbers here", "none there either", False),
])
def test_quantity_clash(a, b, clash):
    """One quantity with two values (a number before the same word); consolidation keeps such
    turns apart."""
    from engramdb.facts import quantity_clash

    assert quantity_clash(a, b) is clash and quantity_clash(b, a) is clash
