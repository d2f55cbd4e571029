"""Capacity plan for 1,000 tenants x 1M memories each, from measured per-shard figures.

Measures here (hashing embedder, 384-d; LoCoMo turns from ../shared/data at run time):

1. disk per memory: one store holding ``--n`` memories in one namespace (one tenant), every
   file under the store directory (LMDB + hnswlib index + vector matrix + snapshots);
2. RAM per memory of a hot tenant: resident set size of a fresh process after opening that
   store and answering recalls (the hnswlib graph and the vector matrix in memory), minus the
   same process's size before opening;
3. nightly rescore rate per core: read from ``benchmarks/results/scale_out.json``
   (``bench_scale_out.py``, ``rescore(materialize=True)``, medians): the slower of one
   worker's shard-work rate and the 2-worker job rate halved.

Then the plan's arithmetic, with the node shape and the share of tenants hot at once as stated
parameters, written to ``benchmarks/results/scale_out_plan.json`` and printed (docs/scale_out.md
quotes it).

    python benchmarks/scale_out_plan.py [--n 50000]
"""
from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"

PROBE = r"""
import json, os, sys, numpy as np
def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
import engramdb
from engramdb.embed import get_embedder
emb = get_embedder("hashing", 384)
q = emb.embed(["what did she say about the trip?"])[0]
from engramdb.config import EngramConfig, IndexConfig
import tempfile
with engramdb.open(tempfile.mkdtemp(), embedder=emb) as warm:   # load every module first
    warm.add("warm-up", namespace="tenant")
    warm.recall("warm-up", namespace="tenant")
before = rss()
# the hnswlib index loads at open (not in the background), so the resident size includes it
eng = engramdb.open(sys.argv[1], readonly=True, config=EngramConfig(index=IndexConfig(background_load_bytes=1 << 62)))
for _ in range(20):
    eng.recall("trip plans and dates", vector=q, namespace="tenant", k=10, reinforce=False)
print(json.dumps({"rss_before": before, "rss_after": rss()}))
"""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=50000, help="memories in the measured one-tenant store")
    ap.add_argument("--tenants", type=int, default=1000)
    ap.add_argument("--per-tenant", type=int, default=1_000_000)
    ap.add_argument("--node-cores", type=int, default=16, help="vCPUs per node (stated assumption)")
    ap.add_argument("--node-ram-gib", type=float, default=128.0)
    ap.add_argument("--node-disk-tib", type=float, default=3.84, help="usable NVMe per node")
    ap.add_argument("--hot-share", type=float, default=0.10, help="share of tenants whose index is in RAM at once")
    ap.add_argument("--window-h", type=float, default=4.0, help="nightly window for the rescore")
    ap.add_argument("--disk-headroom", type=float, default=2.0,
                    help="disk kept per byte stored (LMDB map growth by doubling, compaction copy, export)")
    args = ap.parse_args(argv)

    import engramdb
    from engramdb.embed import get_embedder
    from engramdb.locomo import default_locomo_path, load_locomo

    load = os.getloadavg()
    convs = load_locomo(default_locomo_path())
    texts = [f"{t.speaker}: {t.text}" for c in convs for s in c.sessions for t in s.turns]
    times = [t.created_at for c in convs for s in c.sessions for t in s.turns]
    emb = get_embedder("hashing", 384)
    uniq = sorted(set(texts))
    vec = dict(zip(uniq, emb.embed(uniq)))
    with tempfile.TemporaryDirectory(prefix="engramdb-plan-") as tmp:
        path = os.path.join(tmp, "store")
        t0 = time.perf_counter()
        with engramdb.open(path, embedder=emb) as eng:
            for start in range(0, args.n, 5000):
                idx = range(start, min(start + 5000, args.n))
                eng.add_batch([{"id": f"m{i}", "text": texts[i % len(texts)], "embedding": vec[texts[i % len(texts)]],
                                "created_at": times[i % len(times)], "kind": "episodic"} for i in idx],
                              namespace="tenant")
        build_s = time.perf_counter() - t0
        files = {str(p.relative_to(path)): p.stat().st_size for p in Path(path).rglob("*") if p.is_file()}
        probe = json.loads(subprocess.run([sys.executable, "-c", PROBE, path], capture_output=True, text=True,
                                          check=True).stdout.splitlines()[-1])
    disk = sum(files.values())
    disk_per_mem = disk / args.n
    ram_per_mem = (probe["rss_after"] - probe["rss_before"]) / args.n
    bench = json.loads((RESULTS / "scale_out.json").read_text())
    rate_one = bench["median"]["sequential"]["rescore"]["shard_work_memories_per_s"]
    rate_ray2 = bench["median"]["ray-2"]["rescore"]["items_per_s"]
    # per core: the slower of one worker's shard-work rate and the 2-worker job rate on 2 cores
    # halved (two writers on one machine share its disk and memory bandwidth)
    rate = min(rate_one, rate_ray2 / 2)

    total = args.tenants * args.per_tenant
    disk_total = total * disk_per_mem
    disk_need = disk_total * args.disk_headroom
    ram_hot = args.tenants * args.hot_share * args.per_tenant * ram_per_mem
    worker_s = total / rate                                   # one worker's seconds for the whole fleet
    nodes_disk = math.ceil(disk_need / (args.node_disk_tib * 2**40))
    nodes_ram = math.ceil(ram_hot / (0.75 * args.node_ram_gib * 2**30))   # 25 % of RAM for the OS, page cache, Ray
    nodes_cpu = math.ceil(worker_s / (args.node_cores * args.window_h * 3600))
    nodes = max(nodes_disk, nodes_ram, nodes_cpu)
    per_node = {"tenants": args.tenants / nodes, "memories": total / nodes, "disk_bytes": disk_need / nodes,
                "ram_hot_bytes": ram_hot / nodes,
                "nightly_rescore_s": worker_s / nodes / args.node_cores}
    doc = {"command": "python benchmarks/scale_out_plan.py " + " ".join(sys.argv[1:] if argv is None else argv),
           "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "load_at_start": [round(x, 2) for x in load],
           "measured": {"store_memories": args.n, "build_s": round(build_s, 1), "disk_bytes": disk,
                        "disk_bytes_per_memory": round(disk_per_mem, 1), "files": files,
                        "rss_before": probe["rss_before"], "rss_after": probe["rss_after"],
                        "ram_bytes_per_hot_memory": round(ram_per_mem, 1),
                        "rescore_shard_work_memories_per_s_one_worker": rate_one,
                        "rescore_ray2_job_memories_per_s_2_cores": rate_ray2,
                        "rescore_memories_per_s_per_core_used": rate,
                        "from": "benchmarks/results/scale_out.json (" + bench["command"] + ")"},
           "assumptions": {k: getattr(args, k) for k in ("tenants", "per_tenant", "node_cores", "node_ram_gib",
                                                         "node_disk_tib", "hot_share", "window_h", "disk_headroom")},
           "plan": {"memories": total, "disk_bytes": disk_total, "disk_bytes_with_headroom": disk_need,
                    "ram_hot_bytes": ram_hot, "rescore_worker_seconds": worker_s,
                    "nodes_for_disk": nodes_disk, "nodes_for_ram": nodes_ram, "nodes_for_rescore": nodes_cpu,
                    "nodes": nodes, "per_node": per_node}}
    out = RESULTS / "scale_out_plan.json"
    out.write_text(json.dumps(doc, indent=2) + "\n")
    gib, tib = 2**30, 2**40
    print(f"load at start {doc['load_at_start']}")
    print(f"disk {disk_per_mem:.0f} B/memory, RAM {ram_per_mem:.0f} B/hot memory, rescore {rate:.0f} memories/s per worker")
    print(f"{total:.3g} memories: disk {disk_total / tib:.1f} TiB (x{args.disk_headroom} = {disk_need / tib:.1f} TiB), "
          f"hot RAM {ram_hot / gib:.0f} GiB, rescore {worker_s / 3600:.1f} worker-hours")
    print(f"nodes: disk {nodes_disk}, RAM {nodes_ram}, rescore {nodes_cpu} -> {nodes}; per node "
          f"{per_node['tenants']:.0f} tenants, {per_node['disk_bytes'] / tib:.2f} TiB, "
          f"{per_node['ram_hot_bytes'] / gib:.0f} GiB hot, nightly rescore {per_node['nightly_rescore_s'] / 60:.0f} min")
    return 0


if __name__ == "__main__":
    sys.exit(main())
