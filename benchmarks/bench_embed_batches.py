"""Embedding a long chat reply with its blocks: length-bucketed forward passes vs one padded pass.

``add_conversation`` stores a long assistant reply and its blocks (code, list items,
paragraphs: ``engramdb.conversation.split_blocks``) and embeds them in one call. MiniLM pads every
text of a forward pass to the longest one, so a 1.6k-character reply embedded with its fourteen
short blocks made all fifteen 256 word pieces long (a fresh user: 1.6 to 2.0 s per session with
one such reply). ``MiniLMEmbedder.embed`` now opens a new pass where a text is more than twice as
long as the shortest of its pass. The baseline, in the same run, is the earlier batching: the
same length-sorted texts in passes of ``batch_size`` (16), whatever their lengths (the
embedder's one forward pass, called directly). The replies are generated at run time; the
vectors of both ways are compared (max absolute difference).

    python benchmarks/bench_embed_batches.py [--repeats 7]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from pathlib import Path

import numpy as np

from engramdb.conversation import split_blocks
from engramdb.embed import MiniLMEmbedder

RESULTS = Path(__file__).resolve().parent / "results"


def reply(items: int) -> str:
    """An assistant reply: a lead-in, a numbered list of ``items`` steps and a closing paragraph."""
    steps = "\n".join(f"{i + 1}. Write down the reading, the time of day and what you ate in the two hours "
                      f"before step {i + 1}." for i in range(items))
    return ("Here is a simple way to track your glucose for the next two weeks.\n\n" + steps
            + "\n\nBring the log to your next appointment so your doctor can see the pattern.")


def one_padded_pass(embedder: MiniLMEmbedder, texts: list[str]) -> np.ndarray:
    """The earlier batching: length-sorted, ``batch_size`` texts a pass, whatever their lengths."""
    out = np.zeros((len(texts), embedder.dim), np.float32)
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    for start in range(0, len(order), embedder.batch_size):
        idx = order[start:start + embedder.batch_size]
        out[idx] = embedder._forward([texts[i] for i in idx])   # the forward pass alone (baseline)
    return out


def median_s(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--out", default=str(RESULTS / "embed_batches.json"))
    args = ap.parse_args(argv)
    load = os.getloadavg()
    embedder = MiniLMEmbedder()
    rows = []
    for items in (4, 8, 12):   # a reply and its blocks within one pass of 16 (more were never one pass)
        text = reply(items)
        texts = [text] + split_blocks(text)
        embedder.embed(texts)   # warm
        one_padded_pass(embedder, texts)
        new = median_s(lambda: embedder.embed(texts), args.repeats)
        old = median_s(lambda: one_padded_pass(embedder, texts), args.repeats)
        diff = float(np.abs(embedder.embed(texts) - one_padded_pass(embedder, texts)).max())
        rows.append({"reply_chars": len(text), "texts": len(texts), "bucketed_ms": round(1e3 * new, 1),
                     "one_padded_pass_ms": round(1e3 * old, 1), "x_faster": round(old / new, 2),
                     "max_abs_difference": diff})
        print(f"reply of {len(text)} chars + {len(texts) - 1} blocks: bucketed {1e3 * new:.0f} ms, "
              f"one padded pass {1e3 * old:.0f} ms ({old / new:.1f}x), max difference {diff:.2g}")
    doc = {"benchmark": __doc__.splitlines()[0], "command": "python benchmarks/bench_embed_batches.py",
           "date": time.strftime("%Y-%m-%d"), "loadavg_start": [round(x, 2) for x in load],
           "machine": {"python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count()},
           "repeats": args.repeats, "rows": rows}
    Path(args.out).write_text(json.dumps(doc, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
