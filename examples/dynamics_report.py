"""What admission control rejects (and why) and what a rescoring pass archives, on real data.

1. The built-in demo conversation (``src/engramdb/data/demo_trip.jsonl``) is admitted as one
   batch, then a second batch with a phatic turn, a reworded repeat and a repeat that changes a
   number: the report shows each decision with its five A-MAC factors.
2. One LoCoMo conversation (``--conversation``, read from ``../shared/data/locomo/`` or
   ``$ENGRAMDB_LOCOMO``, never copied here) is admitted session by session (one
   ``admit_batch`` per session, ``now`` = the session's time); the report counts decisions,
   lists the rejected turns with their reasons, and checks how many turns that LoCoMo's
   questions cite as evidence were rejected.
3. A rescoring pass ``--days`` after the last session: the summary per kind and the archived
   memories (from the dynamics log).

    python examples/dynamics_report.py [--conversation conv-26] [--days 30] [--show 12] [--all]
"""
from __future__ import annotations

import argparse
import os
import tempfile
from collections import Counter

from rich.console import Console
from rich.table import Table

import engramdb
from engramdb.ingest import read_jsonl

DEMO = os.path.join(os.path.dirname(engramdb.__file__), "data", "demo_trip.jsonl")
console = Console(width=160)


def decision_table(title, decisions, texts):
    t = Table(title=title, show_lines=False)
    for col in ("id", "decision", "score", "U", "C", "N", "R", "T", "text", "reason"):
        t.add_column(col, overflow="fold")
    for d in decisions:
        f = list(d.factors.values())
        t.add_row(d.id, d.decision, f"{d.score:.3f}", *(f"{x:.2f}" for x in f), texts[d.index][:60], d.reason)
    console.print(t)


def demo_part(root):
    with engramdb.open(os.path.join(root, "demo"), dim=384) as eng:
        items = [{k: v for k, v in it.items() if k != "links"} for it in read_jsonl(DEMO)]
        now = "2026-04-20T12:00:00Z"
        first = eng.admit_batch(items, namespace="demo", now=now)
        console.print(f"demo batch 1: {dict(Counter(d.decision for d in first))}")
        for d in first:
            if d.decision != "admit":
                console.print(f"  {d.decision} {d.id}: {items[d.index]['text']!r} — {d.reason}")
        extra = [
            {"id": "x-phatic", "text": "User: ok thanks!", "created_at": now},
            {"id": "x-repeat", "text": items[1]["text"].replace("today", "today."), "created_at": now},
            {"id": "x-changed", "text": items[1]["text"].replace("218", "219"), "created_at": now},
        ]
        second = eng.admit_batch(extra, namespace="demo", now=now)
        decision_table("demo batch 2: a phatic turn, a repeat, a repeat with a changed number",
                       second, [e["text"] for e in extra])


def locomo_part(root, sample_id, days, show):
    from engramdb.locomo import default_locomo_path, load_locomo

    path = default_locomo_path()
    if not path.exists():
        console.print(f"[yellow]LoCoMo not found at {path}; set ENGRAMDB_LOCOMO[/]")
        return
    conv = next(c for c in load_locomo(path) if c.sample_id == sample_id)
    evidence = {e for q in conv.qa for e in q.evidence}
    decisions, texts = [], {}
    with engramdb.open(os.path.join(root, "locomo"), dim=384) as eng:
        for s in conv.sessions:
            items = [{"id": t.dia_id, "text": f"{t.speaker}: {t.text}", "created_at": t.created_at,
                      "source": t.dia_id} for t in s.turns]
            texts.update({it["id"]: it["text"] for it in items})
            decisions += eng.admit_batch(items, namespace=sample_id, now=s.created_at)
        counts = Counter(d.decision for d in decisions)
        rejected = [d for d in decisions if d.decision == "reject"]
        reinforced = [d for d in decisions if d.decision == "reinforce"]
        ev_rej = sorted(evidence & {d.id for d in rejected})
        console.print(f"\nLoCoMo {sample_id}: {len(decisions)} turns in {len(conv.sessions)} sessions -> "
                      f"{dict(counts)}; evidence turns cited by the {len(conv.qa)} questions: {len(evidence)}, "
                      f"of which rejected: {len(ev_rej)} {ev_rej[:10]}")
        why = Counter(d.reason.split("(largest shortfall: ")[-1].split(" =")[0] for d in rejected)
        console.print(f"largest shortfall among rejected turns: {dict(why)}; phatic: "
                      f"{sum('phatic' in d.reason for d in rejected)}")
        for d in rejected:
            if d.id in ev_rej:
                console.print(f"  rejected evidence {d.id}: {texts[d.id]!r} — {d.reason}")
        lows = sorted(rejected, key=lambda d: d.score)[:show]
        decision_table(f"the {len(lows)} lowest-scoring rejected turns", lows,
                       {d.index: texts[d.id] for d in lows})
        if reinforced:
            decision_table("near-duplicates that reinforced an earlier memory", reinforced[:show],
                           {d.index: texts[d.id] for d in reinforced[:show]})
        now = conv.sessions[-1].created_at + days * 86400
        summary = eng.rescore(now, namespace=sample_id)
        t = Table(title=f"rescoring pass {days} days after the last session ({summary['kernel_backend']} kernel)")
        for col in ("kind", "memories", "mean salience", "archived", "pruned", "active after"):
            t.add_column(col, justify="right")
        for kind, row in summary["by_kind"].items():
            if row["memories"]:
                t.add_row(kind, str(row["memories"]), f"{row['mean_salience']:.4f}", str(row["archived"]),
                          str(row["pruned"]), str(row["active_after"]))
        console.print(t)
        archived = eng.dynamics_log(namespace=sample_id, action="archive")
        console.print(f"archived {len(archived)} of {summary['scanned']}; e.g.:")
        for e in archived[:5]:
            console.print(f"  {e['id']}: {texts[e['id']][:70]!r} — {e['reason']}")
        again = eng.rescore(now, namespace=sample_id)
        console.print(f"second pass at the same time: archived {again['archived']}, "
                      f"records written {again['records_written']}")


def locomo_totals(root):
    """Admission over every LoCoMo conversation: decisions and rejected evidence turns, totals."""
    from engramdb.locomo import default_locomo_path, load_locomo

    counts, n_ev, ev_rej = Counter(), 0, []
    with engramdb.open(os.path.join(root, "all"), dim=384) as eng:
        for conv in load_locomo(default_locomo_path()):
            evidence = {e for q in conv.qa for e in q.evidence}
            n_ev += len(evidence)
            for s in conv.sessions:
                items = [{"id": t.dia_id, "text": f"{t.speaker}: {t.text}", "created_at": t.created_at}
                         for t in s.turns]
                ds = eng.admit_batch(items, namespace=conv.sample_id, now=s.created_at)
                counts.update(d.decision for d in ds)
                ev_rej += [(conv.sample_id, d.id) for d in ds if d.decision != "admit" and d.id in evidence]
    console.print(f"\nall LoCoMo conversations: {sum(counts.values())} turns -> {dict(counts)}; "
                  f"evidence turns {n_ev}, not admitted {len(ev_rej)}: {ev_rej}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--conversation", default="conv-26")
    ap.add_argument("--days", type=float, default=30.0)
    ap.add_argument("--show", type=int, default=12)
    ap.add_argument("--all", action="store_true", help="also admit every LoCoMo conversation (totals only)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as root:
        demo_part(root)
        locomo_part(root, args.conversation, args.days, args.show)
        if args.all:
            locomo_totals(root)


if __name__ == "__main__":
    main()
