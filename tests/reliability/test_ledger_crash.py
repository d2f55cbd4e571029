"""The audit ledger under SIGKILL: a writer is killed at random moments, several times; after
each kill the ledger verifies, holds exactly one entry per committed write (the calls that
returned, plus at most the one in flight, whose change then committed with its entry), every
stored memory has the entry that created it and every id an add entry names is stored or was
later forgotten (see ledger_worker.py)."""
import os

import engramdb
from engramdb.testing import raw_records

from .kill import run_and_kill_worker

WORKER = os.path.join(os.path.dirname(__file__), "ledger_worker.py")
CREATES = ("add", "supersede")


def run_and_kill(store: str, notes: str, seed: int, mode: str, delay_s: float) -> None:
    run_and_kill_worker(WORKER, [store, notes, str(seed), mode], delay_s if mode == "random" else None)


def read_notes(notes: str) -> tuple[list[tuple[str, str]], tuple[str, str] | None]:
    """The calls that returned, in order, and the one in flight when the worker died (or None)."""
    done, pending = [], None
    with open(notes, encoding="utf-8") as fh:
        for line in fh:
            if not line.endswith("\n"):
                break   # torn last line
            tag, verb, mid = line.split()
            if tag == "DO":
                pending = (verb, mid)
            else:
                assert pending == (verb, mid)
                done.append(pending)
                pending = None
    return done, pending


MODES = ("random", "in_txn", "random", "after_commit", "random", "in_txn", "random")


def test_ledger_survives_sigkill(tmp_path, rng):
    store, notes = str(tmp_path / "store"), str(tmp_path / "notes")
    in_flight_committed = 0   # calls killed after their commit, before their DONE line
    for round_, mode in enumerate(MODES):
        run_and_kill(store, notes, 1000 + round_, mode, float(rng.uniform(0.3, 1.5)))
        done, pending = read_notes(notes)
        with engramdb.open(store, readonly=True) as eng:
            report = eng.verify_ledger()
            assert report.ok, report
            entries = eng.ledger()
            records = raw_records(eng)
        assert [e.seq for e in entries] == list(range(1, len(entries) + 1))
        assert entries[0].verb == "genesis" and all(e.verb != "genesis" for e in entries[1:])
        extra = len(entries) - 1 - len(done) - in_flight_committed
        assert extra in (0, 1), (len(entries), len(done), in_flight_committed)
        stored = {rec["id"] for rec in records.values()}
        if mode != "random":   # stopped inside the write (nothing of it) or after its commit (all of it)
            assert pending is not None and extra == (mode == "after_commit")
            if pending[0] in CREATES:
                assert (pending[1] in stored) == (mode == "after_commit")
        if extra:   # the call in flight committed: its entry is the last one
            assert pending is not None and entries[-1].verb == pending[0] and pending[1] in entries[-1].ids
            in_flight_committed += 1
        created: dict[str, int] = {}
        for e in entries[1:]:
            if e.verb in CREATES:
                for mid in e.ids:
                    created.setdefault(mid, e.seq)
        assert stored <= set(created), stored - set(created)   # every memory has its entry
        for mid, seq in created.items():   # every created id is stored, or a later entry erased it
            if mid not in stored:
                assert any(e.verb == "forget" and mid in e.ids for e in entries if e.seq > seq), mid
        assert {mid for verb, mid in done if verb in CREATES} - stored <= {
            mid for e in entries if e.verb == "forget" for mid in e.ids}
    assert len(entries) > 20   # the worker got far enough to make the check mean something
