"""Evidence recall@k on LoCoMo: flat exact cosine top-k vs engramdb recall, in the same run.

For every QA item with evidence (1,982 after normalising the evidence ids), both methods rank
the turns of the question's own conversation; recall@k is the share of evidence turns in the
top k, all@k the share of questions with every evidence turn in the top k. Reported overall and
per category (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial), with the
median and p99 latency per query (query vector given; embedding time is reported apart).

Data: ../shared/data/locomo/locomo10.json (or $ENGRAMDB_LOCOMO), read at run time only.
Maharana et al. (2024), "Evaluating Very Long-Term Conversational Memory of LLM Agents", ACL.

    python benchmarks/bench_locomo_recall.py [--embedder hashing|minilm]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

import engramdb
from engramdb.embed import get_embedder
from engramdb.index import ExactIndex
from engramdb.ingest import ingest_locomo
from engramdb.kernels import registry
from engramdb.locomo import CATEGORY_NAMES, default_locomo_path, load_locomo

KS = (5, 10, 20)
RESULTS = Path(__file__).resolve().parent / "results"


def _score(ranked: list[str], evidence: list[str]) -> dict[int, tuple[float, bool]]:
    ev = set(evidence)
    return {k: (len(ev & set(ranked[:k])) / len(ev), ev <= set(ranked[:k])) for k in KS}


def _summarise(rows: list[dict]) -> dict:
    out = {}
    for k in KS:
        out[f"recall@{k}"] = round(100 * float(np.mean([r["scores"][k][0] for r in rows])), 2)
        out[f"all@{k}"] = round(100 * float(np.mean([r["scores"][k][1] for r in rows])), 2)
    return out


def evaluate(method: str, rows: list[dict], lat: list[float], embedder_name: str) -> dict:
    by_cat = defaultdict(list)
    for r in rows:
        by_cat[r["category"]].append(r)
    run = {"method": method, "embedder": embedder_name, "questions": len(rows), **_summarise(rows),
           "per_category": {f"{c} {CATEGORY_NAMES[c]}": {"questions": len(v), **_summarise(v)}
                            for c, v in sorted(by_cat.items())},
           "latency_median_us": round(float(np.median(lat)) * 1e6, 1),
           "latency_p99_us": round(float(np.percentile(lat, 99)) * 1e6, 1)}
    return run


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--embedder", choices=["hashing", "minilm"], default="hashing")
    ap.add_argument("--data", default=None, help="locomo10.json (default: ../shared/data/locomo/)")
    ap.add_argument("--store", default=None, help="keep the ingested store here (default: temporary)")
    ap.add_argument("--out", default=str(RESULTS / "locomo.json"))
    args = ap.parse_args(argv)

    data = Path(args.data) if args.data else default_locomo_path()
    if not data.exists():
        print(f"LoCoMo data not found at {data}; set ENGRAMDB_LOCOMO", file=sys.stderr)
        return 2
    convs = load_locomo(data)
    embedder = get_embedder(args.embedder, 384)
    tmp = tempfile.TemporaryDirectory(prefix="engramdb-locomo-") if args.store is None else None
    store = args.store or tmp.name
    t0 = time.perf_counter()
    with engramdb.open(store, dim=embedder.dim, embedder=embedder) as eng:
        if not eng.namespaces():
            ingest_locomo(eng, data)
        ingest_s = time.perf_counter() - t0
        flat_rows, graph_rows, flat_lat, graph_lat = [], [], [], []
        embed_s = 0.0
        n_q = 0
        for conv in convs:
            ns = conv.sample_id
            turn_ids = [t.dia_id for s in conv.sessions for t in s.turns]
            turn_set = set(turn_ids)
            vecs = np.stack([eng.get(t, namespace=ns, with_embedding=True).embedding for t in turn_ids])
            flat = ExactIndex(eng.dim)
            flat.add(vecs, np.arange(len(turn_ids)))
            items = [q for q in conv.qa if q.evidence]
            te = time.perf_counter()
            qvecs = embedder.embed([q.question for q in items])
            embed_s += time.perf_counter() - te
            n_q += len(items)
            for q, qv in zip(items, qvecs):
                t1 = time.perf_counter()
                labels, _ = flat.knn(qv, max(KS))
                flat_lat.append(time.perf_counter() - t1)
                flat_rows.append({"category": q.category, "scores": _score([turn_ids[i] for i in labels], q.evidence)})
                t1 = time.perf_counter()
                res = eng.recall(vector=qv, namespace=ns, k=max(KS) + 10)
                graph_lat.append(time.perf_counter() - t1)
                ranked = [h.id for h in res.hits if h.id in turn_set][: max(KS)]
                graph_rows.append({"category": q.category, "scores": _score(ranked, q.evidence)})
        cfg = eng.config.recall
    if tmp is not None:
        tmp.cleanup()

    runs = [evaluate("flat_cosine", flat_rows, flat_lat, embedder.name),
            evaluate("engramdb", graph_rows, graph_lat, embedder.name)]
    runs[1]["config"] = {"seed_k": cfg.seed_k, "seed_contrast": cfg.seed_contrast, "gate": cfg.gate,
                         "max_depth": cfg.max_depth, "decay": cfg.decay, "fan_exp": cfg.fan_exp,
                         "combine": cfg.combine}
    for r in runs:
        r.update({"ingest_s": round(ingest_s, 1), "query_embed_ms": round(1e3 * embed_s / max(n_q, 1), 3)})
    write_results(runs, Path(args.out), " ".join(["python", "benchmarks/bench_locomo_recall.py", *sys.argv[1:]]))
    for r in runs:
        print(f"{r['method']:12s} {r['embedder']:28s} R@5 {r['recall@5']:5.1f}  R@10 {r['recall@10']:5.1f}  "
              f"R@20 {r['recall@20']:5.1f}  multi-hop R@10 {r['per_category']['1 multi-hop']['recall@10']:5.1f}  "
              f"median {r['latency_median_us']:.0f} us  p99 {r['latency_p99_us']:.0f} us")
    f, g = runs
    print(f"ratio engramdb/flat R@10: {g['recall@10'] / f['recall@10']:.3f}")
    return 0


def write_results(runs: list[dict], out: Path, command: str) -> None:
    """Merge these runs into ``out`` (replacing runs of the same method and embedder) and
    rewrite the markdown table beside it."""
    out.parent.mkdir(parents=True, exist_ok=True)
    doc = {"runs": []}
    if out.exists():
        doc = json.loads(out.read_text())
    keep = [r for r in doc.get("runs", []) if (r["method"], r["embedder"]) not in {(x["method"], x["embedder"]) for x in runs}]
    for r in runs:
        r["command"] = command
        r["date"] = time.strftime("%Y-%m-%d")
    doc = {"benchmark": "LoCoMo evidence recall@k within the conversation (1,982 questions)",
           "machine": {"python": platform.python_version(), "machine": platform.machine(),
                       "cpus": os.cpu_count(), "engramdb": engramdb.__version__,
                       "kernel_backend": registry.active_backend()},
           "runs": keep + runs}
    out.write_text(json.dumps(doc, indent=2) + "\n")
    lines = ["# LoCoMo evidence recall (top k turns within the conversation)", "",
             "Rerun: `python benchmarks/bench_locomo_recall.py --embedder hashing|minilm`.", "",
             "| method | embedder | R@5 | R@10 | R@20 | all@10 | multi-hop R@10 | temporal R@10 | open-domain R@10 | single-hop R@10 | adversarial R@10 | median µs | p99 µs |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in doc["runs"]:
        pc = r["per_category"]
        cats = [pc[c]["recall@10"] for c in ("1 multi-hop", "2 temporal", "3 open-domain", "4 single-hop", "5 adversarial")]
        lines.append(f"| {r['method']} | {r['embedder']} | {r['recall@5']} | {r['recall@10']} | {r['recall@20']} | "
                     f"{r['all@10']} | " + " | ".join(str(c) for c in cats) +
                     f" | {r['latency_median_us']} | {r['latency_p99_us']} |")
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
