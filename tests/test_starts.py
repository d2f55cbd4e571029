"""engramdb.starts: when a change a text reports takes effect, for a change said to start on a
day to come; and the write path storing such a change valid from then."""
from datetime import datetime, timezone

import pytest

import engramdb
from engramdb import starts
from engramdb.starts import change_start, without_start


def _at(*a) -> float:
    return datetime(*a, tzinfo=timezone.utc).timestamp()


SAID = _at(2025, 9, 10, 12)   # a Wednesday


def _day(t):
    return None if t is None else datetime.fromtimestamp(t, timezone.utc).date().isoformat()


def test_the_module_examples_hold():
    import doctest
    assert doctest.testmod(starts).failed == 0


@pytest.mark.parametrize("text, day", [
    ("Dana is taking over the notes starting next week.", "2025-09-15"),   # the Monday of next week
    ("Spanish class is moving to Wednesdays starting next week.", "2025-09-15"),
    ("Marcus is taking over as my line manager from October 1st.", "2025-10-01"),
    ("The rent goes up to $1,600 from 1 October.", "2025-10-01"),
    ("Her cousin Ola will walk Biscuit from the 20th.", "2025-09-20"),
    ("Ola walks Biscuit from the 5th.", "2025-10-05"),                      # this month's 5th is past
    ("Let's make it £600 a month from November.", "2025-11-01"),
    ("The new price applies from March.", "2026-03-01"),                    # next March
    ("Aisha is taking over the backend starting Monday.", "2025-09-15"),
    ("Aisha is taking over the backend starting on Wednesday.", "2025-09-17"),   # not the day said
    ("Aisha takes over the backend next month.", "2025-10-01"),
    ("Aisha takes over the backend as of tomorrow.", "2025-09-11"),
    ("The office opens at 8am effective January 5.", "2026-01-05"),
    ("The rent goes up to $1,600 from the 1st of October.", "2025-10-01"),
    ("Aisha takes over the backend starting this Monday.", "2025-09-15"),
    ("The landlord raised my rent to $1,600 starting next month.", "2025-10-01"),   # told in the past, "next"
    ("Leap day pricing applies from February 29.", "2028-02-29"),
    ("Effective January 5, the office opens at 8am.", "2026-01-05"),   # a start opening its sentence
    ("Starting next week, the daily standup moves to 9:30am.", "2025-09-15"),
    ("Pickup moves to 3pm next Friday.", "2025-09-12"),
])
def test_a_start_is_resolved_forward_from_when_it_was_said(text, day):
    assert _day(change_start(text, SAID)) == day


@pytest.mark.parametrize("text", [
    "Dana is taking over the notes.", "We moved from Poetry to uv.", "I work from Monday to Friday.",
    "Open from 9 to 5.", "Starting today, Dana takes the notes.", "next time we meet", "I moved here from May 2021.",
    "from the 40th", "Standup moved to Monday.",
    # a hostile pass (helper175): a start that does not end the change's sentence, a change told in
    # the past, a source, a range, a person, a year, a day no month has
    "From Monday on the rent is $1,600.",
    "Per the email from Monday, standup moved to 10am.", "Dana took over the notes from Monday's meeting.",
    "I switched from Tuesday yoga to Thursday yoga.", "Standup moved to 10am from Monday – Friday.",
    "Hours changed: from Monday-Friday 9-5.", "The rent went up to $1,600 from September 1st.",
    "My rent went up to $1,600 as of September 5th.", "The landlord raised my rent to $1,600 from the 1st.",
    "Dana took over the standup notes from Jan.", "Dana is taking over the standup notes from April.",
    "The rent went up to $1,600 from May 2019.", "The rent goes up to $1,600 from October 1, 2024.",
    "The rent goes up to $1,600 from September 31st.",
])
def test_what_names_no_start_to_come(text):
    assert change_start(text, SAID) is None


@pytest.mark.parametrize("text", [
    "The landlord raised my rent to $1,600. Are you free starting next week?",
    "The landlord raised my rent to $1,600. I'm on vacation from next week.",
    "Standup moved to 10am, so I'll see you next Monday.",
    "My doctor raised my lisinopril to 20 mg. Next appointment is next month.",
    "Marcus Bell took over as my line manager. He's off from Friday.",
])
def test_a_start_of_another_sentence_times_no_change(text):
    """helper175: a start anywhere in a message moved the date of the change it holds."""
    from engramdb.changes import change_report
    assert change_start(text, SAID, reads=change_report) is None


def test_without_start_leaves_the_change():
    assert without_start("Also Dana is taking over the notes from me starting next week.") == \
        "Also Dana is taking over the notes from me."
    assert without_start("We moved from Poetry to uv.") == "We moved from Poetry to uv."
    assert without_start("The rent goes up to $1,600 from the 1st of October.") == "The rent goes up to $1,600."
    for kept in ("From Monday on the rent is $1,600.", "Hours changed: from Monday-Friday 9-5.",
                 "The rent went up to $1,600 from May 2019.", "The rent goes up to $1,600 from September 31st."):
        assert without_start(kept) == kept


@pytest.mark.parametrize("text, read", [
    ("Spanish class is moving to Wednesdays starting next week. Same time, 6:30.",
     "Spanish class moves to Wednesdays. Same time, 6:30."),
    ("My doctor is raising my lisinopril to 20 mg starting Monday.", "My doctor raises my lisinopril to 20 mg."),
    ("We are moving standup to 10am from next week.", "We move standup to 10am."),
    ("Starting next week, the daily standup moves to 9:30am.", "the daily standup moves to 9:30am."),
    ("I'm moving to Seattle next month.", "I'm moving to Seattle."),   # (the speaker's plan: no change verb read)
])
def test_the_clause_a_start_times_is_read_in_the_present(text, read):
    """helper175: "is moving", "is raising", "is going up" with a start to come, and a start
    opening its sentence, were no change: the readers know "moves", "raises", "goes up"."""
    assert without_start(text) == read



@pytest.mark.parametrize("text, read", [
    ("Standup moved to 10am starting this week.", "Standup moved to 10am now."),
    ("Standup moved to 10:00 starting this week; Dana wants a focus block first.",
     "Standup moved to 10:00 now; Dana wants a focus block first."),
    ("Standup is at 10am from now on.", "Standup is at 10am now."),
    ("My rent is $2,100 as of this month!", "My rent is $2,100 now!"),
    ("Starting today, standup is at 10am.", "standup is at 10am now."),
    ("The new rate applies effective immediately.", "The new rate applies now."),
])
def test_a_start_that_is_now_reads_as_now(text, read):
    """helper-242: "Standup moved to 10am starting this week." linked nothing (only a start to
    come was cut, so the readers saw no value at the end of the change)."""
    assert without_start(text) == read
    assert change_start(text, SAID) is None   # (it holds from when it was said)


@pytest.mark.parametrize("text", [
    "The meeting was moved to 2 hours from now.", "The deadline is 3 days from today.",
    "The flight is 2 weeks from now.", "Standup is at 10am this week.",
    "Soccer practice moved to 5:30pm a fortnight from today.",
])
def test_a_time_from_now_or_a_bare_now_is_no_start(text):
    assert without_start(text) == text


def test_each_clause_before_a_semicolon_may_end_in_a_start():
    """helper-243: the first time of a sentence ("today" before its semicolon) hid the start that
    ends it, and a start of another clause dated the change."""
    text = "Got the letter today; my rent is going up to $1,950 starting next month."
    assert without_start(text) == "Got the letter today; my rent goes up to $1,950."
    assert _day(change_start(text, SAID, reads=_reads)) == "2025-10-01"
    text = "I'm off from tomorrow; standup moves to 10am starting Monday."
    assert _day(change_start(text, SAID, reads=_reads)) == "2025-09-15"


def _reads(sentence):
    from engramdb.changes import change_report
    return change_report(sentence)


def test_a_change_to_start_later_is_stored_valid_from_then(tmp_path):
    """The write path stores a change report with a start valid from it; a given valid_from, any
    other text and a change in effect keep their own."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        m.add("My rent is $1,450 a month.", id="rent", created_at=_at(2025, 9, 1))
        m.add("The rent goes up to $1,600 from October 1st.", id="up", created_at=SAID)
        m.add("The rent goes up to $1,700 from January 1st.", id="given", created_at=SAID,
              valid_from=_at(2025, 12, 1))
        m.add("I work from Monday to Friday.", id="week", created_at=SAID)
        assert _day(m.get("up").valid_from) == "2025-10-01"
        assert _day(m.get("given").valid_from) == "2025-12-01"
        assert _day(m.get("week").valid_from) == "2025-09-10"
        assert "contradicts" in {e.relation.value for e in m.edges("up") if "rent" in (e.source, e.target)}
        assert m.recall("How much is my rent?", k=3, now=_at(2025, 10, 20), reinforce=False).hits[0].id in ("up", "given")


def test_a_start_past_the_calendars_end_is_none():
    late = _at(9999, 12, 20)
    assert change_start("The rent goes up to $1,600 starting next year.", late) is None
    assert change_start("The rent goes up to $1,600 starting next month.", late) is None
    assert change_start("The rent goes up to $1,600 from the 5th.", late) is None


def test_a_change_in_the_progressive_to_start_later_is_linked_and_dated(tmp_path):
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        m.add("My Spanish class is on Tuesdays at 6:30pm.", id="old", created_at=_at(2025, 9, 1))
        m.add("Spanish class is moving to Wednesdays starting next week.", id="new", created_at=SAID)
        assert _day(m.get("new").valid_from) == "2025-09-15"
        assert "contradicts" in {e.relation.value for e in m.edges("new") if "old" in (e.source, e.target)}
        assert m.recall("When is my Spanish class?", k=2, now=_at(2025, 9, 20), reinforce=False).hits[0].id == "new"
