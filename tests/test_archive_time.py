"""Every action leaves a time: an archive (forget or rescore) is in dynamics_log and in history."""
from __future__ import annotations

import engramdb
from engramdb.testing import frozen_clock

T0 = 1_700_000_000.0


def test_forget_logs_its_time_in_the_log_and_in_history(tmp_path):
    with frozen_clock(T0) as clock, engramdb.open(tmp_path / "s", dim=64, embedder="hashing") as m:
        m.add("The old project wiki lives on the intranet.", id="wiki")
        clock.advance(3600)
        m.forget("wiki")
        (entry,) = m.dynamics_log(action="archive")
        assert (entry["id"], entry["at"], entry["reason"]) == ("wiki", T0 + 3600, "forget() called")
        (h,) = m.history("wiki")
        assert h.state is engramdb.MemoryState.ARCHIVED and h.archived_at == T0 + 3600
        assert h.to_dict()["archived_at"] == T0 + 3600
        m.forget("wiki")                      # archiving twice logs once
        assert len(m.dynamics_log(action="archive")) == 1


def test_an_active_memory_has_no_archive_time(tmp_path):
    with engramdb.open(tmp_path / "s", dim=64, embedder="hashing") as m:
        m.add("Still here.", id="x")
        assert m.history("x")[0].archived_at is None
