"""Where a long text is cut into pieces: at sentence boundaries (never inside a word), with code
blocks and list items whole, consecutive pieces overlapping by ``StoreConfig.chunk_overlap``
sentences (each piece says how many characters it repeats), at most ``StoreConfig.max_pieces``
pieces; recall still answers with the memory."""
import pytest

import engramdb
from engramdb.errors import ConfigError, MemoryNotFoundError

SENTENCES = [f"Fact number {i} says that the {w} crate is stored in room {100 + i}."
             for i, w in enumerate(["red", "blue", "green", "amber", "violet", "teal", "ochre", "cyan", "lime",
                                    "rose", "sand", "slate", "plum", "mint", "coral", "ivory", "jade", "navy"])]
TEXT = " ".join(SENTENCES)


def _open(path, **store):
    cfg = engramdb.EngramConfig(store=engramdb.StoreConfig(**store), link=engramdb.LinkConfig(auto_link=False))
    return engramdb.open(path, dim=64, config=cfg)


def _pieces(mem, mid):
    """The memory's pieces in order, the first (its head, which ``get`` returns whole) rebuilt
    from the whole text and the others' non-overlapping parts."""
    later, i = [], 1
    while True:
        try:
            later.append(mem.get(f"{mid}#{i}"))
        except MemoryNotFoundError:
            break
        i += 1
    whole = mem.get(mid).text
    tail = "".join(p.text[p.overlap_chars:] for p in later)
    assert whole.endswith(tail)
    return [whole[:len(whole) - len(tail)]] + [p.text for p in later], later


def test_pieces_end_at_sentence_boundaries_and_join_back(tmp_path):
    with _open(tmp_path / "s", chunk_chars=200) as mem:
        mem.add(TEXT, id="doc")
        texts, later = _pieces(mem, "doc")
        assert mem.get("doc").text == TEXT
    assert len(texts) >= 5 and all(len(t) <= 200 for t in texts)
    for t in texts:   # whole sentences only: each piece is a run of them
        body = t.strip()
        assert body.startswith("Fact number ") and body.endswith(".")
        assert all(s in SENTENCES for s in (x + "." for x in body[:-1].split(". ")))
    assert [p.chunk for p in later] == list(range(1, len(texts)))
    assert all(p.chunk_of == "doc" and p.overlap_chars > 0 for p in later)


def test_consecutive_pieces_overlap_by_two_sentences_and_say_how_much(tmp_path):
    with _open(tmp_path / "s", chunk_chars=450) as mem:   # two sentences fit in a third of a piece
        mem.add(TEXT, id="doc")
        texts, later = _pieces(mem, "doc")
    assert len(texts) >= 3
    for prev, piece, text in zip(texts, later, texts[1:]):
        repeated = text[:piece.overlap_chars]
        assert prev.endswith(repeated)
        assert len(repeated.strip().split(". ")) == 2          # two sentences
        assert text[piece.overlap_chars:].lstrip().startswith("Fact number ")


def test_a_fact_spanning_a_boundary_is_whole_in_one_piece_with_overlap_only(tmp_path):
    """Every pair of consecutive sentences lies whole in some piece with the default overlap;
    without overlap some pair is split between two pieces."""
    pairs = [f"{a} {b}" for a, b in zip(SENTENCES, SENTENCES[1:])]
    with _open(tmp_path / "a", chunk_chars=200) as mem:
        mem.add(TEXT, id="doc")
        texts, _ = _pieces(mem, "doc")
    assert all(any(p in t for t in texts) for p in pairs)
    with _open(tmp_path / "b", chunk_chars=200, chunk_overlap=0) as mem:
        mem.add(TEXT, id="doc")
        texts, later = _pieces(mem, "doc")
    assert all(p.overlap_chars == 0 for p in later) and "".join(texts) == TEXT
    assert not all(any(p in t for t in texts) for p in pairs)


def test_code_blocks_and_list_items_stay_whole(tmp_path):
    code = "```python\ndef backoff(attempt):\n    delay = min(60, 2 ** attempt)\n    return delay + jitter()\n```\n"
    items = "".join(f"- Step {i}: restart the worker number {i} and check its log for errors.\n" for i in range(6))
    text = " ".join(SENTENCES[:4]) + "\n\n" + code + "\n" + items + "\n" + " ".join(SENTENCES[4:8])
    with _open(tmp_path / "s", chunk_chars=220) as mem:
        mem.add(text, id="doc")
        texts, _ = _pieces(mem, "doc")
        assert mem.get("doc").text == text
    assert sum(code.strip() in t for t in texts) >= 1
    assert not any("```python" in t and "return delay" not in t for t in texts)   # never half a block
    for i in range(6):
        item = f"- Step {i}: restart the worker number {i} and check its log for errors."
        assert any(item in t for t in texts)
        assert not any(f"Step {i}: restart" in t and item not in t for t in texts)


def test_a_sentence_longer_than_a_piece_is_cut_between_words(tmp_path):
    words = [f"word{i:03d}" for i in range(120)]
    text = " ".join(words) + "."
    with _open(tmp_path / "s", chunk_chars=100) as mem:
        mem.add(text, id="doc")
        texts, _ = _pieces(mem, "doc")
        assert mem.get("doc").text == text
    assert len(texts) > 10 and all(len(t) <= 100 for t in texts)
    assert all(set(t.strip().rstrip(".").split(" ")) <= set(words) for t in texts)   # no word cut in two


def test_max_pieces_caps_the_pieces_with_longer_ones(tmp_path):
    text = " ".join(SENTENCES * 3)
    with _open(tmp_path / "s", chunk_chars=100, max_pieces=3) as mem:
        mem.add(text, id="doc")
        assert (mem.stats()["memories"], mem.stats()["pieces"]) == (1, 2)   # three pieces: the head and two
        texts, _ = _pieces(mem, "doc")
        assert mem.get("doc").text == text
    assert len(texts) == 3 and all(t.strip().endswith(".") for t in texts)
    assert max(len(t) for t in texts) > 100   # past the cap, pieces grow instead


@pytest.mark.parametrize("field,bad", [("max_pieces", 0), ("max_pieces", 2.5), ("chunk_overlap", -1),
                                       ("chunk_overlap", 101)])
def test_the_bounds_are_checked(field, bad):
    with pytest.raises(ConfigError, match=field):
        engramdb.StoreConfig(**{field: bad})


def test_recall_answers_with_the_memory_at_the_piece_that_holds_the_fact(tmp_path):
    with _open(tmp_path / "s", chunk_chars=200) as mem:
        mem.add(TEXT, id="doc")
        mem.add("an unrelated note about lunch", id="note")
        res = mem.recall("which room holds the coral crate", k=5)
        hit = res.hits[0]
        assert (hit.id, hit.chunk >= 1) == ("doc", True)
        assert "coral crate is stored in room 114" in hit.text
        assert hit.path[-1].id == f"doc#{hit.chunk}"
        piece = mem.get(f"doc#{hit.chunk}")
        assert (piece.chunk_of, piece.chunk) == ("doc", hit.chunk)
        assert [h.id for h in res.hits].count("doc") == 1


def test_a_long_chat_message_is_stored_as_overlapping_pieces(tmp_path):
    with _open(tmp_path / "s", chunk_chars=200) as mem:
        out = mem.add_conversation([{"role": "user", "name": "Caroline", "content": TEXT},
                                    {"role": "assistant", "content": "Noted."}], namespace="u", session="s1")
        mid = out["message_ids"][0]
        assert out["pieces"] == mem.stats()["pieces"] > 0
        later = [mem.get(f"{mid}#{i}", namespace="u") for i in range(1, out["pieces"] + 1)]
        assert all(p.chunk_of == mid and p.overlap_chars > 0 for p in later)
        assert mem.get(mid, namespace="u").text == f"Caroline: {TEXT}"
        hit = mem.recall("which room holds the jade crate", namespace="u", k=3).hits[0]
        assert (hit.id, hit.chunk >= 1) == (mid, True) and "jade crate" in hit.text


def test_cjk_text_is_cut_after_its_full_stops(tmp_path):
    sentences = [f"第{i}号箱子放在{i}号房间里。" for i in range(60)]   # no spaces anywhere
    text = "".join(sentences)
    with _open(tmp_path / "s", chunk_chars=100) as mem:
        mem.add(text, id="doc")
        texts, _ = _pieces(mem, "doc")
        assert mem.get("doc").text == text
    assert len(texts) > 5 and all(len(t) <= 100 and t.endswith("。") for t in texts)


@pytest.mark.parametrize("word", ["\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466",   # a family emoji
                                  "\u1112\u1161\u11ab",              # a Hangul syllable as jamo
                                  "e\u0301", "\u2764\ufe0f", "\U0001f44b\U0001f3fd"])
def test_a_long_word_is_cut_between_user_perceived_characters(tmp_path, word):
    """A text without spaces longer than a piece is cut hard, but never inside an emoji
    sequence, a jamo syllable or a letter with its accent (hostile-input pass: pieces started
    with a dangling joiner); the pieces still join back to the text."""
    text = word * 300
    with _open(tmp_path / "s", chunk_chars=64) as mem:
        mem.add(text, id="w")
        texts, later = _pieces(mem, "w")
        assert "".join(texts[:1] + [p.text[p.overlap_chars:] for p in later]) == text and len(later) >= 2
        for p in later:
            assert p.text.startswith(word[0]) and p.text[p.overlap_chars:].startswith(word[0])
