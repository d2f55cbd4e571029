"""Consolidation variants on the LoCoMo tuning half only (never the held-out half).

Each variant ingests the tuning conversations (``bench_locomo_recall.TUNE_SPLIT``) into its own
store, consolidates each conversation a week after its last turn with that
``ConsolidationConfig``, and reports evidence R@10 / R@20 overall and per category with the
default recall. Used to choose the consolidation defaults without looking at the held-out half.

    python benchmarks/tune_locomo_consolidation.py [--embedder hashing|minilm] [VARIANT ...]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import engramdb  # noqa: E402
from bench_locomo_recall import TUNE_SPLIT, _summarise, run_queries  # noqa: E402
from engramdb.config import ConsolidationConfig  # noqa: E402
from engramdb.embed import get_embedder  # noqa: E402
from engramdb.ingest import ingest_locomo  # noqa: E402
from engramdb.locomo import CATEGORY_NAMES, load_locomo  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
VARIANTS = {
    "none": None,
    "all": ConsolidationConfig(),
    "summaries-picked": ConsolidationConfig(summary_links="picked"),
    "facts-only": ConsolidationConfig(summaries=False),
    "summaries-picked-only": ConsolidationConfig(facts=False, summary_links="picked"),
    "2-sentence-summaries": ConsolidationConfig(summary_sentences=2, sentences_per_summary_line=8),
    "1-sentence-summaries": ConsolidationConfig(summary_sentences=1),
}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--embedder", choices=["hashing", "minilm"], default="hashing")
    ap.add_argument("variants", nargs="*", help=f"some of {list(VARIANTS)} (default: all)")
    ap.add_argument("--out", default=str(RESULTS / "locomo_consolidation_tuning.json"))
    args = ap.parse_args(argv)
    unknown = set(args.variants) - set(VARIANTS)
    if unknown:
        ap.error(f"unknown variant(s) {sorted(unknown)}; choose from {list(VARIANTS)}")
    args.variants = args.variants or list(VARIANTS)
    load = os.getloadavg()
    convs = [c for c in load_locomo() if c.sample_id in TUNE_SPLIT]
    emb = get_embedder(args.embedder, 384)
    out = {}
    for name in args.variants:
        cc = VARIANTS[name]
        with tempfile.TemporaryDirectory() as d, engramdb.open(d, dim=emb.dim, embedder=emb) as eng:
            ingest_locomo(eng, conversations=list(TUNE_SPLIT), progress=False)
            if cc is not None:
                for c in convs:
                    eng.consolidate(namespace=c.sample_id, now=max(t.created_at for t in c.turns()) + 7 * 86400, config=cc)
            rows, _ = run_queries(eng, convs, emb, [(name, eng.config.recall)])
        r = rows[name]
        cats: dict = {}
        for x in r:
            cats.setdefault(f"{x['category']} {CATEGORY_NAMES[x['category']]}", []).append(x)
        out[name] = {**_summarise(r), "per_category_recall@10": {k: _summarise(v)["recall@10"] for k, v in sorted(cats.items())}}
        print(name, out[name]["recall@10"], out[name]["recall@20"], out[name]["per_category_recall@10"], flush=True)
    Path(args.out).write_text(json.dumps({
        "command": " ".join(["python", "benchmarks/tune_locomo_consolidation.py", *sys.argv[1:]]),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "loadavg_at_start": [round(x, 2) for x in load],
        "embedder": emb.name, "tuning_split": list(TUNE_SPLIT), "variants": out}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
