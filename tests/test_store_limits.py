"""Size limits at their boundary: a text of exactly ``chunk_chars`` characters is one memory,
one more character makes pieces; ``max_text_chars`` is accepted exactly and refused above."""
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engramdb

CHUNK = 64


@pytest.fixture
def mem(tmp_path):
    cfg = engramdb.EngramConfig(store=engramdb.StoreConfig(chunk_chars=CHUNK, max_text_chars=1000),
                                link=engramdb.LinkConfig(auto_link=False))
    with engramdb.open(tmp_path / "store", dim=64, config=cfg) as m:
        yield m


def _text(n):
    words = " ".join(f"w{i:03d}" for i in range(n))   # 5 characters a word, with its space
    return words[:n]


def test_text_of_exactly_chunk_chars_is_one_memory(mem):
    text = _text(CHUNK)
    assert len(text) == CHUNK
    assert mem.add(text, id="doc") == "doc"
    assert mem.get("doc").text == text and mem.stats()["memories"] == 1
    with pytest.raises(engramdb.MemoryNotFoundError):
        mem.get("doc#1")


def test_one_character_more_is_split_into_pieces(mem):
    text = _text(CHUNK + 1)
    mem.add(text, id="doc")
    piece = mem.get("doc#1").text
    assert (mem.stats()["memories"], mem.stats()["pieces"]) == (1, 1)   # one memory, stored as 2 pieces
    assert len(piece) <= CHUNK and text.endswith(piece)
    assert mem.get("doc").text == text   # get gives back what was stored, whole


def test_max_text_chars_is_inclusive(tmp_path):
    cfg = engramdb.EngramConfig(store=engramdb.StoreConfig(max_text_chars=100, chunk_chars=CHUNK))
    with engramdb.open(tmp_path / "s", dim=64, config=cfg) as m:
        m.add(_text(100), id="fits")
        with pytest.raises(engramdb.OversizeError):
            m.add(_text(101), id="too-long")
        assert (m.stats()["memories"], m.stats()["pieces"]) == (1, 1)   # "fits" became two pieces


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(words=st.lists(st.sampled_from(["kiwi", "x", "plumcot", "  ", "\n", "ab cd", "zzzzzzzzzzzzzzzzzzzz"]),
                      min_size=1, max_size=120))
def test_get_returns_the_whole_text_of_a_memory_stored_as_pieces(mem, words):
    text = " ".join(words).strip() or "kiwi"
    key = f"doc{abs(hash(text))}"
    mem.add(text, id=key)
    assert mem.get(key).text == text


def test_recall_returns_a_long_memory_once_under_its_own_id(mem):
    """Pieces are how a long text is found, not what recall returns: one hit per memory, at its
    best piece, and the k hits are k distinct memories."""
    long = " ".join(f"filler{i:03d}" for i in range(60)) + " the zebra code is kept in vault nine"
    mem.add(long, id="long")
    mem.add("a zebra crossing near the station", id="short")
    mem.add("the vault at the bank", id="other")
    res = mem.recall("zebra code vault", k=3)
    ids = [h.id for h in res.hits]
    assert sorted(ids) == ["long", "other", "short"] and ids[0] == "long"
    best = res.hits[0]
    assert best.chunk >= 1 and "zebra code" in best.text and len(best.text) <= CHUNK
    assert best.path[-1].id == f"long#{best.chunk}" and best.to_dict()["chunk"] == best.chunk
    assert res.hits[1].chunk is None and res.hits[2].chunk is None


LONG = " ".join(f"filler{i:03d}" for i in range(60)) + " the zebra code is kept in vault nine"


@pytest.mark.parametrize("how", ["archive", "supersede", "hard"])
def test_a_memory_stored_as_pieces_is_forgotten_or_superseded_whole(mem, how):
    """Archiving, superseding or erasing a long memory takes all its pieces along: no piece
    keeps answering for it (each piece used to stay active under its own id)."""
    mem.add(LONG, id="doc")
    mem.add("a zebra crossing near the station", id="short")
    before = mem.stats()["memories"]
    assert [h.id for h in mem.recall("zebra code vault", k=3).hits][0] == "doc"
    if how == "archive":
        mem.forget("doc")
    elif how == "supersede":
        mem.supersede("doc", "the zebra code moved to vault ten", id="doc-v2")
    else:
        mem.forget("doc", hard=True)
    hits = mem.recall("zebra code vault", k=5).hits
    assert "doc" not in [h.id for h in hits] and all(h.chunk is None for h in hits)
    if how == "hard":
        assert mem.stats()["memories"] == 1
        with pytest.raises(engramdb.MemoryNotFoundError):
            mem.get("doc#1")
    else:
        assert mem.stats()["memories"] == before + (how == "supersede")
        expected = "archived" if how == "archive" else "superseded"
        assert mem.get("doc").state.value == expected and mem.get("doc#1").state.value == expected
        old = mem.recall("zebra code vault", k=5, include_archived=True, include_superseded=True).hits
        assert [(h.id, h.state.value) for h in old if h.id == "doc"] == [("doc", expected)]


def test_update_of_a_memory_stored_as_pieces(mem):
    """Tags, confidence and source reach every piece (a tag filter finds the memory by any
    piece); new wording or a new vector is refused with the store unchanged (supersede it)."""
    mem.add(LONG, id="doc", tags=["a"])
    mem.update("doc", tags=["b"], confidence=0.7)
    assert mem.get("doc").text == LONG and mem.get("doc#1").tags == ("b",) and mem.get("doc#1").confidence == 0.7
    hit = mem.recall("zebra code vault", k=1, tags=["b"]).hits[0]
    assert (hit.id, hit.chunk >= 1, hit.tags) == ("doc", True, ("b",))
    for bad in ({"text": "a new wording"}, {"embedding": [1.0] + [0.0] * 63}):
        with pytest.raises(engramdb.InvalidInputError, match="supersede"):
            mem.update("doc", **bad)
    assert mem.get("doc").text == LONG and len(mem.history("doc")) == 2


def test_salience_of_a_memory_stored_as_pieces_is_the_memory_s(tmp_path):
    """A recall through any piece reinforces the memory (all its pieces), and the rescoring job
    archives and then prunes it whole, without tripping over pieces already gone."""
    day = 86400.0
    prune = {kind: 0.01 for kind in engramdb.MemoryKind}
    cfg = engramdb.EngramConfig(store=engramdb.StoreConfig(chunk_chars=CHUNK),
                                link=engramdb.LinkConfig(auto_link=False),
                                forgetting=engramdb.ForgettingConfig(prune_floor=prune))
    with engramdb.open(tmp_path / "s", dim=64, config=cfg) as m:
        m.add(LONG, id="doc")
        m.add("an unrelated short note", id="note")
        hit = m.recall("zebra code vault", k=1, reinforce=True).hits[0]
        assert (hit.id, hit.chunk >= 1) == ("doc", True)
        first, piece = m.get("doc"), m.get(f"doc#{hit.chunk}")
        assert first.access_count == piece.access_count == 1 and first.salience == piece.salience
        assert m.get("doc#1").salience == first.salience > m.get("note").salience
        m.rescore(now=time.time() + 20 * 365 * day)   # long forgotten: archived, then pruned, all pieces
        for gone in ("doc", "doc#1", f"doc#{hit.chunk}", "note"):
            with pytest.raises(engramdb.MemoryNotFoundError):
                m.get(gone)
        assert m.stats()["memories"] == 0


def test_context_lists_the_neighbours_of_a_long_memory_not_its_pieces(mem):
    mem.add("we talked about the zebra", id="before")
    mem.add(LONG, id="doc", links=[{"to": "before", "relation": "next"}])
    mem.add("after that we left", id="after", links=[{"to": "doc", "relation": "next"}])
    block = mem.context("where is the zebra code kept?", budget_tokens=400)
    listed = [it.id for tier in block.items.values() for it in tier]
    assert "doc" in listed and "after" in listed and not [i for i in listed if i.startswith("doc#")]
    piece = mem.get("doc#2")
    assert (piece.chunk_of, piece.chunk) == ("doc", 2) and (mem.get("doc").chunk_of, mem.get("doc").chunk) == (None, None)


def test_query_and_history_show_a_long_memory_once_and_whole(mem):
    mem.add(LONG, id="doc", tags=["a"])
    mem.add("a short one", id="short")
    listed = mem.query(limit=100)
    assert sorted(m.id for m in listed) == ["doc", "short"]
    assert next(m for m in listed if m.id == "doc").text == LONG
    mem.update("doc", tags=["b"])
    versions = mem.history("doc")
    assert [v.text for v in versions] == [LONG, LONG] and len(versions) == 2


def test_a_censor_rule_on_one_piece_hides_the_whole_memory(tmp_path):
    """get/query/history join a long memory's pieces: a piece hidden by a block rule must not
    come back inside the whole text (it did), so the memory is hidden whole, in every read.
    (Pieces overlap by chunk_chars // 10 characters, so a match shorter than that lies whole
    in some piece.)"""
    cfg = engramdb.EngramConfig(store=engramdb.StoreConfig(chunk_chars=300),
                                link=engramdb.LinkConfig(auto_link=False))
    mem = engramdb.open(tmp_path / "c", dim=64, config=cfg)
    secret = " the passport number is X1234567"
    mem.add(" ".join(f"filler{i:03d}" for i in range(200)) + secret, id="doc")
    mem.add("filler001 filler002 a short note", id="note", links=[{"to": "doc", "relation": "next"}])
    mem.censor(pattern="passport number", action="block", reason="pii")
    with pytest.raises(engramdb.MemoryBlockedError):
        mem.get("doc")
    with pytest.raises(engramdb.MemoryBlockedError):
        mem.history("doc")
    assert [m.id for m in mem.query(limit=100)] == ["note"]
    for q in ("filler001 filler199", "passport number", "filler030"):
        assert "doc" not in [h.id for h in mem.recall(q, k=5).hits]
    assert [h.id for h in mem.recall("filler001 filler002 short note", k=5).hits] == ["note"]
    block = mem.context("filler001 filler002", budget_tokens=2000)
    assert "X1234567" not in block.text and "`doc" not in block.text and "doc`" not in block.text
    mem.close()


def test_rescore_counts_a_memory_stored_as_pieces_once(mem):
    mem.add(LONG, id="doc")
    mem.add("a short note", id="note")
    out = mem.rescore(now=time.time() + 10 * 365 * 86400)
    assert (out["scanned"], out["archived"]) == (2, 2)                  # memories
    assert out["records_written"] == 2 + mem.stats()["pieces"]          # records: every piece archived


@pytest.mark.parametrize("verb", ["forget", "forget_hard", "update", "supersede", "supersede_by", "link"])
def test_a_verb_that_changes_a_memory_refuses_a_piece_id(mem, verb):
    """A text stored as pieces lives and dies whole: forgetting, updating, superseding or
    linking one of its pieces (the fresh-user pass archived piece 'doc#1' alone) is refused,
    naming the memory, and the store is unchanged."""
    mem.add(LONG, id="doc")
    mem.add("a short note", id="note")
    before = (mem.stats()["namespaces"]["default"], len(mem.edges("doc#1")))
    call = {"forget": lambda: mem.forget("doc#1"), "forget_hard": lambda: mem.forget("doc#1", hard=True),
            "update": lambda: mem.update("doc#1", tags=["x"]),
            "supersede": lambda: mem.supersede("doc#1", "new wording", id="v2"),
            "supersede_by": lambda: mem.supersede("note", by="doc#1"),
            "link": lambda: mem.link("note", "doc#1", "supports")}[verb]
    with pytest.raises(engramdb.InvalidInputError, match="piece of memory 'doc'"):
        call()
    assert (mem.stats()["namespaces"]["default"], len(mem.edges("doc#1"))) == before
    assert mem.get("doc#1").state is engramdb.MemoryState.ACTIVE
    mem.forget("doc")   # the memory itself, with every piece
    assert mem.get("doc#1").state is engramdb.MemoryState.ARCHIVED
