"""Handovers (engramdb.handovers): a duty or role passed from one person to another is linked
``contradicts`` to the earlier statement of who held it, so that recall puts the new holder first
and warns; plans, stand-ins, history, another duty and look-alikes are left alone."""
from __future__ import annotations

import doctest

import pytest

import engramdb
from engramdb import handovers
from engramdb.handovers import handover_report, hands_over

T0 = 1_700_000_000

HANDOVERS = [
    ("Raj handles the Harbor Dental backend.", "Aisha Khan is taking over the Harbor Dental backend."),
    ("Raj is our tech lead.", "Aisha replaced Raj as tech lead."),
    ("Raj owns billing.", "Raj handed billing over to Aisha."),
    ("Raj is the PM for Apollo.", "Aisha is now the PM for Apollo."),
    ("Raj is our tech lead.", "Raj left, so Aisha took over as tech lead."),
    ("Raj handles the backend.", "Aisha took over the backend from Raj."),
    ("Dr. Patel is my dentist.", "Dr. Kim is now my dentist."),
    ("Our accountant is Dave Miller.", "Our new accountant is Priya Shah."),
    ("Maria runs payroll.", "Tom now runs payroll."),
    ("Raj is in charge of the release process.", "The release process is now handled by Aisha."),
    ("I handle the on-call rotation.", "Aisha is taking over the on-call rotation."),
    ("Raj handles the backend.", "I'm taking over the backend."),
    ("And my 1:1 with my manager Fiona is on Tuesdays at 10am.", "Marcus Bell is taking over as my line manager."),
    # a hostile pass (helper169): titles, another's role, "I'm now in charge of", a kin holder, a role's "role"
    ("Dr. Okafor is my GP.", "My new GP is Dr. Lindqvist."),
    ("Dr. Okafor is my GP.", "Dr. Lindqvist replaced Dr. Okafor as my GP."),
    ("Dr. Reyes is Leo's paediatrician.", "Leo's new paediatrician is Dr. Adeyemi."),
    ("Priya is in charge of the quarterly board deck.", "I'm now in charge of the quarterly board deck."),
    ("Raj handles payroll.", "Since the reorg I'm now responsible for payroll."),
    ("My husband Mark takes care of the school run every morning.", "Since last week I've taken over the school run."),
    ("My husband does the grocery shopping.", "I've taken over the grocery shopping."),
    ("Kim is our scrum master.", "Kim handed the scrum master role over to Leo."),
    ("My sister's dentist is Dr. Kim.", "My sister's dentist is now Dr. Patel."),   # hers in both
    ("Raj's team handles billing.", "Aisha is taking over billing."),   # a holder's verb after a possessive
    # a fresh user (helper170): the new holder named in another clause of the team's introduction
    ("Raj handles the release process, Tom does the on-call rotation, Priya builds the billing service.",
     "Priya is taking over the release process from Raj."),
    # a last fresh user (helper171): a change in effect now
    ("Raj handles the release process every Friday.",
     "Update: Priya is taking over the release process from Raj starting this week."),
    # helper-235: full names and an account's role, "IT" before the duty
    ("Albert Wesker is Umbrella's IT admin.", "Jill Valentine replaced Albert Wesker as Umbrella's IT admin."),
]

NO_HANDOVERS = [
    ("Raj handles the backend.", "Aisha will take over the backend next month."),   # a plan, later
    ("Raj handles the backend.", "Aisha will cover the backend while Raj is on leave."),   # a stand-in
    ("Raj handles the backend.", "Aisha is covering the backend for two weeks."),
    ("Raj handles the backend.", "Should Aisha take over the backend?"),   # a question
    ("Raj handles the backend.", "Aisha might take over the backend."),
    ("Raj handles the backend.", "Aisha took over the backend in 2019."),   # history
    ("Raj handles the frontend.", "Aisha is taking over the backend."),   # another duty
    ("Raj used to handle the backend.", "Aisha is taking over the backend."),   # no holder now
    ("Raj handles the backend.", "assistant: Noted, Aisha is taking over the backend."),   # an echo
    ("Raj handles the backend.", "My sister said Aisha is taking over the backend."),   # someone's words
    ("Raj is happy.", "Aisha is now happy."),   # no role
    ("Tom is 5.", "Tom is now 6."),
    ("Raj is the tech lead.", "Aisha is the tech lead."),   # two statements, no report of a change
    ("The game is over.", "The game is now over."),
    ("Raj handles the backend.", "The rain took over the whole afternoon."),
    # a hostile pass (helper169)
    ("My desk chair is a Herman Miller.", "My cat Luna has taken over my desk chair."),   # no role
    ("Our neighbour is Dave.", "Our new neighbour is Tom, he moved into number 12."),   # one of several
    ("Raj handles billing.", "Aisha took over billing when Raj was out with the flu."),   # a stand-in
    ("Linda runs payroll at Acme.", "Aisha now runs payroll alongside Linda."),   # shared
    ("Raj handles billing.", "Aisha took over billing last year."),   # history
    ("My dentist is Dr. Kim.", "My sister's dentist is now Dr. Patel."),   # another's role
    ("My sister's dentist is Dr. Kim.", "My new dentist is Dr. Patel."),
    ("Priya and Raj handle the release process.", "Priya is taking over the release process."),   # she holds it already
    ("Priya, Raj and Tom handle the release process.", "Priya is taking over the release process."),
    ("Albert Wesker is Stark's IT admin.", "Jill Valentine replaced Albert Wesker as Umbrella's IT admin."),   # another's
]


def test_the_module_examples_hold():
    assert doctest.testmod(handovers).failed == 0


@pytest.mark.parametrize("old, new", HANDOVERS)
def test_a_handover_takes_the_duty_from_its_holder(old, new):
    assert handover_report(new) is not None
    assert hands_over(new, old)


@pytest.mark.parametrize("old, new", NO_HANDOVERS)
def test_what_is_no_handover_of_that_duty(old, new):
    assert not hands_over(new, old)


def test_a_handover_is_a_change_report_of_its_own_sort():
    from engramdb.changes import change_report, changes_value
    assert change_report("Aisha Khan is taking over the Harbor Dental backend.").value == ("handover", "", "aisha khan")
    assert changes_value("Aisha Khan is taking over the Harbor Dental backend.", "Raj handles the Harbor Dental backend.")
    assert not changes_value("Aisha is taking over the backend.", "Raj handles the frontend.")


def test_the_report_names_the_new_and_old_holder_and_the_duty():
    got = handover_report("Aisha took over the backend from Raj Patel.")
    assert (got.new, got.old, got.duty) == (("aisha",), ("raj", "patel"), ("backend",))
    assert handover_report("I'm taking over the on-call rotation.").new == ("i",)
    assert handover_report("Aisha is now the PM for Apollo.").duty == ("pm", "apollo")


def _change_links(m, new, old):
    return {e.relation.value for e in m.edges(new) if e.target == old and e.relation.value != "related_to"}


@pytest.mark.parametrize("old, new", HANDOVERS[:6])
def test_the_write_path_links_a_handover_to_the_old_holder(tmp_path, old, new):
    """Linked contradicts, never superseded (the rules may misread), with unrelated memories
    between the two."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        m.add(old, id="old", created_at=T0)
        m.add_batch([{"text": f"Note {i}: the weather was fine and lunch was pasta.", "created_at": T0 + 60 * i}
                     for i in range(1, 8)])
        m.add(new, id="new", created_at=T0 + 3600)
        assert _change_links(m, "new", "old") == {"contradicts"}
        assert m.get("old").state is engramdb.MemoryState.ACTIVE


@pytest.mark.parametrize("old, new", NO_HANDOVERS[:8])
def test_the_write_path_leaves_other_duties_and_plans_alone(tmp_path, old, new):
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        m.add(old, id="old", created_at=T0)
        m.add(new, id="new", created_at=T0 + 3600)
        assert _change_links(m, "new", "old") == set()


def _stored_in_reverse(tmp_path, old, new):
    """The change links of a store where the handover (said in March) was stored before the
    statement of who held the duty (said in January): sessions imported out of date order."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        m.add(new, id="new", created_at=T0 + 60 * DAY)
        m.add_batch([{"text": f"Note {i}: the weather was fine and lunch was pasta.", "created_at": T0 + DAY * i}
                     for i in range(1, 8)])
        m.add(old, id="old", created_at=T0)
        return _change_links(m, "new", "old") | _change_links(m, "old", "new")   # (a "value" pair: from the later stored)


DAY = 86400


@pytest.mark.parametrize("old, new", HANDOVERS)
def test_a_holder_stored_after_the_handover_said_later_is_linked_to_it(tmp_path, old, new):
    """The link does not depend on the order of storing. Before, a handover was compared with
    the statements stored before it only."""
    assert _stored_in_reverse(tmp_path, old, new) == {"contradicts"}


@pytest.mark.parametrize("old, new", [pair for pair in NO_HANDOVERS if pair != ("Tom is 5.", "Tom is now 6.")])
def test_what_is_no_handover_stays_unlinked_in_either_order(tmp_path, old, new):
    # (left out: "Tom is 5." and "Tom is now 6." are a changed value, facts.conflict, in either order)
    assert _stored_in_reverse(tmp_path, old, new) == set()


def test_a_holder_said_after_the_handover_is_not_linked_to_it(tmp_path):
    """Said after the handover, "Raj handles the backend." may be a handover back: no link."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        m.add("Aisha took over the backend from Raj.", id="new", created_at=T0)
        m.add("Raj handles the backend.", id="old", created_at=T0 + 60 * DAY)
        assert _change_links(m, "new", "old") == set()


FILLER = ["I had pasta for lunch today.", "The weather is nice in the afternoon.", "Can you remind me to call mom?",
          "I finished the book about Roman history.", "Our sprint review went fine.", "My bike needs a new chain."]


@pytest.mark.parametrize("old, new, question", [
    ("Raj handles the Harbor Dental backend.", "Aisha Khan is taking over the Harbor Dental backend.",
     "Who handles the Harbor Dental backend?"),
    ("Raj is our tech lead.", "Aisha replaced Raj as tech lead.", "Who is our tech lead?"),
    ("Our accountant is Dave Miller.", "Our new accountant is Priya Shah.", "Who is our accountant?"),
    ("Maria runs payroll.", "Tom now runs payroll.", "Who runs payroll?"),
])
@pytest.mark.parametrize("chat", [False, True])
def test_recall_puts_the_new_holder_first_and_warns(tmp_path, old, new, question, chat):
    """Before handovers were read, the old holder came first for three of these four."""
    texts = [old, *FILLER, new, *FILLER[:3]]
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        if chat:   # one batch: the report and the statement are linked inside it
            m.add_conversation([{"role": "user", "content": t, "created_at": T0 + 3600 * i} for i, t in enumerate(texts)])
        else:
            m.add_batch([{"text": t, "created_at": T0 + 3600 * i} for i, t in enumerate(texts)])
        got = m.recall(question, k=3, reinforce=False)
        assert got.hits[0].text.endswith(new)
        top = got.hits[0].id
        assert any(w.later == top and any(m.get(x).text.endswith(old) for x in (w.source, w.target))
                   for w in got.warnings)


@pytest.mark.parametrize("old, new, question, start, old_first", [
    ("Raj handles the backend.", "Aisha is taking over the backend starting Monday.", "Who handles the backend?",
     "2023-11-20", True),
    ("At work I'm in charge of writing the Monday standup notes.",
     "Also Dana is taking over the Monday standup notes from me starting next week.",
     "Who writes the Monday standup notes?", "2023-11-20", True),
    # (before December the report, which names the question's words, may come first by its own
    # score: it says from when)
    ("And my 1:1 with my manager Fiona is on Tuesdays at 10am.",
     "Marcus Bell is taking over as my line manager from December 1st.", "Who is my line manager?", "2023-12-01",
     False),
])
def test_a_handover_to_start_on_a_day_to_come_holds_from_then(tmp_path, old, new, question, start, old_first):
    """helper174 and helper168, fresh users: a handover said to start later was no handover at all
    (linked to nothing, the old holder first ever after). It is one valid from the day it names
    (engramdb.starts): the old holder comes first before that day, the new one after it."""
    from datetime import datetime, timezone

    said = T0 + 3 * DAY   # 2023-11-17, a Friday
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        m.add(old, id="old", created_at=T0)
        m.add(new, id="new", created_at=said)
        assert _change_links(m, "new", "old") == {"contradicts"}
        assert datetime.fromtimestamp(m.get("new").valid_from, timezone.utc).date().isoformat() == start
        before = m.recall(question, k=2, now=said + DAY, reinforce=False)
        assert {h.id for h in before.hits} == {"old", "new"} and before.warnings
        assert not old_first or before.hits[0].id == "old"
        assert m.recall(question, k=2, now=said + 30 * DAY, reinforce=False).hits[0].id == "new"
