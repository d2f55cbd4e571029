"""Change reports (engramdb.changes): a later statement that a value was changed to another, in
other words and often with another subject ("My doctor raised my lisinopril to 20 mg" after "I
take 10 mg of lisinopril every morning"), is linked contradicts to the earlier statement on the
write path (recall puts it first and warns); a possessive attribute with a change adjective ("My
new phone number is ...") supersedes as the same words would."""
from __future__ import annotations

import doctest

import pytest

import engramdb
from engramdb import changes
from engramdb.changes import change_report, changes_value
from engramdb.facts import conflict, subject_key, subject_of

T0 = 1_700_000_000.0
DAY = 86_400.0

CHANGES = [
    ("My doctor raised my lisinopril to 20 mg.", "I take 10 mg of lisinopril every morning."),
    ("The doctor raised my lisinopril dose to 20 mg.", "I take 10 mg of lisinopril every morning."),
    ("user: my doctor bumped my lisinopril from 10 to 20 mg", "I take 10 mg of lisinopril every morning."),
    ("Standup moved to 10am.", "Standup is at 9:30am."),
    ("Standup moved to 10:30am.", "Standup is at 9:30am."),
    ("The landlord raised our rent to 2,100 dollars.", "Our rent is 1,900 dollars a month."),
    ("Dentist moved my appointment to October 27 at 10am.", "Dentist appointment on October 20 at 3pm with Dr. Lee."),
    ("We moved the deadline to March 3.", "The deadline is February 28."),
    ("They raised the price of the Pro plan to $49.", "The Pro plan costs $39 a month."),
    ("Netflix raised prices to $20.", "Netflix costs $15 a month."),
    ("I cut my coffee to 2 cups a day.", "I drink 4 cups of coffee a day."),
    ("The meeting was moved to Friday.", "The meeting is on Thursday at 2pm."),
    ("We switched our plan to the $29 tier.", "Our plan costs $19 a month."),
    ("The HOA board voted to increase dues from $250 to $300 per quarter.", "The HOA dues are $250 per quarter."),
    ("Renewal notice came in: my car insurance is now $96 a month.", "I pay $82 a month for car insurance."),
    ("Daycare sent a notice: latest pickup is now 5:00pm.", "Daycare pickup is at 5:30pm at the latest."),
    ("I upped my monthly food bank donation to $75.", "I donate $50 a month to the food bank."),
    # missed by the first rules (hostile pass): a measure noun in the subject, "dollars" for "$",
    # a word with a digit as the thing, what the amount is "of", "doubled"
    ("Pro plan price increased from $29 to $35.", "The Pro plan costs $29 a month."),
    ("Our rent increased to 2100 dollars.", "Our rent is $1,900 a month."),
    ("My A1C dropped to 6.8%.", "My A1C is 7.2%."),
    ("Switched to 20 mg of lisinopril.", "I take 10 mg of lisinopril every morning."),
    ("Doctor doubled my lisinopril to 20 mg.", "I take 10 mg of lisinopril every morning."),
]
NOT_CHANGES = [
    ("Standup moved to 9:30am.", "Standup is at 9:30am."),                                # the same value
    ("They raised the price of the Pro plan to $49.", "The Team plan costs $39 a month."),  # another plan
    ("My doctor raised my lisinopril to 20 mg.", "I take 10 mg of metformin every morning."),
    ("We might move standup to 10am.", "Standup is at 9:30am."),                          # not done
    ("Should we move standup to 10am?", "Standup is at 9:30am."),
    ("We didn't move standup to 10am.", "Standup is at 9:30am."),
    ("I want to raise my dose to 20 mg.", "I take 10 mg of lisinopril."),
    ("My doctor raised my lisinopril to 20 mg.", "I take 10 mg of lisinopril and 5 mg of amlodipine."),  # which?
    ("I moved to Porto in 2020.", "I live in Lisbon since 2015."),                         # no value after "to"
    ("Netflix raised prices to $20.", "I pay $15 for Spotify."),
    ("We moved the server to 10.0.0.5.", "The server is at 10.0.0.4."),
    ("I moved the 2pm meeting to 3pm.", "The weekly sync is at 2pm."),
    ("My doctor raised the dose to 20 mg.", "I take 10 mg of lisinopril."),              # whose dose?
    ("Standup moved to 10am.", "Is standup at 9:30am?"),                                  # no statement
    ("The standup moved from 3:30 to 1pm.", "The standup is at 3pm."),                   # another old value
    ("We need to move standup to 10am.", "Standup is at 9:30am."),                        # a plan
    ("My brother's landlord raised his rent to $1,800.", "My rent is $1,450 a month."),   # someone else's
    ("We're running a promo that drops Pro to $19 for Black Friday weekend only.", "The Pro plan is $29 a month."),
    ("This morning I pushed my blood pressure pill to 11am.", "I take my blood pressure pill at 8am."),
    ("I moved my reminder for the dentist appointment to March 2.", "My dentist appointment is March 3 at 2pm."),
    ("We moved standup to 10am on Monday, then moved it right back to 9:30am.", "Our standup is at 9:30am."),
    ("Did they move the office closing time to 5pm? I heard a rumor.", "The office closes at 6pm."),
    ("Ana proposed moving the offsite to June 5.", "The team offsite is on June 12."),
    # the hostile pass's reports of another thing
    ("The vet raised the lisinopril to 5 mg for Max.", "I take 10 mg of lisinopril every morning."),
    ("My doctor raised my lisinopril to 20 mg.", "Dad takes 10 mg of lisinopril every morning."),
    ("Globex upgraded their plan to $99 a month.", "Acme's plan is $49 a month."),
    ("The staging database backup moved to 3am.", "The production database backup runs at 1am."),
    ("The Q4 launch moved to December 1.", "The Q3 launch date is September 15."),
    ("user: Please move my dentist appointment to October 27.", "Dentist appointment on October 20."),
    ("assistant: I recommend lowering the thermostat to 68 degrees.", "The thermostat is at 72 degrees."),
    ("The gym is raising fees to $60 in January.", "The gym membership fee is $45 a month."),
    ("In 2019 standup was moved to 10am.", "Standup is at 9:30am."),
    ("Pickup moved to 12:30pm on Friday for early dismissal.", "School pickup is at 3pm."),
    ("Standup moved to 10am, then back to 9:30am.", "Standup is at 9:30am."),
    ("The TV dropped to $650 on Black Friday.", "I bought the TV for $800."),
    ("The allowance for Danielle went up to $15.", "The allowance for Daniel is $10 a week."),
    ("assistant: your rent is now $2,000 a month", "Our rent is $1,900 a month."),
]


def test_the_module_examples_hold():
    assert doctest.testmod(changes).failed == 0


@pytest.mark.parametrize("new,old", CHANGES)
def test_a_report_changes_the_value_it_names(new, old):
    assert changes_value(new, old)
    assert not changes_value(old, new)   # the statement is no report of a change


@pytest.mark.parametrize("new,old", NOT_CHANGES)
def test_what_is_no_change_of_that_value(new, old):
    assert not changes_value(new, old)


def test_the_report_reads_sort_unit_and_value():
    assert change_report("user: my doctor bumped my lisinopril from 10 to 20 mg").value == ("amount", "mg", "20")
    assert change_report("Standup moved to 10:30am.").value == ("time", "", "10:30")
    assert change_report("Standup moved to 2 pm.").value == ("time", "", "14:00")
    assert change_report("We moved the deadline to 3 March.").value == ("date", "", "03-03")
    assert change_report("The meeting was moved to Friday.").value == ("date", "", "friday")
    assert change_report("They raised the fee to 12%.").value == ("amount", "%", "12")


@pytest.mark.parametrize("new,old", [("My new phone number is 555-9876.", "My phone number is 555-1234."),
                                     ("Our new rent is 2100 dollars a month.", "Our rent is 1900 dollars a month."),
                                     ("user: my new phone number is 555-9876", "My phone number is 555-1234.")])
def test_a_change_adjective_keeps_the_subject(new, old):
    assert conflict(new, old) == "number"
    assert subject_key(subject_of(new)) == subject_key(subject_of(old))


def test_a_change_adjective_changes_nothing_else():
    assert conflict("My new phone number is 555-1234.", "My phone number is 555-1234.") is None
    assert conflict("My sister's new phone number is 555-9876.", "My phone number is 555-1234.") is None
    assert subject_key(("my", "new", "rent")) == ("my", "rent") and subject_key(("new", "york")) == ("new", "york")
    assert subject_key(("my", "new", "client")) == ("my", "new", "client")   # another client, no attribute


@pytest.fixture
def mem(tmp_path):
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        yield m


@pytest.mark.parametrize("new,old", CHANGES[:8] + CHANGES[-4:])
def test_the_write_path_links_a_report_to_the_value_it_changes(mem, new, old):
    """Linked contradicts, never superseded: a report in other words may be of another thing (a
    hostile pass found dozens: "The vet raised the lisinopril to 5 mg for Max."), and a false
    supersede hides a true fact; recall puts the later first and warns."""
    mem.add(old, id="old", created_at=T0)
    mem.add(new, id="new", created_at=T0 + DAY)
    assert mem.get("old").state.value == "active"
    assert [e.relation.value for e in mem.edges("new") if e.target == "old"] == ["contradicts"]


def test_a_new_attribute_value_supersedes(mem):
    mem.add("My phone number is 555-1234.", id="old", created_at=T0)
    mem.add("My new phone number is 555-9876.", id="new", created_at=T0 + DAY)
    assert mem.get("old").superseded_by == "new"


def test_a_new_person_is_another_one(mem):
    mem.add("My client pays $100 an hour.", id="old", created_at=T0)
    mem.add("My new client pays $150 an hour.", id="new", created_at=T0 + DAY)
    assert mem.get("old").state.value == "active"
    assert not [e for e in mem.edges("new") if e.target == "old" and e.relation.value != "related_to"]


def test_a_report_older_than_the_statement_only_contradicts_it(mem):
    mem.add("I take 10 mg of lisinopril every morning.", id="old", created_at=T0)
    mem.add("My doctor raised my lisinopril to 20 mg.", id="new", created_at=T0 - DAY)
    assert mem.get("old").state.value == "active" and mem.get("new").state.value == "active"
    assert "contradicts" in {e.relation.value for e in mem.edges("new")}


@pytest.mark.parametrize("new,old", NOT_CHANGES)
def test_the_write_path_leaves_other_values_alone(mem, new, old):
    mem.add(old, id="old", created_at=T0)
    mem.add(new, id="new", created_at=T0 + DAY)
    assert mem.get("old").state.value == "active"
    assert "supersedes" not in {e.relation.value for e in mem.edges("new")}


def test_recall_answers_with_the_changed_value_first_and_warns(mem):
    mem.add("I take 10 mg of lisinopril every morning.", id="old", created_at=T0)
    mem.add("My doctor raised my lisinopril to 20 mg.", id="new", created_at=T0 + DAY)
    res = mem.recall("how much lisinopril do I take?", now=T0 + 2 * DAY)
    ids = [h.id for h in res.hits]
    assert ids[0] == "new" and "old" in ids
    assert {(w.source, w.target) for w in res.warnings} == {("new", "old")}


def test_at_k_1_recall_answers_with_the_changed_value(mem):
    """A fresh user's k=1 recall returned the old dose: the report ranked below the statement it
    changes, and the later-first rule only reordered hits already in the list."""
    mem.add("I take 10 mg of lisinopril every morning.", id="old", created_at=T0, recorded_at=T0)
    mem.add("I like hiking on weekends.", id="other", created_at=T0 + DAY, recorded_at=T0 + DAY)
    mem.add("My doctor raised my lisinopril to 20 mg.", id="new", created_at=T0 + 2 * DAY, recorded_at=T0 + 2 * DAY)
    res = mem.recall("What dose of lisinopril do I take?", k=1, now=T0 + 3 * DAY, reinforce=False)
    assert [h.id for h in res.hits] == ["new"]
    assert [(w.source, w.target, w.target_in_hits) for w in res.warnings] == [("new", "old", False)]
    both = mem.recall("What dose of lisinopril do I take?", k=3, now=T0 + 3 * DAY, reinforce=False)
    assert [h.id for h in both.hits][:2] == ["new", "old"]
    assert [h.score for h in both.hits] == sorted((h.score for h in both.hits), reverse=True)
    before = mem.recall("What dose of lisinopril do I take?", k=1, as_of=T0 + DAY, now=T0 + 3 * DAY, reinforce=False)
    assert [h.id for h in before.hits] == ["old"]   # the report was not recorded yet


@pytest.mark.parametrize("report", ["My rent went up to $1,450 a month.", "My rent rose to $1,450 a month.",
                                    "Our rent went up to 1,450 dollars."])
def test_a_value_that_went_up_or_rose_is_a_change(mem, report):
    mem.add("My rent is $1,200 a month.", id="old", created_at=T0)
    mem.add(report, id="new", created_at=T0 + DAY)
    assert "contradicts" in {e.relation.value for e in mem.edges("new") if e.target == "old"}
    assert mem.get("old").state.value == "active"
    assert [h.id for h in mem.recall("How much is my rent?", k=1, reinforce=False).hits] == ["new"]


@pytest.mark.parametrize("text", ["We went to 3 stores before noon.", "The kids went to bed at 9pm.",
                                  "I fell to the floor at 3pm."])
def test_going_somewhere_is_no_change(text):
    assert change_report(text) is None
