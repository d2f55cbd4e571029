"""A ``next`` link given without a weight weighs by temporal contiguity: exp(-d / scale), d the
mean length of its two memories in words; a given weight, other relations and scale 0 keep
their weights (engramdb.contiguity)."""
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

import engramdb
from engramdb.contiguity import MIN_WEIGHT, contiguity_weight, default_weight


def _words(n, tag):
    return " ".join(f"{tag}{i}" for i in range(n))


@given(a=st.integers(0, 5000), b=st.integers(0, 5000), scale=st.floats(1.0, 1e4))
def test_contiguity_weight_is_the_drift_formula(a, b, scale):
    w = contiguity_weight(a, b, scale)
    assert w == pytest.approx(max(math.exp(-(a + b) / 2 / scale), MIN_WEIGHT))
    assert MIN_WEIGHT <= w <= 1.0
    assert contiguity_weight(a + 10, b, scale) <= w   # longer memories, weaker link


def test_default_weight_rules():
    assert default_weight(engramdb.Relation.SUPPORTS, _words(900, "x"), "c", 250.0) == 1.0
    assert default_weight(engramdb.Relation.NEXT, _words(900, "x"), _words(100, "y"), 0.0) == 1.0
    assert default_weight(engramdb.Relation.NEXT, _words(300, "x"), _words(100, "y"), 250.0) == \
        pytest.approx(math.exp(-200 / 250))


def _weight(m, src, tgt):
    return next(e.weight for e in m.edges(src) if e.source == src and e.target == tgt)


@pytest.mark.parametrize("scale", [250.0, 0.0])
def test_next_links_without_weight_get_contiguity_weights(tmp_path, scale):
    cfg = engramdb.EngramConfig(link=engramdb.LinkConfig(auto_link=False, contiguity_words=scale))
    with engramdb.open(tmp_path / "s", dim=64, config=cfg) as m:
        m.add_batch([{"id": "a", "text": _words(20, "a")},
                     {"id": "b", "text": _words(40, "b"), "links": [{"to": "a", "relation": "next"}]},
                     {"id": "c", "text": _words(400, "c"), "links": [("b", "next")]},
                     {"id": "d", "text": _words(400, "d"), "links": [{"to": "c", "relation": "next", "weight": 0.9}]},
                     {"id": "e", "text": _words(400, "e"), "links": [{"to": "d", "relation": "supports"}]}])
        # a link to a stored memory reads its text
        m.add(_words(100, "f"), id="f", links=[{"to": "e", "relation": "next"}])
        expect = (lambda a, b: math.exp(-(a + b) / 2 / scale)) if scale else (lambda a, b: 1.0)
        assert _weight(m, "b", "a") == pytest.approx(expect(40, 20), rel=1e-6)
        assert _weight(m, "c", "b") == pytest.approx(expect(400, 40), rel=1e-6)
        assert _weight(m, "f", "e") == pytest.approx(expect(100, 400), rel=1e-6)
        assert _weight(m, "d", "c") == pytest.approx(0.9, rel=1e-6)
        assert _weight(m, "e", "d") == 1.0


def test_a_long_neighbour_gets_less_inflow_than_a_short_one(tmp_path):
    """The message after the best match gains less from it when the two are long."""
    cfg = engramdb.EngramConfig(link=engramdb.LinkConfig(auto_link=False))
    with engramdb.open(tmp_path / "s", dim=64, config=cfg) as m:
        m.add_batch([{"id": "short", "text": "the zebra vault code"},
                     {"id": "short-next", "text": "see you at six", "links": [("short", "next")]},
                     {"id": "long", "text": "the zebra garage code " + _words(300, "w")},
                     {"id": "long-next", "text": "see you at seven " + _words(300, "v"), "links": [("long", "next")]}])
        short = {h.id: h for h in m.recall("zebra vault code", k=10).hits}
        long = {h.id: h for h in m.recall("zebra garage code", k=10).hits}
    assert long["long-next"].activation < short["short-next"].activation


def test_link_and_ingest_without_weight_weigh_next_links_alike(tmp_path):
    """link(), link_batch() and a repeated add_batch item's links pick the same weight for a
    `next` link given without one as add_batch does for a new item."""
    cfg = engramdb.EngramConfig(link=engramdb.LinkConfig(auto_link=False))
    with engramdb.open(tmp_path / "s", dim=64, config=cfg) as m:
        m.add_batch([{"id": "a", "text": _words(300, "a")}, {"id": "b", "text": _words(100, "b")},
                     {"id": "c", "text": _words(20, "c")}])
        want = math.exp(-(100 + 300) / 2 / 250)
        edge = m.link("b", "a", "next")
        assert edge.weight == pytest.approx(want) and _weight(m, "b", "a") == pytest.approx(want, rel=1e-6)
        assert m.link_batch([("c", "b", "supports")])[0].weight == 1.0
        assert m.link("c", "a", "next", weight=0.5).weight == 0.5
        # the same text again with a link: the stored memory gets the link, weighed the same way
        m.add_batch([{"id": "b", "text": _words(100, "b"), "links": [("c", "next")]}])
        assert _weight(m, "b", "c") == pytest.approx(math.exp(-(100 + 20) / 2 / 250), rel=1e-6)


def test_messages_stored_as_pieces_weigh_their_next_link_by_their_whole_length(tmp_path):
    """A message split into pieces keeps only its first piece's text in its record: a `next`
    link between two long messages so split weighed as between two short turns, and their
    neighbours' inflow crowded out the other direct matches. Whole or as pieces, the link now
    weighs the same (the words a piece repeats from the one before count once)."""
    def weights(chunk_chars):
        cfg = engramdb.EngramConfig(link=engramdb.LinkConfig(auto_link=False),
                                    store=engramdb.StoreConfig(chunk_chars=chunk_chars))
        with engramdb.open(tmp_path / f"s{chunk_chars}", dim=64, config=cfg) as m:
            m.add_batch([{"id": "a", "text": _words(300, "a")},
                         {"id": "b", "text": _words(300, "b"), "links": [{"to": "a", "relation": "next"}]}])
            m.add(_words(300, "c"), id="c", links=[{"to": "b", "relation": "next"}])   # b stored, read whole
            assert (m.stats()["pieces"] > 0) == (chunk_chars < 10_000)
            return _weight(m, "b", "a"), _weight(m, "c", "b")

    whole, pieces = weights(100_000), weights(400)
    assert whole == pytest.approx((math.exp(-300 / 250),) * 2, rel=1e-6)
    assert pieces == pytest.approx(whole, rel=1e-6)
