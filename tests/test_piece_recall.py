"""Recall over a memory stored as pieces (a text longer than ``chunk_chars``) walks the graph as
from the memory stored whole: whichever piece matches, the memory's neighbours are one hop away,
and the hit shows the piece that matched."""
import pytest

import engramdb
from engramdb.testing import cache_status, damage_snapshot

CHUNK = 64
FILLER = " ".join(f"filler{i:03d}" for i in range(40))
LONG = FILLER + " zebra vault"


def _open(path, chunk_chars):
    cfg = engramdb.EngramConfig(store=engramdb.StoreConfig(chunk_chars=chunk_chars),
                                link=engramdb.LinkConfig(auto_link=False))
    return engramdb.open(path, dim=64, config=cfg)


def _chat(m):
    """A message stored as pieces (the match in a later piece), the message after it (no word
    in common with the question) linked ``next``, and an unrelated message."""
    m.add_batch([{"id": "long", "text": LONG},
                 {"id": "after", "text": "the meeting moved to tuesday afternoon",
                  "links": [{"to": "long", "relation": "next", "weight": 1.0}]},
                 {"id": "other", "text": "groceries: apples, bread and milk"}])


def _by_id(res):
    return {h.id: h for h in res.hits}


def test_a_matching_piece_reaches_the_memory_s_neighbour_as_the_whole_memory_does(tmp_path):
    with _open(tmp_path / "pieces", CHUNK) as m, _open(tmp_path / "whole", 10_000) as w:
        _chat(m)
        _chat(w)
        assert m.stats()["memories"] == w.stats()["memories"] == 3
        assert m.stats()["pieces"] > w.stats()["pieces"] == 0
        pieces, whole = _by_id(m.recall("zebra vault", k=5)), _by_id(w.recall("zebra vault", k=5))
    assert pieces["long"].chunk >= 1 and "zebra vault" in pieces["long"].text
    assert whole["long"].chunk is None
    # the neighbour gets the same pass from the memory, one hop from its first piece
    after = pieces["after"]
    assert after.activation == pytest.approx(whole["after"].activation, rel=1e-6)
    assert after.activation > 0.0
    assert [(s.id, s.relation) for s in after.path] == [("long", None), ("after", engramdb.Relation.NEXT)]


def test_the_hit_shows_the_piece_that_matched_when_the_first_piece_ranks_higher(tmp_path):
    """Memories about the zebra code that support the long memory lift its first piece (their
    edges end there) above the piece holding the match; the hit still shows that piece."""
    with _open(tmp_path / "s", CHUNK) as m:
        m.add(LONG, id="long")
        for i in range(3):
            m.add(f"zebra vault note {i}", id=f"note{i}", links=[{"to": "long", "relation": "supports"}])
        res = m.recall("zebra vault", k=5)
        long = _by_id(res)["long"]
        assert long.chunk >= 1 and "zebra vault" in long.text and len(long.text) <= CHUNK
        assert long.path[-1].id == f"long#{long.chunk}"
        assert long.similarity == pytest.approx(max(
            h.similarity for h in m.recall("zebra vault", k=5, config=engramdb.RecallConfig(w_graph=0.0)).hits
            if h.id == "long"))
        m.supersede("long", "the zebra vault moved to the bank", id="long-v2")
        old = _by_id(m.recall("zebra vault", k=5, include_superseded=True))["long"]
        assert old.chunk >= 1 and "zebra vault" in old.text


@pytest.mark.parametrize("how", ["reopen", "import"])
def test_pieces_lift_their_memory_after_reopen_and_import(tmp_path, how):
    with _open(tmp_path / "a", CHUNK) as m:
        _chat(m)
        before = _by_id(m.recall("zebra vault", k=5))
        if how == "import":
            m.export(tmp_path / "dump")
    if how == "import":
        with _open(tmp_path / "b", CHUNK) as b:
            b.import_from(tmp_path / "dump")
            after = _by_id(b.recall("zebra vault", k=5))
    else:
        with _open(tmp_path / "a", CHUNK) as m:
            after = _by_id(m.recall("zebra vault", k=5))
    assert before["after"].activation > 0.0
    assert after["after"].activation == pytest.approx(before["after"].activation, rel=1e-6)
    assert after["long"].chunk == before["long"].chunk >= 1


def test_a_memory_stored_as_pieces_counts_its_match_once(tmp_path):
    """Its own pieces passed the memory's one match back to it (inflow from a node that carries
    the same match): a long answer split into pieces scored about 1.6 times its match, and
    outranked a short memory that matches as well (a fresh user's "how to renew the payment
    certificate" answer above "The payment service went down on March 3"). Stored whole or as
    pieces, the long memory now ranks alike against the short one."""
    for name, chunk in (("pieces", CHUNK), ("whole", 10_000)):
        with _open(tmp_path / name, chunk) as m:
            m.add(LONG, id="long")
            m.add("zebra vault", id="short")   # the same match, said short
            hits = {h.id: h for h in m.recall("zebra vault", k=5).hits}
            assert hits["short"].score > hits["long"].score, name


_PARA = ("Keep each pull request small and focused on one change, with a clear description, the ticket "
         "link and screenshots of any interface change, so that the reviewer can follow it quickly.")
_ANSWER = "\n\n".join(["Here is a review routine that works well for small teams.", _PARA,
                       "1. Ask Priya before you merge anything big.", _PARA, _PARA, _PARA])


@pytest.mark.parametrize("embedder", ["hashing", "minilm"])
def test_a_block_of_a_long_answer_is_scored_as_its_message_is_long(tmp_path, embedder):
    """helper-242: a block of a long assistant answer is a short document only because the answer
    was split; scored as one by BM25 it outranked the user's message that answers ("Who is
    Priya?": "1. Ask Priya before you merge anything big." first). Its BM25 length is its
    message's; the answer still shows that block. The same scores after the keyword index is
    rebuilt from the records (a store written by another tokenizer, a damaged snapshot)."""
    msgs = [{"role": "user", "content": "Priya is our backend lead; she reviews all my pull requests every week "
                                        "and she is strict about tests, types and naming.",
             "created_at": "2025-01-06T09:00:00Z"},
            {"role": "assistant", "content": "Noted.", "created_at": "2025-01-06T09:00:10Z"},
            {"role": "user", "content": "How should I run code reviews?", "created_at": "2025-02-10T09:00:00Z"},
            {"role": "assistant", "content": _ANSWER, "created_at": "2025-02-10T09:00:20Z"}]
    with engramdb.open(tmp_path / "s", embedder=embedder) as m:
        assert m.add_conversation(msgs, namespace="u", session="s")["pieces"] >= 4
        hits = m.recall("Who is Priya?", namespace="u", k=3).hits
        assert [h.id for h in hits[:2]] == ["s:1", "s:4"]
        assert "Ask Priya" in hits[1].text and hits[1].chunk is not None
        before = [(h.id, h.chunk, h.score) for h in hits]
        damage_snapshot(m, "keyword")   # the next open tokenizes every stored text again
    with engramdb.open(tmp_path / "s", embedder=embedder) as m:
        assert cache_status(m)["keyword"] == "rebuilt"
        assert [(h.id, h.chunk, h.score) for h in m.recall("Who is Priya?", namespace="u", k=3).hits] == before
