"""Source attribution: who said a memory, whom a question names, and recall weighing a named
speaker's own memories (``RecallConfig.w_speaker``, :mod:`engramdb.speakers`)."""
from __future__ import annotations

import pytest

import engramdb
from engramdb.speakers import named_speaker, speaker_keys, speaker_of
from engramdb.testing import cache_status, damage_snapshot, snapshot_arrays


@pytest.mark.parametrize("rec,speaker", [
    ({"text": "Dave: I love classic cars.", "tags": ["Dave", "user"]}, "Dave"),        # add_conversation
    ({"text": "Dave: I love classic cars.", "tags": []}, "Dave"),                        # a chat line
    ({"text": "Dr Maya Chen: take two a day.", "tags": []}, "Dr Maya Chen"),
    ({"text": "user: my flight is at nine", "tags": []}, "user"),                        # a role prefix
    ({"text": "USER: my flight is at nine", "tags": []}, "user"),
    ({"text": "assistant: here is the plan", "tags": ["assistant"]}, "assistant"),
    ({"text": "my flight is at nine", "tags": ["user"]}, "user"),                        # a role tag
    ({"text": "Update: I live in Berlin now.", "tags": ["user"]}, "user"),               # a label: the role
    ({"text": "Note: buy milk", "tags": []}, None),                                      # labels name no one
    ({"text": "TODO: buy milk", "tags": []}, None),
    ({"text": "Q: why?", "tags": []}, None),
    ({"text": "Monday: gym", "tags": []}, None),                                         # a weekday
    ({"text": "I: do you fly often?", "tags": []}, None),                                # a pronoun
    ({"text": "note: buy milk", "tags": []}, None),                                      # no capital
    ({"text": "Remember this: buy milk", "tags": []}, None),                              # not capitalized throughout
    ({"text": "The meeting moved: now at 3pm", "tags": []}, None),                        # four words
    ({"text": "buy milk", "tags": ["shopping"]}, None),
    ({"text": "bo: hi", "tags": ["bo"]}, "bo"),                                           # named by its tag
    ({"text": "Mary Jane Watson Parker: curry?", "tags": ["Mary Jane Watson Parker", "user"]},
     "Mary Jane Watson Parker"),                                                          # a tag proves any name
    ({"text": "@alice: curry?", "tags": ["@alice", "user"]}, "@alice"),
    ({"text": "Zoe\u0308: hi", "tags": []}, "Zo\u00eb"),                                     # NFC
])
def test_speaker_of_reads_the_prefix_or_the_role_tag(rec, speaker):
    assert speaker_of(rec) == speaker


def _words(names):
    words = {}
    for code, name in enumerate(names, 1):
        for w in speaker_keys(name):
            words.setdefault(w, set()).add(code)
    return {w: frozenset(c) for w, c in words.items()}


def test_named_speaker_needs_exactly_one_speaker():
    names = ["Dave", "Calvin Harris", "user", "assistant", "Will", "Maya Chen", "Maya Lopez", "May"]
    words = _words(names)
    user, assistant = 3, 4

    def who(q, u=user, a=assistant):
        return named_speaker(q, words, u, a)

    assert speaker_keys("tool") == [] and speaker_keys("Calvin Harris") == ["Calvin", "Harris"]
    assert speaker_keys("I") == [] and speaker_keys("May") == []   # a pronoun, a month: no word names them
    assert who("Which cars does Dave like?") == 1
    assert who("What are Dave's favourite cars?") == who("What are Dave\u2019s favourite cars?") == 1
    assert who("What did Harris buy?") == 2
    assert who("What do Dave and Calvin share?") is None                # two speakers
    assert who("What did I say about my flight?") == user                # first person: the user
    assert who("What did the assistant suggest?") == assistant
    assert who("Which book did you recommend?") == assistant             # second person: the assistant
    assert who("Which book did you recommend to me?") is None            # both
    assert who("What will happen next week?") is None                    # "will" is no name
    assert who("Will Dave come to the party?") == 1                      # a leading auxiliary names no one
    assert who("Where did Will go?") == 5
    assert who("What did Dave do in May?") == 1                          # a month names no one
    assert who("What car does Maya Chen drive?") == 6                    # the shared first name is no bar
    assert who("What car does Maya drive?") is None                      # shared alone: ambiguous
    assert who("What did Dave tell Maya?") is None                       # Dave and one of the Mayas
    assert who("What did I tell Dave?") is None                          # the user and Dave
    assert who("What did I say?", u=None) is None                        # no user speaker held
    assert who("Which cars?") is None and who(None) is None


CHAT = [
    {"role": "user", "name": "Calvin", "content": "Dave, your classic cars restoration shop looks amazing, "
                                                   "which cars do you like?"},
    {"role": "assistant", "name": "Dave", "content": "Muscle cars from the sixties are my favourite."},
    {"role": "user", "name": "Calvin", "content": "I went hiking in the hills."},
    {"role": "assistant", "name": "Dave", "content": "Sounds fun, I fixed an engine today."},
]


def _ids(mem, question, **kw):
    return [h.id for h in mem.recall(question, namespace="c", k=4, **kw).hits]


def test_recall_weighs_what_the_named_speaker_said(tmp_path):
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add_conversation(CHAT, namespace="c", session="s1")
        q = "Which cars does Dave like?"
        # (Calvin's turn only asks: weighed as a statement here, RecallConfig.question_weight)
        plain = _ids(mem, q, config=engramdb.RecallConfig(w_speaker=0.0, question_weight=1.0))
        said = _ids(mem, q)   # the default weighs Dave's own turns
        assert plain.index("s1:1") < plain.index("s1:2")   # Calvin's turn naming Dave came first
        assert said.index("s1:2") < said.index("s1:1")      # Dave's own answer comes first now
        hits = {h.id: h.score for h in mem.recall(q, namespace="c", k=4).hits}
        base = {h.id: h.score for h in mem.recall(q, namespace="c", k=4,
                                                  config=engramdb.RecallConfig(w_speaker=0.0)).hits}
        assert hits["s1:2"] == pytest.approx(base["s1:2"] * 1.2)   # (1 + w_speaker), default 0.2
        assert hits["s1:1"] == pytest.approx(base["s1:1"])
        # a question naming both speakers, or none, ranks as without the weight
        for both in ("Which cars do Dave and Calvin like?", "Which cars are liked?"):
            assert _ids(mem, both) == _ids(mem, both, config=engramdb.RecallConfig(w_speaker=0.0))


def test_the_speaker_column_survives_reopen_and_an_older_snapshot(tmp_path):
    path = tmp_path / "s"
    q = "Which cars does Dave like?"
    with engramdb.open(path, embedder="hashing") as mem:
        mem.add_conversation(CHAT, namespace="c", session="s1")
        before = [(h.id, h.score) for h in mem.recall(q, namespace="c", k=4).hits]
    with engramdb.open(path, embedder="hashing") as mem:    # from the column snapshot
        assert cache_status(mem)["columns"] == "current"
        assert [(h.id, h.score) for h in mem.recall(q, namespace="c", k=4).hits] == before
        damage_snapshot(mem, "columns", array="speaker")   # as a snapshot of an earlier engramdb lacks it
    with engramdb.open(path, embedder="hashing") as mem:    # rebuilt from the records, saved at close
        assert cache_status(mem)["columns"] == "rebuilt"
        assert [(h.id, h.score) for h in mem.recall(q, namespace="c", k=4).hits] == before
    with engramdb.open(path, embedder="hashing") as mem:
        assert {"speaker", "speaker_names"} <= set(snapshot_arrays(mem, "columns")[0])
        assert [(h.id, h.score) for h in mem.recall(q, namespace="c", k=4).hits] == before


def test_pieces_of_a_long_message_have_its_speaker(tmp_path):
    long_answer = "\n\n".join(f"Step {i}: configure the router table number {i} with care." for i in range(12))
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add_conversation([
            {"role": "user", "content": "How do I configure the router tables?"},
            {"role": "assistant", "content": long_answer},
            {"role": "user", "content": "The router table number 7 is what I configure myself."},
        ], namespace="c", session="s1", split_chars=200)
        plain = engramdb.RecallConfig(w_speaker=0.0)
        q = "Which router table number 7 did the assistant say to configure?"
        base = {h.id: h for h in mem.recall(q, namespace="c", k=3, config=plain).hits}
        said = {h.id: h for h in mem.recall(q, namespace="c", k=3).hits}
        assert said["s1:2"].score == pytest.approx(base["s1:2"].score * 1.2)   # its blocks have its speaker
        assert said["s1:3"].score == pytest.approx(base["s1:3"].score)
        q = "Which router table number do I configure?"   # "I": the user's turns weigh 1.2x
        base = {h.id: h.score for h in mem.recall(q, namespace="c", k=3, config=plain).hits}
        said = {h.id: h.score for h in mem.recall(q, namespace="c", k=3).hits}
        assert said == pytest.approx({"s1:1": base["s1:1"] * 1.2, "s1:2": base["s1:2"], "s1:3": base["s1:3"] * 1.2})


def _boost(mem, q, mid, ns="default"):
    """Score of ``mid`` with the default weight over its score with ``w_speaker`` 0."""
    on = {h.id: h.score for h in mem.recall(q, namespace=ns, k=10).hits}
    off = {h.id: h.score for h in mem.recall(q, namespace=ns, k=10, config=engramdb.RecallConfig(w_speaker=0.0)).hits}
    return round(on[mid] / off[mid], 6)


def test_only_speakers_of_live_memories_of_the_namespace_count(tmp_path):
    # a speaker whose memories were all erased or reworded, or who speaks only in another
    # namespace, made "Dave and X" two speakers and took Dave's weight away; and the erased
    # speaker's name stayed in the saved column snapshot
    path = tmp_path / "s"
    with engramdb.open(path, embedder="hashing") as mem:
        mem.add("Dave: I like coffee with oat milk.", id="dave")
        mem.add("Tina: I like orange juice.", id="tina")
        mem.add("Rosa: I like green tea.", id="rosa")
        mem.add("Melanie: I like coffee too.", id="mel", namespace="other")
        assert _boost(mem, "Did Dave tell Tina about coffee?", "dave") == 1.0   # two speakers named
        mem.forget("tina", hard=True)
        mem.update("rosa", text="I like green tea.")
        for q in ("Did Dave tell Tina about coffee?", "Did Dave tell Rosa about coffee?",
                  "Did Dave tell Melanie about coffee?"):
            assert _boost(mem, q, "dave") == 1.2, q
        assert _boost(mem, "Did Dave tell Tina about coffee?", "rosa") == 1.0
        mem.add("Tina: back again.", id="tina2")   # a speaker comes back
        assert _boost(mem, "Did Dave tell Tina about coffee?", "dave") == 1.0
        mem.forget("tina2", hard=True)
    with engramdb.open(path, embedder="hashing") as mem:
        assert _boost(mem, "Did Dave tell Tina about coffee?", "dave") == 1.2
        assert _boost(mem, "Did Dave tell Melanie about coffee?", "dave") == 1.2
    with open(path / "data.mdb", "rb") as f:   # the snapshot's names: live speakers only
        raw = f.read()
    assert b"Dave\x00Melanie" in raw or b"Melanie\x00Dave" in raw
    assert b"\x00Dave\x00Tina" not in raw and b"Tina\x00Rosa" not in raw


def test_a_reworded_long_memory_and_its_pieces_have_one_speaker(tmp_path):
    text = "bob: " + " ".join(f"Sentence {i} about the garden shed and its roof." for i in range(40))
    cfg = engramdb.EngramConfig(store=engramdb.StoreConfig(chunk_chars=300))
    with engramdb.open(tmp_path / "s", embedder="hashing", config=cfg) as mem:
        mem.add(text, id="long", tags=["bob"])
        mem.add("Tina: the garden shed roof leaks.", id="tina")
        q = "What did bob say about the garden shed roof?"
        assert _boost(mem, q, "long") == 1.2
        mem.update("long", tags=[])   # "bob" no longer proven by a tag, and lower case: no speaker
        assert _boost(mem, q, "long") == 1.0


def test_a_mostly_time_question_finds_a_memory_by_the_time_it_names(tmp_path):
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add("Last Friday I went to a council meeting.", id="said_monday", created_at="2023-07-10T15:00:00")
        mem.add("Lunch with Ana.", id="other", created_at="2023-06-01")
        for q in ("What happened on 7 July 2023?", "What did I do on July 7, 2023?"):
            res = mem.recall(q, k=3)
            assert [h.id for h in res.hits][:1] == ["said_monday"], q
            # the day's memory answers it: relevant, no weak_evidence gap (it was 0.00-0.09 and
            # flagged, so context() told the model the store may not hold the answer)
            assert res.hits[0].relevance == 1.0 and res.gaps == [], q


def test_an_as_of_recall_reads_time_cues_as_the_store_would_have_then(tmp_path):
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add("I went kayaking on the lake with Ana.", id="week", created_at="2024-01-24", recorded_at="2024-01-24")
        mem.add("I went kayaking on the river, long ago.", id="old", created_at="2023-05-02", recorded_at="2023-05-02")
        mem.add("I cleaned the garage.", id="garage", created_at="2024-01-31", recorded_at="2024-01-31")
        q, t = "Where did I go kayaking last week?", "2024-01-31T12:00:00"
        before = {h.id: h.score for h in mem.recall(q, as_of=t).hits}
        mem.add("I bought a new kayak helmet.", id="helmet", created_at="2024-06-30", recorded_at="2024-06-30")
        after = {h.id: h.score for h in mem.recall(q, as_of=t).hits}
        assert list(after) == list(before) == ["week", "old"]
        # "last week" is still the week before 31 January: the week's memory keeps its time gain
        # (the keyword statistics are today's, so the other score may move a little)
        assert after["week"] == pytest.approx(before["week"])
