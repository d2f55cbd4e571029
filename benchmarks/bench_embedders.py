"""The two built-in embedders side by side: hashed n-grams vs all-MiniLM-L6-v2 (int8 ONNX).

Both run in the same process, on the same data, one after the other (latency passes
alternate between them so that a change in machine load hits both):

- paraphrases: benchmarks/data/paraphrase_pairs.jsonl, 60 fact/question pairs written for this
  project that share no content word (no index term of ``engramdb.index.keyword.tokenize``;
  tests/test_embed.py checks it). Each question ranks all 60 facts; R@k = share of questions
  whose own fact is in the top k.
- LoCoMo: evidence recall within the question's own conversation (1,982 questions, 5,882
  turns), as in bench_locomo_recall.py; R@k = share of a question's evidence turns in the top
  k (so R@1 is below 1 for a question with two evidence turns, whatever the ranking).

Each is ranked two ways: "flat cosine" (the embedder alone, exact top-k) and "engramdb"
(``recall`` with the default RecallConfig: vector + BM25 + graph + time cues; query vector
given). Query-embedding latency is ``embed([question])`` for one question at a time, single
query, warm; the median over the questions is taken in each of ``--repeats`` passes and the
median of those is reported (with the spread of the passes).

LoCoMo data: ../shared/data/locomo/locomo10.json (or $ENGRAMDB_LOCOMO), read at run time only.

    python benchmarks/bench_embedders.py [--repeats 5] [--no-locomo]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import engramdb
from engramdb.embed import HashingEmbedder, MiniLMEmbedder
from engramdb.index import ExactIndex
from engramdb.ingest import ingest_locomo
from engramdb.kernels import registry
from engramdb.locomo import default_locomo_path, load_locomo

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
PAIRS = HERE / "data" / "paraphrase_pairs.jsonl"
KS = (1, 5, 10)
EMBEDDERS = ("hashing", "minilm")


def make_embedder(name: str):
    """The embedder as a new store gets it by name (MiniLM: the default ONNX backend)."""
    return HashingEmbedder() if name == "hashing" else MiniLMEmbedder(backend="onnx")


def _recall_at(ranked: list[str], relevant: set[str]) -> dict[int, float]:
    return {k: len(relevant & set(ranked[:k])) / len(relevant) for k in KS}


def _mean(rows: list[dict[int, float]]) -> dict[str, float]:
    return {f"R@{k}": round(100 * float(np.mean([r[k] for r in rows])), 2) for k in KS}


def paraphrases(embedder, pairs: list[dict]) -> dict:
    """R@k of flat cosine and of engramdb recall over the paraphrase facts."""
    flat_rows, eng_rows = [], []
    qvecs = embedder.embed([p["question"] for p in pairs])
    with tempfile.TemporaryDirectory(prefix="engramdb-para-") as d:
        with engramdb.open(d, embedder=embedder) as eng:
            eng.add_batch([{"text": p["fact"], "id": p["id"], "kind": "semantic"} for p in pairs])
            ids = [p["id"] for p in pairs]
            fvecs = np.stack([eng.get(i, with_embedding=True).embedding for i in ids])
            flat = ExactIndex(eng.dim)
            flat.add(fvecs, np.arange(len(ids)))
            for p, qv in zip(pairs, qvecs):
                labels, _ = flat.knn(qv, max(KS))
                flat_rows.append(_recall_at([ids[i] for i in labels], {p["id"]}))
                res = eng.recall(p["question"], vector=qv, k=max(KS), reinforce=False)
                eng_rows.append(_recall_at([h.id for h in res.hits], {p["id"]}))
    return {"pairs": len(pairs), "flat_cosine": _mean(flat_rows), "engramdb": _mean(eng_rows)}


def locomo(embedder, data: Path) -> dict:
    """Evidence R@k of flat cosine and engramdb recall on all LoCoMo conversations."""
    convs = load_locomo(data)
    flat_rows, eng_rows = [], []
    with tempfile.TemporaryDirectory(prefix="engramdb-locomo-") as d:
        t0 = time.perf_counter()
        with engramdb.open(d, embedder=embedder) as eng:
            ingest_locomo(eng, data, progress=False)
            ingest_s = time.perf_counter() - t0
            for conv in convs:
                ns = conv.sample_id
                turn_ids = [t.dia_id for s in conv.sessions for t in s.turns]
                turn_set = set(turn_ids)
                vecs = np.stack([eng.get(t, namespace=ns, with_embedding=True).embedding for t in turn_ids])
                flat = ExactIndex(eng.dim)
                flat.add(vecs, np.arange(len(turn_ids)))
                items = [q for q in conv.qa if q.evidence]
                qvecs = embedder.embed([q.question for q in items])
                for q, qv in zip(items, qvecs):
                    ev = set(q.evidence)
                    labels, _ = flat.knn(qv, max(KS))
                    flat_rows.append(_recall_at([turn_ids[i] for i in labels], ev))
                    res = eng.recall(q.question, vector=qv, namespace=ns, k=max(KS) + 10, reinforce=False)
                    eng_rows.append(_recall_at([h.id for h in res.hits if h.id in turn_set], ev))
    return {"questions": len(flat_rows), "ingest_s": round(ingest_s, 1),
            "flat_cosine": _mean(flat_rows), "engramdb": _mean(eng_rows)}


def query_latency(embedders: dict, questions: list[str], repeats: int) -> dict:
    """Median µs of embed([q]), one question at a time; passes alternate between embedders."""
    for e in embedders.values():   # warm-up: first calls allocate
        for q in questions[:10]:
            e.embed([q])
    passes: dict[str, list[float]] = {name: [] for name in embedders}
    for _ in range(repeats):
        for name, e in embedders.items():
            ts = []
            for q in questions:
                t0 = time.perf_counter()
                e.embed([q])
                ts.append(time.perf_counter() - t0)
            passes[name].append(1e6 * float(np.median(ts)))
    return {name: {"median_us": round(float(np.median(v)), 1),
                   "pass_medians_us": [round(x, 1) for x in v]} for name, v in passes.items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5, help="latency passes per embedder (default 5)")
    ap.add_argument("--no-locomo", action="store_true", help="skip the LoCoMo part")
    ap.add_argument("--data", default=None, help="locomo10.json (default: ../shared/data/locomo/)")
    ap.add_argument("--out", default=str(RESULTS / "embedders.json"))
    args = ap.parse_args(argv)

    load_at_start = [round(x, 2) for x in os.getloadavg()]
    pairs = [json.loads(line) for line in PAIRS.read_text().splitlines() if line.strip()]
    embedders, load_s = {}, {}
    for name in EMBEDDERS:
        t0 = time.perf_counter()
        embedders[name] = make_embedder(name)
        load_s[name] = round(time.perf_counter() - t0, 3)
    data = Path(args.data) if args.data else default_locomo_path()
    use_locomo = not args.no_locomo and data.exists()
    if not args.no_locomo and not use_locomo:
        print(f"LoCoMo data not found at {data}; set ENGRAMDB_LOCOMO (running paraphrases only)",
              file=sys.stderr)

    runs = {}
    for name, e in embedders.items():
        runs[name] = {"embedder": e.name, "load_s": load_s[name], "paraphrases": paraphrases(e, pairs)}
        if use_locomo:
            runs[name]["locomo"] = locomo(e, data)
    questions = [p["question"] for p in pairs]
    if use_locomo:   # plus every 8th LoCoMo question: longer, more varied queries
        questions += [q.question for c in load_locomo(data) for q in c.qa if q.evidence][::8]
    lat = query_latency(embedders, questions, args.repeats)
    for name in runs:
        runs[name]["query_embed"] = {"questions": len(questions), "repeats": args.repeats, **lat[name]}

    command = "python benchmarks/bench_embedders.py" + ("" if args.repeats == 5 else f" --repeats {args.repeats}") \
        + (" --no-locomo" if args.no_locomo else "")
    doc = {"benchmark": "built-in embedders: paraphrase pairs and LoCoMo evidence recall, query-embedding latency",
           "command": command, "date": time.strftime("%Y-%m-%d"),
           "machine": {"python": platform.python_version(), "machine": platform.machine(),
                       "cpus": os.cpu_count(), "engramdb": engramdb.__version__,
                       "kernel_backend": registry.active_backend(),
                       "onnxruntime": _version("onnxruntime"), "tokenizers": _version("tokenizers"),
                       "loadavg_at_start": load_at_start,
                       "loadavg_at_end": [round(x, 2) for x in os.getloadavg()]},
           "runs": runs}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=2) + "\n")
    table = markdown(doc)
    out.with_suffix(".md").write_text(table)
    print(table)
    return 0


def _version(dist: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return None


def markdown(doc: dict) -> str:
    """The results as a short markdown table (written beside the JSON)."""
    m = doc["machine"]
    lines = ["# Built-in embedders: hashed n-grams vs all-MiniLM-L6-v2 (int8 ONNX)", "",
             f"Rerun: `{doc['command']}` ({doc['date']}, {m['cpus']} CPUs, load average "
             f"{m['loadavg_at_start'][0]} at start, {m['loadavg_at_end'][0]} at end). Paraphrases: "
             "`benchmarks/data/paraphrase_pairs.jsonl`, questions sharing no content word with "
             "their fact, each ranking all facts. LoCoMo: evidence recall within the question's "
             "conversation (share of evidence turns in the top k). flat = the embedder's cosine "
             "alone; engramdb = default recall (vector + BM25 + graph + time), query vector given. "
             "Query embedding: one question per call, median µs (median of the passes; "
             "their range in brackets). load: building the embedder; ingest: all 10 "
             "conversations into a new store (embedding, indexing, linking).", "",
             "| embedder | paraphrase flat R@1 | R@5 | paraphrase engramdb R@1 | R@5 | "
             "LoCoMo flat R@1 | R@5 | LoCoMo engramdb R@1 | R@5 | query embed µs | load s | "
             "LoCoMo ingest s |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in doc["runs"].values():
        p, lo, qe = r["paraphrases"], r.get("locomo"), r["query_embed"]
        loc = ([lo["flat_cosine"]["R@1"], lo["flat_cosine"]["R@5"], lo["engramdb"]["R@1"], lo["engramdb"]["R@5"]]
               if lo else ["", "", "", ""])
        spread = f"{min(qe['pass_medians_us'])}-{max(qe['pass_medians_us'])}"
        lines.append(f"| {r['embedder']} | {p['flat_cosine']['R@1']} | {p['flat_cosine']['R@5']} | "
                     f"{p['engramdb']['R@1']} | {p['engramdb']['R@5']} | "
                     + " | ".join(str(x) for x in loc)
                     + f" | {qe['median_us']} [{spread}] | {r['load_s']} | {lo['ingest_s'] if lo else ''} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
