"""Renames (engramdb.renames): a thing of the speaker's given a new name ("We renamed the cat:
she's called Luna now.") is linked contradicts to the earlier statement of its name ("My cat's
name is Whiskers."), in other words than it, so "What is my cat's name?" gets the new name first
with a warning (helper103: Whiskers came first, no warning). Another thing's name, someone
else's rename, a plan or a question is none."""
from __future__ import annotations

import doctest

import pytest

import engramdb
from engramdb import renames as renames_module
from engramdb.renames import Rename, names_of, rename_report, renames

T0 = 1_700_000_000.0
DAY = 86_400.0


def test_the_module_examples_hold():
    assert doctest.testmod(renames_module).failed == 0


@pytest.mark.parametrize("text,want", [
    ("Also, we renamed the cat: she's called Luna now. Whiskers never suited her.", Rename("cat", ("luna",))),
    ("We renamed our cat Luna!", Rename("cat", ("luna",))),
    ("We renamed the project from Falcon to Atlas.", Rename("project", ("atlas",), ("falcon",))),
    ("user: Renamed the repo to `atlas-api`.", Rename("repo", ("atlas-api",))),
    ("Our repo's new name is Atlas.", Rename("repo", ("atlas",))),
    ("Our project was renamed to Atlas last week.", Rename("project", ("atlas",))),
    ("We changed the cat's name to Luna.", Rename("cat", ("luna",))),
    ("We renamed the cat Whiskers to Mochi.", Rename("cat", ("mochi",), ("whiskers",))),   # helper108
    ("We're calling the cat Luna now.", Rename("cat", ("luna",))),
    ("We renamed Falcon to Atlas.", Rename("", ("atlas",), ("falcon",))),
    ("Project Falcon has been renamed to Atlas.", Rename("", ("atlas",), ("project", "falcon"))),
    ("My cat is called Luna now.", Rename("cat", ("luna",))),
    ("I finally renamed my dogs to Rex and Max.", Rename("dog", ("rex",))),
    # helper-232: a service named by a lower-case identifier
    ("We renamed shipment-api to cargo-core.", Rename("", ("cargo-core",), ("shipment-api",))),
    ("We renamed the service to cargo_core.", Rename("service", ("cargo_core",))),
])
def test_a_rename_is_read(text, want):
    assert rename_report(text) == want


@pytest.mark.parametrize("text", [
    "My sister renamed her cat Luna.",        # someone else's
    "My sister renamed the cat Luna.",        # someone else's doing
    "We might rename the cat Luna.",          # a plan
    "We didn't rename the repo to Atlas.",    # negated
    "Did you rename the cat?",                # a question
    "assistant: We renamed the file to Foo.",   # an assistant's words
    "My cat is called Luna.",                 # a statement, not a change
    "I renamed the file to report.docx",      # no name (lower case, unquoted)
    # helper105: anyone's thing in another voice
    "Did you see? The app is now called Threads.", "Crazy news: the company was renamed to Meta.",
    "The Washington team was renamed to Commanders.", "The restaurant is now called Olive.",
    "When I was a kid we renamed the cat Tiger.",   # history
    # helper107: a game, a story, someone else's words, a liking
    "In Animal Crossing I renamed my cat Sir Fluff.", "In my novel, we renamed the ship Aurora.",
    "Translate to Spanish: We renamed the cat Luna.", "My coworker said we renamed the repo to Atlas.",
    "My favorite band is now called The Midnight Foxes.",
    # helper-233: a rename made in part or undone
    "We renamed shipment-api to cargo-core locally.", "We renamed shipment-api to cargo-core by mistake and reverted it.",
])
def test_what_is_no_rename(text):
    assert rename_report(text) is None


@pytest.mark.parametrize("text,want", [
    ("My cat's name is Whiskers. She's 3 years old.", (("cat", ("whiskers",), ()),)),
    ("I have a cat named Whiskers.", (("cat", ("whiskers",), ()),)),
    ("Our project is called Falcon.", (("project", ("falcon",), ()),)),
    ("My side project is called Nova.", (("project", ("nova",), ("side",)),)),
    ("My cat Whiskers is 3 years old.", (("cat", ("whiskers",), ()),)),
    ("Whiskers is my cat.", (("cat", ("whiskers",), ()),)),
    ("My sister's cat is adorable.", ()),
    # helper105: another person's thing, history, a wish
    ("My neighbor has a cat named Whiskers.", ()),
    ("When I was a kid we had a cat named Whiskers.", ()),
    ("I'd love to get a dog named Rex someday.", ()),
    ("I'm building an app called Tasky.", ()),
    ("Our backend service is called shipment-api.", (("service", ("shipment-api",), ("backend",)),)),
])
def test_the_names_a_statement_gives(text, want):
    assert names_of(text) == want


@pytest.mark.parametrize("new,old,want", [
    ("Also, we renamed the cat: she's called Luna now.", "My cat's name is Whiskers.", True),
    ("We renamed our cat to Luna.", "I have a cat named Whiskers.", True),
    ("We renamed the project from Falcon to Atlas.", "Falcon is our main project.", True),
    ("We renamed Falcon to Atlas.", "Our project is called Falcon.", True),
    # helper105: another thing of the same last word, another name than the one renamed
    ("We renamed the project from Falcon to Atlas.", "My side project is called Nova.", False),
    ("We renamed our cat to Luna.", "My neighbor has a cat named Whiskers.", False),
    ("Crazy news: the company was renamed to Meta.", "My company is called Acme Robotics.", False),
    ("We renamed the project from Falcon to Atlas.", "Our project is called Falcon.", True),
    ("We renamed the cat Luna.", "My dog's name is Rex.", False),            # another thing
    ("We renamed the cat Luna.", "My cat's name is Luna.", False),           # the same name
    ("We renamed the project from Falcon to Atlas.", "Falcon Heavy launched today.", False),   # no project
    ("We renamed shipment-api to cargo-core.", "Our backend service is called shipment-api.", True),
    ("We renamed shipment-api to cargo-core.", "Our backend service is called billing-api.", False),
])
def test_a_rename_changes_the_earlier_name_of_the_same_thing(new, old, want):
    assert renames(new, old) is want


@pytest.fixture
def mem(tmp_path):
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        yield m


@pytest.mark.parametrize("old,new", [
    ("My cat's name is Whiskers. She's 3 years old.", "Also, we renamed the cat: she's called Luna now."),
    ("My cat is called Whiskers.", "My cat is called Luna now."),
    ("I have a cat named Whiskers.", "We renamed our cat to Luna."),
    ("Our project is called Falcon.", "We renamed the project from Falcon to Atlas."),
    ("Our backend service is called shipment-api.", "We renamed shipment-api to cargo-core."),
])
def test_the_write_path_links_a_rename_to_the_earlier_name(mem, old, new):
    a = mem.add(f"user: {old}", created_at=T0)
    b = mem.add(f"user: {new}", created_at=T0 + DAY)
    assert [e.relation.value for e in mem.edges(b) if a in (e.source, e.target)] == ["contradicts"]
    assert mem.get(a).state.value == "active"   # contradicted, never superseded


@pytest.mark.parametrize("old,new", [
    ("My cat's name is Whiskers.", "My dog's name is Rex."),
    ("My cat's name is Whiskers.", "My sister renamed her cat Luna."),
])
def test_the_write_path_leaves_other_names_alone(mem, old, new):
    a = mem.add(f"user: {old}", created_at=T0)
    b = mem.add(f"user: {new}", created_at=T0 + DAY)
    assert [e for e in mem.edges(b) if e.relation.value == "contradicts" and a in (e.source, e.target)] == []


@pytest.mark.parametrize("embedder", ["hashing", "minilm"])
def test_what_is_my_cats_name_gets_the_new_name_first_with_a_warning(tmp_path, embedder):
    chat = [("s1", "2025-01-06T09:02:40Z", "user", "My cat's name is Whiskers. She's 3 years old."),
            ("s1", "2025-01-06T09:03:20Z", "assistant", "Whiskers sounds lovely!"),
            ("s1", "2025-01-06T09:04:00Z", "user", "I hate coffee, I only drink tea."),
            ("s2", "2025-02-18T20:02:00Z", "user", "Also, we renamed the cat: she's called Luna now. Whiskers never "
                                                   "suited her."),
            ("s2", "2025-02-18T20:02:40Z", "assistant", "Luna is a great name.")]
    with engramdb.open(tmp_path / "s", embedder=embedder) as m:
        for label in ("s1", "s2"):
            m.add_conversation([{"role": r, "content": t, "created_at": at} for se, at, r, t in chat if se == label],
                               namespace="u", session=label)
        res = m.recall("What is my cat's name?", namespace="u", k=3, now="2025-03-25", reinforce=False)
        assert res.hits[0].id == "s2:1"
        assert ("s2:1", "s1:1") in {(w.source, w.target) for w in res.warnings}


@pytest.mark.parametrize("rename", ["We renamed Whiskers to Mochi.", "We renamed the cat Whiskers to Mochi."])
def test_a_rename_that_holds_no_word_of_the_question_still_answers_it(tmp_path, rename):
    """helper108: "We renamed Whiskers to Mochi." was linked, yet "What is my cat's name?" put
    Whiskers first and left the rename out: a later statement goes first when it shares a word
    with the question, or the question asks for the value the two disagree on; a thing's name
    renamed since is such a value."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        old = m.add("user: My cat's name is Whiskers.", created_at=T0)
        m.add("assistant: Whiskers is a lovely name.", created_at=T0 + 5)
        m.add("user: I live in Boston.", created_at=T0 + 60)
        new = m.add(f"user: {rename}", created_at=T0 + 30 * DAY)
        res = m.recall("What is my cat's name?", k=3, now=T0 + 31 * DAY, reinforce=False)
        assert res.hits[0].id == new and (new, old) in {(w.source, w.target) for w in res.warnings}
