"""Thanks, greetings and laughter answer nothing: recall does not lift them over what does.

A chat's "You're welcome!" stands next to every fact it thanks for. Linked ``next`` to the
answer, it took the third hit for "what medication do I take?" ahead of memories that match the
question. A content-free memory keeps its own match (a question about the thanks finds it); a
short reply that may answer a question ("No.", "ok, sounds good")
is not content-free.
"""
import pytest

import engramdb
from engramdb.index.keyword import term_counts
from engramdb.index.tokens import index_terms
from engramdb.chatter import CONTENT_FREE, QUESTION, STATEMENT, content_free, speech_act
from engramdb.config import RecallConfig

CHAT = [
    ("user", "Hi! I need help planning my week."),
    ("assistant", "Sure, what do you have going on?"),
    ("user", "My son Leo is 6 and he has a swim lesson on Tuesday."),
    ("assistant", "Got it. Swim lesson Tuesday for Leo."),
    ("user", "Amazing, thank you!"),
    ("assistant", "You're welcome!"),
    ("user", "Also I take lisinopril 10 mg every morning."),
    ("assistant", "Noted: lisinopril 10 mg every morning."),
    ("user", "haha thanks, you're the best"),
    ("assistant", "What should you cook for dinner on Friday? A vegetable lasagna keeps well."),
    ("user", "Do I have a dentist appointment this month?"),
    ("assistant", "No."),
]


@pytest.mark.parametrize("text, free", [
    ("Amazing, thank you!", True), ("You're welcome!", True), ("user: haha thanks, you're the best", True),
    ("Have a great day!", True), ("lol", True), ("Bye!", True),
    ("Wow, that's amazing, congrats!", True),
    # may answer a question, or state a fact
    ("No.", False), ("ok", False), ("Cool, sounds good.", False), ("Yes, thanks!", False),
    ("Thanks! I'm 36 now.", False), ("Thanks, I'll remind you on the first.", False),
    ("Happy birthday, Leo! 7 already!", False), ("Sure, what do you have going on?", False),
    ("I was tired but happy.", False), ("", False), ("...", False),
    # (from a hostile pass) a name says who or where; a short reply answers the question before it
    ("Thanks, Mel!", False), ("Thanks Dr Patel", False), ("Hello from Tokyo!", False), ("Hi, I'm Jane!", False),
    ("Great work on Atlas!", False), ("Awesome, Python it is!", False), ("I got it!", False), ("Me too!", False),
    ("Same here!", False), ("Totally!", False), ("Love it!", False), ("We did it!", False), ("Ja!", False),
    # (a fresh user) greetings made of words that say something elsewhere
    ("Long time no talk!", True), ("user: Hey there, hope you're doing well.", True), ("How have you been?", True),
    ("How are you?", True), ("Good to hear from you!", True),
    ("How are you doing with the new job?", False), ("It has been a long time since I saw Tom.", False),
    ("Good to hear from you! I moved to Denver.", False), ("Long time no talk! The weather has been great.", False),
    # (a hostile pass) written otherwise; or no greeting at all
    ("Long time, no talk!", True), ("It's been a long time!", True), ("Long time!", True), ("Long-time no see!", True),
    ("It's been ages!", True), ("Good to see ya!", True), ("Hope this finds you well.", True),
    ("Long time no talk to Dad after the fight.", False), ("Good to meet you at the conference in Lisbon.", False),
    ("How is it going to affect my taxes?", False), ("We watched Long Time No See.", False),
    # (helper-205) praise is read as a greeting; a job or work said of is not
    ("Great job!", True), ("Wow, good work!", True), ("Well done!", True), ("Keep up the good work!", True),
    ("Way to go!", True), ("Good job, buddy", True), ("What a great job!", True), ("Great job 🎉", True),
    ("I got a good job!", False), ("She has a great job.", False), ("Good work is rare.", False),
    ("The job is done.", False),
    # (helper-206) a job described, a steak, a title
    ("Solid job.", False), ("A good job.", False), ("Well done, please.", False), ("Fine job, I'll take it.", False),
    # (helper-221) an assistant's acknowledgement; not a user's, nor a yes or no
    ("assistant: Noted!", True), ("assistant: Got it, thanks for sharing.", True), ("assistant: Okay!", True),
    ("user: Noted!", False), ("assistant: No.", False), ("assistant: Yes.", False), ("assistant: Got it?", False),
    ("assistant: Okay, noted the new dose.", False),
    # a farewell is read as a greeting: its time words say nothing; a plan or a question is no farewell
    ("Thanks, talk next week!", True), ("Talk soon!", True), ("See you tomorrow!", True), ("ttyl!", True),
    ("Bye, talk to you later!", True), ("OK, catch you on Monday.", True), ("Speak soon, take care.", True),
    ("See ya!", True), ("Talk next week about the budget.", False), ("See you at the dentist tomorrow.", False),
    ("Should we talk tomorrow?", False), ("We'll talk next week.", False), ("Take care of the dog.", False),
    ("I moved to Boston. Talk soon!", False),
])
def test_content_free(text, free):
    assert content_free(text) is free


def _chat(mem):
    return mem.add_conversation([{"role": r, "content": c} for r, c in CHAT], namespace="chat")


def _texts(res):
    return [h.text for h in res.hits]


@pytest.mark.parametrize("embedder", ["hashing", "minilm"])
def test_thanks_next_to_the_answer_is_no_hit(tmp_path, embedder):
    with engramdb.open(tmp_path / "s", embedder=embedder) as mem:
        _chat(mem)
        for question, answer in [("what medication do I take?", "lisinopril 10 mg every morning"),
                                 ("how old is my son?", "My son Leo is 6")]:
            res = mem.recall(question, namespace="chat", k=5)
            assert answer in res.hits[0].text, (question, _texts(res))
            for thanks in ("You're welcome!", "Amazing, thank you!", "haha thanks, you're the best"):
                assert not any(thanks in t for t in _texts(res)), (question, _texts(res))


def test_thanks_keeps_its_own_match(tmp_path):
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        a = mem.add("Our wifi password is hunter22.", id="wifi")
        mem.add("Thanks so much, you're the best!", id="thanks", links=[{"to": "wifi", "relation": "next"}])
        mem.add("I play tennis on Saturdays.", id="tennis")
        assert mem.recall("thanks so much", k=3).hits[0].id == "thanks"
        res = mem.recall("what is the wifi password?", k=3)
        assert res.hits[0].id == a
        thanks = next(h for h in res.hits if h.id == "thanks")
        # its own weak cosine only (it was 0.84 through its next link, nearly the answer's 0.95)
        assert thanks.score < 0.01 and [s.id for s in thanks.path] == ["thanks"], thanks


@pytest.mark.parametrize("embedder", ["hashing", "minilm"])
def test_a_short_answer_is_still_lifted_by_its_question(tmp_path, embedder):
    with engramdb.open(tmp_path / "s", embedder=embedder) as mem:
        _chat(mem)
        res = mem.recall("do I have a dentist appointment?", namespace="chat", k=3)
        assert res.hits[0].text == "user: Do I have a dentist appointment this month?"
        no = next(h for h in res.hits if h.text == "assistant: No.")
        assert no.score > 0.5 * res.hits[0].score and [s.id for s in no.path] == [res.hits[0].id, no.id]


def test_reopened_store_keeps_the_rule(tmp_path):
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        _chat(mem)
        before = _texts(mem.recall("what medication do I take?", namespace="chat", k=5))
    with engramdb.open(tmp_path / "s") as mem:
        assert _texts(mem.recall("what medication do I take?", namespace="chat", k=5)) == before
        mem.update(mem.recall("You're welcome!", namespace="chat", k=1).hits[0].id, namespace="chat",
                   text="You're welcome! Your next refill is due on May 3.")
        res = mem.recall("what medication do I take?", namespace="chat", k=5)
        assert any("next refill" in t for t in _texts(res)), _texts(res)   # a fact now: lifted again


@pytest.mark.parametrize("text, act", [
    ("How is the leg feeling?", QUESTION), ("assistant: Amazing! How did the leg feel?", QUESTION),
    ("Wow, that looks great Joanna! Is that your third one?", QUESTION), ("Sure, what do you have going on?", QUESTION),
    ("Can you recommend a vet for my dog Rex?", STATEMENT),          # the asker tells of themself
    ("I broke my leg. How long does it take to heal?", STATEMENT), ("The leg is fine now.", STATEMENT),
    ("Thanks!", CONTENT_FREE), ("", STATEMENT),
])
def test_speech_act(text, act):
    assert speech_act(text) == act


LEG = [
    ("user", "I broke my leg skiing, the doctor put it in a cast for six weeks."),
    ("assistant", "Oh no, I'm sorry! Rest well and keep it raised."),
    ("user", "The cast came off today and I started physio on Monday."),
    ("assistant", "Amazing! How did the leg feel?"),
    ("user", "Totally fine now, fully healed, no pain at all when I walk."),
    ("assistant", "Great! How is the physio going?"),
    ("user", "Physio is going well, two sessions a week at the clinic near the park."),
]


@pytest.mark.parametrize("embedder", ["hashing", "minilm"])
def test_a_question_ranks_below_the_answer_it_got(tmp_path, embedder):
    """A fresh companion-app user's "how is my leg?" ranked the assistant's "How did the leg
    feel?" (and "How is the physio going?") above the user's answer: a question shares the
    question's words, but states nothing (RecallConfig.question_weight)."""
    with engramdb.open(tmp_path / "s", embedder=embedder) as mem:
        mem.add_conversation([{"role": r, "content": c} for r, c in LEG], namespace="chat")
        same = RecallConfig(question_weight=1.0)   # weighed as a statement
        moved = 0
        for question, answer, asked in [
                ("how is my leg?", "Totally fine now, fully healed", "How did the leg feel?"),
                ("how is the physio going?", "Physio is going well", "How is the physio going?")]:
            texts = [h.text for h in mem.recall(question, namespace="chat", k=7).hits]
            first = next(i for i, t in enumerate(texts) if answer in t)
            assert all(asked not in t for t in texts[:first]), (question, texts)
            before = [h.text for h in mem.recall(question, namespace="chat", k=7, config=same).hits]
            rank = next(i for i, t in enumerate(texts) if asked in t)
            rank_before = next(i for i, t in enumerate(before) if asked in t)
            assert rank >= rank_before, (question, before, texts)
            moved += rank > rank_before
        assert moved >= 1


def _commute_chat(path, embedder: str, greetings: tuple[str, str]):
    """A store of a user's facts, a change of one, two messages that greet (``greetings``) and a move."""
    chat = [("2025-01-15", "I live in Denver."), ("2025-01-15", "My commute is 40 minutes by train."),
            ("2025-01-15", "Maria comes at 8am on weekdays to babysit."),
            ("2025-03-10", "Since the line closure my commute went up to 1 hour."),
            ("2025-05-20", greetings[0]), ("2025-05-20", greetings[1]), ("2025-05-20", "We moved again, to Houston.")]
    mem = engramdb.open(path, embedder=embedder)
    mem.add_conversation([{"role": "user", "content": t, "created_at": f"{at}T09:{i:02d}:00Z"}
                          for i, (at, t) in enumerate(chat)], namespace="me")
    return mem


@pytest.mark.parametrize("embedder", ["hashing", "minilm"])
@pytest.mark.parametrize("greetings", [
    # a fresh user: "Long time no talk!" came first with the default embedder (BM25 on "long", as
    # rare in a small store as "commute"): a greeting states no fact, and weighs as a question does
    ("Long time no talk!", "Hey there, hope you're doing well."),
    # helper71: "Long time no talk! Busy summer." came first with hashed n-grams (relevance 0.96):
    # the message says more than a greeting, so it is no content-free memory, and BM25 found "long"
    # in it; a greeting's words are no index terms
    ("Long time no talk! Busy summer.", "How’s it going? Work has been hectic."),
])
def test_a_greeting_ranks_below_the_fact_a_question_asks_for(tmp_path, embedder, greetings):
    with _commute_chat(tmp_path / "s", embedder, greetings) as mem:
        for question in ("how long is my commute?", "how long does my commute take?"):
            hits = mem.recall(question, namespace="me", k=3, now="2025-05-25").hits
            assert "commute" in hits[0].text and "commute" in hits[1].text, (question, [h.text for h in hits])


def test_what_a_message_says_besides_a_greeting_is_still_found_by_its_words(tmp_path):
    with _commute_chat(tmp_path / "s", "hashing", ("Long time no talk! Busy summer.", "Hi!")) as mem:
        assert mem.recall("how was the summer?", namespace="me", k=1).hits[0].text.endswith("Busy summer.")


@pytest.mark.parametrize("text, gone, kept", [
    ("Long time no talk! Busy summer.", {"long", "time", "talk"}, {"busi", "summer"}),
    ("user: Hope you’re doing well! I got a dog.", {"hope"}, {"get", "dog"}),
    ("How’s it going? Great to meet you, Sam.", {"go", "meet"}, {"sam"}),
    ("A long time ago I lived in Rome; I hope to see you there.", set(), {"long", "time", "rome", "hope", "see"}),
    # helper73: greetings written otherwise, and words that only look like a greeting
    ("Long time, no talk! Busy summer.", {"long", "time", "talk"}, {"busi", "summer"}),
    ("Long-time no see! I got a dog.", {"long", "time", "see"}, {"get", "dog"}),
    ("It's been a long time! I got a dog.", {"long", "time"}, {"get", "dog"}),
    ("Good to see ya! I got a dog.", {"good", "see", "ya"}, {"get", "dog"}),
    ("Hope this finds you well. I got a dog.", {"hope", "find"}, {"get", "dog"}),
    ("Long time no talk to Dad after the fight.", set(), {"long", "time", "talk", "dad", "fight"}),
    ("Good to meet you at the conference in Lisbon.", set(), {"good", "meet", "lisbon"}),
    ("I hope you are well enough to travel to Rome.", set(), {"hope", "travel", "rome"}),
    ("We watched Long Time No See, a Korean drama.", set(), {"long", "time", "see", "drama"}),
    ("How is it going to affect my taxes?", set(), {"go", "affect", "tax"}),
    ("It's been a long time since I saw my dad.", set(), {"long", "time", "dad"}),
    # helper-205: praise ("Great job! How did it feel?" answered "what is my job?" at 0.99)
    ("Great job! How did it feel?", {"great", "job"}, {"feel"}),
    ("Wow, nice work, Jon! The demo ran well.", {"nice", "work"}, {"jon", "demo", "run"}),
    ("Way to go, Jon! Keep it up, you're almost there!", {"way", "keep"}, {"jon"}),
    ("You're doing an awesome job looking after yourself.", {"awesom", "job"}, {"look"}),
    ("I got a good job at Globex!", set(), {"get", "good", "job", "globex"}),
    ("Great work on Atlas!", set(), {"great", "work", "atlas"}),
    ("I did a great job on the exam.", set(), {"great", "job", "exam"}),
    ("I keep going back to work.", set(), {"keep", "go", "work"}),
    # helper-206: a job praised named after it, a name or time word after the praise; and a job
    # described, "Great job offer", a title after a colon
    ("Great job on the 10k! How did it feel?", {"great", "job"}, {"10k", "feel"}),
    ("Great job with the race!", {"great", "job"}, {"race"}),
    ("Great job Jon! How did it feel?", {"great", "job"}, {"jon", "feel"}),
    ("Such a great job! How did it feel?", {"great", "job"}, {"feel"}),
    ("Nice work today Jon! See you.", {"nice", "work"}, {"jon"}),
    ("Really good job, decent pay, short commute.", set(), {"good", "job", "pay", "commut"}),
    ("Solid job. Pays $80k.", set(), {"solid", "job", "pay"}),
    ("Great job offer from Google!", set(), {"great", "job", "offer", "googl"}),
    ("Favorite song - Keep It Up!", set(), {"favorit", "song", "keep"}),
    ("Our band: Way to Go!", set(), {"band", "way"}),
    # a farewell's words, its time words too ("Thanks, talk next week!" came first for "What did we
    # decide last week?"); a plan or a question keeps them
    ("Thanks, talk next week!", {"talk", "week"}, set()),
    ("I moved to Boston. See you on Saturday!", {"see", "saturday"}, {"move", "boston"}),
    ("Talk to you later, I have to pick up my son.", {"talk", "later"}, {"pick", "son"}),
    ("Talk next week about the budget.", set(), {"talk", "week", "budget"}),
    ("See you at the dentist tomorrow.", set(), {"see", "dentist", "tomorrow"}),
    ("Should we talk tomorrow?", set(), {"talk", "tomorrow"}),
])
def test_the_keyword_index_leaves_out_the_words_of_a_greeting(text, gone, kept):
    counts, length = term_counts(text)
    assert not gone & set(counts) and kept <= set(counts)
    assert length == index_terms(text)[1]   # BM25's length stays the text's


@pytest.mark.parametrize("embedder", ["hashing", "minilm"])
def test_praise_is_no_answer_to_a_question_of_work(tmp_path, embedder):
    """helper-205: the assistant's "Great job! How did it feel?" answered "what is my job?" at
    relevance 0.99, listed in ``context()`` as a direct match. Praise says nothing of a job."""
    chat = [("user", "I ran my first half marathon today!"), ("assistant", "Great job! How did it feel?"),
            ("user", "Tired but happy."), ("assistant", "Way to go, keep up the good work!"),
            ("assistant", "Great job on the 10k, Priya!"), ("assistant", "Nice work today Priya!")]
    with engramdb.open(tmp_path / "s", embedder=embedder) as mem:
        mem.add_conversation([{"role": r, "content": t, "created_at": f"2025-04-02T09:0{i}:00Z"}
                              for i, (r, t) in enumerate(chat)], namespace="me")
        for question in ("what is my job?", "where do I work?", "how's work going?"):
            res = mem.recall(question, namespace="me", k=6, now="2025-04-04")
            assert all(h.relevance < 0.5 for h in res.hits), [(h.text, h.relevance) for h in res.hits]
            assert [g.reason for g in res.gaps if g.reason in ("unstated", "weak_evidence")]


def _roles_chat(path, embedder: str, chat: list[tuple[str, str]], day: str, **kw):
    """A store of ``chat`` ((role, text) pairs), one message a minute from 09:00 on ``day``."""
    mem = engramdb.open(path, embedder=embedder)
    mem.add_conversation([{"role": r, "content": t, "created_at": f"{day}T09:{i:02d}:00Z"}
                          for i, (r, t) in enumerate(chat)], **kw)
    return mem


@pytest.mark.parametrize("embedder", ["hashing", "minilm"])
def test_a_farewell_is_no_answer_to_a_question_of_a_week(tmp_path, embedder):
    """"Thanks, talk next week!" came first for "What did we decide last week?" (BM25 on "week"
    in a store of a few messages): a farewell says nothing, its time words neither."""
    chat = [("user", "Let's plan the launch. Should we use Postgres or MySQL for the new service?"),
            ("assistant", "Postgres fits better: you already run it and it has JSONB."),
            ("user", "OK, we decided to go with Postgres. And we will ship on Friday."),
            ("user", "Thanks, talk next week!")]
    with _roles_chat(tmp_path / "s", embedder, chat, "2025-03-03", namespace="me") as mem:
        for question in ("What did we decide last week?", "what did we decide?"):
            hits = mem.recall(question, namespace="me", k=4, now="2025-03-10T12:00:00Z").hits
            assert "decided" in hits[0].text, (question, [h.text for h in hits])
            assert [h.text for h in hits].index("user: Thanks, talk next week!") == 3, [h.text for h in hits]


def test_a_column_snapshot_of_older_text_rules_reads_praise_again(tmp_path):
    """Text rules 4 read praise as a greeting: "Great job! How did it feel?" only asks, and
    scores as a question does. A store whose column snapshot was saved under older rules has the
    speech act of such a text read again on open (``columns.TEXT_RULE_STEPS``)."""
    from engramdb.testing import cache_status, damage_snapshot

    chat = [("user", "I ran my first half marathon today!"), ("assistant", "Great job! How did it feel?"),
            ("user", "My knees hurt a bit.")]

    def scores(mem):
        res = mem.recall("how did the half marathon feel?", namespace="me", k=3, now="2025-04-03", reinforce=False)
        return {h.text: h.score for h in res.hits}

    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add_conversation([{"role": r, "content": t, "created_at": f"2025-04-02T09:0{i}:00Z"}
                              for i, (r, t) in enumerate(chat)], namespace="me")
        before = scores(mem)
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        damage_snapshot(mem, "columns", meta_key="text_rules")   # as a store written before ...
        damage_snapshot(mem, "columns", zero="speech_act")        # ... whose rules read every text as stating
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        assert cache_status(mem)["columns"] == "rebuilt"
        assert scores(mem) == pytest.approx(before)


def test_an_assistants_acknowledgement_takes_no_hit_from_the_fact_beside_it(tmp_path):
    """helper-221: "assistant: Noted!" after each fact took the second of three hits (relevance
    0.00) through its ``next`` link, above the user's other facts."""
    msgs = [("user", "I live in Boston with my cat Tom."), ("assistant", "Noted!"),
            ("user", "I work as a nurse at Mass General."), ("assistant", "Got it, thanks for sharing."),
            ("user", "My sister Rita lives in Braga."), ("assistant", "Noted!")]
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add_conversation([{"role": r, "content": c, "created_at": f"2025-01-01T10:0{i}:00Z"}
                              for i, (r, c) in enumerate(msgs)], session="s1")
        for question, answer in [("where do I live?", "s1:1"), ("where does my sister live?", "s1:5"),
                                 ("what is my job?", "s1:3")]:
            hits = mem.recall(question, k=3, now="2025-06-01", reinforce=False).hits
            assert hits[0].id == answer and not any(h.text.startswith("assistant:") for h in hits), \
                (question, [h.text for h in hits])
