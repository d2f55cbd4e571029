"""Each hit's calibrated relevance: in [0, 1], low when the store lacks the answer (with a
weak_evidence gap), high when a memory answers directly, and never used to rank."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import engramdb
from engramdb.config import RELEVANCE_CALIBRATION, RecallConfig
from engramdb.index.keyword import KeywordIndex
from engramdb.recall.results import relevance, relevance_features
from engramdb.speakers import names_given, not_the_owners, others_only, silent_on_the_owners

#: The fit for the hashing embedder these tests use (benchmarks/results/relevance.json), given
#: explicitly; by default a store takes its own embedder's calibration.
HASHING = RecallConfig(relevance_coef=(-5.8905, 16.2684, -9.8606, 15.9867), relevance_threshold=0.653)

CHIT_CHAT = [
    "Hey, how was your weekend? Mine was pretty relaxed.",
    "I went for a long walk with my dog in the park yesterday.",
    "My sister painted a sunset over the lake last summer.",
    "Thanks so much, it really means a lot to me!",
    "We had pizza and watched a movie on Friday night.",
    "Work has been busy lately but I'm managing.",
    "I'm thinking of signing up for a pottery class next month.",
]


@pytest.fixture
def chat(tmp_path):
    with engramdb.open(tmp_path / "s", dim=384, embedder="hashing") as m:
        m.add_batch([{"text": t} for t in CHIT_CHAT])
        yield m


@pytest.mark.parametrize("n", [0, 1, 7, 40])
def test_relevance_is_in_unit_interval_for_every_hit(tmp_path, n):
    with engramdb.open(tmp_path / "s", dim=384, embedder="hashing") as m:
        if n:
            m.add_batch([{"text": f"note {i} about the garden and apples"} for i in range(n)])
        for q in ["apples in the garden", "What is the capital of Australia?", "note 3"]:
            for h in m.recall(q, k=10, reinforce=False).hits:
                assert 0.0 <= h.relevance <= 1.0
                assert h.to_dict()["relevance"] == round(h.relevance, 6)


def _user_chat(mem, texts, day):
    """``texts`` as the user's messages of ``day`` (ISO date), one a minute from 09:00, in "me"."""
    mem.add_conversation([{"role": "user", "content": t, "created_at": f"{day}T09:{i:02d}:00Z"}
                          for i, t in enumerate(texts)], namespace="me")


def _assert_weak(mem, questions):
    """Each of ``questions`` gets a weak_evidence gap (the hits named on failure)."""
    for question in questions:
        res = mem.recall(question, namespace="me", k=3)
        assert "weak_evidence" in [g.reason for g in res.gaps], (question, [(h.text, h.relevance) for h in res.hits])


def test_world_knowledge_question_on_chit_chat_gets_a_gap(chat):
    res = chat.recall("What is the capital of Australia?", k=5, reinforce=False, config=HASHING)
    assert res.hits   # recall still returns its nearest memories ...
    assert max(h.relevance for h in res.hits) < HASHING.relevance_threshold   # ... marked as weak
    assert max(h.relevance for h in res.hits) < 0.3
    assert [g.reason for g in res.gaps] == ["weak_evidence", "unmentioned"]   # ... and Australia is in no memory
    assert res.gaps[1].detail == "no memory mentions Australia"


def test_directly_answered_question_gets_high_relevance(chat):
    res = chat.recall("Where did you walk with your dog?", k=5, reinforce=False, config=HASHING)
    assert res.hits[0].text == CHIT_CHAT[1]
    assert res.hits[0].relevance > 0.7
    assert res.hits[0].relevance == max(h.relevance for h in res.hits)
    assert not [g for g in res.gaps if g.reason == "weak_evidence"]


@pytest.mark.parametrize("query", ["Where did you walk with your dog?", "What is the capital of Australia?",
                                   "pottery class", "movie night pizza"])
def test_relevance_does_not_change_the_ranking(chat, query):
    flat = replace(chat.config.recall, relevance_coef=(0.0, 0.0, 0.0, 0.0))   # every relevance 0.5
    steep = replace(chat.config.recall, relevance_coef=(-3.0, 10.0, -5.0, 20.0))
    a = chat.recall(query, k=7, reinforce=False, config=flat)
    b = chat.recall(query, k=7, reinforce=False, config=steep)
    assert [h.id for h in a.hits] == [h.id for h in b.hits]
    assert [h.score for h in a.hits] == [h.score for h in b.hits]
    assert all(h.relevance == 0.5 for h in a.hits)


def test_threshold_sets_the_gap(chat):
    q = "Where did you walk with your dog?"
    assert chat.recall(q, k=3, reinforce=False, config=replace(HASHING, relevance_threshold=0.0)).gaps == []
    res = chat.recall(q, k=3, reinforce=False, config=replace(HASHING, relevance_threshold=1.0))
    assert [g.reason for g in res.gaps] == ["weak_evidence"]


def test_features_cover_unseen_terms_and_stay_bounded():
    kw = KeywordIndex()
    for i, t in enumerate(["the dog walked in the park", "pizza on friday", "dog dog dog"]):
        kw.add(i, t)
    f = relevance_features("dog park canberra", ["the dog walked in the park", "pizza on friday", "dog dog dog"],
                           np.array([0.8, -0.2, 0.5], np.float32), kw)
    assert f.shape == (3, 3) and (f >= 0).all() and (f <= 1).all()
    assert f[1, 0] == 0.0 and f[1, 1] == 0.0 and f[1, 2] == 0.0
    assert 0.0 < f[0, 2] < 1.0            # "canberra" is in no memory: coverage stays below 1
    assert f[0, 2] > f[2, 2]              # dog + park cover more than dog alone
    assert relevance_features(None, ["x"], np.array([0.5]), kw)[0, 1:].tolist() == [0.0, 0.0]
    assert relevance(f, RELEVANCE_CALIBRATION["minilm"][0]).shape == (3,)


def test_a_store_takes_its_own_embedders_calibration_by_default(chat):
    """No relevance settings given: a hashing store uses the hashing fit, same answers as HASHING."""
    for q in ("Where did you walk with your dog?", "What is the capital of Australia?"):
        default = chat.recall(q, k=5, reinforce=False)
        explicit = chat.recall(q, k=5, reinforce=False, config=HASHING)
        assert [round(h.relevance, 9) for h in default.hits] == [round(h.relevance, 9) for h in explicit.hits]
        assert [g.reason for g in default.gaps] == [g.reason for g in explicit.gaps]
    assert RELEVANCE_CALIBRATION["hashing"] == (HASHING.relevance_coef, HASHING.relevance_threshold)


@pytest.mark.parametrize("question, text, others", [
    ("When is my birthday?", "user: Also my mum lives in Cardiff and her birthday is on March 29.", {"birthday"}),
    ("When is my birthday?", "Dad's birthday is in May, remind me.", {"birthday"}),
    ("What's my phone number?", "Her phone number is 555-1234.", {"phone", "number"}),
    ("When is my birthday?", "For my 30th birthday we went out.", set()),
    ("When is my birthday?", "User's birthday: May 3", set()),
    ("When is my birthday?", "We planned the birthday party.", set()),
    ("What is my dog's name?", "His name is Rex and my dog loves him.", set()),
    ("When is my mum's birthday?", "Her birthday is on March 29.", set()),
    ("When is the party?", "Her birthday party is on Friday.", set()),
    # the user named: a pronoun may be the user's; an assistant's "your" is the user's
    ("When is my birthday?", "User said her birthday is May 3.", set()),
    ("When is my birthday?", "assistant: Your birthday is May 3, noted.", set()),
    ("When is my birthday?", "The user mentioned that Dad's birthday is in May.", {"birthday"}),
    # a pet's or kin's name (helper-202: "what is my name?" got the dog's at 1.0, no gap)
    ("What is my name?", "Our dog is named Biscuit.", {"name"}),
    ("What is my name?", "My sister is named Jo.", {"name"}),
    ("What is my name?", "I am named after my grandma.", set()),
])
def test_what_the_question_asks_as_the_speakers_a_text_may_name_as_anothers(question, text, others):
    assert others_only(question, text) == others


@pytest.mark.parametrize("question, text, mine", [
    ("What's Kenji's phone number?",
     "user: Also my phone number changed! I switched to Mint Mobile, the new number is 503-555-0192.", {"phone", "number"}),
    ("When is my sister's birthday?", "user: my birthday is May 3", {"birthday"}),
    ("What's Kenji's phone number?", "user: Lena's number is 555-1234.", {"number"}),
    # anything of the speaker's owns what is asked of it (helper183: the cat's name for the dog's)
    ("What's my dog's name?", "user: My cat's name is Miso.", {"name"}),
    ("What's my car's color?", "My bike's color is red.", {"color"}),
    ("What's my dog's name?", "user: My dog's name is Rex.", set()),
    # the owner named, or a pronoun that may be theirs, or no one's: it may be theirs
    ("What's Kenji's phone number?", "Kenji: my number is 555-1234", set()),
    ("What's Kenji's phone number?", "user: Kenji gave me his number, 555-1234.", set()),
    ("What's Kenji's phone number?", "user: He said his number is 555-1234.", set()),
    ("What's Kenji's phone number?", "user: the phone number is 555-1234", set()),
    ("When is my sister's birthday?", "user: my sister Lena's birthday is June 1", set()),
    # a text of another pet, and of none that may be the owner: its "her", "his" are the pet's
    # (helper109: the renamed cat's name for the sister's and the dog's)
    ("What's my dog's name?", "user: Actually, we renamed the cat. Her name is Miso now.", {"name"}),
    ("What is my sister's name?", "user: Actually, we renamed the cat. Her name is Miso now.", {"name"}),
    ("What's my son's name?", "We adopted a puppy, his name is Leo.", {"name"}),
    # ... and so is a name it says without one (helper-201: the dog's name for the husband's)
    ("What is my husband's name?", "Our dog is named Biscuit.", {"name"}),
    ("What is my husband's name?", "Our golden retriever is named Biscuit.", {"name"}),
    ("What's my dog's name?", "Our cat is named Miso.", {"name"}),
    ("What's my cat's name?", "The beagle next door is named Rex.", {"name"}),
    # ... and so is one the owner is named only as the owner of (helper-202)
    ("What is my sister's name?", "My sister's cat is named Miso.", {"name"}),
    # ... but a word that may name the owner, or a person's (who may be the owner), leaves the
    # pronoun theirs, and a thing said without one is nobody's (helper-199)
    ("When is my mom's birthday?", "My mother called, her birthday is May 3.", set()),
    ("When is my dad's birthday?", "My mother called, her birthday is May 3.", set()),
    ("What's my dog's name?", "Adopted a rescue with my wife today, his name is Rex!", set()),
    ("What's my son's name?", "We named him Leo after my dad.", set()),
    ("What's my daughter's name?", "We named her Lily, after my grandmother.", set()),
    ("What's my cat's name?", "My tabby is named Luna, and the dog is Rex.", set()),   # (a breed is its kind)
    ("What's my dog's name?", "Our cat hates our labrador, whose name is Rex.", set()),
    ("What's my dog's name?", "My golden retriever is named Biscuit; my cat is Miso.", set()),
    ("What's my son's name?", "The kids named him Leo.", set()),
    ("What's my sister's job?", "My friend said her job is tough.", set()),
    ("What's my pet's name?", "The cat's name is Miso.", set()),
    ("What's my dog's name?", "My puppy's name is Rex.", set()),
    ("What's my cat's name?", "We renamed the kitten, her name is Miso.", set()),
    ("What's my dog's name?", "assistant: Her name is Rex, you said.", set()),   # (a chat label is no one)
    ("What's my cat's favourite food?", "She only eats fish.", set()),
    # no one's thing asked
    ("What is my phone number?", "user: my phone number is 555-1234", set()),
    ("What's the phone number of the clinic?", "user: my phone number is 555-1234", set()),
])
def test_what_the_question_asks_as_a_named_persons_a_text_may_name_as_the_speakers(question, text, mine):
    assert not_the_owners(question, text) == mine


@pytest.mark.parametrize("embedder", ["hashing", "minilm"])
def test_my_number_is_weak_evidence_for_a_named_persons(tmp_path, embedder):
    """helper172, a fresh user: "What's Kenji's phone number?" (never said) got the user's own
    new number with relevance 0.96 (MiniLM) and 1.00 (hashing), and no gap."""
    chat = ["Also, for reminders, my cell is 503-555-0148. Text is better than calls.",
            "Also my phone number changed! I switched to Mint Mobile to save money, the new number is 503-555-0192.",
            "Biscuit is sorted: my neighbor Kenji will watch him while I'm gone, $35 a day.",
            "Good idea, make me a note for Kenji.", "Lena's number is 555-0101, she lands at 6pm."]
    with engramdb.open(tmp_path / "s", embedder=embedder) as mem:
        _user_chat(mem, chat, "2025-05-20")
        res = mem.recall("What's Kenji's phone number?", namespace="me", k=3)
        assert "weak_evidence" in [g.reason for g in res.gaps], [(h.text, h.relevance) for h in res.hits]
        # asked as the user's or as Lena's, the same words are strong evidence
        for question, said in (("What's my phone number?", "503-555-0192"), ("What's Lena's number?", "555-0101")):
            res = mem.recall(question, namespace="me", k=3)
            assert said in res.hits[0].text and res.hits[0].relevance >= res.stats["relevance_threshold"]


@pytest.mark.parametrize("embedder", ["hashing", "minilm"])
def test_anothers_birthday_is_weak_evidence_for_mine(tmp_path, embedder):
    """helper74: "When is my birthday?" (never said) got "Also my mum lives in Cardiff and her
    birthday is on March 29." with relevance 1.0 and no gap."""
    chat = ["I live in Leeds now.", "Yes please. Also my mum lives in Cardiff and her birthday is on March 29.",
            "Dad's birthday is in May, remind me.", "My sister works at Tesla.", "Her phone number is 555-1234, that's Fiona's."]
    with engramdb.open(tmp_path / "s", embedder=embedder) as mem:
        _user_chat(mem, chat, "2025-05-20")
        _assert_weak(mem, ("When is my birthday?", "What's my phone number?"))
        # the same words asked as the mum's and the dad's are strong evidence
        for question, said in (("When is my mum's birthday?", "March 29"), ("When is my dad's birthday?", "in May")):
            res = mem.recall(question, namespace="me", k=3)
            assert said in res.hits[0].text and res.hits[0].relevance >= res.stats["relevance_threshold"]
            assert not [g for g in res.gaps if g.reason == "weak_evidence"]


@pytest.mark.parametrize("question,text,asked", [
    ("Who is my manager?", "assistant: That sounds exhausting. Want some tips for managing the workload?", {"manag"}),
    ("What did Caroline research?", "Melanie: What did you research, Caroline?", {"research", "carolin"}),
    # a question that speaks of its asker states what it says; a term said elsewhere too is kept
    ("Am I allergic to anything?", "user: Remind me: I'm allergic to penicillin, right? The doctor asked.", set()),
    ("Who is my manager?", "Is Dana your manager? Dana is my manager.", set()),
    ("Who is my manager?", "My manager is Dana.", set()),
    # a question for advice or leave asks in any person, but for what it calls the asker's
    # (helper-200: "what did I eat yesterday?" got "What protein should I eat after a long run?"
    # at relevance 1.0 and no gap)
    ("What did I eat yesterday?", "user: What protein should I eat after a long run?", {"eat"}),
    ("Did I take anything?", "Can I take ibuprofen with my asthma?", {"take"}),
    ("Do I have asthma?", "Can I take ibuprofen with my asthma?", set()),
    ("Did I fix my bike?", "How do I fix my bike?", {"fix"}),
    ("Am I allergic to anything?", "I'm allergic to penicillin, should I worry?", set()),
    ("Do I have a dog?", "Can you recommend a vet for my dog Rex?", set()),
])
def test_what_a_text_only_asks_about_it_does_not_state(question, text, asked):
    from engramdb.chatter import asked_terms, question_terms

    assert question_terms(question) & asked_terms(text) == asked


@pytest.mark.parametrize("embedder", ["hashing", "minilm"])
def test_an_assistants_question_is_weak_evidence(tmp_path, embedder):
    """helper179, a fresh user: "Who is my manager?", asked before any manager was named, got
    "That sounds exhausting. Want some tips for managing the workload?" first and no gap: the
    one word it shares with the question sits in what the assistant asks."""
    chat = [("user", "Ugh, long week at Initech. The quarterly reports are brutal."),
            ("assistant", "That sounds exhausting. Want some tips for managing the workload?"),
            ("user", "Maybe later. My wife Priya is making soup tonight."),
            ("assistant", "Enjoy the soup!")]
    with engramdb.open(tmp_path / "s", embedder=embedder) as mem:
        mem.add_conversation([{"role": r, "content": t, "created_at": f"2025-03-14T09:{i:02d}:00Z"}
                              for i, (r, t) in enumerate(chat)], namespace="me")
        res = mem.recall("Who is my manager?", namespace="me", k=3)
        assert "weak_evidence" in [g.reason for g in res.gaps], [(h.text, h.relevance) for h in res.hits]
        mem.add_conversation([{"role": "user", "content": "My first week went well. My manager is called Dana.",
                               "created_at": "2025-03-21T09:00:00Z"}], namespace="me")
        res = mem.recall("Who is my manager?", namespace="me", k=3)
        assert "Dana" in res.hits[0].text and res.hits[0].relevance >= res.stats["relevance_threshold"]
        assert not [g for g in res.gaps if g.reason == "weak_evidence"]


@pytest.mark.parametrize("embedder", ["hashing", "minilm"])
def test_a_question_for_advice_is_weak_evidence_of_what_it_asks(tmp_path, embedder):
    """helper-200, a fresh user: "what did I eat yesterday?" (nothing eaten was said) got "What
    protein should I eat after a long run?", a week old, with relevance 1.0 and no gap."""
    chat = [("I had pasta with pesto for dinner.", "2025-03-03T19:00:00Z"),
            ("What protein should I eat after a long run?", "2025-04-02T10:00:00Z"),
            ("We moved to Denver yesterday!", "2025-04-09T10:00:00Z"),
            ("Ran 8 km this morning.", "2025-04-07T08:00:00Z")]
    with engramdb.open(tmp_path / "s", embedder=embedder) as mem:
        mem.add_conversation([{"role": "user", "content": t, "created_at": c} for t, c in chat], namespace="me")
        res = mem.recall("what did I eat yesterday?", namespace="me", k=4, now="2025-04-10T12:00:00Z")
        assert "weak_evidence" in [g.reason for g in res.gaps], [(h.text, h.relevance) for h in res.hits]


@pytest.mark.parametrize("text", [
    "The meeting with Dana is at 3pm tomorrow, right?", "Mom's birthday is June 2, isn't it?",
    "The wifi password is hunter2, ok?", "Guess who got promoted to team lead today? Dana!",
])
def test_a_tag_or_a_question_the_text_goes_on_past_is_said(text):
    """helper182: a statement closed with a tag, or a question its writer answers, was read as
    asking: "When is the meeting with Dana?" got a weak_evidence gap on the answer."""
    from engramdb.chatter import asked_terms

    assert asked_terms(text) == frozenset()
    assert asked_terms("assistant: That sounds exhausting. Want some tips for managing the workload?") >= {"manag"}


@pytest.mark.parametrize("embedder", ["hashing", "minilm"])
def test_the_cats_name_is_weak_evidence_for_the_dogs(tmp_path, embedder):
    """helper183, a fresh user: "what is my dog's name?" (no dog was ever named) got "My cat's
    name is Miso." with relevance 0.84 and no gap."""
    chat = ["Hi! I'm Dana. I live in Denver.", "My cat's name is Miso.", "I work as a night nurse.",
            "My rent is $1,450 a month."]
    with engramdb.open(tmp_path / "s", embedder=embedder) as mem:
        _user_chat(mem, chat, "2025-01-06")
        res = mem.recall("What is my dog's name?", namespace="me", k=3)
        assert "weak_evidence" in [g.reason for g in res.gaps], [(h.text, h.relevance) for h in res.hits]
        res = mem.recall("What is my cat's name?", namespace="me", k=3)
        assert "Miso" in res.hits[0].text and res.hits[0].relevance >= res.stats["relevance_threshold"]
        assert not [g for g in res.gaps if g.reason == "weak_evidence"]


@pytest.mark.parametrize("embedder", ["hashing", "minilm"])
def test_another_pets_name_is_weak_evidence_for_a_kins_or_a_pets(tmp_path, embedder):
    """helper109, a fresh user: "what is my sister's name?" and "what is my dog's name?" (neither
    said) got "Actually, we renamed the cat. Her name is Miso now." first with relevance 0.81 and
    0.67 (hashing) and no gap: its "her" may have been the sister's."""
    chat = ["Hi, I'm Priya. I live in Leeds.", "I have a cat called Mochi.", "I work at Northwind as a designer.",
            "Actually, we renamed the cat. Her name is Miso now.", "My rent is $1,200 a month."]
    with engramdb.open(tmp_path / "s", embedder=embedder) as mem:
        _user_chat(mem, chat, "2025-01-06")
        _assert_weak(mem, ("What is my sister's name?", "What is my dog's name?", "What's my brother's name?"))
        res = mem.recall("What is my cat's name?", namespace="me", k=3)
        assert "Miso" in res.hits[0].text and res.hits[0].relevance >= res.stats["relevance_threshold"]
        assert not [g for g in res.gaps if g.reason == "weak_evidence"]


@pytest.mark.parametrize("question, text, silent", [
    # helper-201: "My sister called while we were there." answered "what is my sister's name?" (0.98)
    ("What is my sister's name?", "My sister called while we were there.", True),
    ("What is my sister's name?", "user: my sister is flying in on Friday", True),
    ("What's my dog's name?", "I walked my dog in the rain.", True),
    ("What is Melanie's daughter's name?", "Melanie: My daughter loves painting.", True),
    # a name given: "name", "named", a capitalised word after the owner word or a naming "called",
    # or before "is my <owner>" / ", my <owner>"
    ("What is my sister's name?", "My sister's name is Priya.", False),
    ("What is my sister's name?", "My sister Priya called while we were there.", False),
    ("What is my sister's name?", "My sister, Jo, called.", False),
    ("What is my sister's name?", "I have a sister called Jo.", False),
    ("What is my sister's name?", "Priya is my sister.", False),
    ("What is my sister's name?", "Priya, my little sister, called.", False),
    ("What's my dog's name?", "We call him Rex, our dog.", False),
    ("What is Melanie's daughter's name?", "Melanie: Sarah, my daughter, loves painting.", False),
    # the owner not named: not this rule's to judge
    ("What is my sister's name?", "Priya called while we were there.", False),
    # helper-202: names given in other common wordings, scripts and cases
    ("What is my sister's name?", "My sister is Priya.", False),
    ("What is my wife's name?", "My wife is Sarah.", False),
    ("What is my dog's name?", "My dog is Biscuit.", False),
    ("What is my sister's name?", "My sister's Priya.", False),
    ("What is my sister's name?", "My sister goes by Priya.", False),
    ("What is my sister's name?", "my sister (Priya) called", False),
    ("What is my sister's name?", "Priya (my sister) called", False),
    ("What is my sister's name?", "My sister - Priya - called", False),
    ("What is my mom's name?", "Mom (Linda) called.", False),
    ("What is my sister's name?", "My sister Émilie lives in Lyon.", False),
    ("What is my sister's name?", "My sister O'Neill called.", False),
    ("What is my sister's name?", "my sister jo called", False),   # (no capitals: no telling a name)
    # ... a capitalised word that is no name
    ("What is my sister's name?", "My sister called Mom last night.", True),
    ("What is my sister's name?", "I'm seeing my sister Saturday.", True),
    ("What is my sister's name?", "My sister I think called.", True),
    # the name asked in other words
    ("What is my sisters name?", "My sister called while we were there.", True),
    ("What's my sister called?", "My sister called while we were there.", True),
    ("What's the name of my sister?", "My sister called while we were there.", True),
    ("What are my sisters' names?", "My sister called while we were there.", True),
    ("What's my sister's first name?", "My sister called while we were there.", True),
    ("What's the name of my company?", "My company called a meeting.", False),   # (no kin or pet)
    # the owner named only as the owner of another kin or pet: what is given is that one's
    ("What is my sister's name?", "My sister's boyfriend is called Dev.", True),
    ("When is my sister's birthday?", "My sister's son turns 5 on May 3.", True),
    ("What's Kenji's phone number?", "Kenji's wife's number is 555-1234.", True),
    ("When is my sister's birthday?", "My sister's birthday is May 3.", False),
    ("What is my sister's name?", "My sister's cat is named Miso, and my sister is Jo.", False),
    # helper-202: a name before "is my <owner>'s ..." is another's
    ("What is my sister's name?", "Priya is my sister's best friend.", True),
    # helper-205: a kin's kin asked of ("my sister's kids"), in the plural, or by "the names of"
    ("What are the names of my sister's kids?", "My sister Maya is visiting with her two kids.", True),
    ("What are my sister's kids' names?", "My sister Maya is visiting with her two kids.", True),
    ("What are my sister's kids called?", "My sister Maya is visiting with her two kids.", True),
    ("What are the names of my sister's kids?", "My sister's dog is named Rex.", True),
    ("What's the name of my sister's dog?", "My sister Maya has a dog.", True),
    ("What are my sister's children's names?", "My sister's children are at camp.", True),
    ("What are the names of my sister's kids?", "My sister's kids are Leo and Mia.", False),
    ("What are my sister's kids' names?", "Maya's kids, Leo and Mia, are staying over.", False),
    ("What are the names of my sister's kids?", "My sister's son Leo turned five.", False),
    ("What's the name of my sister's dog?", "My sister's dog is named Rex.", False),
    ("What's the name of my sister's dog?", "My sister's dog Rex loves the park.", False),
    ("What are my sister's children's names?", "My sister's children are called Leo and Mia.", False),
    ("What is my sister's name?", "My sister's kids are Leo and Mia.", True),
    # helper-202: an owner compared with names another
    ("What is my sister's name?", "Like my sister, Sam plays tennis.", True),
    ("What is my sister's name?", "Unlike my older sister, Jo hates tennis.", True),
    ("What is my sister's name?", "I'm taller than my sister, Jo says.", True),
    ("What is my sister's name?", "I play tennis like my sister Jo.", False),
    # helper-206: the names of several, said as people say them, in the plural
    ("What are my kids' names?", "My kids: Leo and Mia.", False),
    ("What are my kids' names?", "Leo and Mia are my kids.", False),
    ("What are my kids' names?", "My kids go by Leo and Mia.", False),
    ("What are my kids' names?", "Kids: Leo (5), Mia (7).", False),
    ("What are my kids' names?", "My kids are 5-year-old Leo and 7-year-old Mia.", False),
    ("What are my parents' names?", "Ann and Bob are my parents.", False),
    ("What are my children's names?", "We have two children, Leo and Mia.", False),
    ("What are my children's names?", "My children are Leo and Mia.", False),
    ("What are my dogs' names?", "My dogs are Rex and Fido.", False),
    ("What are my kids' names?", "My kids love Lego.", True),
    # ... a kin's kin, and a text naming only the kin it is asked of
    ("What's my brother's wife's name?", "My brother Tom is married.", True),
    ("What's my wife's sister's name?", "My wife is Ana.", True),
    ("What is my son's teacher's name?", "My son Leo loves school.", True),
    ("What's my brother's wife's name?", "My brother married Ana last year.", False),
    ("What's my brother's wife's name?", "my brother tom is married", False),   # (no capitals)
    # ... and the owner named by a word that may be the same one
    ("What's my daughter's dog's name?", "My daughter Lily got a puppy.", True),
    ("What's my daughter's dog's name?", "My daughter Lily got a puppy named Max.", False),
    ("What's my dog's name?", "The puppy chewed my shoes.", True),
    ("What's my dog's name?", "My puppy Rex chewed my shoes.", False),
    ("What's my mom's name?", "My mother called.", True),
    ("What's my mom's name?", "My mother Linda called.", False),
])
def test_a_text_naming_the_owner_may_say_nothing_of_the_asked_name(question, text, silent):
    assert silent_on_the_owners(question, text) is silent


@pytest.mark.parametrize("question, text, given", [
    ("What's my sister's first name?", "My sister Priya called.", {"first", "name"}),
    ("What is the name of my dog?", "Our dog, Biscuit, loves the park.", {"name"}),
    ("What's my sister's first name?", "My sister called while we were there.", set()),
    ("What's my sister's first name?", "Priya called.", set()),   # (the owner not named)
    ("What's my sister's job?", "My sister Priya called.", set()),
    # a chat label is no name given, and a person asked of by name is no kin or pet (bench_relevance:
    # "What is Melanie's middle name?" read "Melanie: Hey ..." as her name)
    ("What is Melanie's middle name?", "Melanie: Hey Caroline, how are you?", set()),
    ("What's my sister's first name?", "Sister: Hello, how was the trip?", set()),
    ("What's my sister's first name?", "Caroline: My sister Priya called.", {"first", "name"}),
])
def test_a_name_given_answers_the_words_asking_for_it(question, text, given):
    """helper-202: "What's my sister's first name?" and "My sister Priya called." scored 0.57
    (hashing) with a weak_evidence gap: "first" and "name" are not in the text, which gives
    the name all the same."""
    assert names_given(question, text) == given


@pytest.mark.parametrize("question, text, named", [
    ("what's my dog's name?", "We adopted a golden retriever puppy named Biscuit on Saturday.", {"dog"}),
    ("what's my mom's name?", "My mother Linda called.", {"mom"}),
    ("where does my mom live?", "My mum lives in Denver.", {"mom"}),
    ("what's my dog's name?", "My dog is Rex.", set()),          # (the word itself: matched already)
    ("what's my dog's name?", "Our cat is Miso.", set()),
    ("what's my dog's name?", "My pet is Rex.", set()),           # (a pet need not be a dog)
    ("What is the name of Audrey's parrot?", "Audrey: My pets are my world.", set()),
    ("what's my sister's name?", "My brother called.", set()),
    ("what's my boss's name?", "My manager is Dana.", set()),     # (only kin and pets)
    ("what's my cat's name?", "I got a kitten, Miso!", {"cat"}),
    # helper-204: another's, another generation's, or a word in another sense
    ("what's my mom's name?", "Tom's mother Linda visited.", set()),
    ("what's my mom's name?", "My ex, the kids' mother, is named Sarah.", set()),
    ("what's my dad's name?", "I'm a father named Bob.", set()),
    ("what's my cat's name?", "My sister's kitten is named Mochi.", set()),
    ("what's my dog's name?", "My friend's puppy Rex is adorable.", set()),
    ("what's my son's name?", "My grandson Leo turned five.", set()),
    ("what's my cat's name?", "Our poker kitty is named the Pot.", set()),
    ("what's my wife's name?", "My tennis partner Sam won.", set()),
])
def test_a_kin_or_pet_word_is_answered_by_one_that_may_name_the_same(question, text, named):
    """helper-203: "what's my dog's name?" and "We adopted a golden retriever puppy named Biscuit
    on Saturday." scored 0.43 (hashing) with a weak_evidence gap: the text never says "dog"."""
    from engramdb.speakers import kin_named

    assert kin_named(question, text) == named


@pytest.mark.parametrize("embedder", ["hashing", "minilm"])
def test_a_kin_named_without_a_name_is_weak_evidence_for_the_kins_name(tmp_path, embedder):
    """helper-201, a fresh user: "what is my sister's name?" got "My sister called while we were
    there." with relevance 0.98 and "what is my husband's name?" "Our dog is named Biscuit." with
    0.79, neither with a gap; once the name is said, it answers."""
    chat = ["We flew to Lisbon in May.", "My sister called while we were there.", "Our dog is named Biscuit.",
            "I bought a new bike."]
    with engramdb.open(tmp_path / "s", embedder=embedder) as mem:
        _user_chat(mem, chat, "2025-06-06")
        _assert_weak(mem, ("What is my sister's name?", "What is my husband's name?"))
        res = mem.recall("What is my dog's name?", namespace="me", k=3)
        assert "Biscuit" in res.hits[0].text and res.hits[0].relevance >= res.stats["relevance_threshold"]
        mem.add_conversation([{"role": "user", "content": "My sister Priya says hi.",
                               "created_at": "2025-06-07T09:00:00Z"}], namespace="me")
        res = mem.recall("What is my sister's name?", namespace="me", k=3)
        (priya,) = [h for h in res.hits if "Priya" in h.text]
        assert priya.relevance >= res.stats["relevance_threshold"] > max(h.relevance for h in res.hits if h is not priya)
        assert not [g for g in res.gaps if g.reason == "weak_evidence"]


@pytest.mark.parametrize("embedder", ["hashing", "minilm"])
def test_a_kins_kin_named_without_names_is_weak_evidence(tmp_path, embedder):
    """helper-205: "what are the names of my sister's kids?" got "My sister Maya is visiting with
    her two kids." at relevance 1.0 and no gap (read as the sister's name asked); then, with the
    kids asked of, "My sister's dog is named Rex." at 0.96 (the dog's name)."""
    chat = ["Hi, I'm Priya.", "My sister Maya is visiting with her two kids.", "We took them to the zoo on Saturday.",
            "My sister's dog is named Rex."]
    with engramdb.open(tmp_path / "s", embedder=embedder) as mem:
        _user_chat(mem, chat, "2025-06-06")
        _assert_weak(mem, ("What are the names of my sister's kids?", "What are my sister's kids' names?"))
        res = mem.recall("What's the name of my sister's dog?", namespace="me", k=3)
        assert "Rex" in res.hits[0].text and res.hits[0].relevance >= res.stats["relevance_threshold"]
        mem.add_conversation([{"role": "user", "content": "My sister's kids are Leo and Mia.",
                               "created_at": "2025-06-07T09:00:00Z"}], namespace="me")
        res = mem.recall("What are the names of my sister's kids?", namespace="me", k=3)
        (kids,) = [h for h in res.hits if "Leo" in h.text]
        assert kids.relevance >= res.stats["relevance_threshold"] > max(h.relevance for h in res.hits if h is not kids)


@pytest.mark.parametrize("question, text, terms", [
    ("what is my cat called?", "My sister Priya called, she is flying in on Friday.", {"call"}),
    ("What was the band called again?", "Mum called me yesterday about the band.", {"call"}),
    ("what is my dog called?", "I'll call the vet tomorrow.", {"call"}),
    # "called" that names, or a question that asks who called
    ("what is my cat called?", "We got a kitten called Miso.", set()),
    ("what is my cat called?", "we called him Rex", set()),
    ("what is my cat called?", 'My cat is called "Blue".', set()),
    ("who called me?", "My sister Priya called.", set()),
])
def test_a_call_is_no_name_asked_by_called(question, text, terms):
    from engramdb.speakers import calls_not_names

    assert calls_not_names(question, text) == terms


@pytest.mark.parametrize("embedder", ["hashing", "minilm"])
def test_a_phone_call_is_weak_evidence_for_a_name_asked_by_called(tmp_path, embedder):
    """helper-200, a fresh user: "what is my cat called?" (no cat) got "My sister Priya called,
    she is flying in on Friday." with relevance 0.82 (hashing) and no gap: "called" matched."""
    chat = ["Hi! I'm Maya and I live in Chicago.", "My sister Priya called, she is flying in on Friday.",
            "I work at Acme Analytics as a data analyst.", "We have a dog called Biscuit, he loves the park."]
    with engramdb.open(tmp_path / "s", embedder=embedder) as mem:
        mem.add_conversation([{"role": "user", "content": t, "created_at": f"2025-04-0{i + 1}T09:00:00Z"}
                              for i, t in enumerate(chat)], namespace="me")
        _assert_weak(mem, ("what is my cat called?", "what is my husband called?"))
        res = mem.recall("what is my dog called?", namespace="me", k=3)
        best = max(res.hits, key=lambda h: h.relevance)
        assert "Biscuit" in best.text and best.relevance >= res.stats["relevance_threshold"]


@pytest.mark.parametrize("question, text, terms", [
    ("where does my mom live?", "I live in Chicago with Tom.", {"live"}),
    ("where does my mom live?", "user: We've lived here for years.", {"live"}),
    ("where did my sister study?", "I studied at MIT.", {"studi"}),
    # the person, or someone who may be them, is named; or the verb is not the speaker's
    ("where does my mom live?", "I live near my mom in Chicago.", set()),
    ("where does my mom live?", "My mother lives in Denver.", set()),
    ("where does my mom live?", "Mum lives in Leeds, I live in York.", set()),
    ("where does my mom live?", "She lives in Denver.", set()),
    ("where does my mom live?", "Living in Chicago is fun.", set()),
    ("where do I live?", "I live in Chicago.", set()),
    ("where does my dog sleep?", "I sleep late.", set()),   # (a pet: not read)
    # (helper-208) a household's "we" may hold the partner and the children, not a parent
    ("where do my kids live?", "We live in Chicago.", set()),
    ("where does my wife work?", "We both work at Mercy Hospital.", set()),
    ("where does my mom live?", "We live in Chicago.", {"live"}),
    ("where do my kids live?", "I live in Chicago.", {"live"}),
])
def test_a_verb_said_only_of_the_speaker_says_nothing_of_their_kin(question, text, terms):
    """helper-203: "where does my mom live?" and "We live in Chicago ..." (the user's home)."""
    from engramdb.speakers import the_speakers_doing

    assert the_speakers_doing(question, text) == terms


@pytest.mark.parametrize("embedder", ["hashing", "minilm"])
def test_the_speakers_own_home_is_no_answer_for_their_mothers(tmp_path, embedder):
    """helper-203: "where does my mom live?" put "We live in Chicago ..." (the user's own home) at
    relevance 0.94, above "My mom is visiting from Denver"."""
    chat = ["We live in Chicago with our two kids.", "My mom is visiting from Denver next week.",
            "I work at Abbott as a nurse."]
    with engramdb.open(tmp_path / "s", embedder=embedder) as mem:
        _user_chat(mem, chat, "2025-04-01")
        res = mem.recall("where does my mom live?", namespace="me", k=3)
        rel = {h.text.split(": ", 1)[1]: h.relevance for h in res.hits}
        assert rel["We live in Chicago with our two kids."] < res.stats["relevance_threshold"]
        assert rel["My mom is visiting from Denver next week."] >= res.stats["relevance_threshold"]
        home = mem.recall("where do I live?", namespace="me", k=1).hits[0]
        assert "Chicago" in home.text and home.relevance >= res.stats["relevance_threshold"]


@pytest.mark.parametrize("question, text, terms", [
    ("where did I live before?", "user: My sister Priya lives in Austin with her husband.", {"live"}),
    ("where did I live before?", "My parents live nearby.", {"live"}),
    ("where do I work?", "My boss Tom works at Google.", {"work"}),
    # the speaker, or no one named, before the verb; a name alone, "User" or "she" may be the
    # speaker in a note about them (helper-208)
    ("where do I work?", "Tom works at Google.", set()),
    ("where do I live?", "User lives in Austin with two cats.", set()),
    ("where did I live before?", "She lives in Denver.", set()),
    ("where did I live before?", "Me and my wife lived in Denver for six years.", set()),
    # (helper-210) an "I" not joined to the subject, and a pronoun after a kin word
    ("where did I live before?", "Did I mention my brother lives in Austin now?", {"live"}),
    ("where did I work before?", "I think my sister works at Google.", {"work"}),
    ("where did I live before?", "My sister moved last year. She lives in Denver now.", {"live"}),
    ("where did I work before?", "My husband got promoted! He works at Deloitte.", {"work"}),
    ("where do I live?", "Me and Tom live in Austin.", set()),
    ("where did I live before?", "I live in Denver.", set()),
    ("where did I live before?", "Priya and I live in Austin.", set()),
    ("where did I live before?", "Living in Denver was fun.", set()),
    ("where do we live?", "We live in Boulder now.", set()),
    ("am I allergic to any medication?", "assistant: Noted: allergic to penicillin.", set()),
])
def test_a_verb_said_only_of_another_says_nothing_of_the_speaker(question, text, terms):
    """helper-207: "where did I live before?" got "My sister Priya lives in Austin ..." at
    relevance 0.997, no gap."""
    from engramdb.speakers import anothers_doing

    assert anothers_doing(question, text) == terms


@pytest.mark.parametrize("question, silent, other", [
    ("what's my husband's name?", True, set()), ("what's my wife's name?", True, set()),
    ("what's Priya's husband's name?", True, set()), ("what is my brother's name?", False, {"name"}),
    ("what is my cat's name?", False, {"name"}),
    # the baby girl may be these
    ("what's my niece's name?", False, set()), ("what's my daughter's name?", False, set()),
])
def test_a_naming_of_another_gives_no_name_asked(question, silent, other):
    """helper-207: "My sister Priya lives in Austin with her husband. They just had a baby girl
    named Mira." answered "what's my husband's name?" at 0.82 and "what is my cat's name?" at 0.72,
    no gap: "named Mira" names the baby girl, who may be a niece but is no husband, brother or cat."""
    text = "user: My sister Priya lives in Austin with her husband. They just had a baby girl named Mira."
    assert silent_on_the_owners(question, text) is silent
    assert not_the_owners(question, text) == other


@pytest.mark.parametrize("question, text", [
    ("what's my dog's name?", "We adopted a puppy from the shelter, a boy named Rex."),
    ("what's my cat's name?", "We got a kitten last week, a little girl named Luna."),
    ("what's my dog's name?", "Our rescue dog is a sweet girl called Bella."),
    ("what's my dog's name?", "We got a new puppy, a boy! We named him Rex."),
    ("what's my husband's name?", "My husband's name is Tom and our baby girl is named Mira."),
])
def test_a_pet_called_a_boy_or_a_girl_is_named_as_the_pet(question, text):
    """helper-208, on 6b94ce7: "a boy named Rex" said of a puppy was read as another's naming,
    and the dog's name was capped at 0.33 with a gap."""
    assert not silent_on_the_owners(question, text) and not_the_owners(question, text) == frozenset()


@pytest.mark.parametrize("text", [
    "My dog hates my roommate's cat, a tabby named Luna.",
    "My dog loves the neighbor's kid, a little boy named Theo.",
])
def test_the_nearest_kin_or_pet_word_owns_the_naming(text):
    """helper-210, on 8374eb3: a pet word anywhere before a naming gave it to the pet, so the
    roommate's cat's name answered "what's my dog's name?" at 1.0."""
    assert silent_on_the_owners("what's my dog's name?", text)
