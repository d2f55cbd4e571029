"""Every Engram verb on a sharded deployment, with a single store's arguments and answers:
censor rules (store-wide, scoped to several namespaces, removed), the verbs without a
namespace (acting_as, export_ledger, import_from), and the fan-out verbs' combined answers
(ledger, rescore, consolidate) typed as a single store's are."""
import inspect

import pyarrow.parquet as pq
import pytest

import engramdb
from engramdb.sharding import shard_of

# with 3 shards: dave -> 0, alice -> 1, erin -> 2 (checked in the fixture)
HOMES = {"dave": 0, "alice": 1, "erin": 2}


@pytest.fixture
def sh(tmp_path):
    assert {ns: shard_of(ns, 3) for ns in HOMES} == HOMES
    with engramdb.open_sharded(tmp_path / "deploy", n_shards=3, embedder="hashing") as sh:
        for ns in HOMES:
            sh.add(f"{ns}'s bank PIN is 1234", namespace=ns, id="pin", created_at=1.6e9)
            sh.add(f"{ns} likes green apples", namespace=ns, id="apples", created_at=1.6e9)
        yield sh


def shard_rules(sh):
    """Rule ids held by each shard's own store, in shard order."""
    return [[r.id for r in sh.engine(i).censors()] for i in range(sh.n_shards)]


def ledger_sizes(sh):
    return [len(sh.engine(i).ledger()) for i in range(sh.n_shards)]


def visible(sh, ns, id_="pin"):
    try:
        sh.get(id_, namespace=ns)
        return True
    except engramdb.MemoryBlockedError:
        return False


# ---------------------------------------------------------------------------- censor rules
def test_a_store_wide_censor_rule_is_written_to_every_shard_and_returned_once(sh):
    rule = sh.censor(pattern="PIN", action="block", reason="secrets", id="g")
    assert isinstance(rule, engramdb.CensorRule)
    assert (rule.id, rule.action.value, rule.pattern, rule.namespaces, rule.reason) == \
        ("g", "block", "PIN", (), "secrets")
    assert shard_rules(sh) == [["g"], ["g"], ["g"]]
    assert [r.id for r in sh.censors()] == ["g"]
    assert [r.id for r in sh.censors(namespace="erin")] == ["g"]
    assert [visible(sh, ns) for ns in HOMES] == [False, False, False]
    assert visible(sh, "alice", "apples")


def test_a_store_wide_rule_without_an_id_has_one_id_on_every_shard(sh):
    rule = sh.censor(tag="nothing-carries-this", action="warn")
    assert shard_rules(sh) == [[rule.id]] * 3
    assert [r.id for r in sh.censors()] == [rule.id]


def test_censor_hits_of_every_shard_are_counted_on_the_one_rule_listed(sh):
    sh.censor(pattern="PIN", action="block", id="g")
    for ns in HOMES:
        visible(sh, ns)   # one refused read per shard
    (listed,) = sh.censors()
    assert listed.hits == sum(sh.engine(i).censors()[0].hits for i in range(3)) == 3


def test_a_rule_over_several_namespaces_goes_to_the_shards_holding_them(sh):
    rule = sh.censor(namespace=["alice", "dave"], action="block", id="two")
    assert rule.namespaces == ("alice", "dave")
    assert shard_rules(sh) == [["two"], ["two"], []]   # dave -> 0, alice -> 1, erin -> 2
    assert [visible(sh, ns) for ns in HOMES] == [False, False, True]
    assert [(r.id, r.namespaces) for r in sh.censors()] == [("two", ("alice", "dave"))]
    assert [r.id for r in sh.censors(namespace="erin")] == []


def test_a_rule_for_one_namespace_goes_to_its_shard_only(sh):
    sh.censor(namespace="erin", pattern="PIN", id="one")
    assert shard_rules(sh) == [[], [], ["one"]]
    assert [visible(sh, ns) for ns in HOMES] == [True, True, False]


def test_remove_censor_removes_the_rule_from_every_shard_that_holds_it(sh):
    sh.censor(pattern="PIN", action="block", id="g")
    sh.censor(namespace=("alice", "dave"), action="block", id="two")
    assert sh.remove_censor("g") is None
    assert shard_rules(sh) == [["two"], ["two"], []]
    assert [visible(sh, ns) for ns in HOMES] == [False, False, True]
    sh.remove_censor("two")
    assert shard_rules(sh) == [[], [], []] and sh.censors() == []
    assert [visible(sh, ns) for ns in HOMES] == [True, True, True]


def test_remove_censor_of_an_unknown_rule_writes_nothing(sh):
    before = ledger_sizes(sh)
    with pytest.raises(engramdb.InvalidInputError, match="no censor rule 'nope'"):
        sh.remove_censor("nope")
    with pytest.raises(engramdb.InvalidInputError):
        sh.remove_censor("")
    assert ledger_sizes(sh) == before


@pytest.mark.parametrize("bad", [
    {"pattern": "(", "id": "bad"},                                  # does not compile
    {"pattern": "PIN", "action": "hide"},                           # unknown action
    {"namespace": ["alice", ""], "action": "block"},                # a bad name in the list
    {"namespace": "alice", "provenance": "robot"},                  # unknown provenance
    {},                                                             # no criterion
])
def test_a_refused_censor_call_writes_nothing_on_any_shard(sh, bad):
    before = ledger_sizes(sh)
    with pytest.raises((engramdb.InvalidInputError, engramdb.NamespaceError)):
        sh.censor(**bad)
    assert ledger_sizes(sh) == before and shard_rules(sh) == [[], [], []]


def test_a_rule_id_in_use_on_one_shard_is_refused_before_any_shard_is_written(sh):
    sh.censor(namespace="erin", pattern="PIN", id="r1")   # shard 2 only
    before = ledger_sizes(sh)
    with pytest.raises(engramdb.InvalidInputError, match="'r1' exists already"):
        sh.censor(pattern="apples", id="r1")                 # store-wide: shards 0 and 1 first
    with pytest.raises(engramdb.InvalidInputError, match="'r1' exists already"):
        sh.censor(namespace="dave", pattern="apples", id="r1")   # another shard than r1's
    assert ledger_sizes(sh) == before and shard_rules(sh) == [[], [], ["r1"]]


def test_an_in_process_rule_on_a_read_only_deployment_is_on_every_shard(sh, tmp_path):
    sh.close()
    with engramdb.open_sharded(tmp_path / "deploy", readonly=True) as ro:
        ro.censor(match=lambda m: "PIN" in m.text, id="cb")
        assert shard_rules(ro) == [["cb"]] * 3 and [r.id for r in ro.censors()] == ["cb"]
        assert [visible(ro, ns) for ns in HOMES] == [False, False, False]
        with pytest.raises(engramdb.ReadOnlyError):
            ro.censor(pattern="apples", id="stored")
        ro.remove_censor("cb")
        assert ro.censors() == [] and visible(ro, "alice")


def test_a_store_wide_rule_survives_reopening(sh, tmp_path):
    sh.censor(pattern="PIN", id="g")
    sh.close()
    with engramdb.open_sharded(tmp_path / "deploy", readonly=True) as again:
        assert [r.id for r in again.censors()] == ["g"] and not visible(again, "erin")


# ---------------------------------------------------------------------------- verbs without a namespace
def test_every_public_engram_verb_is_on_the_sharded_object():
    verbs = [name for name, fn in inspect.getmembers(engramdb.Engram, inspect.isfunction) if not name.startswith("_")]
    assert {"censor", "remove_censor", "acting_as", "export_ledger", "import_from"} <= set(verbs)
    for verb in verbs:
        assert callable(getattr(engramdb.ShardedEngram, verb, None)), verb


@pytest.mark.parametrize("verb", ["censor", "censors", "remove_censor", "export_ledger", "import_from", "acting_as"])
def test_the_sharded_verbs_take_the_engine_s_arguments(verb):
    want = inspect.signature(getattr(engramdb.Engram, verb))
    got = inspect.signature(getattr(engramdb.ShardedEngram, verb))
    assert list(got.parameters) == list(want.parameters)
    assert [p.default for p in got.parameters.values()] == [p.default for p in want.parameters.values()]


def test_acting_as_names_the_actor_of_writes_on_every_shard(sh):
    with sh.acting_as("planner") as same:
        assert same is sh
        sh.add("dave moved to Porto", namespace="dave", id="porto")
        sh.add("erin moved to Lyon", namespace="erin", id="lyon")
    sh.add("alice moved to Oslo", namespace="alice", id="oslo")
    by_id = {e.ids: e.actor for e in sh.ledger(verb="add")}
    assert by_id[("porto",)] == by_id[("lyon",)] == "planner"
    assert by_id[("oslo",)] != "planner"
    with pytest.raises(engramdb.InvalidInputError):
        with sh.acting_as(""):
            pass


def test_export_ledger_writes_every_shard_s_entries_to_one_file(sh, tmp_path):
    path = sh.export_ledger(tmp_path / "ledger.parquet")
    assert path == str(tmp_path / "ledger.parquet")
    table = pq.read_table(path)
    entries = sh.ledger()
    assert table.num_rows == len(entries) == sum(ledger_sizes(sh))
    assert table.column("hash").to_pylist() == [e.hash for e in entries]
    with pytest.raises(engramdb.InvalidInputError, match="exists"):
        sh.export_ledger(path)


def test_import_from_of_one_shard_s_namespaces_imports_there(sh, tmp_path):
    with engramdb.open(tmp_path / "single", embedder="hashing") as single:
        single.add("dave's new note", namespace="dave", id="n")
        single.add("a guest's note", namespace="gus", id="g")
        single.export(tmp_path / "exp")
    assert shard_of("gus", 3) == HOMES["dave"]
    out = sh.import_from(tmp_path / "exp")
    assert (out["memories"], out["skipped"]) == (2, 0)
    assert sh.get("n", namespace="dave").text == "dave's new note"
    assert sh.engine(0).namespaces() == ["dave", "gus"]
    with pytest.raises(engramdb.InvalidInputError, match="already"):
        sh.import_from(tmp_path / "exp")                      # on_conflict="error", as one store
    assert sh.import_from(tmp_path / "exp", on_conflict="skip")["skipped"] == 2


def test_import_from_an_export_spanning_shards_writes_nothing(sh, tmp_path):
    with engramdb.open(tmp_path / "single", embedder="hashing") as single:
        single.add("a note", namespace="dave", id="n")
        single.add("a note", namespace="erin", id="n")
        single.export(tmp_path / "exp")
    before = ledger_sizes(sh)
    with pytest.raises(engramdb.InvalidInputError, match="shard_path"):
        sh.import_from(tmp_path / "exp")
    assert ledger_sizes(sh) == before
    with pytest.raises(engramdb.InvalidInputError, match="not a directory written by engramdb export"):
        sh.import_from(tmp_path / "nothing-here")
    with pytest.raises(engramdb.InvalidInputError, match="on_conflict"):
        sh.import_from(tmp_path / "exp", on_conflict="merge")
    assert ledger_sizes(sh) == before


# ---------------------------------------------------------------------------- fan-out answers
def test_ledger_without_a_namespace_is_oldest_first_and_limited_over_all_shards(sh):
    entries = sh.ledger()
    assert [e.time for e in entries] == sorted(e.time for e in entries)
    last = sh.ledger(limit=2)
    assert len(last) == 2 and last == entries[-2:]
    assert sh.ledger(limit=0) == []
    assert [e.ids for e in sh.ledger(verb="add", limit=1)] == [("apples",)]


def test_rescore_over_every_shard_has_one_now_and_one_seconds(sh):
    out = sh.rescore()
    assert isinstance(out["now"], float) and isinstance(out["seconds"], float)
    assert {p["now"] for p in out["shards"]} == {out["now"]}
    assert out["seconds"] == pytest.approx(sum(p["seconds"] for p in out["shards"]), abs=1e-5)
    assert out["scanned"] == 6


def test_consolidate_over_every_shard_has_one_now_and_one_seconds(sh):
    out = sh.consolidate()
    assert isinstance(out["now"], float) and isinstance(out["seconds"], float)
    assert {p["now"] for p in out["shards"]} == {out["now"]}
    assert out["namespaces"] == 3


def test_export_into_the_deployment_s_own_directories_is_refused_before_writing(sh, tmp_path):
    root = tmp_path / "deploy"
    (tmp_path / "a-file").write_text("x")
    for path in (root, root / "shard-0001", root / "shard-0002" / "ds", root / "jobs", tmp_path / "a-file"):
        with pytest.raises(engramdb.InvalidInputError):
            sh.export(path, now=2.0e9)
    assert sorted(p.name for p in root.iterdir()) == ["manifest.json", "shard-0000", "shard-0001", "shard-0002"]
    for shard in ("shard-0001", "shard-0002"):
        assert {"memories", "edges", ".staging", "ds"}.isdisjoint(p.name for p in (root / shard).iterdir())
    out = sh.export(tmp_path / "ds", now=2.0e9)
    assert (out["memories"], out["partitions"]) == (6, 3)
