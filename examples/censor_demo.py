"""A censor rule keeps one memory out of recall, context and export; a warn rule annotates; an
absolute rule refuses a write. Every hit is logged on the "engramdb.censor" logger.

    python examples/censor_demo.py
"""
import logging
import sys
import tempfile

import pyarrow.parquet as pq

import engramdb

logging.basicConfig(stream=sys.stdout, level=logging.WARNING, format="  log: %(message)s")
logging.getLogger("engramdb.censor").setLevel(logging.INFO)


def show(mem, label, out):
    res = mem.recall("What is the confirmation code of my flight?", k=5, reinforce=False)
    block = mem.context("What is the confirmation code of my flight?")
    rows = pq.read_table(mem.export(f"{out}/{label}")["memories"]).column("id").to_pylist()
    print(f"[{label}] recall: {[h.id for h in res.hits]}")
    print(f"[{label}] context mentions the code: {'QX7Z9M' in block.text}")
    print(f"[{label}] export ids: {sorted(rows)}")


with tempfile.TemporaryDirectory() as d, engramdb.open(f"{d}/store", embedder="hashing") as mem:
    mem.add("I booked TAP flight TP 218, Boston to Lisbon.", id="flight", kind="episodic")
    mem.add("The airline emailed confirmation code QX7Z9M.", id="code",
            links=[{"to": "flight", "relation": "evidence_for"}])
    mem.add("We leave on May 14 and come back on May 21.", id="dates",
            links=[{"to": "flight", "relation": "evidence_for"}])
    show(mem, "before", d)

    rule = mem.censor(pattern=r"confirmation code", action="block", reason="booking codes stay private")
    print(f"added rule {rule.id}: block /{rule.pattern}/")
    show(mem, "blocked", d)
    try:
        mem.get("code")
    except engramdb.MemoryBlockedError as exc:
        print(f"get('code') -> {type(exc).__name__}: {exc}")

    mem.censor(pattern=r"\bMay 21\b", action="warn", reason="return date may change")
    hit = [h for h in mem.recall("when do we come back?", k=3, reinforce=False).hits if h.id == "dates"][0]
    print(f"warn note on 'dates': {[(n.rule_id, n.reason) for n in hit.censor_notes]}")

    mem.censor(pattern=r"\bpassport number\b", action="absolute", reason="never store passport numbers")
    try:
        mem.add("My passport number is X1234567.")
    except engramdb.CensoredError as exc:
        print(f"add refused -> {type(exc).__name__}: {exc}")

    print("hits per rule:", {r.id: (r.action.value, r.hits) for r in mem.censors()})
    mem.remove_censor(rule.id)
    show(mem, "rule removed", d)
