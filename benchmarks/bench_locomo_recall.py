"""Evidence recall@k on LoCoMo: flat exact cosine top-k vs engramdb recall, in the same run.

For every QA item with evidence (1,982 after normalising the evidence ids), both methods rank
the turns of the question's own conversation; recall@k is the share of evidence turns in the
top k, all@k the share of questions with every evidence turn in the top k. Reported overall and
per category (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial), with the
median and p99 latency per query (query vector given; embedding time is reported apart). The
machine is shared and noisy: the questions are timed in ``--repeat`` passes (3 by default), the
latency reported is the median over the passes of each pass's median (and p99), and the load
average at the start is recorded with the results.

Data: ../shared/data/locomo/locomo10.json (or $ENGRAMDB_LOCOMO), read at run time only.
Maharana et al. (2024), "Evaluating Very Long-Term Conversational Memory of LLM Agents", ACL.

    python benchmarks/bench_locomo_recall.py [--embedder hashing|minilm] [--repeat 3]
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
from dataclasses import fields, replace
from pathlib import Path

import numpy as np

import engramdb
from engramdb.config import RecallConfig
from engramdb.types import Relation
from engramdb.embed import get_embedder
from engramdb.index import ExactIndex
from engramdb.ingest import ingest_locomo
from engramdb.kernels import registry
from engramdb.locomo import CATEGORY_NAMES, default_locomo_path, load_locomo

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cmdline import without_options  # noqa: E402

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


def evaluate(method: str, rows: list[dict], lat: list[list[float]], embedder_name: str) -> dict:
    """One method's recall@k (overall, held-out, per category) and latency: ``lat`` holds one
    list of per-query seconds for each timing pass; the median and p99 reported are the medians
    over the passes."""
    by_cat = defaultdict(list)
    for r in rows:
        by_cat[r["category"]].append(r)
    held = [r for r in rows if r["conv"] not in TUNE_SPLIT]
    run = {"method": method, "embedder": embedder_name, "questions": len(rows), **_summarise(rows),
           "held_out": {"conversations": sorted({r["conv"] for r in held}), "questions": len(held),
                        **_summarise(held)},
           "per_category": {f"{c} {CATEGORY_NAMES[c]}": {"questions": len(v), **_summarise(v)}
                            for c, v in sorted(by_cat.items())},
           "latency_median_us": round(float(np.median([np.median(p) for p in lat])) * 1e6, 1),
           "latency_p99_us": round(float(np.median([np.percentile(p, 99) for p in lat])) * 1e6, 1),
           "latency_passes_median_us": [round(float(np.median(p)) * 1e6, 1) for p in lat]}
    return run


#: Conversations the fusion weights were tuned on (benchmarks/tune_locomo_fusion.py); the
#: others are the held-out split that the "held-out" columns report.
TUNE_SPLIT = ("conv-26", "conv-30", "conv-41", "conv-42", "conv-43")


def ablation_configs(base: RecallConfig) -> list[tuple[str, RecallConfig]]:
    """engramdb's rows: each leg alone, then each addition, up to the full default recall (source
    attribution, ``w_speaker``, is off in the rows before ``engramdb-no-entities``, the weight of
    a memory that only asks, ``question_weight``, in the rows before ``engramdb-no-speaker``; the
    ``engramdb-no-speaker`` row is the default without attribution)."""
    plain = replace(base, w_speaker=0.0)
    legs = replace(plain, question_weight=1.0)
    return [
        ("bm25", replace(legs, w_vector=0.0, w_keyword=1.0, w_graph=0.0, w_time=0.0, prf_terms=0)),
        ("vector", replace(legs, w_vector=1.0, w_keyword=0.0, w_graph=0.0, w_time=0.0)),
        ("hybrid", replace(legs, w_graph=0.0, w_time=0.0, prf_terms=0)),
        ("hybrid+graph", replace(legs, w_time=0.0, prf_terms=0)),
        ("hybrid+graph+time", replace(legs, prf_terms=0)),
        ("engramdb-no-speaker", plain),
        ("engramdb-no-entities", replace(base, relation_multipliers={
            **base.relation_multipliers, Relation.MENTIONS: 0.0})),
        ("engramdb-gate-on", replace(base, gate="on")),
        ("engramdb", base),   # hybrid + graph + time + keyword feedback: the default
    ]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--embedder", choices=["hashing", "minilm"], default="hashing")
    ap.add_argument("--data", default=None, help="locomo10.json (default: ../shared/data/locomo/)")
    ap.add_argument("--store", default=None, help="keep the ingested store here (default: temporary)")
    ap.add_argument("--out", default=str(RESULTS / "locomo.json"))
    ap.add_argument("--repeat", type=int, default=3,
                    help="timing passes over the questions; the median of the passes is reported")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    load = os.getloadavg()

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
        configs = ablation_configs(eng.config.recall)
        rows, lat = run_queries(eng, convs, embedder, configs)
        embed_s = rows.pop("_embed_s")
        passes = {m: [v] for m, v in lat.items()}
        for _ in range(args.repeat - 1):   # the ranking is deterministic: later passes only time
            _, more = run_queries(eng, convs, embedder, configs)
            for m, v in more.items():
                passes[m].append(v)
    if tmp is not None:
        tmp.cleanup()

    n_q = len(rows["flat_cosine"])
    runs = [evaluate(method, rows[method], passes[method], embedder.name) for method in rows]
    for r in runs:
        r.update({"ingest_s": round(ingest_s, 1), "query_embed_ms": round(1e3 * embed_s / max(n_q, 1), 3)})
    cfg = eng.config.recall
    runs[-1]["config"] = {f.name: getattr(cfg, f.name) for f in fields(cfg) if f.init and f.name != "relation_multipliers"}
    write_results(runs, Path(args.out), " ".join(["python", "benchmarks/bench_locomo_recall.py", *_public_args(sys.argv[1:])]),
                  load)
    for r in runs:
        h = r["held_out"]
        print(f"{r['method']:13s} {r['embedder'][:22]:22s} R@5 {r['recall@5']:5.1f}  R@10 {r['recall@10']:5.1f}  "
              f"R@20 {r['recall@20']:5.1f}  multi-hop R@10 {r['per_category']['1 multi-hop']['recall@10']:5.1f}  "
              f"temporal R@10 {r['per_category']['2 temporal']['recall@10']:5.1f}  held-out R@10 {h['recall@10']:5.1f}  "
              f"median {r['latency_median_us']:.0f} us  p99 {r['latency_p99_us']:.0f} us")
    f, g = runs[0], runs[-1]
    print(f"ratio engramdb/flat R@10: {g['recall@10'] / f['recall@10']:.3f}")
    return 0


def run_queries(eng, convs, embedder, configs) -> tuple[dict, dict]:
    """Rank the turns of each question's conversation with flat cosine and every config.

    Returns rows per method ({"category", "conv", "scores"}) and latencies per method (seconds,
    query vector given: embedding is timed apart, under the key ``_embed_s`` of rows)."""
    rows = defaultdict(list)
    lat = defaultdict(list)
    embed_s = 0.0
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
        for q, qv in zip(items, qvecs):
            t1 = time.perf_counter()
            labels, _ = flat.knn(qv, max(KS))
            lat["flat_cosine"].append(time.perf_counter() - t1)
            rows["flat_cosine"].append({"category": q.category, "conv": ns,
                                        "scores": _score([turn_ids[i] for i in labels], q.evidence)})
            for name, cfg in configs:
                t1 = time.perf_counter()
                res = eng.recall(q.question, vector=qv, namespace=ns, k=max(KS) + 10, config=cfg)
                lat[name].append(time.perf_counter() - t1)
                ranked = [h.id for h in res.hits if h.id in turn_set][: max(KS)]
                rows[name].append({"category": q.category, "conv": ns, "scores": _score(ranked, q.evidence)})
    rows["_embed_s"] = embed_s
    return rows, lat


def write_results(runs: list[dict], out: Path, command: str, load: tuple[float, ...]) -> None:
    """Merge these runs into ``out`` (replacing runs of the same method and embedder) and
    rewrite the markdown table beside it; ``load`` is the load average (1, 5, 15 minutes) at
    the start of these runs."""
    out.parent.mkdir(parents=True, exist_ok=True)
    doc = {"runs": []}
    if out.exists():
        doc = json.loads(out.read_text())
    keep = [r for r in doc.get("runs", []) if (r["method"], r["embedder"]) not in {(x["method"], x["embedder"]) for x in runs}]
    for r in runs:
        r["command"] = command
        r["date"] = time.strftime("%Y-%m-%d")
        r["load_at_start"] = [round(x, 2) for x in load]
    doc = {"benchmark": "LoCoMo evidence recall@k within the conversation (1,982 questions)",
           "machine": {"python": platform.python_version(), "machine": platform.machine(),
                       "cpus": os.cpu_count(), "engramdb": engramdb.__version__,
                       "kernel_backend": registry.active_backend()},
           "runs": keep + runs}
    out.write_text(json.dumps(doc, indent=2) + "\n")
    lines = ["# LoCoMo evidence recall (top k turns within the conversation)", "",
             "Rerun: `python benchmarks/bench_locomo_recall.py --embedder hashing|minilm`. All 10 "
             "conversations (1,982 questions); fusion weights were tuned on "
             f"{', '.join(TUNE_SPLIT)} (`benchmarks/tune_locomo_fusion.py`), and the held-out "
             "columns report the other five only. Latency: per query, query vector given; the median "
             "over timing passes (`--repeat`, 3 by default) of each pass's median and p99; the "
             "load average at the start of each run is in locomo.json.", "",
             "| method | embedder | R@5 | R@10 | R@20 | all@10 | multi-hop R@10 | multi-hop all@10 | temporal R@10 | open-domain R@10 | single-hop R@10 | adversarial R@10 | held-out R@5 | held-out R@10 | held-out R@20 | median µs | p99 µs |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in doc["runs"]:
        pc = r["per_category"]
        cats = [pc[c]["recall@10"] for c in ("2 temporal", "3 open-domain", "4 single-hop", "5 adversarial")]
        h = r.get("held_out", {})
        lines.append(f"| {r['method']} | {r['embedder']} | {r['recall@5']} | {r['recall@10']} | {r['recall@20']} | "
                     f"{r['all@10']} | {pc['1 multi-hop']['recall@10']} | {pc['1 multi-hop']['all@10']} | "
                     + " | ".join(str(c) for c in cats) +
                     f" | {h.get('recall@5', '')} | {h.get('recall@10', '')} | {h.get('recall@20', '')}"
                     f" | {r['latency_median_us']} | {r['latency_p99_us']} |")
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")


def _public_args(argv: list[str]) -> list[str]:
    """The command line to record in results, without the local ``--store`` directory."""
    return without_options(argv, ("--store",))


if __name__ == "__main__":
    sys.exit(main())
