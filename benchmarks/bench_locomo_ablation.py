"""Ablation on LoCoMo evidence recall: generic ingest, consolidation, each view, the intent router.

Rows (each ranks the turns of the question's own conversation; query vector given):

- ``add_batch+next``: the turns stored as a user of the plain API would (``add_batch`` with
  their dates, each linked ``next`` to the one before; no sessions, no entities), default recall;
- ``add_conversation``: the generic conversation ingest (``ingest_locomo`` is a thin user of
  ``Engram.add_conversation``), default recall;
- ``unlabelled chat``: each conversation one ``add_conversation`` call of its turns with their
  dates and speakers but no session labels nor titles, as ``engramdb ingest-chat`` stores a
  chat export: sessions come from the pauses (``session_gap``, 30 minutes);
  ``unlabelled, one session``: the same with ``session_gap=None``;
- ``-<view>``: the same with one view's relations carrying no activation
  (``engramdb.recall.router.VIEWS``);
- ``+router``: the intent router on (``RecallConfig.route``);
- ``+consolidate`` / ``+consolidate+router``: after ``Engram.consolidate`` (summaries of every
  session, promoted facts, merges), ``now`` a week after each conversation's last turn.

With ``--tune`` the router's ``route_boost`` and ``route_fanout`` are chosen on the tuning
conversations only (``bench_locomo_recall.TUNE_SPLIT``) by R@10, then every row is reported on
both halves. Recall@k as in ``bench_locomo_recall.py``; targets of issue 15 beside the figures.

    python benchmarks/bench_locomo_ablation.py [--embedder hashing|minilm] [--tune]
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

sys.path.insert(0, str(Path(__file__).resolve().parent))

import engramdb  # noqa: E402
from bench_locomo_recall import TUNE_SPLIT, _summarise, run_queries  # noqa: E402
from engramdb.embed import get_embedder  # noqa: E402
from engramdb.config import SESSION_GAP_S  # noqa: E402
from engramdb.ingest import ingest_locomo, locomo_messages  # noqa: E402
from engramdb.kernels import registry  # noqa: E402
from engramdb.locomo import CATEGORY_NAMES, default_locomo_path, load_locomo  # noqa: E402
from engramdb.recall.router import VIEWS, without_view  # noqa: E402
from engramdb.types import Relation  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
TARGETS = {"recall@10": 78.0, "recall@20": 86.0, "1 multi-hop": 50.0, "2 temporal": 80.0, "3 open-domain": 45.0}
WEEK = 7 * 86400.0


def ingest_plain(eng, convs) -> None:
    """Each turn via ``add_batch`` with its date, linked ``next`` to the previous turn."""
    for conv in convs:
        items, prev = [], None
        for t in conv.turns():
            text = f"{t.speaker}: {t.text}" + (f" [shares a photo of {t.blip_caption}]" if t.blip_caption else "")
            item = {"id": t.dia_id, "text": text, "created_at": t.created_at, "kind": "episodic"}
            if prev is not None:
                item["links"] = [{"to": prev, "relation": "next"}]
            items.append(item)
            prev = t.dia_id
        eng.add_batch(items, namespace=conv.sample_id)


def ingest_unlabelled(eng, convs, session_gap) -> int:
    """Each conversation one ``add_conversation`` call without session labels or titles; returns
    the number of sessions made."""
    made = 0
    for conv in convs:
        messages, _titles = locomo_messages(conv)
        for m in messages:
            del m["session"]
        made += len(eng.add_conversation(messages, namespace=conv.sample_id, split_roles=(),
                                         session_gap=session_gap)["sessions"])
    return made


def split_summary(rows: list[dict]) -> dict:
    """Overall, per category, tuning half and held-out half."""
    tune = [r for r in rows if r["conv"] in TUNE_SPLIT]
    held = [r for r in rows if r["conv"] not in TUNE_SPLIT]
    cats: dict[str, list] = {}
    for r in rows:
        cats.setdefault(f"{r['category']} {CATEGORY_NAMES[r['category']]}", []).append(r)
    out = {"questions": len(rows), **_summarise(rows), "tuning": _summarise(tune), "held_out": _summarise(held),
           "per_category": {c: _summarise(v) for c, v in sorted(cats.items())}}
    out["gap_r10"] = round(out["tuning"]["recall@10"] - out["held_out"]["recall@10"], 2)
    return out


def tuning_only(rows: list[dict]) -> float:
    return _summarise([r for r in rows if r["conv"] in TUNE_SPLIT])["recall@10"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--embedder", choices=["hashing", "minilm"], default="hashing")
    ap.add_argument("--data", default=None)
    ap.add_argument("--tune", action="store_true", help="choose route_boost / route_fanout on the tuning half")
    ap.add_argument("--out", default=str(RESULTS / "locomo_ablation.json"))
    args = ap.parse_args(argv)
    load = os.getloadavg()
    data = Path(args.data) if args.data else default_locomo_path()
    if not data.exists():
        print(f"LoCoMo data not found at {data}; set ENGRAMDB_LOCOMO", file=sys.stderr)
        return 2
    convs = load_locomo(data)
    embedder = get_embedder(args.embedder, 384)
    runs: dict[str, dict] = {}
    lat: dict[str, float] = {}

    def record(rows, lats, names):
        for name in names:
            runs[name] = split_summary(rows[name])
            lat[name] = round(float(np.median(lats[name])) * 1e6, 1)
            r = runs[name]
            print(f"{name:28s} R@10 {r['recall@10']:5.1f} R@20 {r['recall@20']:5.1f} tune {r['tuning']['recall@10']:5.1f} "
                  f"held {r['held_out']['recall@10']:5.1f}  " + "  ".join(
                      f"{c.split()[1][:5]} {v['recall@10']:5.1f}" for c, v in r["per_category"].items()), flush=True)

    with tempfile.TemporaryDirectory(prefix="engramdb-abl-") as tmp:
        with engramdb.open(os.path.join(tmp, "plain"), dim=embedder.dim, embedder=embedder) as eng:
            ingest_plain(eng, convs)
            rows, lats = run_queries(eng, convs, embedder, [("add_batch+next", eng.config.recall)])
            record(rows, lats, ["add_batch+next"])
        unlabelled_sessions = {}
        for name, gap in (("unlabelled chat", SESSION_GAP_S), ("unlabelled, one session", None)):
            with engramdb.open(os.path.join(tmp, name.replace(" ", "_").replace(",", "")), dim=embedder.dim,
                               embedder=embedder) as eng:
                unlabelled_sessions[name] = ingest_unlabelled(eng, convs, gap)
                rows, lats = run_queries(eng, convs, embedder, [(name, eng.config.recall)])
                record(rows, lats, [name])
        with engramdb.open(os.path.join(tmp, "conv"), dim=embedder.dim, embedder=embedder) as eng:
            ingest_locomo(eng, data, progress=False)
            base = eng.config.recall
            chosen = {"route_boost": base.route_boost, "route_fanout": base.route_fanout}
            tuning_log = []
            if args.tune:
                tune_convs = [c for c in convs if c.sample_id in TUNE_SPLIT]
                grid = [(b, f) for b in (1.0, 1.5, 2.5) for f in (1.0, 2.0, 3.0)]
                cfgs = [(f"b{b}_f{f}", replace(base, route=True, route_boost=b, route_fanout=f)) for b, f in grid]
                rows, _ = run_queries(eng, tune_convs, embedder, cfgs)
                scores = {name: tuning_only(rows[name]) for name, _ in cfgs}
                tuning_log = [{"route_boost": b, "route_fanout": f, "tuning_recall@10": scores[f"b{b}_f{f}"]}
                              for b, f in grid]
                b, f = grid[int(np.argmax([scores[f"b{b}_f{f}"] for b, f in grid]))]
                chosen = {"route_boost": b, "route_fanout": f}
                print("tuning (tuning half only):", tuning_log, "chosen", chosen, flush=True)
            routed = replace(base, route=True, **chosen)
            cfgs = [("add_conversation", base)] + [(f"-{v}", without_view(base, v)) for v in VIEWS] + [
                ("-auto-links", replace(base, relation_multipliers={**base.relation_multipliers,
                                                                    Relation.RELATED_TO: 0.0})),
                ("+router", routed)]
            rows, lats = run_queries(eng, convs, embedder, cfgs)
            record(rows, lats, [n for n, _ in cfgs])
            t0 = time.perf_counter()
            summary = {}
            for conv in convs:
                last = max(t.created_at for t in conv.turns())
                summary[conv.sample_id] = eng.consolidate(namespace=conv.sample_id, now=last + WEEK)
            consolidate_s = time.perf_counter() - t0
            again = eng.consolidate(namespace=convs[0].sample_id, now=max(t.created_at for t in convs[0].turns()) + WEEK)
            cfgs = [("+consolidate", base), ("+consolidate+router", routed),
                    ("+consolidate-semantic", without_view(base, "semantic"))]
            rows, lats = run_queries(eng, convs, embedder, cfgs)
            record(rows, lats, [n for n, _ in cfgs])

    totals = {k: sum(s[k] for s in summary.values()) for k in ("merged", "summaries", "facts", "edges")}
    command = " ".join(["python", "benchmarks/bench_locomo_ablation.py", *sys.argv[1:]])
    doc = {"benchmark": "LoCoMo evidence recall@k ablation (issue 15)", "command": command,
           "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "loadavg_at_start": [round(x, 2) for x in load],
           "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                       "engramdb": engramdb.__version__, "kernel_backend": registry.active_backend()},
           "embedder": embedder.name, "tuning_split": list(TUNE_SPLIT), "router_tuning": tuning_log,
           "router_chosen": chosen, "unlabelled_sessions": unlabelled_sessions, "consolidation": {**totals, "seconds_all_conversations": round(consolidate_s, 2),
                                                      "second_pass": again},
           "targets": TARGETS, "latency_median_us": lat, "runs": runs}
    out = Path(args.out)
    if out.exists():
        prev = json.loads(out.read_text())
        by_emb = prev.get("by_embedder", {})
    else:
        by_emb = {}
    by_emb[embedder.name] = doc
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"by_embedder": by_emb}, indent=2) + "\n")
    write_markdown(by_emb, out.with_suffix(".md"))
    return 0


def write_markdown(by_emb: dict, path: Path) -> None:
    lines = ["# LoCoMo ablation (issue 15): generic ingest, consolidation, views, router", ""]
    for name, doc in by_emb.items():
        lines += [f"## {name}", "", f"Rerun: `{doc['command']}` ({doc['date']}, load at start "
                  f"{doc['loadavg_at_start']}). Tuning half: {', '.join(doc['tuning_split'])}; router chosen on it: "
                  f"{doc['router_chosen']}. Sessions made from pauses (unlabelled rows): "
                  f"{doc.get('unlabelled_sessions', 'not run')}. Consolidation: {doc['consolidation']}.", "",
                  "| row | R@5 | R@10 | R@20 | multi-hop R@10 | temporal R@10 | open-domain R@10 | single-hop R@10 | "
                  "adversarial R@10 | tuning R@10 | held-out R@10 | gap | median µs |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        t = doc["targets"]
        lines.append(f"| target | | ≥{t['recall@10']} | ≥{t['recall@20']} | ≥{t['1 multi-hop']} | ≥{t['2 temporal']} | "
                     f"≥{t['3 open-domain']} | | | | | ≤2 | 2000 |")
        for row, r in doc["runs"].items():
            pc = r["per_category"]
            lines.append(f"| {row} | {r['recall@5']} | {r['recall@10']} | {r['recall@20']} | "
                         + " | ".join(str(pc[c]["recall@10"]) for c in sorted(pc))
                         + f" | {r['tuning']['recall@10']} | {r['held_out']['recall@10']} | {r['gap_r10']} | "
                         f"{doc['latency_median_us'][row]} |")
        lines.append("")
    path.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
