"""LoCoMo reshaped as long chats stored the plain way: does recall's lead over BM25 hold?

Issue 15's held-out benchmark (which we do not have) stores long user-assistant chats of about
1,000 messages with ``add_batch``, each message linked ``next`` to the one before, and there
engramdb's lead over BM25 shrinks. This benchmark builds the nearest thing LoCoMo allows, at
run time from ../shared (nothing is committed):

- **long chats**: the five conversations of one half (``bench_locomo_recall.TUNE_SPLIT`` or the
  held-out rest) one after the other in one namespace, about 2,900 turns;
- **long messages**: ``--merge`` consecutive turns of a session make one message (default 4 and
  16: about 500 and 1,600 characters), stored with the date of its first turn;
- **no speaker names**: a message is the turns' text alone, as a chat's messages carry no
  "Name:" prefix (the names still occur where the speakers address each other);
- **pieces**: with ``--chunk-chars`` below the message length (default 300), most messages are
  stored as pieces (``StoreConfig.chunk_chars``), as a long assistant message is at the default
  4,000; at 2,000 (16 turns a message) about two in five are, the others stay whole (the mix of a
  real chat, where only the long answers are split); a run at 4,000 keeps every message whole.

A question's evidence turns map to the messages that hold them; recall@k is the share of those
messages among the first k hits (ids), as in ``bench_locomo_recall.py``. In the same run:
``bm25`` (engramdb's keyword leg alone: no vector, graph, time cues or feedback) and the
default recall, for the tuning half and the held-out half, per category; query vector given.

    python benchmarks/bench_long_chats.py [--merge 4 16] [--chunk-chars 300 2000 4000] [--embedder hashing]
        [--haystack half|all] [--ablation]

``--roles`` stores the chat as a user and an assistant would: one message per turn (``--merge 1``),
``"user: "`` before the first speaker's turns and ``"assistant: "`` before the other's, no names;
a question naming the first speaker (and not the other) is asked in the first person, as the
user would ask it ("What did Caroline paint?" -> "What did I paint?", "Caroline's" -> "my"). It
shows source attribution (``RecallConfig.w_speaker``: "I" names the ``user``) on the shape of
issue 15's held-out chats; with ``--ablation`` the ``no_speaker`` row has it off.

``--haystack all`` stores all ten conversations as one chat (about 1,100 messages at
``--merge 6``, 730 characters each: the size of the held-out chats) and asks each half's
questions of it, the other conversations' messages standing as distractors, as the filler
sessions of a real long chat do. ``--ablation`` adds the default recall without the graph
(``w_graph`` 0), the vector leg, time cues and pseudo-relevance feedback.

Writes benchmarks/results/long_chats.json (``long_chats_haystack.json`` with ``--haystack all``;
one entry per embedder; a run replaces its embedder's).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import engramdb  # noqa: E402
from bench_locomo_recall import KS, TUNE_SPLIT, _score, _summarise  # noqa: E402
from engramdb.config import RecallConfig  # noqa: E402
from engramdb.embed import get_embedder  # noqa: E402
from engramdb.locomo import CATEGORY_NAMES, default_locomo_path, load_locomo  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"


def messages(convs, merge: int, roles: bool = False) -> tuple[list[dict], dict[str, str]]:
    """The add_batch items of one long chat and a map evidence turn -> message id (``roles``:
    one turn a message, after ``"user: "`` or ``"assistant: "``)."""
    items, where, prev = [], {}, None
    for conv in convs:
        for session in conv.sessions:
            turns = list(session.turns)
            for i in range(0, len(turns), merge):
                group = turns[i:i + merge]
                mid = f"{conv.sample_id}/{group[0].dia_id}"
                text = " ".join(t.text + (f" [shares a photo of {t.blip_caption}]" if t.blip_caption else "")
                                for t in group)
                if roles:
                    text = f"{'user' if group[0].speaker == conv.speakers[0] else 'assistant'}: {text}"
                item = {"id": mid, "text": text, "created_at": group[0].created_at, "kind": "episodic"}
                if prev is not None:
                    item["links"] = [{"to": prev, "relation": "next"}]
                items.append(item)
                prev = mid
                for t in group:
                    where[f"{conv.sample_id}/{t.dia_id}"] = mid
    return items, where


def first_person(question: str, conv) -> str:
    """``question`` as the user (the first speaker) asks it: their name becomes "I" ("my" for
    the possessive) when the question names them and not the other speaker."""
    user, other = (s.split()[0] for s in conv.speakers)
    if not re.search(rf"\b{re.escape(user)}\b", question) or re.search(rf"\b{re.escape(other)}\b", question):
        return question
    return re.sub(rf"\b{re.escape(user)}\b", "I", re.sub(rf"\b{re.escape(user)}'s\b", "my", question))


def run_half(convs, merge: int, chunk_chars: int, embedder, configs, haystack=None,
             roles: bool = False) -> tuple[dict, dict, dict]:
    """Rows per method, latencies per method, and the store's shape, for one long chat: the
    messages of ``haystack`` (default ``convs``), the questions of ``convs``."""
    items, where = messages(convs if haystack is None else haystack, merge, roles)
    cfg = engramdb.EngramConfig(store=engramdb.StoreConfig(chunk_chars=chunk_chars))
    rows = {name: [] for name, _ in configs}
    lat = {name: [] for name, _ in configs}
    with tempfile.TemporaryDirectory(prefix="engramdb-longchat-") as d, \
            engramdb.open(d, dim=embedder.dim, embedder=embedder, config=cfg) as eng:
        eng.add_batch(items, namespace="chat")
        st = eng.stats()
        shape = {"messages": len(items), "memories_with_pieces": st["memories"] + st["pieces"],
                 "mean_message_chars": round(float(np.mean([len(i["text"]) for i in items])), 1)}
        qs = [(c, q) for c in convs for q in c.qa if q.evidence]
        asked = [first_person(q.question, c) if roles else q.question for c, q in qs]
        qvecs = embedder.embed(asked)
        for (c, q), question, v in zip(qs, asked, qvecs):
            evidence = sorted({where[f"{c.sample_id}/{e}"] for e in q.evidence if f"{c.sample_id}/{e}" in where})
            if not evidence:
                continue
            for name, rc in configs:
                t0 = time.perf_counter()
                res = eng.recall(question, vector=v, namespace="chat", k=max(KS), config=rc)
                lat[name].append(time.perf_counter() - t0)
                rows[name].append({"category": q.category, "conv": c.sample_id,
                                   "scores": _score([h.id for h in res.hits], evidence)})
    return rows, lat, shape


def summary(rows: list[dict], lat: list[float]) -> dict:
    cats: dict[str, list] = {}
    for r in rows:
        cats.setdefault(f"{r['category']} {CATEGORY_NAMES[r['category']]}", []).append(r)
    return {"questions": len(rows), **_summarise(rows),
            "per_category_r10": {c: _summarise(v)["recall@10"] for c, v in sorted(cats.items())},
            "latency_median_us": round(1e6 * float(np.median(lat)), 1)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--merge", type=int, nargs="+", default=[4, 16],
                    help="turns per message (4: about 90 words, 16: about 280)")
    ap.add_argument("--chunk-chars", type=int, nargs="+", default=[300, 2000, 4000])
    ap.add_argument("--embedder", choices=["hashing", "minilm"], default="hashing")
    ap.add_argument("--haystack", choices=["half", "all"], default="half",
                    help="the chat: the half's five conversations (default), or all ten (each half's "
                         "questions then search the other half's messages too, as distractors)")
    ap.add_argument("--roles", action="store_true",
                    help="one turn a message after 'user: ' / 'assistant: ', questions about the user in the "
                         "first person (needs --merge 1)")
    ap.add_argument("--ablation", action="store_true",
                    help="also run the default recall without the graph, the vector leg, time cues, feedback")
    ap.add_argument("--out", default=None, help="default results/long_chats.json "
                                                "(results/long_chats_haystack.json with --haystack all)")
    args = ap.parse_args(argv)
    if args.roles and args.merge != [1]:
        ap.error("--roles stores one turn a message: give --merge 1")
    if args.out is None:
        args.out = str(RESULTS / ("long_chats_roles.json" if args.roles else
                                  "long_chats.json" if args.haystack == "half" else "long_chats_haystack.json"))
    load = os.getloadavg()
    convs = load_locomo(default_locomo_path())
    halves = {"tuning": [c for c in convs if c.sample_id in TUNE_SPLIT],
              "held_out": [c for c in convs if c.sample_id not in TUNE_SPLIT]}
    embedder = get_embedder(args.embedder, 384)
    base = RecallConfig()
    configs = [("bm25", replace(base, w_vector=0.0, w_keyword=1.0, w_graph=0.0, w_time=0.0, prf_terms=0,
                                w_speaker=0.0, question_weight=1.0)),
               ("engramdb", base)]
    if args.ablation:
        configs += [("no_graph", replace(base, w_graph=0.0)),
                    ("no_vector", replace(base, w_vector=0.0, w_keyword=1.0)),
                    ("no_time", replace(base, w_time=0.0)), ("no_feedback", replace(base, prf_terms=0)),
                    ("no_speaker", replace(base, w_speaker=0.0))]
    runs = []
    for merge, chunk in [(m, c) for m in args.merge for c in args.chunk_chars]:
        if args.haystack == "all":   # one chat of all ten, both halves' questions asked of it
            rows, lat, shape = run_half(convs, merge, chunk, embedder, configs, roles=args.roles)
            parts = {}
            for half in halves:
                mine = {n: [(r, t) for r, t in zip(rows[n], lat[n]) if (r["conv"] in TUNE_SPLIT) == (half == "tuning")]
                        for n in rows}
                parts[half] = ({n: [r for r, _ in v] for n, v in mine.items()},
                               {n: [t for _, t in v] for n, v in mine.items()})
        else:
            parts = {}
            for half, cs in halves.items():
                rows, lat, shape_h = run_half(cs, merge, chunk, embedder, configs, roles=args.roles)
                parts[half] = (rows, lat, shape_h)
        for half in halves:
            rows, lat = parts[half][0], parts[half][1]
            if args.haystack == "half":
                shape = parts[half][2]
            for name, _ in configs:
                s = summary(rows[name], lat[name])
                runs.append({"method": name, "half": half, "chunk_chars": chunk, "merge": merge, **shape, **s})
                print(f"merge {merge:2d} chunk_chars {chunk:5d} {half:8s} {name:9s} ({shape['messages']} messages, "
                      f"{shape['memories_with_pieces']} memories)  R@5 {s['recall@5']:5.1f}  R@10 {s['recall@10']:5.1f}  "
                      f"R@20 {s['recall@20']:5.1f}  median {s['latency_median_us']:.0f} us", flush=True)
    for merge, chunk in [(m, c) for m in args.merge for c in args.chunk_chars]:
        for half in halves:
            b, e = (next(r for r in runs if r["method"] == m and r["half"] == half and r["chunk_chars"] == chunk
                         and r["merge"] == merge) for m in ("bm25", "engramdb"))
            print(f"merge {merge:2d} chunk_chars {chunk:5d} {half:8s} engramdb - bm25: "
                  + "  ".join(f"R@{k} {e[f'recall@{k}'] - b[f'recall@{k}']:+.1f}" for k in KS))
    run = {"command": " ".join(["python", "benchmarks/bench_long_chats.py", *sys.argv[1:]]),
           "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
           "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "machine": platform.machine(),
                       "loadavg_start": [round(x, 2) for x in load]},
           "embedder": embedder.name, "runs": runs}
    out = Path(args.out)   # one entry per embedder: a run replaces the earlier one of its embedder
    doc = json.loads(out.read_text()) if out.exists() else {}
    what = "all ten conversations in one chat" if args.haystack == "all" else "each half's five in one chat"
    how = ("one turn a message after 'user: ' / 'assistant: ', questions about the user in the first person"
           if args.roles else "merged turns, no speaker names, pieces")
    doc = {"benchmark": f"LoCoMo as long chats ({what}; add_batch + next, {how})",
           "by_embedder": {**doc.get("by_embedder", {}), embedder.name: run}}
    out.write_text(json.dumps(doc, indent=2) + "\n")
    write_table(doc, out.with_suffix(".md"))
    return 0


def write_table(doc: dict, md: Path) -> None:
    """Rewrite the table of ``md`` from ``doc`` (every embedder's latest run), keeping any text
    written below it (from its first ``## `` heading on)."""
    notes = ""
    if md.exists():
        old = md.read_text()
        at = old.find("\n## ")
        notes = old[at:] if at >= 0 else ""
    runs = list(doc["by_embedder"].values())
    lines = [f"# {doc['benchmark']}", "",
             "Rerun: " + "; ".join(f"`{r['command']}` ({r['date']}, load at start {r['machine']['loadavg_start'][0]})"
                                   for r in runs) + ". Query vector given. R@k: share of the evidence messages "
             "among the first k hits.", "",
             "| embedder | merge | chunk chars | messages | mean chars | half | method | R@5 | R@10 | R@20 | "
             "multi-hop R@10 | temporal R@10 | open-domain R@10 | single-hop R@10 | median µs |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in runs:
        for x in r["runs"]:
            c = x["per_category_r10"]
            lines.append(f"| {r['embedder'][:16]} | {x['merge']} | {x['chunk_chars']} | {x['messages']} | "
                         f"{x['mean_message_chars']:.0f} | {x['half']} | {x['method']} | {x['recall@5']:.1f} | "
                         f"{x['recall@10']:.1f} | {x['recall@20']:.1f} | {c.get('1 multi-hop', 0):.1f} | "
                         f"{c.get('2 temporal', 0):.1f} | {c.get('3 open-domain', 0):.1f} | "
                         f"{c.get('4 single-hop', 0):.1f} | {x['latency_median_us']:.0f} |")
    md.write_text("\n".join(lines) + "\n" + notes)


if __name__ == "__main__":
    raise SystemExit(main())
