"""Build README's performance table from benchmarks/results/*.json.

    python benchmarks/perf_table.py            # print the table
    python benchmarks/perf_table.py --readme   # rewrite it between the markers in README.md
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
BEGIN, END = "<!-- perf-table:begin -->", "<!-- perf-table:end -->"



def _stages(run: dict) -> str:
    """'; stages: seeds 600, ...' from a run's per-stage medians (µs), when it has them."""
    st = run.get("stage_median_us")
    return "; stages (median µs): " + ", ".join(f"{k} {v:.0f}" for k, v in st.items()) if st else ""

def _load(name: str) -> dict | None:
    path = RESULTS / f"{name}.json"
    return json.loads(path.read_text()) if path.exists() else None


def rows() -> list[tuple[str, str, str]]:
    out = []
    spread = _load("spreading")
    if spread:
        by = {(r["nodes"], r["impl"]): r for r in spread["runs"] if "median_us" in r}
        for n in sorted({r["nodes"] for r in spread["runs"]}):
            c, pg = by.get((n, "c")), by.get((n, "postgres_cte"))
            if c:
                vs = f"{pg['median_us'] / c['median_us']:.0f}x faster than the PostgreSQL recursive CTE" if pg else ""
                load = spread.get("machine", {}).get("loadavg_at_start")
                if load:
                    vs += f"{'; ' if vs else ''}load {load[0]:.1f}"
                out.append((f"spreading activation, {n:,} nodes (depth 2, 10 seeds)",
                            f"{c['median_us']:.0f} µs median, {c['p99_us']:.0f} µs p99", vs))
    recall = _load("recall")
    scale = _load("recall_scale")
    if recall and not scale:   # bench_recall_scale measures the current recall path (text and vector)
        by = {(r["memories"], r["impl"]): r for r in recall["runs"]}
        for n in sorted({r["memories"] for r in recall["runs"]}):
            e, h = by.get((n, "engramdb_recall")), by.get((n, "hnswlib_topk"))
            if e and h:
                out.append((f"whole recall, {n:,} memories, dim 384 (query vector given)",
                            f"{e['median_us']:.0f} µs median, {e['p99_us']:.0f} µs p99",
                            f"hnswlib top-k alone {h['median_us']:.0f} µs"))
    if scale:
        for r in scale["runs"]:
            n = r["memories"]
            load = r.get("load_at_start", scale["load_at_start"])[0]   # rows of earlier runs keep theirs
            t, v, h = r["recall_text"], r["recall_vector"], r["hnswlib_knn"]
            out.append((f"recall from text, {n:,} LoCoMo-grown memories (hashing embedder)",
                        f"{t['median_us']:.0f} µs median, {t['p99_us']:.0f} µs p99",
                        f"query embedding {r['stage_query_embedding']['median_us']:.0f} µs, keyword leg "
                        f"{r['stage_keyword']['median_us']:.0f} µs, hnswlib {h['median_us']:.0f} µs; load {load:.1f}"
                        + _stages(t)
                        + (f"; keyword leg after hnswlib instead of beside it: "
                           f"{r['recall_text_serial_legs']['median_us']:.0f} µs median"
                           if "recall_text_serial_legs" in r else "")))
            out.append((f"recall with the vector given, {n:,} memories",
                        f"{v['median_us']:.0f} µs median, {v['p99_us']:.0f} µs p99",
                        f"hnswlib k-NN alone {h['median_us']:.0f} µs: engramdb's own part {r['own_part_vector_us']:.0f} µs"
                        + _stages(v)))
            if "cold_open_first_recall_ms" in r:
                out.append((f"cold open + first recall from text, {n:,} memories",
                            f"{r['cold_open_first_recall_ms']['median']:.0f} ms median", "import apart; page cache warm"))
            if "threads" in r:
                th = r["threads"]
                out.append((f"recall throughput, 2 threads sharing one engine, {n:,} memories",
                            f"{th['qps_2']:,.0f} recalls/s ({th['speedup_2']:.2f}x)",
                            f"1 thread {th['qps_1']:,.0f} recalls/s in the same run"))
    kw = _load("keyword")
    if kw and "scale" in kw:
        q = kw["scale"]["query"]
        out.append((f"keyword leg (BM25 + feedback, native), {kw['scale']['memories']:,} LoCoMo-grown memories",
                    f"{q['engramdb_native_prf']['median_us']:.0f} µs median",
                    f"tantivy one pass {q['tantivy_one_pass']['median_us']:.0f} µs; the Python postings "
                    f"{q['python_postings_prf']['median_us']:,.0f} µs; load {kw['load_avg_1_5_15_start'][0]:.1f}"))
    qe = _load("query_embed")
    if qe:
        out.append(("query embedding, hashing embedder (native)", f"{qe['median_us']['native']:.0f} µs median",
                    f"scikit-learn's HashingVectorizer path {qe['median_us']['sklearn']:.0f} µs, same vectors"))
    ingest = _load("ingest")
    if ingest:
        measured = {r["memories"] for r in ingest.get("throughput", [])}
        for r in ingest.get("throughput", []):
            what = "chat turns (LoCoMo's, grown)" if r.get("texts") == "locomo" else "memories"
            out.append((f"durable ingest, {r['memories']:,} {what}, vectors given (median of {r['runs']} runs)",
                        f"{r['memories_per_s']:,.0f} memories/s"
                        + (f" (runs: {', '.join(f'{x:,.0f}' for x in r['memories_per_s_each_run'])})"
                           if len(r.get("memories_per_s_each_run", [])) > 1 else ""),
                        (f"bare hnswlib insertion + auto-link search of the same vectors "
                         f"{r['hnswlib_floor_memories_per_s']:,.0f}/s ({r['hnswlib_insert_alone_s']} + "
                         f"{r['hnswlib_autolink_search_alone_s']} s of {r['add_s']} s); load average "
                         f"{r['loadavg_start'][0]:.1f} on {ingest.get('throughput_machine', ingest['machine'])['cpus']} cores")))
        for r in ingest["runs"]:
            if r["memories"] not in measured:
                split = f"of {r['add_s']} s: hnswlib insertion alone {r['hnswlib_insert_alone_s']} s"
                if "engramdb_own_s" in r:
                    split += (f", hnswlib auto-link search alone {r['hnswlib_autolink_search_alone_s']} s, "
                              f"engramdb's own {r['engramdb_own_s']} s")
                out.append((f"durable ingest, {r['memories']:,} memories", f"{r['memories_per_s']:,.0f} memories/s",
                            split))
            if scale or "open_plus_first_recall_ms" not in r:   # the scale benchmark's cold open is current
                continue
            out.append((f"cold open + first recall, {r['memories']:,} memories (query vector given)",
                        f"{r['open_plus_first_recall_ms']:.0f} ms",
                        f"open {r['open_ms']:.0f} ms + first recall {r['first_recall_ms']:.0f} ms; import apart"))
    decay = _load("decay")
    if decay:
        by = {r["impl"]: r for r in decay["runs"]}
        n = decay["runs"][0].get("n")
        best = min((r for r in decay["runs"] if r["impl"] in ("c", "numba")), key=lambda r: r["median_ms"])
        ref = by.get("numpy_reference")
        out.append((f"salience rescoring pass, {n:,} memories", f"{best['median_ms']:.1f} ms ({best['impl']})",
                    f"{best['x_bandwidth']:.2f}x a copy of the same bytes; NumPy {ref['median_ms']:.0f} ms" if ref else ""))
    adm = _load("admission")
    if adm:
        b = adm["runs"][0]
        one = adm["runs"][1] if len(adm["runs"]) > 1 else None
        per = f" in batches of {b['batch']:,}" if "batch" in b else ""
        vs = "novelty from hnswlib + in-batch, one scoring kernel call"
        if one and "x_one_at_a_time" in b:
            vs = (f"one candidate at a time {one['candidates_per_s']:,.0f}/s ({b['x_one_at_a_time']:.1f}x); "
                  f"load average {adm['machine']['loadavg_start'][0]:.1f}")
        out.append((f"admission, {b['n']:,} candidates{per} vs {b['stored']:,} stored",
                    f"{b['candidates_per_s']:,.0f} candidates/s", vs))
    imp = _load("import")
    if imp:
        by = {r["what"]: r for r in imp["runs"]}
        mod, wall, numpy_ = (by["import engramdb (in process)"], by["import engramdb (wall)"],
                             by["import numpy (in process)"])
        sk = by["import sklearn.feature_extraction.text (in process)"]
        load = imp["machine"]["loadavg_start"][0]
        out.append(("`import engramdb` (fresh process)",
                    f"{mod['median_ms']:.0f} ms median ({wall['median_ms']:.0f} ms for the whole process)",
                    f"`import numpy` alone {numpy_['median_ms']:.0f} ms; `import sklearn.feature_extraction.text` "
                    f"(which `import engramdb` no longer does) {sk['median_ms']:,.0f} ms; load average {load:.1f} "
                    f"on {imp['machine']['cpus']} cores"))
        helps, bare = by["engramdb --help (wall)"], by["python -c pass (wall)"]
        out.append(("`engramdb --help`", f"{helps['median_ms']:.0f} ms median, whole process",
                    f"an empty interpreter (`python -c pass`) {bare['median_ms']:.0f} ms"))
        use = imp["first_use"]
        sk_use = next((r for r in imp["importtime_top15"]["first use"]
                       if r["module"] == "sklearn.feature_extraction.text"), None)
        total = sum(use[k]["median_ms"] for k in ("import", "open", "first_recall"))
        out.append(("first use: import, open a 12-memory store, one recall by text",
                    f"{total:,.0f} ms (import {use['import']['median_ms']:.0f}, open {use['open']['median_ms']:.0f}, "
                    f"first recall {use['first_recall']['median_ms']:,.0f})",
                    f"of which the hashing embedder's scikit-learn import {sk_use['cumulative_ms']:,.0f} ms "
                    "(one `-X importtime` run)"
                    if sk_use else ""))
    return out


def table() -> str:
    lines = ["| what | measured | baseline in the same run |", "|---|---|---|"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in rows()]
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--readme", action="store_true")
    args = ap.parse_args()
    text = table()
    if not args.readme:
        print(text)
        return 0
    readme = (ROOT / "README.md").read_text()
    head, rest = readme.split(BEGIN)
    _, tail = rest.split(END)
    (ROOT / "README.md").write_text(f"{head}{BEGIN}\n{text}\n{END}{tail}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
