"""query(): structured filters and orders over the column arrays, checked against a plain
Python reference over the stored records (hypothesis), plus the "decisions about pricing" story."""
import tempfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engramdb
from engramdb.testing import FakeClock, use_clock
from engramdb.errors import NamespaceError

from .conftest import T0

DAY = 86400.0


def test_decisions_about_pricing_newest_first(mem):
    mem.add("We chose usage-based pricing for the API.", id="d1", kind="decision", tags=["pricing", "api"],
            created_at=T0 - 40 * DAY, confidence=0.8)
    mem.add("Discussed pricing with the sales team.", id="e1", kind="episodic", tags=["pricing"],
            created_at=T0 - 30 * DAY)
    mem.add("We decided to drop the free tier.", id="d2", kind="decision", tags=["pricing"],
            created_at=T0 - 10 * DAY, confidence=0.6)
    mem.add("We decided to hire a designer.", id="d3", kind="decision", tags=["hiring"], created_at=T0 - 5 * DAY)
    mem.add("Annual plans get two months free.", id="d4", kind="decision", tags=["pricing"],
            created_at=T0 - 20 * DAY, confidence=0.9)
    assert [m.id for m in mem.query(kind="decision", tags=["pricing"])] == ["d2", "d4", "d1"]
    assert [m.id for m in mem.query(kind="decision", tags="pricing", order="event_time_asc")] == ["d1", "d4", "d2"]
    assert [m.id for m in mem.query(kind="decision", tags=["pricing"], order="confidence_desc")] == ["d4", "d1", "d2"]
    assert [m.id for m in mem.query(kind="decision", tags=["pricing"], limit=1)] == ["d2"]
    assert [m.id for m in mem.query(kind=["decision", "episodic"], tags=["pricing"], since=T0 - 35 * DAY,
                                    until=T0 - 15 * DAY)] == ["d4", "e1"]
    assert [m.id for m in mem.query(tags=["pricing", "api"])] == ["d1"]
    assert [m.id for m in mem.query(min_confidence=0.85)] == ["d3", "d4", "e1"]
    mem.forget("d4")
    assert "d4" not in [m.id for m in mem.query(tags=["pricing"])]
    assert [m.id for m in mem.query(state="archived")] == ["d4"]
    assert "d4" in [m.id for m in mem.query(tags=["pricing"], include_archived=True)]
    with pytest.raises(NamespaceError):   # a namespace the store never held: a typo, as recall says
        mem.query(namespace="elsewhere")


def test_salience_order(mem):
    for i, s in enumerate([0.2, 0.9, 0.5]):
        mem.add(f"note {i}", id=f"n{i}", kind="semantic", salience=s)
    assert [m.id for m in mem.query(order="salience_desc")] == ["n1", "n2", "n0"]


@pytest.mark.parametrize("kwargs,exc", [
    ({"order": "random"}, engramdb.InvalidInputError),
    ({"limit": 0}, engramdb.InvalidInputError),
    ({"limit": True}, engramdb.InvalidInputError),
    ({"kind": "dream"}, engramdb.UnknownKindError),
    ({"kind": []}, engramdb.InvalidInputError),
    ({"state": "gone"}, engramdb.InvalidInputError),
    ({"min_confidence": 2}, engramdb.InvalidInputError),
    ({"since": "last week"}, engramdb.InvalidInputError),
    ({"as_of": float("nan")}, engramdb.NonFiniteError),
    ({"tags": [""]}, engramdb.InvalidInputError),
    ({"namespace": ""}, engramdb.NamespaceError),
])
def test_bad_query_arguments(mem, kwargs, exc):
    mem.add("x", id="x")
    with pytest.raises(exc):
        mem.query(**kwargs)


memories = st.lists(st.tuples(
    st.sampled_from(["episodic", "semantic", "decision"]),
    st.lists(st.sampled_from(["a", "b", "c"]), max_size=2, unique=True),
    st.integers(0, 20),                 # event day
    st.sampled_from([0.1, 0.5, 0.9]),   # confidence
    st.integers(0, 3),                  # clock advance before adding
    st.sampled_from(["keep", "archive", "supersede"]),
), min_size=0, max_size=12)
queries = st.fixed_dictionaries({
    "kind": st.one_of(st.none(), st.sampled_from(["episodic", "decision"])),
    "tags": st.one_of(st.none(), st.sampled_from([["a"], ["a", "b"]])),
    "min_confidence": st.one_of(st.none(), st.just(0.5)),
    "since": st.one_of(st.none(), st.integers(0, 20)),
    "until": st.one_of(st.none(), st.integers(0, 20)),
    "as_of": st.one_of(st.none(), st.integers(0, 50)),
    "include_archived": st.booleans(),
    "include_superseded": st.booleans(),
    "order": st.sampled_from(["event_time_desc", "event_time_asc", "confidence_desc"]),
    "limit": st.integers(1, 15),
})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(memories, queries)
def test_query_matches_reference(mems, q):
    clock = FakeClock(T0)
    with tempfile.TemporaryDirectory() as tmp, use_clock(clock), \
            engramdb.open(tmp + "/s", dim=8) as m:
        ids, archived_at = [], {}
        for i, (kind, tags, day, conf, adv, fate) in enumerate(mems):
            clock.advance(adv)
            m.add(f"memory {i}", id=f"m{i}", kind=kind, tags=tags, created_at=T0 + day * DAY, confidence=conf,
                  embedding=np.eye(8)[i % 8] + 0.1)
            ids.append(f"m{i}")
            if fate == "archive":
                clock.advance(1)   # active for a second of record time first
                m.forget(f"m{i}")
                archived_at[f"m{i}"] = clock.time()
            elif fate == "supersede":
                clock.advance(1)
                m.supersede(f"m{i}", f"memory {i} revised", id=f"r{i}", embedding=np.eye(8)[(i + 1) % 8] + 0.1,
                            created_at=T0 + day * DAY, confidence=conf)
                ids.append(f"r{i}")
        args = dict(q)
        for key in ("since", "until"):
            if args[key] is not None:
                args[key] = T0 + args[key] * DAY
        if args["as_of"] is not None:
            args["as_of"] = T0 + args["as_of"]
        if args["since"] is not None and args["until"] is not None and args["since"] > args["until"]:
            with pytest.raises(engramdb.InvalidInputError, match="is after until"):
                m.query(**args)   # an empty range is refused, not answered with []
            return
        got = [x.id for x in m.query(**args)]

        # reference: filter every stored record in Python, then sort
        rows = []
        for nid, i in enumerate(ids):
            x = m.get(i)
            # an archived memory shows as of a time before it was archived (it was active then)
            archived_then = args["as_of"] is not None and args["as_of"] < archived_at.get(i, -np.inf)
            st_ok = (x.state.value == "active"
                     or (x.state.value == "archived" and (args["include_archived"] or archived_then))
                     or (x.state.value == "superseded" and (args["include_superseded"] or args["as_of"] is not None)))
            if not st_ok or (args["kind"] and x.kind.value != args["kind"]):
                continue
            if args["tags"] and not set(args["tags"]) <= set(x.tags):
                continue
            if args["min_confidence"] is not None and x.confidence < args["min_confidence"]:
                continue
            if args["since"] is not None and x.created_at < args["since"]:
                continue
            if args["until"] is not None and x.created_at > args["until"]:
                continue
            if args["as_of"] is not None:
                t = args["as_of"]
                retired = np.inf if x.retired_at is None else x.retired_at
                if not (x.recorded_at <= t < retired and x.valid_from <= t):
                    continue
            key = {"event_time_desc": -x.created_at, "event_time_asc": x.created_at,
                   "confidence_desc": -np.float32(x.confidence)}[args["order"]]
            rows.append((key, nid, i))   # exact ties: insertion order
        expected = [i for _, _, i in sorted(rows)][: args["limit"]]
        assert got == expected


def test_an_archived_memory_shows_as_of_a_time_before_it_was_archived(tmp_path):
    """as_of asks what the store held then: a memory archived later was active then (as a
    superseded one is shown for the time before it was superseded)."""
    clock = FakeClock(T0)
    with use_clock(clock), engramdb.open(tmp_path / "s", dim=8) as m:
        m.add("the spare key is under the mat", id="key", embedding=np.eye(8)[0])
        clock.advance(100)
        m.forget("key")
        clock.advance(100)
        assert [x.id for x in m.query(as_of=T0 + 50)] == ["key"]
        assert m.query(as_of=T0 + 150) == []                              # archived by then
        assert m.query(as_of=T0 + 100) == []                              # archived at that instant
        assert [x.id for x in m.query(as_of=T0 + 150, include_archived=True)] == ["key"]
        assert [h.id for h in m.recall(vector=np.eye(8)[0], as_of=T0 + 50).hits] == ["key"]
        assert m.query(as_of=T0 + 50, state="active") == []               # an explicit state is exact
    with use_clock(clock), engramdb.open(tmp_path / "s", dim=8) as m:   # from the column snapshot
        assert [x.id for x in m.query(as_of=T0 + 50)] == ["key"]


def test_as_of_shows_each_memory_as_it_was_then(tmp_path):
    """A memory superseded or archived after T was active at T: as_of shows it so, with no
    successor yet (a fresh user's as_of recall showed "Globex has 5 seats." superseded on a date
    it was current, and the agent's tool passed that on to the model); now it shows as it is."""
    clock = FakeClock(T0)
    with use_clock(clock), engramdb.open(tmp_path / "s", dim=8) as m:
        m.add("Globex has 5 seats.", id="five", embedding=np.eye(8)[0])
        m.add("the spare key is under the mat", id="key", embedding=np.eye(8)[1])
        clock.advance(100)
        m.supersede("five", "Globex has 12 seats.", id="twelve", embedding=np.eye(8)[0])
        m.forget("key")
        clock.advance(100)
        then = {x.id: x for x in m.query(as_of=T0 + 50)}
        assert {i: (x.state.value, x.superseded_by, x.retired_at) for i, x in then.items()} == {
            "five": ("active", None, None), "key": ("active", None, None)}
        hits = m.recall(vector=np.eye(8)[0], as_of=T0 + 50, k=1).hits
        assert [(h.id, h.state.value) for h in hits] == [("five", "active")]
        now = {x.id: x for x in m.query(include_superseded=True, include_archived=True)}
        assert (now["five"].state.value, now["five"].superseded_by) == ("superseded", "twelve")
        assert now["key"].state.value == "archived"
        hits = m.recall(vector=np.eye(8)[0], as_of=T0 + 150, k=1).hits
        assert [(h.id, h.state.value) for h in hits] == [("twelve", "active")]
