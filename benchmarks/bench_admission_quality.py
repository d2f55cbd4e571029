"""Admission quality on a labelled set: which candidates A-MAC admission keeps, and as what kind.

``benchmarks/data/admission_labelled.jsonl`` holds 168 candidate texts written for this
benchmark (facts, preferences, events and plans, chatter, hedged statements, questions,
near-duplicates and changed facts), in two halves of 84: ``tune`` (the rules of
``kinds.infer_kind`` / ``protected_category`` were written and adjusted while
looking at it) and ``test`` (held out: written at the same time, not used to adjust them).
Each line gives the expected decision (``admit`` / ``reject`` / ``reinforce``: a restatement of
an earlier candidate of the same half), the expected kind (``semantic``, ``episodic``, or
``phatic`` for chatter; a line with ``kind`` passes that kind, as a caller would) and the
expected protected category (``health`` / ``family`` / ``identity`` / null).

Labelling rules: a lasting fact or preference, a concrete event or a dated plan is admitted
(a hedge lowers its confidence, not its worth); greetings, thanks, laughter, compliments,
acknowledgements, weather small talk, vague hedges with no content ("maybe later") and
questions are rejected.

Each half runs in a fresh store (hashing embedder, dim 384, fixed ``now``), one
``admit_batch`` call, under two policies in the same process:

- ``before``: the policy as it was before kind inference: every candidate passes
  ``kind="episodic"`` unless the line gives a kind (what ``add`` defaulted to), with
  ``AdmissionConfig(infer_kind=False, reject_phatic=False, protect=False)``;
- ``after``: the default policy; candidates pass a kind only when the line gives one.

Reported per half and policy: precision / recall / F1 of each decision, decision accuracy,
kind accuracy (the kind a candidate is stored with, or ``phatic`` when the phatic rule
rejected it, against the label), protected-fact detection (precision / recall, category
accuracy), and how many expected-protected facts are still active after a default
``rescore`` five years later (semantic half-life 180 days: any unprotected memory is archived).

Protection held out: ``benchmarks/data/protection_heldout.jsonl`` holds 120 chat messages
written on 2026-12-03 by a helper that had not read the rules (health 25, family 20, identity 30,
and 45 near misses sharing their words: "I broke my phone", "allergic to Mondays lol"; 7 marked
ambiguous and left out). :func:`~engramdb.kinds.protected_category` of each against
its label: precision and recall of "protected" and the category of the true positives. Its
first measurement (the rules of commit 47edccb, and the same after widening them to injuries,
contact details, family events, diet, faith and languages) is quoted in the report: only that
one was held out. The rules were revised after it, on a hostile pass of 334 probes and having
seen its misses (ages, retirement, a native speaker), so the figure of each later run is not.
Its misses are listed, left as found.

When the LoCoMo conversations are found (``engramdb.locomo.default_locomo_path``; read at run
time, never copied here; CC BY-NC 4.0, Maharana et al., ACL 2024), both policies also admit
every turn, one ``admit_batch`` per session as ``examples/dynamics_report.py`` does, and the
report counts the turns rejected and the *evidence* turns (those the QA annotations cite)
rejected: the facts a policy would lose. ``--no-locomo`` skips this part.

    python benchmarks/bench_admission_quality.py [--data PATH] [--no-locomo] [--out benchmarks/results/admission_quality]
"""
from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
from pathlib import Path

import numpy as np

import engramdb
from engramdb.config import AdmissionConfig
from engramdb.dynamics.forgetting import PROTECTED_TAG

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "admission_labelled.jsonl"
OUT = HERE / "results" / "admission_quality"
NOW = 1_780_000_000.0          # 2026-05-28, Unix seconds
LATER = NOW + 5 * 365 * 86400.0
HELD_OUT = HERE / "data" / "protection_heldout.jsonl"
#: The held-out set's first measurement: the rules before the widening (commit 47edccb) and after.
HELD_OUT_FIRST = {"before (47edccb)": {"precision": 0.854, "recall": 0.569},
                  "after": {"precision": 0.873, "recall": 0.861}}
DECISIONS = ("admit", "reject", "reinforce")
POLICIES = ("before", "after")


def load(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def run(rows: list[dict], policy: str) -> list[dict]:
    """One admit_batch over ``rows`` in a fresh store; per row the decision, kind, protection and
    the state after a rescore five years later."""
    if policy == "before":
        cands = [{"id": r["id"], "text": r["text"], "kind": r.get("kind", "episodic")} for r in rows]
        cfg = AdmissionConfig(infer_kind=False, reject_phatic=False, protect=False)
    else:
        cands = [{"id": r["id"], "text": r["text"], **({"kind": r["kind"]} if "kind" in r else {})} for r in rows]
        cfg = AdmissionConfig()
    with tempfile.TemporaryDirectory() as tmp, engramdb.open(tmp, dim=384) as eng:
        decisions = eng.admit_batch(cands, now=NOW, config=cfg)
        out = []
        for r, d in zip(rows, decisions):
            mem = eng.get(d.id) if d.stored else None
            out.append({"id": r["id"], "decision": d.decision, "score": round(d.score, 4),
                        "kind": mem.kind.value if mem is not None else d.kind,
                        "tagged": mem is not None and PROTECTED_TAG in mem.tags,
                        "protected": d.protected if policy == "after" else None,
                        "kind_reason": d.kind_reason if policy == "after" else "", "reason": d.reason})
        eng.rescore(now=LATER)
        for o in out:
            if o["decision"] == "admit":
                o["active_after_5y"] = eng.get(o["id"]).state.value == "active"
    return out


def locomo(policy: str) -> dict | None:
    """Admit every LoCoMo turn under ``policy``; counts of rejected turns and evidence turns."""
    from engramdb.locomo import default_locomo_path, load_locomo

    path = default_locomo_path()
    if not path.exists():
        return None
    turns = rejected = ev_total = ev_rejected = 0
    kinds: dict[str, int] = {}
    for conv in load_locomo(path):
        evidence = {e for q in conv.qa for e in q.evidence}
        with tempfile.TemporaryDirectory() as tmp, engramdb.open(tmp, dim=384) as eng:
            for s in conv.sessions:
                items = [{"id": t.dia_id, "text": f"{t.speaker}: {t.text}", "created_at": t.created_at}
                         for t in s.turns]
                if policy == "before":
                    items = [{**it, "kind": "episodic"} for it in items]
                    cfg = AdmissionConfig(infer_kind=False, reject_phatic=False, protect=False)
                else:
                    cfg = AdmissionConfig()
                for d in eng.admit_batch(items, namespace="c", now=s.created_at, config=cfg):
                    turns += 1
                    rejected += d.decision == "reject"
                    kinds[d.kind] = kinds.get(d.kind, 0) + 1
                    if d.id in evidence:
                        ev_total += 1
                        ev_rejected += d.decision == "reject"
    return {"turns": turns, "rejected": rejected, "rejected_share": _r(rejected / turns),
            "evidence_turns": ev_total, "evidence_rejected": ev_rejected,
            "evidence_rejected_share": _r(ev_rejected / ev_total), "kinds": dict(sorted(kinds.items()))}


def prf(expected: list[str], got: list[str], label: str) -> dict:
    tp = sum(1 for e, g in zip(expected, got) if e == label and g == label)
    fp = sum(1 for e, g in zip(expected, got) if e != label and g == label)
    fn = sum(1 for e, g in zip(expected, got) if e == label and g != label)
    p = tp / (tp + fp) if tp + fp else None
    r = tp / (tp + fn) if tp + fn else None
    f1 = 2 * p * r / (p + r) if p and r else (0.0 if p is not None and r is not None else None)
    return {"precision": _r(p), "recall": _r(r), "f1": _r(f1), "support": tp + fn, "predicted": tp + fp}


def _r(x):
    return None if x is None else round(float(x), 4)


def metrics(rows: list[dict], got: list[dict], policy: str) -> dict:
    exp_d = [r["expected"] for r in rows]
    got_d = [g["decision"] for g in got]
    exp_k = [r["expected_kind"] for r in rows]
    got_k = [g["kind"] for g in got]
    keep = [i for i, r in enumerate(rows) if r["expected"] != "reject"]
    exp_p = [r["expected_protected"] is not None for r in rows]
    got_p = [g["tagged"] or g["protected"] is not None for g in got]
    tp = sum(e and g for e, g in zip(exp_p, got_p))
    cat_ok = sum(1 for r, g in zip(rows, got) if r["expected_protected"] and g["protected"] == r["expected_protected"])
    prot_rows = [i for i, r in enumerate(rows) if r["expected_protected"] and r["expected"] == "admit"]
    survived = sum(1 for i in prot_rows if got[i].get("active_after_5y"))
    out = {
        "n": len(rows),
        "decision": {d: prf(exp_d, got_d, d) for d in DECISIONS},
        "decision_accuracy": _r(np.mean([e == g for e, g in zip(exp_d, got_d)])),
        "kind_accuracy": _r(np.mean([e == g for e, g in zip(exp_k, got_k)])),
        "kind_accuracy_kept": _r(np.mean([exp_k[i] == got_k[i] for i in keep])),
        "kind_confusion": _confusion(exp_k, got_k),
        "protected": {"precision": _r(tp / sum(got_p)) if sum(got_p) else None,
                      "recall": _r(tp / sum(exp_p)) if sum(exp_p) else None, "support": sum(exp_p),
                      "category_accuracy": _r(cat_ok / sum(exp_p)) if sum(exp_p) else None},
        "protected_active_after_5y": f"{survived}/{len(prot_rows)}",
    }
    if policy == "after":   # the labels the new policy still misses
        out["errors"] = [{"id": r["id"], "text": r["text"], "expected": r["expected"], "got": g["decision"],
                          "expected_kind": r["expected_kind"], "kind": g["kind"],
                          "expected_protected": r["expected_protected"], "protected": g["protected"],
                          "why": g["kind_reason"] or g["reason"]}
                         for r, g in zip(rows, got)
                         if r["expected"] != g["decision"] or r["expected_kind"] != g["kind"]
                         or g["protected"] != r["expected_protected"]]
    return out


def protection_held_out(rows: list[dict]) -> dict:
    """:func:`protected_category` of each unambiguous held-out line against its label."""
    from engramdb.kinds import protected_category

    tp = fp = fn = tn = cat = 0
    misses, false = [], []
    for r in rows:
        if r.get("ambiguous"):
            continue
        got, why = protected_category(r["text"])
        if r["protected"] and got:
            tp, cat = tp + 1, cat + (got == r["protected"])
        elif r["protected"]:
            fn += 1
            misses.append({"text": r["text"], "expected": r["protected"]})
        elif got:
            fp += 1
            false.append({"text": r["text"], "got": got, "why": why})
        else:
            tn += 1
    return {"lines": tp + fp + fn + tn, "ambiguous_left_out": sum(bool(r.get("ambiguous")) for r in rows),
            "precision": _r(tp / (tp + fp)) if tp + fp else None, "recall": _r(tp / (tp + fn)) if tp + fn else None,
            "category_accuracy": _r(cat / tp) if tp else None, "tp": tp, "fp": fp, "fn": fn, "tn": tn,
            "misses": misses, "false_positives": false, "first_measurement": HELD_OUT_FIRST}


def _confusion(expected: list[str], got: list[str]) -> dict:
    out: dict[str, dict[str, int]] = {}
    for e, g in zip(expected, got):
        out.setdefault(e, {}).setdefault(g, 0)
        out[e][g] += 1
    return out


def markdown(res: dict) -> str:
    lines = ["# Admission quality on a labelled set", "",
             f"`{res['command']}`, {res['data']} ({res['n']} candidates: "
             f"{res['halves']['tune']} tune, {res['halves']['test']} held-out test). "
             "Fresh store per half and policy, hashing embedder (dim 384), fixed now.", "",
             "`before`: every candidate passed as `episodic` unless the line gives a kind, kind inference, "
             "phatic rule and protection off (the policy before this change). `after`: default `AdmissionConfig`.", "",
             "Protocol: the rules of `infer_kind` and `protected_category` were written from general patterns and "
             "adjusted on the tune half only; the test half was written at the same time and its misses below are "
             "left as found.", "",
             "| half | policy | admit P / R | reject P / R | reinforce P / R | decision acc. | kind acc. "
             "| kind acc. (kept) | protected P / R | protected active after 5 y |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for half in ("tune", "test"):
        for pol in POLICIES:
            m = res["results"][half][pol]
            cells = []
            for d in DECISIONS:
                x = m["decision"][d]
                cells.append(f"{_fmt(x['precision'])} / {_fmt(x['recall'])}")
            pr = m["protected"]
            lines.append(f"| {half} | {pol} | " + " | ".join(cells) + f" | {_fmt(m['decision_accuracy'])} | "
                         f"{_fmt(m['kind_accuracy'])} | {_fmt(m['kind_accuracy_kept'])} | "
                         f"{_fmt(pr['precision'])} / {_fmt(pr['recall'])} | {m['protected_active_after_5y']} |")
    lines += ["", "P / R: precision / recall of each decision (— when nothing was predicted). Kind accuracy "
              "counts `phatic` for chatter the phatic rule rejected; \"kept\" is over the candidates labelled "
              "admit or reinforce.", ""]
    for half in ("tune", "test"):
        errs = res["results"][half]["after"]["errors"]
        lines += [f"## Remaining differences from the labels, {half} half, after ({len(errs)})", ""]
        lines += [f"- `{e['id']}` \"{e['text']}\": expected {e['expected']} / {e['expected_kind']} / "
                  f"{e['expected_protected']}, got {e['got']} / {e['kind']} / {e['protected']} ({e['why']})"
                  for e in errs]
        lines.append("")
    h = res.get("protection_held_out")
    if h:
        lines += ["## Protection on held-out messages", "",
                  f"`protected_category` on {res['protection_data']} ({h['lines']} lines, {h['ambiguous_left_out']} "
                  "ambiguous left out; written by a helper that had not read the rules): precision "
                  f"{_fmt(h['precision'])}, recall {_fmt(h['recall'])} of \"protected\", category right for "
                  f"{_fmt(h['category_accuracy'])} of the true positives (tp {h['tp']}, fp {h['fp']}, fn {h['fn']}, "
                  f"tn {h['tn']}).", "",
                  "First measurement, the only one held out: " + "; ".join(
                      f"{k}: P {v['precision']:.3f} / R {v['recall']:.3f}" for k, v in h["first_measurement"].items())
                  + ". The rules were revised after it (a hostile pass, and its misses seen), so the figure "
                  "above is no longer a held-out one.", "",
                  f"Missed ({len(h['misses'])}):", ""]
        lines += [f"- {m['expected']}: \"{m['text']}\"" for m in h["misses"]]
        lines += ["", f"Protected against the label ({len(h['false_positives'])}):", ""]
        lines += [f"- {m['got']} ({m['why']}): \"{m['text']}\"" for m in h["false_positives"]]
        lines.append("")
    if res.get("locomo"):
        lines += ["## LoCoMo turns (all 10 conversations, one admit_batch per session)", "",
                  "| policy | turns | rejected | evidence turns | evidence turns rejected | kinds |",
                  "|---|---|---|---|---|---|"]
        for pol in POLICIES:
            m = res["locomo"][pol]
            lines.append(f"| {pol} | {m['turns']} | {m['rejected']} ({m['rejected_share']:.1%}) | "
                         f"{m['evidence_turns']} | {m['evidence_rejected']} ({m['evidence_rejected_share']:.1%}) | "
                         + ", ".join(f"{k} {v}" for k, v in m["kinds"].items()) + " |")
        lines.append("")
    return "\n".join(lines)


def _fmt(x) -> str:
    return "—" if x is None else f"{x:.2f}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--no-locomo", action="store_true", help="skip the LoCoMo part")
    ap.add_argument("--out", type=Path, default=OUT, help="results path without extension (.json and .md)")
    args = ap.parse_args(argv)
    rows = load(args.data)
    res = {"benchmark": "admission quality on a labelled set (decisions, kinds, protected facts), before vs after",
           "command": "python benchmarks/bench_admission_quality.py",
           "data": args.data.relative_to(HERE.parent).as_posix() if args.data.is_relative_to(HERE.parent) else args.data.name,
           "n": len(rows), "halves": {h: sum(r["half"] == h for r in rows) for h in ("tune", "test")},
           "now": NOW, "rescore_at": LATER,
           "machine": {"python": platform.python_version(), "numpy": np.__version__,
                       "engramdb": engramdb.__version__, "machine": platform.machine()},
           "results": {}}
    for half in ("tune", "test"):
        part = [r for r in rows if r["half"] == half]
        res["results"][half] = {}
        for pol in POLICIES:
            got = run(part, pol)
            m = metrics(part, got, pol)
            res["results"][half][pol] = m
    if HELD_OUT.exists():
        res["protection_data"] = HELD_OUT.relative_to(HERE.parent).as_posix()
        res["protection_held_out"] = protection_held_out(load(HELD_OUT))
    if not args.no_locomo:
        parts = {pol: locomo(pol) for pol in POLICIES}
        if all(parts.values()):
            res["locomo"] = parts
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(res, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    args.out.with_suffix(".md").write_text(markdown(res), encoding="utf-8")
    for half in ("tune", "test"):
        for pol in POLICIES:
            m = res["results"][half][pol]
            d = m["decision"]
            print(f"{half:4s} {pol:6s} admit P/R {_fmt(d['admit']['precision'])}/{_fmt(d['admit']['recall'])}  "
                  f"reject P/R {_fmt(d['reject']['precision'])}/{_fmt(d['reject']['recall'])}  "
                  f"reinforce P/R {_fmt(d['reinforce']['precision'])}/{_fmt(d['reinforce']['recall'])}  "
                  f"kind acc {_fmt(m['kind_accuracy'])}  protected P/R {_fmt(m['protected']['precision'])}/"
                  f"{_fmt(m['protected']['recall'])}  kept 5y {m['protected_active_after_5y']}")
    h = res.get("protection_held_out")
    if h:
        print(f"protection held out: P {_fmt(h['precision'])} R {_fmt(h['recall'])} category "
              f"{_fmt(h['category_accuracy'])} (fp {h['fp']}, fn {h['fn']} of {h['lines']})")
    for pol, m in (res.get("locomo") or {}).items():
        print(f"locomo {pol:6s} rejected {m['rejected']}/{m['turns']}  evidence rejected "
              f"{m['evidence_rejected']}/{m['evidence_turns']}  kinds {m['kinds']}")
    print(f"wrote {args.out.name}.json and {args.out.name}.md under {args.out.parent.name}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
