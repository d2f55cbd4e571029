"""Tune recall's fusion weights on half of LoCoMo; bench_locomo_recall.py reports the other half.

Grid search over ``w_keyword`` (with ``w_vector = 1 - w_keyword``), ``w_graph`` and ``w_time``
on the conversations of ``TUNE_SPLIT`` only, maximising mean evidence recall@10 (recall@5
breaks ties). ``w_graph`` stays <= 2 so that w_graph * decay (0.5) * relation multiplier <= 1:
a memory never gains more through an edge than it gives back (see RecallConfig.inflow_fan_exp).
Run it for both embedders; the defaults are the point best on average over the two. Writes every grid point and the winner to ``results/locomo_tuning.json``; the
winner becomes ``RecallConfig``'s defaults by hand (so a reader sees what changed).

    python benchmarks/tune_locomo_fusion.py [--embedder hashing|minilm] [--stage fusion|prf|speaker|question] [--store DIR]
"""
from __future__ import annotations

import argparse
import itertools
import json
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from rich.progress import track

import engramdb
from bench_locomo_recall import KS, RESULTS, TUNE_SPLIT, _public_args, _score
from engramdb.embed import get_embedder
from engramdb.ingest import ingest_locomo
from engramdb.locomo import default_locomo_path, load_locomo

GRIDS = {
    # stage 1: the weights of the legs (w_graph <= 2, see above)
    "fusion": {"w_keyword": (0.6, 0.7, 0.8, 0.9), "w_graph": (1.0, 1.5, 2.0), "w_time": (0.25, 0.5, 1.0),
               "prf_terms": (0,)},
    # stage 2, at stage 1's pick: pseudo-relevance feedback of the keyword leg
    "prf": {"w_keyword": (0.8,), "w_graph": (2.0,), "w_time": (0.5,), "prf_terms": (0, 5, 8),
            "prf_docs": (5, 8), "prf_weight": (0.2, 0.3)},
    # stage 3, at the defaults: source attribution (the named speaker's own memories weigh more)
    "speaker": {"w_keyword": (0.8,), "w_speaker": (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0)},
    # stage 4, at the defaults: the weight of a memory that only asks (chatter.speech_act)
    "question": {"w_keyword": (0.8,), "question_weight": (1.0, 0.8, 0.6, 0.4, 0.2)},
}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--embedder", choices=["hashing", "minilm"], default="hashing")
    ap.add_argument("--store", default=None, help="an ingested LoCoMo store to reuse (default: temporary)")
    ap.add_argument("--stage", choices=list(GRIDS), default="fusion")
    ap.add_argument("--out", default=str(RESULTS / "locomo_tuning.json"))
    args = ap.parse_args(argv)
    convs = [c for c in load_locomo(default_locomo_path()) if c.sample_id in TUNE_SPLIT]
    embedder = get_embedder(args.embedder, 384)
    tmp = tempfile.TemporaryDirectory(prefix="engramdb-tune-") if args.store is None else None
    points = []
    with engramdb.open(args.store or tmp.name, dim=embedder.dim, embedder=embedder) as eng:
        if not eng.namespaces():
            ingest_locomo(eng, default_locomo_path())
        queries = []
        for conv in convs:
            items = [q for q in conv.qa if q.evidence]
            turn_set = {t.dia_id for s in conv.sessions for t in s.turns}
            for q, qv in zip(items, embedder.embed([q.question for q in items])):
                queries.append((conv.sample_id, turn_set, q, qv))
        base = eng.config.recall
        GRID = GRIDS[args.stage]
        grid = list(itertools.product(*GRID.values()))
        for values in track(grid, description=f"grid of {len(grid)} on {len(queries)} questions"):
            point = dict(zip(GRID, values))
            cfg = replace(base, w_vector=round(1.0 - point["w_keyword"], 6), **point)
            rec = {k: [] for k in KS}
            t0 = time.perf_counter()
            for ns, turn_set, q, qv in queries:
                res = eng.recall(q.question, vector=qv, namespace=ns, k=max(KS) + 10, config=cfg)
                ranked = [h.id for h in res.hits if h.id in turn_set][: max(KS)]
                for k, (r, _) in _score(ranked, q.evidence).items():
                    rec[k].append(r)
            points.append({**point, "w_vector": cfg.w_vector,
                           **{f"recall@{k}": round(100 * float(np.mean(v)), 2) for k, v in rec.items()},
                           "median_us": round(1e6 * (time.perf_counter() - t0) / len(queries), 1)})
    if tmp is not None:
        tmp.cleanup()
    best = max(points, key=lambda p: (p["recall@10"], p["recall@5"]))
    out = Path(args.out)
    doc = json.loads(out.read_text()) if out.exists() else {}
    doc.setdefault(args.stage, {})[embedder.name] = {"tuned_on": list(TUNE_SPLIT), "questions": len(queries), "best": best,
                          "grid": points, "command": " ".join(["python", "benchmarks/tune_locomo_fusion.py", *_public_args(sys.argv[1:])])}
    out.write_text(json.dumps(doc, indent=2) + "\n")
    print("best:", best)
    return 0


if __name__ == "__main__":
    sys.exit(main())
