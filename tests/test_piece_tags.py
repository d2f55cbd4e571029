"""Pieces of a long memory (``<id>#<n>``, a split message's ``<id>#p<n>``) are the engine's:
their internal ``piece`` tag never shows, counts keep memories and pieces apart, an import
over a store neither duplicates nor orphans them, and consolidation leaves them alone."""
import numpy as np
import pytest

import engramdb

CFG = engramdb.EngramConfig(store=engramdb.StoreConfig(chunk_chars=200),
                            link=engramdb.LinkConfig(auto_link=False, detect_conflicts=False))
LONG = " ".join(f"word{i:03d} zebra" for i in range(60))          # 839 characters: doc, doc#1 .. doc#4
LONGER = " ".join(f"word{i:03d} zebra" for i in range(90))        # doc, doc#1 .. doc#7
SHORTER = " ".join(f"word{i:03d} zebra" for i in range(25))       # doc, doc#1
REPLY = "\n\n".join(f"Step {j}: copy folder number {j} to the backup disk before the noon run." for j in range(8))


@pytest.fixture
def mem(tmp_path):
    with engramdb.open(tmp_path / "s", dim=32, config=CFG) as m:
        yield m


def _pieces(m, mid, ns="default"):
    out, n = [], 1
    while True:
        try:
            out.append(m.get(f"{mid}#{n}", namespace=ns))
        except engramdb.MemoryNotFoundError:
            return out
        n += 1


def test_a_long_memorys_pieces_show_its_tags_not_piece(mem):
    mem.add(LONG, id="doc", tags=["notes"])
    pieces = _pieces(mem, "doc")
    assert len(pieces) == 4 and all(p.tags == ("notes",) and p.chunk_of == "doc" for p in pieces)
    hit = mem.recall("word045 zebra word046", k=1).hits[0]
    assert (hit.id, hit.tags) == ("doc", ("notes",)) and hit.chunk >= 1
    assert mem.recall("word045 zebra", tags=["piece"]).hits == []
    assert mem.query(tags=["piece"]) == []
    mem.update("doc", tags=["work", "piece-rate"])
    assert all(p.tags == ("work", "piece-rate") for p in _pieces(mem, "doc"))
    assert mem.recall("word045 zebra word046", k=1, reinforce=True).hits[0].tags == ("work", "piece-rate")
    assert [v.tags for v in mem.history("doc")] == [("notes",), ("work", "piece-rate")]


def test_a_split_message_shows_its_speakers_tags_not_piece(mem):
    out = mem.add_conversation([{"role": "user", "content": "how do I back up?"},
                                {"role": "assistant", "content": REPLY}], namespace="c", split_chars=100)
    mid = out["message_ids"][1]
    blocks = [m for m in _all_blocks(mem, mid)]
    assert len(blocks) >= 3 and all(b.tags == ("assistant",) for b in blocks)
    for reinforce in (False, True):   # a reinforced message writes its tags to its pieces
        hits = mem.recall("copy folder number 5 to the backup disk", namespace="c", k=3, reinforce=reinforce).hits
        assert hits[0].id == mid and hits[0].tags == ("assistant",)
    assert all(b.tags == ("assistant",) for b in _all_blocks(mem, mid))
    assert mem.query(namespace="c", tags=["piece"]) == []


def test_add_conversation_counts_memories_and_pieces_apart(mem):
    chat = [{"role": "user", "content": "how do I back up?", "session": "s"},
            {"role": "assistant", "content": REPLY, "session": "s"}]
    out = mem.add_conversation(chat, namespace="c", split_chars=100, entities=False)
    mid = out["message_ids"][1]
    n = len(_all_blocks(mem, mid)) + len(_pieces(mem, mid, "c"))   # its blocks, and its own chunks
    assert n >= 4 and (out["memories"], out["pieces"]) == (3, n)   # two messages and their session node
    ns = mem.stats()["namespaces"]["c"]
    assert (ns["memories"], ns["pieces"]) == (3, n)
    again = mem.add_conversation(chat, namespace="c", split_chars=100, entities=False)
    assert (again["memories"], again["pieces"], again["already_stored"]) == (0, 0, 2)


def _all_blocks(m, mid, ns="c"):
    ids = {e.source for e in m.edges(mid, namespace=ns) if e.source.startswith(f"{mid}#p")}
    return [m.get(i, namespace=ns) for i in sorted(ids)]


def test_stats_and_import_count_memories_and_pieces_apart(mem, tmp_path):
    mem.add(LONG, id="doc")
    mem.add("a short note", id="note")
    s = mem.stats()
    assert (s["memories"], s["pieces"]) == (2, 4)
    assert (s["namespaces"]["default"]["memories"], s["namespaces"]["default"]["pieces"]) == (2, 4)
    assert s["namespaces"]["default"]["active"] == 2
    mem.export(tmp_path / "x")
    with engramdb.open(tmp_path / "b", dim=32, config=CFG) as b:
        out = b.import_from(tmp_path / "x")
        assert (out["memories"], out["pieces"]) == (2, 4)
        assert (b.stats()["memories"], b.stats()["pieces"]) == (2, 4)


def test_replace_import_over_the_same_store_keeps_one_copy_of_each_piece(mem, tmp_path):
    mem.add(LONG, id="doc", tags=["t"])
    mem.add_conversation([{"role": "assistant", "content": REPLY}], namespace="c", split_chars=100)
    mem.export(tmp_path / "x")
    before = mem.stats()
    edges = mem.n_edges
    out = mem.import_from(tmp_path / "x", on_conflict="replace")   # used to fail on an erased piece
    assert out["replaced"] == before["memories"] and out["pieces"] == before["pieces"]
    after = mem.stats()
    assert (after["memories"], after["pieces"]) == (before["memories"], before["pieces"])
    assert mem.n_edges == edges
    assert mem.get("doc").text == LONG and len(_pieces(mem, "doc")) == 4


def test_replace_import_drops_the_stored_pieces_the_export_lacks(mem, tmp_path):
    mem.add(LONG, id="doc")
    mem.export(tmp_path / "x")
    with engramdb.open(tmp_path / "b", dim=32, config=CFG) as b:
        b.add(LONGER, id="doc")
        assert len(_pieces(b, "doc")) == 7
        out = b.import_from(tmp_path / "x", on_conflict="replace")
        assert (out["memories"], out["pieces"], out["replaced"]) == (1, 4, 1)
        assert b.get("doc").text == LONG
        assert len(_pieces(b, "doc")) == 4                           # no orphan doc#5 .. doc#7
        assert (b.stats()["memories"], b.stats()["pieces"]) == (1, 4)


def test_skip_import_keeps_the_stored_memory_whole(mem, tmp_path):
    mem.add(LONG, id="doc")
    mem.add("a short note", id="note", links=[{"to": "doc", "relation": "supports"}])
    mem.export(tmp_path / "x")
    with engramdb.open(tmp_path / "b", dim=32, config=CFG) as b:
        b.add(SHORTER, id="doc")
        out = b.import_from(tmp_path / "x", on_conflict="skip")
        assert (out["memories"], out["pieces"], out["skipped"]) == (1, 0, 1)   # the note only
        assert b.get("doc").text == SHORTER and len(_pieces(b, "doc")) == 1  # not the export's doc#2 .. doc#4
        assert (b.stats()["memories"], b.stats()["pieces"]) == (2, 1)
        assert [(e.source, e.target) for e in b.edges("note")] == [("note", "doc")]


def test_consolidation_merges_no_piece_and_no_memory_in_pieces(mem):
    v = np.ones(32)
    mem.add("the user likes green tea", id="s1", kind="semantic", embedding=v)
    mem.add("the user likes green tea a lot", id="s2", kind="semantic", embedding=v)
    mem.add(LONG, id="a", kind="semantic")
    mem.add(LONG + " and one more", id="b", kind="semantic")      # the same first pieces
    out = mem.consolidate()
    assert out["merged"] == 1                                      # s1 and s2 only
    assert {mem.get("s1").state, mem.get("s2").state} == {engramdb.MemoryState.ACTIVE,
                                                         engramdb.MemoryState.SUPERSEDED}
    for mid in ("a", "b"):
        assert mem.get(mid).state is engramdb.MemoryState.ACTIVE
        assert all(p.state is engramdb.MemoryState.ACTIVE for p in _pieces(mem, mid))
    assert mem.consolidate()["merged"] == 0


def test_a_reply_with_more_blocks_than_max_pieces_holds_is_indexed_by_its_own_pieces(tmp_path):
    """Grouping 12 paragraphs into max_pieces=3 blocks would make blocks longer than
    chunk_chars, split again into pieces of a piece (which recall returned as hits of their
    own): such a reply gets no block layer, only its own pieces, and recall returns it once."""
    cfg = engramdb.EngramConfig(store=engramdb.StoreConfig(chunk_chars=200, max_pieces=3),
                                link=engramdb.LinkConfig(auto_link=False, detect_conflicts=False))
    paras = [f"Paragraph {i} covers topic{i} in depth. It explains the consequences of topic{i} for the team."
             for i in range(12)]
    with engramdb.open(tmp_path / "s", dim=32, config=cfg) as m:
        out = m.add_conversation([{"role": "user", "content": "Explain all twelve topics"},
                                  {"role": "assistant", "content": "\n\n".join(paras)}], namespace="n", session="s")
        assert 1 <= out["pieces"] <= 3 - 1   # the reply's own pieces after its first: max_pieces in all
        ids = [h.id for h in m.recall("topic7 consequences", namespace="n", k=10).hits]
        assert ids and all("#" not in i for i in ids) and len(ids) == len(set(ids))
        assert m.get(out["message_ids"][1], namespace="n").text == "assistant: " + "\n\n".join(paras)


def test_a_message_split_into_blocks_cannot_change_its_wording_in_place(mem):
    """update(text=) of a reply stored block by block was accepted while its blocks kept the old
    text, which recall still found and returned (a new-user pass): it is refused, as for a long
    text's chunks, and the reply's tags can still change."""
    out = mem.add_conversation([{"role": "user", "content": "How do I back up?"},
                                {"role": "assistant", "content": REPLY}], namespace="c", session="s")
    mid = out["message_ids"][1]
    assert out["pieces"] >= 2
    with pytest.raises(engramdb.InvalidInputError, match="more pieces .* supersede it"):
        mem.update(mid, text="short", namespace="c")
    assert mem.get(mid, namespace="c").text.endswith(REPLY)
    assert "moved" in mem.update(mid, tags=["backup", "moved"], namespace="c").tags
