"""The keyword leg against its peer: engramdb's KeywordIndex vs tantivy (Rust, via tantivy-py).

Why engramdb keeps its own BM25 postings: recall must see a memory as soon as ``add`` returns.
tantivy shows a document only after ``commit()`` and ``reload()``; this measures that cost per
single add (on disk and in RAM), bulk indexing, query latency, and evidence recall@10 of each
alone on LoCoMo's turns (same questions, same top-k-within-conversation metric as
bench_locomo_recall.py).

    python benchmarks/bench_keyword.py          # needs the bench extra (tantivy)
"""
from __future__ import annotations

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
from engramdb.locomo import default_locomo_path, load_locomo

RESULTS = Path(__file__).resolve().parent / "results"


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


def main() -> int:
    try:
        import tantivy  # noqa: F401
    except ImportError:
        print("tantivy is not installed: pip install -e .[bench]", file=sys.stderr)
        return 2
    doc = {"benchmark": "keyword leg: engramdb KeywordIndex vs tantivy",
           "command": "python benchmarks/bench_keyword.py", "date": time.strftime("%Y-%m-%d"),
           "machine": {"python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count()},
           "single_add_visible": single_add_ms()}
    path = default_locomo_path()
    if path.exists():
        doc["locomo"] = locomo(load_locomo(path))
    out = RESULTS / "keyword.json"
    out.write_text(json.dumps(doc, indent=2) + "\n")
    print(json.dumps(doc, indent=2))
    s = doc["single_add_visible"]
    print(f"one add searchable: tantivy {s['tantivy_disk_ms']} ms (disk) / {s['tantivy_ram_ms']} ms (RAM), "
          f"engramdb {s['engramdb_ms']} ms: {s['tantivy_disk_ms'] / s['engramdb_ms']:.0f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
