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
    ({"text": "note: buy milk", "tags": []}, None),                                      # no name, no role
    ({"text": "Remember this: buy milk", "tags": []}, None),                              # not capitalized throughout
    ({"text": "The meeting moved: now at 3pm", "tags": []}, None),                        # four words
    ({"text": "buy milk", "tags": ["shopping"]}, None),
    ({"text": "bo: hi", "tags": ["bo"]}, "bo"),                                           # named by its tag
])
def test_speaker_of_reads_the_prefix_or_the_role_tag(rec, speaker):
    assert speaker_of(rec) == speaker


def test_named_speaker_needs_exactly_one_speaker():
    codes = {}
    for code, name in enumerate(["Dave", "Calvin Harris", "user", "assistant", "Will"], 1):
        for w in speaker_keys(name):
            codes[w] = code
    assert speaker_keys("tool") == [] and speaker_keys("Calvin Harris") == ["Calvin", "Harris"]
    assert named_speaker("Which cars does Dave like?", codes, 3) == 1
    assert named_speaker("What did Harris buy?", codes, 3) == 2
    assert named_speaker("What do Dave and Calvin share?", codes, 3) is None   # two speakers
    assert named_speaker("What did I say about my flight?", codes, 3) == 3   # first person: the user
    assert named_speaker("What did the assistant suggest?", codes, 3) == 4
    assert named_speaker("What will happen next week?", codes, 3) is None    # "will" is no name
    assert named_speaker("Where did Will go?", codes, 3) == 5
    assert named_speaker("What did I tell Dave?", codes, 3) is None          # the user and Dave
    assert named_speaker("What did I say?", codes, None) is None             # no user speaker held
    assert named_speaker("Which cars?", codes, 3) is None and named_speaker(None, codes, 3) is None
    assert named_speaker("What does Dave like?", {"Dave": -1}, None) is None   # shared by two speakers


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
        plain = _ids(mem, q, config=engramdb.RecallConfig(w_speaker=0.0))
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
