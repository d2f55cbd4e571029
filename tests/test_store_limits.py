"""Size limits at their boundary: a text of exactly ``chunk_chars`` characters is one memory,
one more character makes pieces; ``max_text_chars`` is accepted exactly and refused above."""
import pytest

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
    pieces = [mem.get("doc").text, mem.get("doc#1").text]
    assert mem.stats()["memories"] == 2 and all(len(p) <= CHUNK for p in pieces)
    assert pieces[0] == text[: len(pieces[0])] and text.endswith(pieces[1])


def test_max_text_chars_is_inclusive(tmp_path):
    cfg = engramdb.EngramConfig(store=engramdb.StoreConfig(max_text_chars=100, chunk_chars=CHUNK))
    with engramdb.open(tmp_path / "s", dim=64, config=cfg) as m:
        m.add(_text(100), id="fits")
        with pytest.raises(engramdb.OversizeError):
            m.add(_text(101), id="too-long")
        assert m.stats()["memories"] == 2                # "fits" became two pieces
