"""The keyword leg against its peer: engramdb's KeywordIndex vs tantivy (Rust, via tantivy-py).

Why engramdb keeps its own BM25 postings: recall must see a memory as soon as ``add`` returns.
tantivy shows a document only after ``commit()`` and ``reload()``; this measures that cost per
single add (on disk and in RAM), bulk indexing, query latency, and evidence recall@10 of each
alone on LoCoMo's turns (same questions, same top-k-within-conversation metric as
bench_locomo_recall.py).

At 100k memories (LoCoMo's turns grown with varied copies at run time, never stored; queries:
LoCoMo's questions) it times the keyword leg of recall as it runs now (one native kernel call:
BM25 + pseudo-relevance feedback + BM25 again), the Python postings it replaced
(kw_baseline.py, same two passes), the NumPy reference of the kernel, and tantivy (one pass,
top 50, no feedback), all in the same run: median of ``--repeats`` runs of every question,
the machine load at the start and end, and how often the ids equal the Python baseline's.

    python benchmarks/bench_keyword.py [--n 100000] [--repeats 3]   # needs the bench extra (tantivy)
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from engramdb.index.keyword import KeywordIndex
from engramdb.index.keyword import tokenize as kw_tokenize
from engramdb.kernels import reference, registry
from engramdb.locomo import default_locomo_path, load_locomo

sys.path.insert(0, str(Path(__file__).resolve().parent))
from kw_baseline import PythonKeywordIndex, search_prf

RESULTS = Path(__file__).resolve().parent / "results"


def _version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


def _tantivy_index(path: str | None):
    import tantivy
    sb = tantivy.SchemaBuilder()
    sb.add_integer_field("nid", stored=True, indexed=True, fast=True)
    sb.add_text_field("text", stored=False, tokenizer_name="en_stem")
    schema = sb.build()
    index = tantivy.Index(schema, path=path) if path else tantivy.Index(schema)
    return index, index.writer(50_000_000, 1)


def single_add_ms(n: int = 30) -> dict:
    """Median ms for one add to become searchable: tantivy add+commit+reload vs KeywordIndex.add."""
    import tantivy
    out = {}
    for where in ("disk", "ram"):
        tmp = tempfile.TemporaryDirectory() if where == "disk" else None
        index, writer = _tantivy_index(tmp.name if tmp else None)
        ts = []
        for i in range(n):
            t0 = time.perf_counter()
            writer.add_document(tantivy.Document(nid=i, text=f"note {i}: booked flight TP {200 + i}"))
            writer.commit()
            index.reload()
            ts.append(time.perf_counter() - t0)
        out[f"tantivy_{where}_ms"] = round(1e3 * float(np.median(ts)), 3)
        if tmp:
            tmp.cleanup()
    kw, ts = KeywordIndex(), []
    for i in range(n):
        t0 = time.perf_counter()
        kw.add(i, f"note {i}: booked flight TP {200 + i}")
        ts.append(time.perf_counter() - t0)
    out["engramdb_ms"] = round(1e3 * float(np.median(ts)), 4)
    return out


def locomo(convs) -> dict:
    """Bulk build time, query latency and evidence recall@10 of each keyword index alone."""
    import tantivy
    res = {"tantivy": {"recall": [], "lat": [], "build_s": 0.0}, "engramdb": {"recall": [], "lat": [], "build_s": 0.0}}
    for conv in convs:
        turns = [t for s in conv.sessions for t in s.turns]
        texts = [f"{t.speaker}: {t.text}" + (f" [shares a photo of {t.blip_caption}]" if t.blip_caption else "")
                 for t in turns]
        ids = [t.dia_id for t in turns]
        t0 = time.perf_counter()
        index, writer = _tantivy_index(None)
        for i, x in enumerate(texts):
            writer.add_document(tantivy.Document(nid=i, text=x))
        writer.commit()
        index.reload()
        searcher = index.searcher()
        res["tantivy"]["build_s"] += time.perf_counter() - t0
        t0 = time.perf_counter()
        kw = KeywordIndex.build(enumerate(texts))
        res["engramdb"]["build_s"] += time.perf_counter() - t0
        for q in conv.qa:
            if not q.evidence:
                continue
            ev = set(q.evidence)
            t0 = time.perf_counter()
            words = " ".join(re.findall(r"\w+", q.question.lower()))
            hits = searcher.search(index.parse_query(words, ["text"]), 10).hits if words else []
            top = searcher.fast_field_values("nid", [a for _, a in hits]) if hits else []
            res["tantivy"]["lat"].append(time.perf_counter() - t0)
            res["tantivy"]["recall"].append(len(ev & {ids[i] for i in top}) / len(ev))
            t0 = time.perf_counter()
            nids, _ = kw.search(q.question, 10)
            res["engramdb"]["lat"].append(time.perf_counter() - t0)
            res["engramdb"]["recall"].append(len(ev & {ids[i] for i in nids.tolist()}) / len(ev))
    return {name: {"recall@10": round(100 * float(np.mean(r["recall"])), 2),
                   "query_median_us": round(1e6 * float(np.median(r["lat"])), 1),
                   "build_s_all_turns": round(r["build_s"], 3), "questions": len(r["recall"])}
            for name, r in res.items()}


_NAMES = ("Avery", "Jordan", "Riley", "Morgan", "Quinn", "Harper", "Rowan", "Sasha", "Elena", "Tomas",
          "Priya", "Kenji", "Amara", "Lucas", "Mina", "Omar", "Ingrid", "Diego", "Noor", "Felix")


def grow_corpus(convs, n: int, seed: int = 0) -> list[str]:
    """LoCoMo's turns, then varied copies up to ``n`` texts: in each copy the speakers get other
    names, numbers shift, and one word in ten is dropped (generated here, never stored)."""
    rng = np.random.default_rng(seed)
    base, speakers = [], set()
    for conv in convs:
        for s in conv.sessions:
            for t in s.turns:
                base.append((t.speaker, t.text + (f" [shares a photo of {t.blip_caption}]" if t.blip_caption else "")))
                speakers.add(t.speaker)
    speakers = sorted(speakers)
    out = [f"{sp}: {text}" for sp, text in base]
    copy = 0
    while len(out) < n:
        copy += 1
        rename = {sp: str(rng.choice(_NAMES)) + ("" if copy < 20 else f"{copy}") for sp in speakers}
        pattern = re.compile("|".join(re.escape(sp) for sp in speakers))
        shift = int(rng.integers(1, 9))
        for sp, text in base:
            if len(out) >= n:
                break
            words = pattern.sub(lambda m, r=rename: r[m.group(0)], text).split()
            keep = rng.random(len(words)) >= 0.1
            words = [re.sub(r"\d+", lambda m, d=shift: str(int(m.group(0)) + d), w) for w, k in zip(words, keep) if k]
            out.append(f"{rename[sp]}: {' '.join(words) or text}")
    return out


def _time_queries(fn, queries) -> list[float]:
    ts = []
    for q in queries:
        t0 = time.perf_counter()
        fn(q)
        ts.append(time.perf_counter() - t0)
    return ts


def scale(convs, n: int, repeats: int, k: int = 50, prf_docs: int = 8, prf_terms: int = 8,
          prf_weight: float = 0.2) -> dict:
    """Build and query latency of the keyword leg at ``n`` memories against its baselines."""
    import tantivy
    texts = grow_corpus(convs, n)
    queries = [q.question for conv in convs for q in conv.qa]
    build = {}
    t0 = time.perf_counter()
    kw = KeywordIndex()
    for i, x in enumerate(texts):
        kw.add(i, x)
    build["engramdb_add_all_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    kw.compact()
    build["engramdb_final_merge_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    py = PythonKeywordIndex.build(enumerate(texts))
    build["python_postings_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    index, writer = _tantivy_index(None)
    for i, x in enumerate(texts):
        writer.add_document(tantivy.Document(nid=i, text=x))
    writer.commit()
    index.reload()
    searcher = index.searcher()
    build["tantivy_s"] = time.perf_counter() - t0
    build = {key: round(v, 3) for key, v in build.items()}
    build["engramdb_adds_per_s"] = round(n / build["engramdb_add_all_s"])

    def native(q):
        return kw.search_prf(q, k, prf_docs=prf_docs, prf_terms=prf_terms, prf_weight=prf_weight)

    def native_one_pass(q):
        return kw.search(q, k)

    def python(q):
        return search_prf(py, texts, q, k, prf_docs, prf_terms, prf_weight)

    post = kw.postings()

    def numpy_reference(q):
        q_terms, q_weight = kw.query_terms(dict.fromkeys(kw_tokenize(q), 1.0))
        return reference.bm25_search(post, q_terms, q_weight, None, k, prf_docs, prf_terms, prf_weight)

    def tantivy_one_pass(q):
        words = " ".join(re.findall(r"\w+", q.lower()))
        hits = searcher.search(index.parse_query(words, ["text"]), k).hits if words else []
        return searcher.fast_field_values("nid", [a for _, a in hits]) if hits else []

    same = ties = 0
    for q in queries:
        a, b = native(q), python(q)
        if a[0].tolist() == b[0].tolist() and np.allclose(a[1], b[1], rtol=1e-6):
            same += 1
        elif np.allclose(np.sort(a[1]), np.sort(b[1]), rtol=1e-6):
            ties += 1   # same scores; the Python baseline's argpartition cut a tie at rank k arbitrarily
    methods = {"engramdb_native_prf": native, "engramdb_native_one_pass": native_one_pass,
               "python_postings_prf": python, "numpy_reference_prf": numpy_reference,
               "tantivy_one_pass": tantivy_one_pass}
    runs: dict[str, list[list[float]]] = {m: [] for m in methods}
    for _ in range(repeats):
        for name, fn in methods.items():
            runs[name].append(_time_queries(fn, queries if name != "numpy_reference_prf" else queries[:300]))
    res = {}
    for name, rr in runs.items():
        med = [1e6 * float(np.median(r)) for r in rr]
        res[name] = {"median_us": round(float(np.median(med)), 1), "median_us_per_run": [round(x, 1) for x in med],
                     "p99_us": round(1e6 * float(np.median([np.percentile(r, 99) for r in rr])), 1)}
    base = res["engramdb_native_prf"]["median_us"]
    return {"memories": n, "questions": len(queries), "k": k, "prf_docs": prf_docs, "prf_terms": prf_terms,
            "prf_weight": prf_weight, "kernel_backend": registry.active_backend(), "repeats": repeats,
            "postings": len(post.seg_nid), "terms": len(post.df), "build": build, "query": res,
            "ratios_vs_native_prf": {name: round(r["median_us"] / base, 2) for name, r in res.items()},
            "target_us": 100.0,
            "ids_identical_to_python": same, "differ_only_by_tie_at_rank_k": ties,
            "differ_otherwise": len(queries) - same - ties}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000, help="memories in the grown corpus")
    ap.add_argument("--repeats", type=int, default=3, help="runs of every question; the median is reported")
    args = ap.parse_args()
    try:
        import tantivy  # noqa: F401
    except ImportError:
        print("tantivy is not installed: pip install -e .[bench]", file=sys.stderr)
        return 2
    load_start = os.getloadavg()
    doc = {"benchmark": "keyword leg: engramdb KeywordIndex vs tantivy",
           "command": f"python benchmarks/bench_keyword.py --n {args.n} --repeats {args.repeats}",
           "date": time.strftime("%Y-%m-%d %H:%M"),
           "machine": {"python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count(),
                       "tantivy": _version("tantivy"), "numpy": np.__version__},
           "load_avg_1_5_15_start": [round(x, 2) for x in load_start],
           "single_add_visible": single_add_ms()}
    path = default_locomo_path()
    if path.exists():
        convs = load_locomo(path)
        doc["locomo"] = locomo(convs)
        doc["scale"] = scale(convs, args.n, args.repeats)
    doc["load_avg_1_5_15_end"] = [round(x, 2) for x in os.getloadavg()]
    out = RESULTS / "keyword.json"
    out.write_text(json.dumps(doc, indent=2) + "\n")
    print(json.dumps(doc, indent=2))
    s = doc["single_add_visible"]
    print(f"one add searchable: tantivy {s['tantivy_disk_ms']} ms (disk) / {s['tantivy_ram_ms']} ms (RAM), "
          f"engramdb {s['engramdb_ms']} ms: {s['tantivy_disk_ms'] / s['engramdb_ms']:.0f}x")
    if "scale" in doc:
        sc = doc["scale"]
        print(f"at {sc['memories']} memories (load {doc['load_avg_1_5_15_start'][0]} at start): "
              + ", ".join(f"{m} {r['median_us']} us ({sc['ratios_vs_native_prf'][m]}x)" for m, r in sc["query"].items())
              + f"; target <= {sc['target_us']} us for the native kernel with feedback")
    return 0


if __name__ == "__main__":
    sys.exit(main())
