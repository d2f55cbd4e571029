"""Hostile inputs, eleventh round: times, chat files, supersede / decide / consolidate, context.

Each test asserts the documented behaviour (README / docstrings) that the engine broke; found by
attacking the public API and the CLI.
"""
import json

import numpy as np
import pytest
from click.testing import CliRunner

import engramdb
from engramdb import errors
from engramdb.cli import main
from engramdb.testing import store_digest

T = 1_700_000_000


@pytest.mark.parametrize("when", [-1e11, "9999-12-31T23:59:59-01:00", "0001-01-01T00:00:00+01:00",
                                  -62_135_596_801])
def test_a_time_outside_the_years_1_to_9999_in_utc_is_refused_everywhere(tmp_path, when):
    # to_unix_seconds promised years 1..9999 but let through -1e11 (about year -1200) and any
    # time with an offset that moves it past either end; context() then crashed on the memory.
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add("a memory about tea", id="a", created_at=T)
        before = store_digest(mem)
        with pytest.raises(errors.InvalidInputError, match="years 1 to 9999"):
            mem.add("a dated memory about tea", created_at=when)
        with pytest.raises(errors.InvalidInputError, match="years 1 to 9999"):
            mem.add_conversation([{"role": "user", "content": "tea at dawn", "created_at": when}])
        with pytest.raises(errors.InvalidInputError, match="years 1 to 9999"):
            mem.recall("tea", since=when)
        assert store_digest(mem) == before
        assert "tea" in mem.context("tea").text


def test_the_ends_of_the_years_1_to_9999_are_accepted(tmp_path):
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add("first", id="a", created_at="0001-01-01T00:00:00Z")
        mem.add("last", id="b", created_at="9999-12-31T23:59:59Z")
        assert mem.get("a").created_at == -62_135_596_800.0
        assert mem.get("b").created_at == 253_402_300_799.0
        assert {i.id for t in ("L1", "L2") for i in mem.context("first last").items[t]} >= {"a", "b"}
        # the last second of 9999 is in 9999 to its end (helper-226: 23:59:59.5 was refused as
        # "outside the years 1 to 9999", and as a number with a hint to divide it by 1000)
        mem.add("later still", id="c", created_at="9999-12-31T23:59:59.5Z")
        mem.add("latest", id="d", created_at=253_402_300_799.75)
        assert (mem.get("c").created_at, mem.get("d").created_at) == (253_402_300_799.5, 253_402_300_799.75)
        assert [h.id for h in mem.recall("latest", k=1, until="9999-12-31").hits] == ["d"]
        with pytest.raises(errors.InvalidInputError, match="outside the years 1 to 9999 in UTC$"):
            mem.add("past the end", created_at="9999-12-31T23:00:00-01:00")


def test_ingest_chat_reads_openai_jsonl_whose_messages_hold_line_separators(tmp_path):
    # json.dumps(ensure_ascii=False) writes U+2028 / U+2029 / U+0085 raw; str.splitlines broke
    # the line there ("not valid JSON").
    path = tmp_path / "finetune.jsonl"
    convs = [{"messages": [{"role": "user", "content": f"line{sep}break {i}"},
                           {"role": "assistant", "content": "noted"}]} for i, sep in enumerate("\u2028\u2029\x85")]
    path.write_text("\n".join(json.dumps(c, ensure_ascii=False) for c in convs) + "\n", encoding="utf-8")
    store = str(tmp_path / "s")
    res = CliRunner().invoke(main, ["ingest-chat", "--store", store, str(path)])
    assert res.exit_code == 0, res.output
    assert "ingested 6 new messages in 3 sessions" in res.output


def test_ingest_chat_takes_a_chat_that_mentions_messages_as_jsonl_of_messages(tmp_path):
    # the layout sniff looked for '"messages"' in the first 200 characters
    path = tmp_path / "chat.jsonl"
    rows = [{"role": "user", "content": "messages"}, {"role": "assistant", "content": "what about messages?"}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    assert [m["content"] for m in engramdb.ingest.read_chat(path)] == ["messages", "what about messages?"]
    res = CliRunner().invoke(main, ["ingest-chat", "--store", str(tmp_path / "s"), str(path)])
    assert res.exit_code == 0 and "ingested 2 new messages" in res.output, res.output
    pretty = tmp_path / "pretty.json"   # OpenAI's layout as one object over several lines
    pretty.write_text(json.dumps({"messages": rows}, indent=2), encoding="utf-8")
    assert len(engramdb.ingest.read_chat(pretty)) == 2


@pytest.mark.parametrize("node", ["E:paris", "S:s"])
def test_supersede_refuses_an_engine_node_at_either_end(tmp_path, node):
    # by="E:paris" made the fact's current version an entity node, which recall never returns:
    # the fact dropped out of recall
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add_conversation([{"role": "user", "content": "I met Bob in Paris on Monday."},
                              {"role": "assistant", "content": "Bob in Paris, nice."}], session="s")
        before = store_digest(mem)
        with pytest.raises(errors.InvalidInputError, match="reserves"):
            mem.supersede("s:1", by=node)
        with pytest.raises(errors.InvalidInputError, match="reserves"):
            mem.supersede(node, "Paris is a city")
        assert store_digest(mem) == before
        assert mem.recall("met Bob in Paris Monday", k=2).hits[0].id == "s:1"


def test_decide_refuses_a_decision_time_in_the_future(tmp_path):
    # review() refuses a time after now, so a decision dated in the future could never be reviewed
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        before = store_digest(mem)
        with pytest.raises(errors.InvalidInputError, match="later than now"):
            mem.decide("We launch in 2096.", confidence=0.6, now="2096-01-01")
        assert store_digest(mem) == before
        dec = mem.decide("We launched last year.", confidence=0.6, now=T)
        assert 0.0 <= mem.review(dec, "success") <= 1.0   # reviewable (salience after the review)


def test_consolidate_writes_no_namespace_when_a_later_one_is_refused(tmp_path):
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        for ns in ("a", "b"):
            mem.add_conversation([
                {"role": "user", "content": f"I adopted a dog named Rex in {ns}ville; he loves long walks.",
                 "created_at": T},
                {"role": "assistant", "content": "Rex sounds wonderful; long walks keep owners fit.",
                 "created_at": T + 5},
                {"role": "user", "content": "He also chews every shoe in the house.", "created_at": T + 9}],
                namespace=ns, session="s1")
        before = store_digest(mem)
        limit = mem.config.store.max_text_chars

        def summarizer(texts):
            return "x" * (limit + 1) if "bville" in texts[0] else "Rex the dog chews shoes."

        with pytest.raises(errors.OversizeError, match="S:s1"):
            mem.consolidate(now=T + 10**7, summarizer=summarizer)
        assert store_digest(mem) == before
        done = mem.consolidate(now=T + 10**7, summarizer=lambda texts: "Rex the dog chews shoes.")
        assert done["summaries"] == 2


def test_context_items_follow_the_order_of_the_text(tmp_path):
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add("Always water the plants on Sunday.", id="proc", kind="procedural")
        mem.decide("We pick Postgres for storage.", id="dec", confidence=0.7)
        block = mem.context("plants storage")
        ids = [i.id for i in block.items["L0"]]
        assert sorted(ids) == ["dec", "proc"]
        assert ids == sorted(ids, key=block.text.index)


def test_context_takes_numpy_integers_as_recall_does(tmp_path):
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add("tea at dawn with Ana", id="a")
        want = mem.context("tea", budget_tokens=100)
        got = mem.context("tea", budget_tokens=np.int64(100), count_tokens=lambda t: np.int64(len(t) // 4))
        assert got.budget_tokens == 100 and isinstance(got.budget_tokens, int)
        assert [i.id for i in got.items["L1"]] == [i.id for i in want.items["L1"]]
        with pytest.raises(errors.InvalidInputError):
            mem.context("tea", budget_tokens=np.bool_(True))


def test_recall_batch_refuses_a_set_of_queries(tmp_path):
    # the answers come back in query order: a set has none
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add("tea at dawn", id="a")
        with pytest.raises(errors.InvalidInputError, match="unordered"):
            mem.recall_batch({"tea", "dawn"})
        assert len(mem.recall_batch(["tea", "dawn"])) == 2


def test_a_failed_cli_import_into_a_new_directory_leaves_no_store(tmp_path):
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add("tea", id="a")
        mem.add("coffee", id="b")
        mem.link("a", "b", "supports")
        mem.export(tmp_path / "export")
    bad = tmp_path / "export"
    (bad / "edges.parquet").write_bytes(b"garbage")   # the memories (and the export's dim) still read
    target = tmp_path / "new-store"
    res = CliRunner().invoke(main, ["import", "--store", str(target), str(bad)])
    assert res.exit_code == 2, res.output
    assert not target.exists()


def test_ray_jobs_without_ray_names_the_extra(monkeypatch):
    # docs/scale_out.md's RayShards block raised a bare ModuleNotFoundError without the extra
    import importlib
    import sys

    monkeypatch.setitem(sys.modules, "ray", None)   # as if Ray were not installed
    monkeypatch.delitem(sys.modules, "engramdb.ray_jobs", raising=False)
    with pytest.raises(errors.BackendUnavailableError, match=r"engramdb\[ray\]"):
        importlib.import_module("engramdb.ray_jobs")
