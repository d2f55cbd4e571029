"""Calibration of an over-confident agent's decisions: Brier score and a reliability diagram.

The script plays an agent that makes 40 decisions (which vendor, which route, which fix, ...),
each with a confidence, and later reviews each one with an outcome. The agent is
over-confident by design: a decision stated at confidence p works out with probability
p - 0.2 (outcomes drawn from a seeded generator, so every run prints the same report); one
decision in eight turns out partly (scored 0.5). It then prints ``Engram.calibration`` (Brier
score, accuracy, reliability bins), writes the reliability diagram to the PNG path given on the
command line, and shows the track record that ``Engram.context`` states for a new, similar
question.

    python examples/decisions_calibration.py out.png [--seed 7] [--n 40]

The store is a temporary directory with the hashing embedder (no model needed).
"""
from __future__ import annotations

import argparse
import tempfile

import numpy as np

import engramdb
from engramdb.decisions import plot_reliability

T0 = 1_767_225_600.0          # 2026-01-01T00:00:00Z
DAY = 86_400.0
TOPICS = [
    ("Book the {x} flight for the team offsite", ["TAP", "Ryanair", "easyJet"], "travel"),
    ("Use {x} for the billing service database", ["Postgres", "MySQL", "SQLite"], "infra"),
    ("Ship the release on {x}", ["Monday", "Wednesday", "Friday"], "release"),
    ("Hire {x} for the backend role", ["Ana", "Rui", "Marta"], "hiring"),
    ("Pay the {x} plan for error tracking", ["team", "business", "free"], "vendors"),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("png", help="where to write the reliability diagram (PNG)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--n", type=int, default=40, help="decisions to script")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    with tempfile.TemporaryDirectory() as path, engramdb.open(path, embedder="hashing") as mem:
        for i in range(args.n):
            template, options, category = TOPICS[i % len(TOPICS)]
            chosen = options[int(rng.integers(len(options)))]
            confidence = float(np.round(rng.uniform(0.5, 0.99), 2))
            did = mem.decide(template.format(x=chosen) + f" (case {i})", confidence=confidence,
                             options=options, chosen=chosen, category=category, tags=[category],
                             reasons=[{"type": "intuition", "text": "it felt right"}], now=T0 + i * DAY)
            p_success = max(confidence - 0.2, 0.0)          # over-confident by 0.2
            u = rng.uniform()
            outcome = "partial" if rng.uniform() < 0.125 else ("success" if u < p_success else "failure")
            mem.review(did, outcome, note=f"reviewed after a week (case {i})", at=T0 + (i + 7) * DAY)
        report = mem.calibration(bins=10)
        print(report.summary())
        print(f"{'bin':>14} {'n':>3} {'predicted':>9} {'observed':>8}")
        for b in report.bins:
            if b.n:
                print(f"[{b.lo:.1f}, {b.hi:.1f}{']' if b.hi >= 1 else ')'}    {b.n:>3} "
                      f"{b.mean_predicted:>9.3f} {b.observed:>8.3f}")
        infra = mem.calibration(tags=["infra"])
        print(f"infra decisions only: {infra.n_reviewed} reviewed, Brier {infra.brier:.4f}")
        try:
            plot_reliability(report, args.png)
            print(f"reliability diagram written to {args.png}")
        except engramdb.BackendUnavailableError as exc:   # no matplotlib: the numbers above stand
            print(f"no reliability diagram: {exc}")
        block = mem.context("Should we use Postgres for the billing service database?", frame="decision")
        print(block.track_record.sentence() if block.track_record else "no similar decision")


if __name__ == "__main__":
    main()
