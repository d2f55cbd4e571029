"""Real asynchronous Ctrl-C (SIGALRM raising KeyboardInterrupt at random moments) during writes:
the engine never hangs, and after a reopen it holds exactly what was committed.

An interrupt can land anywhere: inside the readers-writer lock's bookkeeping (the inner mutex
was left locked, and every later call hung), between a lock's acquire and its ``try`` (the hold
was never released, and the engine skipped rebuilding caches that missed a commit, then saved
its stale graph over the committed edges), or after a commit, before the caches took it in.
Run in a subprocess with a deadline, so a hang fails the test instead of stalling the suite."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent(r'''
    import json, random, signal, sys, tempfile
    import engramdb
    rng = random.Random(int(sys.argv[2]))
    armed = False
    def handler(sig, frm):
        if armed:
            raise KeyboardInterrupt
    signal.signal(signal.SIGALRM, handler)
    path = sys.argv[1]
    eng = engramdb.open(path, embedder="hashing")
    eng.add_batch([{"text": f"warm up memory {i} about topic {i % 7}", "id": f"w{i}"} for i in range(40)])
    interrupted = 0
    for it in range(int(sys.argv[3])):
        try:
            armed = True
            signal.setitimer(signal.ITIMER_REAL, rng.uniform(1e-6, 4e-4))
            a, b = rng.sample(range(40), 2)
            if it % 3:
                eng.link(f"w{a}", f"w{b}", "supports")
            else:
                eng.add(f"note {it} on topic {a}", id=f"n{it}", links=[{"to": f"w{b}", "relation": "supports"}])
            eng.query(limit=3)
        except KeyboardInterrupt:
            interrupted += 1
        finally:
            armed = False
            signal.setitimer(signal.ITIMER_REAL, 0)
    # then a commit whose cache changes are cut short, and an erase that saves the graph
    class Stop:
        armed = True
        def __call__(self, mem):
            if self.armed and mem.id == "b3":
                raise KeyboardInterrupt
            return False
    stop = Stop()
    eng.censor(match=stop, id="stop")
    try:
        eng.add_batch([{"text": f"batch memory {i}", "id": f"b{i}", "links": [{"to": f"w{i}", "relation": "supports"}]}
                       for i in range(6)])
    except KeyboardInterrupt:
        pass
    stop.armed = False
    eng.forget("w39", hard=True)
    seen = {"memories": sorted(m.id for m in eng.query(limit=100000)),
            "supports": sorted((e.source, e.target) for m in eng.query(limit=100000) for e in eng.edges(m.id)
                               if e.relation.value == "supports")}
    eng.close()
    eng = engramdb.open(path)
    again = {"memories": sorted(m.id for m in eng.query(limit=100000)),
             "supports": sorted((e.source, e.target) for m in eng.query(limit=100000) for e in eng.edges(m.id)
                                if e.relation.value == "supports")}
    eng.close()
    print(json.dumps({"interrupted": interrupted, "same": seen == again, "seen": seen, "again": again}))
''')


@pytest.mark.parametrize("seed", [1, 4])
def test_random_interrupts_never_hang_nor_lose_a_commit(tmp_path, seed):
    script = tmp_path / "run.py"
    script.write_text(SCRIPT)
    out = subprocess.run([sys.executable, str(script), str(tmp_path / "s"), str(seed), "1500"],
                         capture_output=True, text=True, timeout=240, env={**os.environ, "PYTHONFAULTHANDLER": "1"})
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["interrupted"] > 100   # the timers did land
    assert got["same"], (got["seen"], got["again"])
    assert [m for m in got["again"]["memories"] if m.startswith("b")] == [f"b{i}" for i in range(6)]
    assert {(f"b{i}", f"w{i}") for i in range(6)} <= {tuple(x) for x in got["again"]["supports"]}
