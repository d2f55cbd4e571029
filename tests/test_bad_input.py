"""Each bad input raises its own error class and leaves the store byte-for-byte unchanged."""
import numpy as np
import pytest

import engramdb
from engramdb import errors
from engramdb.testing import indexed_counts, store_digest

DIM = 8


@pytest.fixture
def eng(tmp_store, rng):
    e = engramdb.open(tmp_store, dim=DIM)
    v = rng.standard_normal((2, DIM))
    e.add("first", id="a", embedding=v[0])
    e.add("second", id="b", embedding=v[1])
    yield e
    e.close()


GOOD = np.ones(DIM)

CASES = [
    ("wrong dimension", lambda e: e.add("x", embedding=np.ones(DIM + 1)), errors.DimensionMismatchError),
    ("NaN vector", lambda e: e.add("x", embedding=np.full(DIM, np.nan)), errors.NonFiniteError),
    ("inf vector", lambda e: e.add("x", embedding=np.full(DIM, np.inf)), errors.NonFiniteError),
    ("zero vector", lambda e: e.add("x", embedding=np.zeros(DIM)), errors.NonFiniteError),
    ("empty text", lambda e: e.add("   ", embedding=GOOD), errors.EmptyTextError),
    ("non-str text", lambda e: e.add(42, embedding=GOOD), errors.InvalidInputError),
    ("oversize text", lambda e: e.add("x" * (e.config.store.max_text_chars + 1), embedding=GOOD), errors.OversizeError),
    ("unknown kind", lambda e: e.add("x", kind="dream", embedding=GOOD), errors.UnknownKindError),
    ("confidence > 1", lambda e: e.add("x", confidence=1.5, embedding=GOOD), errors.InvalidInputError),
    ("NaN confidence", lambda e: e.add("x", confidence=float("nan"), embedding=GOOD), errors.NonFiniteError),
    ("bad created_at", lambda e: e.add("x", created_at="yesterday", embedding=GOOD), errors.InvalidInputError),
    ("duplicate id", lambda e: e.add("x", id="a", embedding=GOOD), errors.InvalidInputError),
    ("duplicate in batch", lambda e: e.add_batch([{"id": "z", "text": "x", "embedding": GOOD}] * 2), errors.InvalidInputError),
    ("bad item in batch", lambda e: e.add_batch([{"text": "ok", "embedding": GOOD}, {"text": "", "embedding": GOOD}]), errors.EmptyTextError),
    ("link to missing in add", lambda e: e.add("x", embedding=GOOD, links=[{"to": "nope"}]), errors.MemoryNotFoundError),
    ("unknown relation", lambda e: e.link("a", "b", "loves"), errors.UnknownRelationError),
    ("weight 0", lambda e: e.link("a", "b", "supports", 0.0), errors.InvalidInputError),
    ("weight > 1", lambda e: e.link("a", "b", "supports", 1.5), errors.InvalidInputError),
    ("self link", lambda e: e.link("a", "a"), errors.InvalidInputError),
    ("edge to missing", lambda e: e.link("a", "ghost"), errors.MemoryNotFoundError),
    ("batch with one bad edge", lambda e: e.link_batch([("a", "b"), ("b", "ghost")]), errors.MemoryNotFoundError),
    ("unknown id get", lambda e: e.get("ghost"), errors.MemoryNotFoundError),
    ("forget unknown", lambda e: e.forget("ghost"), errors.MemoryNotFoundError),
    ("supersede unknown", lambda e: e.supersede("ghost", "new", embedding=GOOD), errors.MemoryNotFoundError),
    ("supersede with bad vector", lambda e: e.supersede("a", "new", embedding=np.ones(3)), errors.DimensionMismatchError),
    ("bad namespace", lambda e: e.add("x", namespace="", embedding=GOOD), errors.NamespaceError),
    ("recall NaN", lambda e: e.recall(vector=np.full(DIM, np.nan)), errors.NonFiniteError),
    ("recall wrong dim", lambda e: e.recall(vector=np.ones(3)), errors.DimensionMismatchError),
    ("recall empty query", lambda e: e.recall(""), errors.EmptyTextError),
    ("recall k=0", lambda e: e.recall(vector=GOOD, k=0), errors.InvalidInputError),
    ("recall unknown kind", lambda e: e.recall(vector=GOOD, kinds=["dream"]), errors.UnknownKindError),
    # temporal verbs (tests/temporal/)
    ("recall bad as_of", lambda e: e.recall(vector=GOOD, as_of="someday"), errors.InvalidInputError),
    ("valid_to before valid_from", lambda e: e.add("x", embedding=GOOD, valid_from=10, valid_to=5), errors.InvalidInputError),
    ("slot of one part", lambda e: e.add("x", embedding=GOOD, slot=("user",)), errors.InvalidInputError),
    ("slot and subject", lambda e: e.add("x", embedding=GOOD, slot=("u", "a"), subject="u"), errors.InvalidInputError),
    ("attribute without subject", lambda e: e.add("x", embedding=GOOD, attribute="home_city"), errors.InvalidInputError),
    ("single_valued without slot", lambda e: e.add("x", embedding=GOOD, single_valued=True), errors.InvalidInputError),
    ("bad slot in batch", lambda e: e.add_batch([{"text": "ok", "embedding": GOOD, "slot": ("u", "city")},
                                                 {"text": "y", "embedding": GOOD, "slot": ("u", "")}]), errors.InvalidInputError),
    ("supersede text and by", lambda e: e.supersede("a", "new", by="b"), errors.InvalidInputError),
    ("supersede by itself", lambda e: e.supersede("a", by="a"), errors.InvalidInputError),
    ("supersede by unknown", lambda e: e.supersede("a", by="ghost"), errors.MemoryNotFoundError),
    ("supersede by with fields", lambda e: e.supersede("a", by="b", confidence=0.5), errors.InvalidInputError),
    ("update unknown", lambda e: e.update("ghost", text="x"), errors.MemoryNotFoundError),
    ("update nothing", lambda e: e.update("a"), errors.InvalidInputError),
    ("update empty text", lambda e: e.update("a", text=" ", embedding=GOOD), errors.EmptyTextError),
    ("update wrong dim", lambda e: e.update("a", embedding=np.ones(3)), errors.DimensionMismatchError),
    ("update bad confidence", lambda e: e.update("a", confidence=2.0), errors.InvalidInputError),
    ("history unknown", lambda e: e.history("ghost"), errors.MemoryNotFoundError),
    ("query bad order", lambda e: e.query(order="shuffle"), errors.InvalidInputError),
    ("query limit 0", lambda e: e.query(limit=0), errors.InvalidInputError),
    ("admit empty text", lambda e: e.admit_batch([{"text": "ok", "embedding": GOOD}, {"text": " ", "embedding": GOOD}]), errors.EmptyTextError),
    ("admit wrong dimension", lambda e: e.admit_batch([{"text": "x", "embedding": np.ones(3)}]), errors.DimensionMismatchError),
    ("admit existing id", lambda e: e.admit_batch([{"id": "a", "text": "brand new fact 42", "embedding": -GOOD}]), errors.InvalidInputError),
    ("admit bad utility", lambda e: e.admit_batch([{"text": "x", "embedding": GOOD}], utility=lambda t: [2.0]), errors.InvalidInputError),
    ("admit bad config", lambda e: e.admit_batch([{"text": "x", "embedding": GOOD}], config=engramdb.RecallConfig()), errors.ConfigError),
    ("review non-decision", lambda e: e.review("a"), errors.InvalidInputError),
    ("review unknown", lambda e: e.review("ghost"), errors.MemoryNotFoundError),
    ("rescore bad now", lambda e: e.rescore("someday"), errors.InvalidInputError),
    ("import missing", lambda e: e.import_from("/nonexistent-export-dir"), errors.InvalidInputError),
    ("export bad format", lambda e: e.export("/nonexistent-export-dir", format="csv"), errors.InvalidInputError),
]

# Hostile vectors: every verb that takes a caller's vector refuses the same shapes and types.
BAD_VECTORS = [
    ("numeric strings", ["1.5"] * DIM, errors.InvalidInputError),     # NumPy would parse them
    ("words", ["x"] * DIM, errors.InvalidInputError),
    ("bytes", b"12345678", errors.InvalidInputError),
    ("bools", [True] * DIM, errors.InvalidInputError),
    ("Nones", [None] * DIM, errors.InvalidInputError),
    ("objects", np.array([object()] * DIM), errors.InvalidInputError),
    ("a dict", {"x": 1.0}, errors.InvalidInputError),
    ("complex", np.ones(DIM, complex), errors.InvalidInputError),
    ("ragged", [[1.0, 2.0], [3.0]], errors.InvalidInputError),
    ("scalar", 1.0, errors.InvalidInputError),
    ("row of one", np.ones((1, DIM)), errors.InvalidInputError),
    ("matrix", np.ones((DIM, DIM)), errors.InvalidInputError),
    ("empty", [], errors.DimensionMismatchError),
    ("too short", [1.0] * (DIM - 1), errors.DimensionMismatchError),
    ("one NaN", [1.0] * (DIM - 1) + [float("nan")], errors.NonFiniteError),
    ("one -inf", [1.0] * (DIM - 1) + [float("-inf")], errors.NonFiniteError),
    ("beyond float32", [1e39] * DIM, errors.NonFiniteError),            # inf once cast
    ("all zeros", [0] * DIM, errors.NonFiniteError),
]
VECTOR_VERBS = [
    ("add", lambda e, v: e.add("x", embedding=v)),
    ("add_batch", lambda e, v: e.add_batch([{"text": "ok", "embedding": GOOD}, {"text": "y", "embedding": v}])),
    ("update", lambda e, v: e.update("a", embedding=v)),
    ("supersede", lambda e, v: e.supersede("a", "new", embedding=v)),
    ("admit_batch", lambda e, v: e.admit_batch([{"text": "brand new fact 7", "embedding": v}])),
    ("recall", lambda e, v: e.recall(vector=v)),
    ("recall with text", lambda e, v: e.recall("first", vector=v)),
    ("recall_batch", lambda e, v: e.recall_batch(vectors=[GOOD, v])),
]
CASES += [(f"{verb} vector {name}", (lambda call, v: lambda e: call(e, v))(call, v), exc)
          for name, v, exc in BAD_VECTORS for verb, call in VECTOR_VERBS]

# Text that shows nothing: whitespace and Unicode format characters (category Cf).
INVISIBLE = ["\u200b", "\ufeff", "\u200d\u200c", "\u00ad", " \u200b\n\t\u2060 ", "\u202e\u200e\u00a0",
             "\ufe0f", "\u3164", "\u115f\uffa0", "\u034f", "\U000e0100", "\x00\x07", "\x1b\u200b"]
TEXT_VERBS = [
    ("add", lambda e, t: e.add(t, embedding=GOOD)),
    ("add_batch", lambda e, t: e.add_batch([{"text": "ok", "embedding": GOOD}, {"text": t, "embedding": GOOD}])),
    ("update", lambda e, t: e.update("a", text=t, embedding=GOOD)),
    ("supersede", lambda e, t: e.supersede("a", t, embedding=GOOD)),
    ("admit_batch", lambda e, t: e.admit_batch([{"text": t, "embedding": GOOD}])),
    ("decide", lambda e, t: e.decide(t, confidence=0.5, embedding=GOOD)),
    ("add_conversation", lambda e, t: e.add_conversation([{"role": "user", "content": "hello there"},
                                                          {"role": "assistant", "content": t}])),
    ("recall", lambda e, t: e.recall(t)),
    ("recall with vector", lambda e, t: e.recall(t, vector=GOOD)),
    ("recall_batch", lambda e, t: e.recall_batch(["first", t])),
]
CASES += [(f"{verb} invisible text {i}", (lambda call, t: lambda e: call(e, t))(call, t), errors.EmptyTextError)
          for i, t in enumerate(INVISIBLE) for verb, call in TEXT_VERBS]

# The id forms of the engine's own nodes (entities, sessions, summaries, facts, pieces, outcomes).
RESERVED = [("E:paris", "'E:<entity>'"), ("S:week 1", "'S:<session>'"), ("sum:S:1", "'sum:<session>'"),
            ("fact:0123abcd", "'fact:...'"), ("a#1", "'<id>#<n>'"), ("note#p12", "'<id>#p<n>'"),
            ("d1:outcome:2", "'<id>:outcome:<n>'")]
ID_VERBS = [
    ("add", lambda e, i: e.add("x", id=i, embedding=GOOD)),
    ("add_batch", lambda e, i: e.add_batch([{"id": "ok", "text": "ok", "embedding": GOOD},
                                            {"id": i, "text": "y", "embedding": GOOD}])),
    ("add link target", lambda e, i: e.add("x", embedding=GOOD, links=[{"to": i}])),
    ("link source", lambda e, i: e.link(i, "a")),
    ("link target", lambda e, i: e.link("a", i, "supports")),
    ("link_batch", lambda e, i: e.link_batch([("a", "b"), ("b", i)])),
    ("update", lambda e, i: e.update(i, tags=["x"])),
    ("supersede new id", lambda e, i: e.supersede("a", "new", id=i, embedding=GOOD)),
    ("admit_batch", lambda e, i: e.admit_batch([{"id": i, "text": "brand new fact 7", "embedding": GOOD}])),
    ("decide", lambda e, i: e.decide("go with plan b", confidence=0.5, id=i, embedding=GOOD)),
    ("add_conversation", lambda e, i: e.add_conversation([{"role": "user", "content": "hello", "id": i}])),
]
CASES += [(f"{verb} reserved id {i}", (lambda call, i: lambda e: call(e, i))(call, i), errors.InvalidInputError)
          for i, _form in RESERVED for verb, call in ID_VERBS]


@pytest.mark.parametrize("name,call,exc", CASES, ids=[c[0] for c in CASES])
def test_bad_input_leaves_store_unchanged(eng, name, call, exc):
    before = store_digest(eng)
    with pytest.raises(exc) as info:
        call(eng)
    assert isinstance(info.value, errors.EngramError)
    assert str(info.value)  # a message that says something
    assert store_digest(eng) == before
    assert eng.stats()["memories"] == 2 and eng.stats()["edges"] == 0
    assert sum(indexed_counts(eng).values()) == 2                     # no phantom vectors
    assert {h.id for h in eng.recall(vector=GOOD, k=10, config=engramdb.RecallConfig(cosine_floor=-1.0)).hits} == {"a", "b"}


def test_dimension_error_fields():
    err = errors.DimensionMismatchError(expected=384, got=768, field="embedding")
    assert (err.expected, err.got, err.field) == (384, 768, "embedding")
    assert "384" in str(err) and "768" in str(err)
    assert isinstance(err, ValueError)


def test_missing_store(tmp_path):
    with pytest.raises(errors.StoreNotFoundError):
        engramdb.open(tmp_path / "nope", create=False)
    with pytest.raises(errors.StoreNotFoundError):
        engramdb.open(tmp_path / "nope", readonly=True)
    f = tmp_path / "file"
    f.write_text("not a store")
    with pytest.raises(errors.StoreNotFoundError):
        engramdb.open(f, dim=DIM)


def test_unreadable_store(tmp_path):
    d = tmp_path / "garbage"
    d.mkdir()
    (d / "data.mdb").write_bytes(b"\x00garbage" * 1000)
    with pytest.raises(errors.StoreError):
        engramdb.open(d, dim=DIM)


def test_dim_mismatch_on_reopen(tmp_store):
    engramdb.open(tmp_store, dim=DIM).close()
    with pytest.raises(errors.DimensionMismatchError):
        engramdb.open(tmp_store, dim=DIM * 2)


def test_closed_engine(tmp_store):
    e = engramdb.open(tmp_store, dim=DIM)
    e.close()
    e.close()
    with pytest.raises(errors.EngramError):
        e.add("x", embedding=GOOD)


def _flag_params():
    """Every (owner, verb, flag) of the public API with a keyword-only bool parameter."""
    import inspect

    from engramdb import jobs, sharding
    from engramdb.engine import Engram
    out = []
    for owner in (Engram, sharding.ShardedEngram):
        for name, fn in inspect.getmembers(owner, inspect.isfunction):
            if not name.startswith("_"):
                out += [(owner.__name__, name, p.name) for p in inspect.signature(fn).parameters.values()
                        if p.kind is p.KEYWORD_ONLY and str(p.annotation).replace(" ", "") in ("bool", "bool|None")]
    for fn in (engramdb.open, sharding.open_sharded, jobs.run):
        out += [(fn.__module__, fn.__name__, p.name) for p in inspect.signature(fn).parameters.values()
                if p.kind is p.KEYWORD_ONLY and str(p.annotation).replace(" ", "") in ("bool", "bool|None")]
    return out


FLAGS = _flag_params()


def test_the_flag_list_covers_the_verbs_a_string_used_to_flip():
    verbs = {(o, v, f) for o, v, f in FLAGS}
    assert {("Engram", "forget", "hard"), ("Engram", "recall", "reinforce"), ("Engram", "get", "with_embedding"),
            ("ShardedEngram", "forget", "hard"), ("engramdb.engine", "open", "readonly")} <= verbs


@pytest.mark.parametrize("owner,verb,flag", FLAGS, ids=[f"{o}.{v}.{f}" for o, v, f in FLAGS])
@pytest.mark.parametrize("bad", ["false", 0, 1.0, [True]])
def test_a_flag_takes_true_or_false_only(tmp_path, owner, verb, flag, bad):
    """forget(id, hard="false") used to erase (a non-empty string is truthy): every keyword-only
    bool parameter of the public API refuses anything but a bool before the call runs."""
    from engramdb import jobs, sharding
    from engramdb.engine import Engram
    fn = {"Engram": Engram, "ShardedEngram": sharding.ShardedEngram}.get(owner)
    call = getattr(fn, verb) if fn is not None else {"open": engramdb.open, "open_sharded": sharding.open_sharded,
                                                        "run": jobs.run}[verb]
    with pytest.raises(engramdb.InvalidInputError, match=f"{flag} must be True or False"):
        call(None, **{flag: bad})   # refused before the call looks at any other argument


def test_a_refused_flag_leaves_the_store_unchanged(tmp_path):
    with engramdb.open(tmp_path / "s", dim=32) as m:
        m.add("keep me", id="k")
        with pytest.raises(engramdb.InvalidInputError):
            m.forget("k", hard="false")
        assert m.get("k").state.value == "active" and m.stats()["memories"] == 1
        assert m.get("k", with_embedding=True).embedding is not None   # a real bool still works


def test_a_time_range_that_ends_before_it_starts_is_refused(tmp_path):
    """recall / query with since after until used to answer [] silently."""
    with engramdb.open(tmp_path / "s", dim=32) as m:
        m.add("a memory", id="a", created_at="2025-06-01")
        for verb in (lambda **kw: m.recall("memory", **kw), lambda **kw: m.query(**kw)):
            with pytest.raises(engramdb.InvalidInputError, match="since .* is after until"):
                verb(since="2026-01-01", until="2025-01-01")
        assert [x.id for x in m.query(since="2025-06-01", until="2025-06-01")] == ["a"]   # one instant is a range


def test_a_batch_item_may_link_to_a_later_item_of_the_batch(tmp_path):
    with engramdb.open(tmp_path / "s", dim=32) as m:
        m.add_batch([{"id": "f1", "text": "first", "links": [{"to": "f2", "relation": "next"}]},
                     {"id": "f2", "text": "second"}])
        assert [(e.source, e.target, e.relation.value) for e in m.edges("f1")] == [("f1", "f2", "next")]
        with pytest.raises(engramdb.MemoryNotFoundError, match="an item of the same batch"):
            m.add_batch([{"id": "g1", "text": "third", "links": [{"to": "nowhere", "relation": "next"}]}])
        assert m.stats()["memories"] == 2


def test_a_bad_batch_item_is_named_by_its_position(tmp_path):
    """add_batch said only "created_at: 1709287237000 Unix seconds is outside the years 1 to
    9999" for item 37 of 50, where add_conversation names messages[37] (hostile pass); the
    JSONL ingest names the record, also when its namespace's batch holds other records first."""
    import json

    from engramdb.ingest import ingest_jsonl

    items = [{"text": f"note {i}", "created_at": 1.7e9 + i} for i in range(50)]
    items[37]["created_at"] = 1709287237000   # milliseconds
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        with pytest.raises(engramdb.InvalidInputError, match=r"^items\[37\]: created_at: .*looks like milliseconds") as e:
            mem.add_batch(items)
        assert e.value.item_index == 37 and mem.stats()["memories"] == 0
        items[37] = {"text": "  \u200b "}
        with pytest.raises(engramdb.EmptyTextError, match=r"^items\[37\]: text: ") as e:
            mem.add_batch(items)
        assert e.value.item_index == 37
        path = tmp_path / "m.jsonl"
        path.write_text("\n".join(json.dumps(r) for r in [{"text": "a", "namespace": "x"}, {"text": "b", "namespace": "y"},
                                                          {"text": "c", "namespace": "y", "created_at": 1709287237000}]))
        with pytest.raises(engramdb.InvalidInputError, match=r"m\.jsonl: record 3: created_at: "):
            ingest_jsonl(mem, path)


def test_the_writes_own_checks_name_the_batch_item(tmp_path):
    """An id given twice, an id already stored and a link to no memory were refused without
    naming the item (hostile pass); the store stays unchanged."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add("Seed memory about tea.", id="seed")
        before = store_digest(mem)
        for items, err, text in (
                ([{"text": "ok", "id": "x1"}, {"text": "dup", "id": "x1"}], errors.InvalidInputError, "appears twice"),
                ([{"text": "ok", "id": "x1"}, {"text": "new", "id": "seed"}], errors.InvalidInputError, "already exists"),
                ([{"text": "ok"}, {"text": "link", "links": [{"to": "nope", "relation": "supports"}]}],
                 errors.MemoryNotFoundError, "no memory 'nope'")):
            with pytest.raises(err, match=rf"^items\[1\]: .*{text}") as e:
                mem.add_batch(items)
            assert e.value.item_index == 1 and store_digest(mem) == before
        with pytest.raises(errors.InvalidInputError, match=r"^id 'seed' already exists"):
            mem.add("again", id="seed")   # add's one item is the call itself


@pytest.mark.parametrize("bad,problem", [({"txt": "hello"}, "unknown memory field(s) ['txt']"),
                                         ({"text": "   "}, "text: the text is empty")])
def test_a_bad_admission_candidate_is_named_by_its_index(tmp_path, bad, problem):
    """helper104: admit_batch said "unknown memory field(s) ['txt']" with no candidate named, where
    add_batch says "items[2]: ..."."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as eng:
        eng.add("I live in Boston.", namespace="u")
        before = eng.stats()["memories"]
        with pytest.raises(engramdb.EngramError) as err:
            eng.admit_batch([{"text": "I work at Acme."}, {"text": "My cat is Miso."}, bad], namespace="u")
        assert str(err.value).startswith("candidates[2]: ") and problem in str(err.value)
        assert err.value.item_index == 2
        assert eng.stats()["memories"] == before
