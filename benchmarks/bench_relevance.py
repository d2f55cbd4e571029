"""Calibrated relevance on LoCoMo: can one threshold tell answerable questions from unanswerable ones?

Answerable: the LoCoMo questions with evidence of categories 1-4 (category 5, "adversarial",
asks about something the conversation does not say, so it is reported apart). Unanswerable:
benchmarks/data/locomo_unanswerable.jsonl, 120 questions written for this benchmark (12 per
conversation: world knowledge and personal facts no turn states). For each question the
conversation's namespace is recalled (k=10) and each hit's features are taken
(:func:`engramdb.recall.results.relevance_features`: raw cosine, BM25 share, term coverage).

The logistic coefficients of ``relevance`` are fitted on the TUNING conversations only (Newton's
method, a little L2), on one row per question: the hit with the highest relevance under the
current coefficients (refitted a few times, starting from the hit with the best summed
features), because the top relevance is what the gap reads. The threshold is the one with the
best F1 of the ``weak_evidence`` gap on the tuning half. Reported on both halves: AUROC of the
top relevance (rank-based, ties halved) and precision/recall of the gap, read from the engine's
own ``RecallResult.gaps`` with the fitted config; beside it, in the same run, the baselines:
the old gap (best seed cosine < ``weak_evidence``) and the AUROC of the top hit's ``score``
and of its raw cosine.

Data: ../shared/data/locomo/locomo10.json (or $ENGRAMDB_LOCOMO), read at run time only.

    python benchmarks/bench_relevance.py [--embedder hashing|minilm]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

import engramdb
from engramdb.config import RELEVANCE_CALIBRATION
from engramdb.embed import get_embedder
from engramdb.ingest import ingest_locomo
from engramdb.kernels import registry
from engramdb.locomo import default_locomo_path, load_locomo
from engramdb.recall.results import relevance, relevance_features

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
UNANSWERABLE = HERE / "data" / "locomo_unanswerable.jsonl"
TUNE_SPLIT = ("conv-26", "conv-30", "conv-41", "conv-42", "conv-43")
K = 10
FEATURES = ("cosine", "bm25_share", "coverage")


def auroc(pos: np.ndarray, neg: np.ndarray) -> float:
    """P(a positive scores above a negative), ties counted half (Mann-Whitney U / (n_pos n_neg))."""
    pos, neg = np.asarray(pos, np.float64), np.asarray(neg, np.float64)
    if not len(pos) or not len(neg):
        return float("nan")
    allv = np.concatenate([pos, neg])
    order = np.argsort(allv, kind="mergesort")
    ranks = np.empty(len(allv))
    sv = allv[order]
    i = 0
    while i < len(sv):   # average ranks over ties
        j = i
        while j + 1 < len(sv) and sv[j + 1] == sv[i]:
            j += 1
        ranks[order[i:j + 1]] = 0.5 * (i + j) + 1.0
        i = j + 1
    u = ranks[: len(pos)].sum() - len(pos) * (len(pos) + 1) / 2.0
    return float(u / (len(pos) * len(neg)))


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1e-2, iters: int = 50) -> np.ndarray:
    """Intercept + weights of a logistic regression by Newton's method (L2 on the weights only)."""
    xa = np.hstack([np.ones((len(x), 1)), x])
    w = np.zeros(xa.shape[1])
    reg = np.full(xa.shape[1], l2)
    reg[0] = 0.0
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-np.clip(xa @ w, -50, 50)))
        grad = xa.T @ (p - y) + reg * w
        hess = (xa * (p * (1 - p))[:, None]).T @ xa + np.diag(reg) + 1e-9 * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def top_rows(feats: list[np.ndarray], coef: np.ndarray | None) -> np.ndarray:
    """One row per question: the hit with the highest relevance (or summed features)."""
    rows = []
    for f in feats:
        if not len(f):
            rows.append(np.zeros(len(FEATURES)))
            continue
        s = f.sum(1) if coef is None else relevance(f, coef)
        rows.append(f[int(np.argmax(s))])
    return np.array(rows)


def top_rel(feats: list[np.ndarray], coef) -> np.ndarray:
    return np.array([float(relevance(f, coef).max()) if len(f) else 0.0 for f in feats])


def pr(pred: np.ndarray, truth: np.ndarray) -> dict:
    tp = int(np.sum(pred & truth))
    return {"fired": int(pred.sum()), "precision": round(tp / max(int(pred.sum()), 1), 3),
            "recall": round(tp / max(int(truth.sum()), 1), 3),
            "fired_on_answerable": round(float(pred[~truth].mean()) if (~truth).any() else 0.0, 3)}


def collect(eng, convs, unans, embedder, cfg) -> list[dict]:
    """Recall every question; keep per question its hits' features, top score and top cosine."""
    out = []
    for conv in convs:
        ns = conv.sample_id
        qs = [(q.question, "answerable" if q.category != 5 else "adversarial") for q in conv.qa if q.evidence]
        qs += [(u["question"], "unanswerable") for u in unans if u["conv"] == ns]
        qvecs = embedder.embed([q for q, _ in qs])
        kw = eng._state.space(ns).keyword   # the namespace's BM25 index, as recall reads it
        for (q, label), qv in zip(qs, qvecs):
            res = eng.recall(q, vector=qv, namespace=ns, k=K, config=cfg)
            hits = res.hits
            vecs = np.stack([eng.get(h.id, namespace=ns, with_embedding=True).embedding for h in hits]) if hits else None
            f = relevance_features(q, [h.text for h in hits], vecs @ qv if hits else np.zeros(0), kw)
            out.append({"conv": ns, "question": q, "label": label, "feats": f,
                        "top_score": hits[0].score if hits else 0.0,
                        "top_cos": float(f[:, 0].max()) if hits else 0.0,
                        "rel_engine": [h.relevance for h in hits],
                        "gap": any(g.reason == "weak_evidence" for g in res.gaps)})
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--embedder", choices=["hashing", "minilm"], default="hashing")
    ap.add_argument("--data", default=None, help="locomo10.json (default: ../shared/data/locomo/)")
    ap.add_argument("--out", default=str(RESULTS / "relevance.json"))
    args = ap.parse_args(argv)
    data = Path(args.data) if args.data else default_locomo_path()
    if not data.exists():
        print(f"LoCoMo data not found at {data}; set ENGRAMDB_LOCOMO", file=sys.stderr)
        return 2
    convs = load_locomo(data)
    unans = [json.loads(line) for line in UNANSWERABLE.read_text().splitlines() if line.strip()]
    embedder = get_embedder(args.embedder, 384)
    with tempfile.TemporaryDirectory(prefix="engramdb-relevance-") as store, \
            engramdb.open(store, dim=embedder.dim, embedder=embedder) as eng:
        ingest_locomo(eng, data)
        base = eng.config.recall
        rows = collect(eng, convs, unans, embedder, base)
        tune = [r for r in rows if r["conv"] in TUNE_SPLIT and r["label"] != "adversarial"]
        feats = [r["feats"] for r in tune]
        y = np.array([r["label"] == "answerable" for r in tune], np.float64)
        coef = None
        for _ in range(4):   # refit on the hit the current model rates best
            coef = fit_logistic(top_rows(feats, coef), y)
        # threshold: best F1 of "gap fired" for "unanswerable" on the tuning half
        top = top_rel(feats, coef)
        truth = y == 0
        cands = np.unique(np.round(top, 3))
        f1 = [(2 * np.sum((top < t) & truth) / max(np.sum(top < t) + truth.sum(), 1), t) for t in cands]
        threshold = float(max(f1)[1]) if f1 else 0.5
        cfg = replace(base, relevance_coef=tuple(round(float(c), 4) for c in coef),
                      relevance_threshold=round(threshold, 3))
        fitted = collect(eng, convs, unans, embedder, cfg)   # the engine's own relevance and gaps
    report = {"embedder": embedder.name, "k": K, "features": list(FEATURES),
              "relevance_coef": list(cfg.relevance_coef), "relevance_threshold": cfg.relevance_threshold,
              "default_config": {"relevance_coef": list(base.relevance_coef or RELEVANCE_CALIBRATION[args.embedder][0]),
                                 "relevance_threshold": (RELEVANCE_CALIBRATION[args.embedder][1]
                                                         if base.relevance_threshold is None
                                                         else base.relevance_threshold),
                                 "weak_evidence": base.weak_evidence}}
    for split, keep in (("tuning", lambda c: c in TUNE_SPLIT), ("held_out", lambda c: c not in TUNE_SPLIT)):
        part = [r for r in fitted if keep(r["conv"])]
        old = [r for r in rows if keep(r["conv"])]
        ans = [r for r in part if r["label"] == "answerable"]
        una = [r for r in part if r["label"] == "unanswerable"]
        adv = [r for r in part if r["label"] == "adversarial"]
        trel = {id(r): max(r["rel_engine"], default=0.0) for r in part}
        pair = [r for r in part if r["label"] != "adversarial"]
        pair_old = [r for r in old if r["label"] != "adversarial"]
        truth = np.array([r["label"] == "unanswerable" for r in pair])
        old_pred = np.array([r["top_cos"] < base.weak_evidence for r in pair_old])
        report[split] = {
            "conversations": sorted({r["conv"] for r in part}),
            "answerable": len(ans), "unanswerable": len(una), "adversarial": len(adv),
            "auroc_top_relevance": round(auroc([trel[id(r)] for r in ans], [trel[id(r)] for r in una]), 4),
            "auroc_top_score_baseline": round(auroc([r["top_score"] for r in ans], [r["top_score"] for r in una]), 4),
            "auroc_top_cosine_baseline": round(auroc([r["top_cos"] for r in ans], [r["top_cos"] for r in una]), 4),
            "auroc_adversarial_vs_unanswerable": round(auroc([trel[id(r)] for r in adv], [trel[id(r)] for r in una]), 4),
            "gap_relevance": pr(np.array([r["gap"] for r in pair]), truth),
            # the shipped calibration (RELEVANCE_CALIBRATION) on today's recall, before this refit
            "auroc_default_config": round(auroc([max(r["rel_engine"], default=0.0) for r in old if r["label"] == "answerable"],
                                                [max(r["rel_engine"], default=0.0) for r in old if r["label"] == "unanswerable"]), 4),
            "gap_default_config": pr(np.array([r["gap"] for r in pair_old]), truth),
            "gap_cosine_baseline": pr(old_pred, truth),
            "median_top_relevance": {lab: round(float(np.median([trel[id(r)] for r in part if r["label"] == lab])), 3)
                                     for lab in ("answerable", "unanswerable", "adversarial")},
            "unanswerable_by_kind": {},
        }
        kinds = {u["question"]: u["kind"] for u in unans}
        for kind in ("world", "personal"):
            v = [trel[id(r)] for r in una if kinds.get(r["question"]) == kind]
            report[split]["unanswerable_by_kind"][kind] = {
                "n": len(v), "gap_fired": int(sum(x < cfg.relevance_threshold for x in v)),
                "auroc_vs_answerable": round(auroc([trel[id(r)] for r in ans], v), 4)}
    write(report, Path(args.out), "python benchmarks/bench_relevance.py --embedder " + args.embedder)
    for split in ("tuning", "held_out"):
        r = report[split]
        print(f"{embedder.name[:22]:22s} {split:8s} AUROC rel {r['auroc_top_relevance']:.3f} "
              f"(score {r['auroc_top_score_baseline']:.3f}, cosine {r['auroc_top_cosine_baseline']:.3f})  "
              f"gap P/R {r['gap_relevance']['precision']:.2f}/{r['gap_relevance']['recall']:.2f} "
              f"(cosine rule {r['gap_cosine_baseline']['precision']:.2f}/{r['gap_cosine_baseline']['recall']:.2f}; "
              f"shipped calibration AUROC {r['auroc_default_config']:.3f}, gap P/R "
              f"{r['gap_default_config']['precision']:.2f}/{r['gap_default_config']['recall']:.2f})")
    print("coef", report["relevance_coef"], "threshold", report["relevance_threshold"])
    return 0


def write(report: dict, out: Path, command: str) -> None:
    """Merge this embedder's run into ``out`` and rewrite the markdown table beside it."""
    out.parent.mkdir(parents=True, exist_ok=True)
    doc = json.loads(out.read_text()) if out.exists() else {"runs": []}
    report.update({"command": command, "date": time.strftime("%Y-%m-%d")})
    runs = [r for r in doc.get("runs", []) if r["embedder"] != report["embedder"]] + [report]
    doc = {"benchmark": "LoCoMo answerable (categories 1-4) vs unanswerable (benchmarks/data/locomo_unanswerable.jsonl): "
                        "top-hit relevance and the weak_evidence gap",
           "machine": {"python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count(),
                       "engramdb": engramdb.__version__, "kernel_backend": registry.active_backend()},
           "runs": runs}
    out.write_text(json.dumps(doc, indent=2) + "\n")
    lines = ["# Relevance you can threshold (LoCoMo)", "",
             "Rerun: `python benchmarks/bench_relevance.py --embedder hashing|minilm`. Coefficients and "
             f"threshold fitted on {', '.join(TUNE_SPLIT)}; held-out = the other five. Answerable = LoCoMo "
             "categories 1-4; unanswerable = 120 written questions (12 per conversation). Gap P/R: "
             "`weak_evidence` fired vs truly unanswerable.", "",
             "| embedder | split | answerable | unanswerable | AUROC relevance | AUROC top score | AUROC top cosine | "
             "gap P | gap R | gap fired on answerable | cosine-rule P | cosine-rule R | cosine rule fired on answerable | "
             "shipped calibration: AUROC | gap P | gap R |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in runs:
        for split in ("tuning", "held_out"):
            s = r[split]
            g, o = s["gap_relevance"], s["gap_cosine_baseline"]
            lines.append(f"| {r['embedder']} | {split} | {s['answerable']} | {s['unanswerable']} | "
                         f"{s['auroc_top_relevance']} | {s['auroc_top_score_baseline']} | {s['auroc_top_cosine_baseline']} | "
                         f"{g['precision']} | {g['recall']} | {g['fired_on_answerable']} | "
                         f"{o['precision']} | {o['recall']} | {o['fired_on_answerable']} | "
                         f"{s.get('auroc_default_config', '–')} | {s.get('gap_default_config', {}).get('precision', '–')} | "
                         f"{s.get('gap_default_config', {}).get('recall', '–')} |")
    lines += ["", "Coefficients (intercept, cosine, BM25 share, coverage) and threshold refitted in this run "
                  "(the first columns), and the calibration the engine ships (`RELEVANCE_CALIBRATION`, the last "
                  "three columns: the same recall scored with it):", ""]
    for r in runs:
        d = r.get("default_config", {})
        lines.append(f"- {r['embedder']}: refit {r['relevance_coef']}, threshold {r['relevance_threshold']}; "
                     f"shipped {d.get('relevance_coef')}, threshold {d.get('relevance_threshold')}")
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
