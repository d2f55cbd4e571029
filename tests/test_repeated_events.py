"""The same words at another time are another event: an episodic memory given its own event time
(``created_at``) repeats only the stored episode of that text *at that time*. Before, a run logged
every week was folded into the first one (reinforced), and ``query(since=...)`` lost the later
runs. Facts (other kinds) and items without an event time are deduplicated by text as before."""
import engramdb

DAY = 86400.0
T = 1_700_000_000.0
RUN = "Went for a 5 km run by the river."


def test_a_repeated_episode_at_another_time_is_stored_again(tmp_store):
    with engramdb.open(tmp_store, embedder="hashing") as eng:
        ids = [eng.add(RUN, created_at=T + d * DAY) for d in (0, 7, 14)]
        assert len(set(ids)) == 3
        assert [m.id for m in eng.query(since=T + 5 * DAY, order="event_time_asc")] == ids[1:]
        # sent again at a time it was stored at: that episode, reinforced, whichever came last
        assert eng.add(RUN, created_at=T) == ids[0]
        assert eng.get(ids[0]).access_count == 1
        assert eng.add(RUN) == ids[2]   # no time given: the text's newest memory, as before
        assert len(eng.query(limit=100)) == 3


def test_a_batch_keeps_its_episodes_apart_and_merges_true_repeats(tmp_store):
    with engramdb.open(tmp_store, embedder="hashing") as eng:
        ids = eng.add_batch([{"text": RUN, "created_at": T}, {"text": RUN, "created_at": T + DAY},
                             {"text": RUN, "created_at": T}])
        assert ids[0] == ids[2] != ids[1]
        assert len(eng.query(limit=100)) == 2


def test_facts_and_untimed_repeats_are_still_one_memory(tmp_store):
    with engramdb.open(tmp_store, embedder="hashing") as eng:
        fact = "My blood type is O negative."
        a = eng.add(fact, kind="semantic", created_at=T)
        assert eng.add(fact, kind="semantic", created_at=T + 30 * DAY) == a
        b = eng.add("I like green tea.")
        assert eng.add("I like green tea.") == b
        assert len(eng.query(limit=100)) == 2


def test_an_untimed_repeat_in_a_batch_repeats_the_newest_episode_as_calls_do(tmp_store):
    """add_batch equals the same items added one by one: a timed episode, then its text with no
    time, is one memory (the batch stored two)."""
    with engramdb.open(tmp_store, embedder="hashing") as eng:
        ids = eng.add_batch([{"text": RUN, "created_at": T}, {"text": RUN, "created_at": T + DAY}, {"text": RUN}])
        assert ids[2] == ids[1] != ids[0]
        assert len(eng.query(limit=100)) == 2


def test_the_live_episode_of_a_time_is_the_one_repeated(tmp_store):
    """An archived episode of the same words and time does not hide the live one (a repeat of
    it stored a second live episode)."""
    with engramdb.open(tmp_store, embedder="hashing") as eng:
        old = eng.add(RUN, created_at=T)
        eng.forget(old)
        live = eng.add(RUN, created_at=T)
        assert live != old
        eng.add(RUN, created_at=T + DAY)
        assert eng.add(RUN, created_at=T) == live
        assert eng.add_batch([{"text": RUN, "created_at": T}]) == [live]
        assert len(eng.query(limit=100)) == 2


def test_a_timed_episode_is_no_repeat_of_the_same_words_stored_as_a_fact(tmp_store, tmp_path):
    """One by one as in a batch: the episode at its time is a memory of its own."""
    with engramdb.open(tmp_store, embedder="hashing") as eng:
        a = eng.add(RUN, kind="semantic")
        assert eng.add(RUN, created_at=T) != a
    with engramdb.open(tmp_path / "b", embedder="hashing") as eng:
        ids = eng.add_batch([{"text": RUN, "kind": "semantic"}, {"text": RUN, "created_at": T}])
        assert ids[0] != ids[1]


def test_a_superseded_episode_sent_again_at_its_time_is_the_stored_one(tmp_store):
    """A chat or log imported twice (helper109): "I take 10 mg" of March, superseded by "I take
    20 mg" of June, was stored again as a new active memory, recall gave both doses, and the
    June statement sent again was stored a third time. The same words at the same time are the
    stored episode, whatever became of it; at another time they are a new statement."""
    old_dose, new_dose = "I take 10 mg of lisinopril every morning.", "I take 20 mg of lisinopril every morning now."
    with engramdb.open(tmp_store, embedder="hashing") as eng:
        a = eng.add(old_dose, created_at="2025-03-01")
        b = eng.add(new_dose, created_at="2025-06-01")
        assert eng.get(a).state == "superseded"
        assert eng.add(old_dose, created_at="2025-03-01") == a
        assert eng.add_batch([{"text": old_dose, "created_at": "2025-03-01"},
                              {"text": new_dose, "created_at": "2025-06-01"}]) == [a, b]
        assert eng.get(a).state == "superseded" and eng.get(b).state == "active"
        assert eng.get(a).access_count == 0   # (a superseded memory is not reinforced)
        assert [h.id for h in eng.recall("what dose of lisinopril do I take?", k=5, reinforce=False).hits] == [b]
        assert len(eng.query(limit=100, include_superseded=True)) == 2
        c = eng.add(old_dose, created_at="2025-09-01")   # said again later: a new statement
        assert c not in (a, b)


def test_a_superseded_episode_whose_successor_is_forgotten_is_stored_again(tmp_store):
    """helper110: with the successor forgotten (archived), the repeat was folded into the
    superseded memory and no active memory held the fact."""
    dose = "I take 10 mg of lisinopril every morning."
    with engramdb.open(tmp_store, embedder="hashing") as eng:
        a = eng.add(dose, created_at="2024-03-01")
        b = eng.add("I take 20 mg of lisinopril every morning.", created_at="2024-06-01")
        assert eng.get(a).superseded_by == b
        eng.forget(b)
        c = eng.add(dose, created_at="2024-03-01")
        assert c != a and eng.get(c).state == "active"
