"""Hostile input the engine used to take: vectors NumPy would coerce, text that shows nothing,
and ids of the forms the engine gives its own nodes. Each is refused with a message that says
what was wrong; the refusals themselves (store unchanged) are in tests/test_bad_input.py."""
import re

import numpy as np
import pytest

import engramdb
from engramdb import errors
from engramdb.testing import store_digest

DIM = 8
GOOD = np.linspace(-1, 1, DIM) + 0.1


@pytest.fixture
def eng(tmp_store):
    e = engramdb.open(tmp_store, dim=DIM)
    e.add("first", id="a", embedding=np.ones(DIM))
    e.add("second", id="b", embedding=-np.ones(DIM))
    yield e
    e.close()


# ---------------------------------------------------------------- vectors
@pytest.mark.parametrize("given", [list(range(1, DIM + 1)), np.arange(1, DIM + 1, dtype=np.int16),
                                   np.arange(1, DIM + 1, dtype=np.float64), [1, 2.0, 3, 4.0, 5, 6, 7, 8]])
def test_ints_and_wide_floats_are_cast_to_a_float32_unit_vector(eng, given):
    eng.add("counted", id="c", embedding=given)
    want = np.arange(1, DIM + 1, dtype=np.float32)
    want /= np.linalg.norm(want)
    got = eng.get("c", with_embedding=True).embedding
    assert got.dtype == np.float32 and got.shape == (DIM,)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    hit = eng.recall(vector=given, k=1).hits[0]
    assert hit.id == "c" and hit.similarity == pytest.approx(1.0, abs=1e-5)


@pytest.mark.parametrize("given,words", [(["1.5"] * DIM, "strings"), ([True] * DIM, "bools"),
                                         ([None] * DIM, "objects"), (np.ones(DIM, complex), "complex"),
                                         (np.ones((2, DIM)), "shape (2, 8)")])
def test_a_vector_of_the_wrong_type_or_shape_is_named_in_the_message(eng, given, words):
    with pytest.raises(errors.InvalidInputError, match=re.escape(words)):
        eng.add("x", embedding=given)
    with pytest.raises(errors.InvalidInputError, match=re.escape(words)):
        eng.recall(vector=given)


def test_a_vector_beyond_float32_is_not_called_nan(eng):
    with pytest.raises(errors.NonFiniteError, match="beyond float32"):
        eng.add("x", embedding=[1e300] * DIM)


# ---------------------------------------------------------------- text that shows nothing
def test_an_invisible_query_gets_the_empty_query_error(eng):
    with pytest.raises(errors.EmptyTextError) as empty:
        eng.recall("")
    with pytest.raises(errors.EmptyTextError) as invisible:
        eng.recall("\u200b\u200d\ufeff\u00ad ")
    assert str(invisible.value) == str(empty.value)
    assert str(empty.value).startswith("query:") and "vector=" in str(empty.value)


def test_text_with_something_visible_is_kept_as_given(eng):
    text = "\ufeffzero\u200bwidth inside"
    eng.add(text, id="z", embedding=GOOD)
    assert eng.get("z").text == text
    eng.add("\u200b.", id="dot", embedding=GOOD)   # one visible character is enough
    assert eng.get("dot").text == "\u200b."


# ---------------------------------------------------------------- reserved ids
RESERVED = [("E:paris", "'E:<entity>'"), ("S:s1", "'S:<session>'"), ("sum:S:s1", "'sum:<session>'"),
            ("fact:0123abcd", "'fact:...'"), ("a#1", "'<id>#<n>' / '<id>#p<n>'"),
            ("a#p3", "'<id>#<n>' / '<id>#p<n>'"), ("d:outcome:1", "'<id>:outcome:<n>'")]


@pytest.mark.parametrize("ext_id,form", RESERVED)
def test_a_reserved_id_is_refused_naming_its_form(eng, ext_id, form):
    before = store_digest(eng)
    for call in (lambda: eng.add("x", id=ext_id, embedding=GOOD),
                 lambda: eng.add_batch([{"id": ext_id, "text": "x", "embedding": GOOD}]),
                 lambda: eng.link("a", ext_id), lambda: eng.link(ext_id, "a"),
                 lambda: eng.update(ext_id, tags=["t"])):
        with pytest.raises(errors.InvalidInputError, match=re.escape(form)):
            call()
    assert store_digest(eng) == before


def test_a_piece_form_names_the_memory_it_would_be_a_piece_of(eng):
    with pytest.raises(errors.InvalidInputError, match="piece of memory 'report'"):
        eng.add("x", id="report#2", embedding=GOOD)


@pytest.mark.parametrize("ext_id", ["issue#x", "C#", "a#", "#1", "e:x", "Entity:x", "summary:1", "facts",
                                    "D1:3", "s1:2", "x:outcome:y"])
def test_ids_near_a_reserved_form_are_taken(eng, ext_id):
    assert eng.add(f"text of {ext_id}", id=ext_id, embedding=GOOD) == ext_id
    assert eng.get(ext_id).text == f"text of {ext_id}"


def test_import_takes_the_engines_own_nodes(tmp_path):
    """An export holds entity, session, piece and outcome nodes; importing it writes them back
    under the same ids (only a caller's new memory may not take those forms)."""
    cfg = engramdb.EngramConfig(store=engramdb.StoreConfig(chunk_chars=200))
    long_reply = "\n\n".join(f"Step {j}: copy the folder number {j} to the backup disk before noon." for j in range(8))
    with engramdb.open(tmp_path / "a", dim=32, config=cfg) as a:
        a.add_conversation([{"role": "user", "content": "We met Ana in Lisbon.", "session": "s1"},
                            {"role": "assistant", "content": long_reply, "session": "s1"},
                            {"role": "user", "content": "I flew back to Lisbon with Ana.", "session": "s2"}],
                           namespace="u", split_chars=100)
        a.add(" ".join(f"word{i:03d}" for i in range(80)), id="long", namespace="u")
        a.decide("use the blue plan", confidence=0.7, id="d", namespace="u")
        a.review("d", "success", namespace="u")
        a.export(tmp_path / "x")
        ids = {m.id for m in _all(a)}
        stats = a.stats()["namespaces"]["u"]
    engine_made = {i for i in ids if engramdb.validate.reserved_form(i)}
    assert {i[:2] for i in engine_made} >= {"E:", "S:"} and "long#1" in ids and "d:outcome:1" in ids
    assert any("#p" in i for i in ids)
    with engramdb.open(tmp_path / "b", dim=32, config=cfg) as b:
        out = b.import_from(tmp_path / "x")
        assert {m.id for m in _all(b)} == ids
        assert b.stats()["namespaces"]["u"] == stats
        assert (out["memories"], out["pieces"]) == (stats["memories"], stats["pieces"])


def _all(eng, ns="u"):
    """Every node of namespace ``ns``: the memories query() lists, and their pieces by id."""
    listed = eng.query(namespace=ns, limit=1000, include_superseded=True)
    out = list(listed)
    for m in listed:
        for e in eng.edges(m.id, namespace=ns):
            for end in (e.source, e.target):
                if end not in {x.id for x in out}:
                    out.append(eng.get(end, namespace=ns))
    return out
