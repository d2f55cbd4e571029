"""Statements about the user in the third person (as a model's memory tool writes them) read as
the user's own: engramdb.thirdperson, and through it the home, employer and value readers."""
import doctest

import pytest

import engramdb
from engramdb import thirdperson
from engramdb.thirdperson import in_first_person


def test_doctests():
    assert doctest.testmod(thirdperson).failed == 0


@pytest.mark.parametrize("text,first", [
    ("User lives in Boston.", "I live in Boston."),
    ("The user moved to Cambridge.", "I moved to Cambridge."),
    ("The user now lives in Cambridge.", "I now live in Cambridge."),
    ("User is allergic to peanuts.", "I am allergic to peanuts."),
    ("User doesn't drink coffee.", "I don't drink coffee."),
    ("User will move to Denver in May.", "I will move to Denver in May."),
    ("The user's sister Rita lives in Braga.", "My sister Rita lives in Braga."),
    ("Dana is the user's sister.", "Dana is my sister."),
    ("The user's moving to Denver next month.", "I'm moving to Denver next month."),
    ("The user likes hiking and the user lives in Oslo.", "I like hiking and I live in Oslo."),
    ("User is a nurse at Mass General and lives in Boston.", "I am a nurse at Mass General and live in Boston."),
    ("Note: User lives in Boston.", "Note: I live in Boston."),
    ("where does the user live?", "where do I live?"),
    ("where does the user currently live", "where do I currently live"),   # (a tool's query: no "?")
    ("Is the user vegetarian?", "Am I vegetarian?"),
    ("What is the user's name?", "What is my name?"),
    # helper-229: the user and one of theirs, one subject
    ("User and her husband live in Austin.", "My husband and I live in Austin."),
    ("The user and his wife work at Stripe.", "My wife and I work at Stripe."),
])
def test_the_user_as_subject_or_owner_is_the_speaker(text, first):
    assert in_first_person(text) == first


@pytest.mark.parametrize("text", [
    "The user manual moved to v2.", "User research shows people skip onboarding.", "Remind the user to take meds.",
    "A power user has 3 accounts.", "Users love it.", "user: I moved to Denver.", "My username is dana42.",
    "The most important thing is the user moved.", "I live in Boston.",
    # helper-223: a chat turn's, ticket's or log's user is their app's; compounds; nouns after "does the user"
    "user: The user lives in Germany but sees US prices. Why?", "Ticket #4412: user moved to Germany and can't log in.",
    "Support: User works at Acme and needs SSO enabled.", "INFO: user relocated to Frankfurt.",
    "The test user's name is Alice.", "Each user's quota is 5 GB.", "Then the user's name is Alice.",
    "Where does the user data live?", "Where does the user's home directory live?",
    "I had a call with the user and her lawyer."])
def test_other_uses_of_the_word_are_left(text):
    assert in_first_person(text) == text


@pytest.mark.parametrize("earlier,later,question", [
    ("User lives in Boston.", "User moved to Cambridge.", "where does the user live?"),
    ("The user lives in Boston.", "The user now lives in Cambridge.", "where do I live?"),
    ("User works as a nurse at Mass General.",
     "User started a new job as charge nurse at Boston Children's Hospital.", "where does the user work?"),
    ("User's rent is $1,450 a month.", "The user's landlord raised the rent to $1,600.", "how much is the user's rent?"),
])
def test_a_change_written_in_the_third_person_outdates_the_old_value(tmp_path, earlier, later, question):
    """helper-221: an MCP agent's memories ("User lives in Boston." then "User moved to
    Cambridge.") were linked by nothing, and "where does the user live?" put Boston first at
    relevance 1.0 with no warning. The later one now comes first, and recall warns."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add(earlier, id="old", created_at="2025-01-01")
        mem.add(later, id="new", created_at="2025-02-01")
        res = mem.recall(question, k=2, now="2025-12-01", reinforce=False)
        assert [h.id for h in res.hits] == ["new", "old"]
        assert [(w.source, w.target) for w in res.warnings] == [("new", "old")]
