"""One rule for time inputs (naive = UTC, stored as UTC Unix seconds) and valid-time intervals."""
from datetime import datetime, timedelta, timezone

import pytest

import engramdb
from engramdb import to_unix_seconds

from .conftest import T0

UTC_NOON = 1_684_929_600.0    # 2023-05-24T12:00:00Z


@pytest.mark.parametrize("value", [
    UTC_NOON, int(UTC_NOON), str(UTC_NOON),
    "2023-05-24T12:00:00Z", "2023-05-24T12:00:00+00:00", "2023-05-24T12:00:00",   # naive = UTC
    "2023-05-24T14:00:00+02:00", "2023-05-24T07:00:00-05:00",
    datetime(2023, 5, 24, 12, 0), datetime(2023, 5, 24, 12, 0, tzinfo=timezone.utc),
    datetime(2023, 5, 24, 21, 0, tzinfo=timezone(timedelta(hours=9))),
])
def test_every_time_form_is_the_same_utc_instant(value):
    assert to_unix_seconds(value) == UTC_NOON


def test_valid_interval_defaults_and_rules(mem):
    mem.add("event", id="e", created_at="2023-05-24T12:00:00")
    e = mem.get("e")
    assert (e.created_at, e.valid_from, e.valid_to, e.retired_at) == (UTC_NOON, UTC_NOON, None, None)
    mem.add("sale", id="s", created_at=UTC_NOON, valid_from="2023-05-25T00:00:00+02:00",
            valid_to=datetime(2023, 5, 31))
    s = mem.get("s")
    assert (s.valid_from, s.valid_to) == (1_684_965_600.0, 1_685_491_200.0)
    with pytest.raises(engramdb.InvalidInputError, match="valid_to"):
        mem.add("bad", valid_from=UTC_NOON, valid_to=UTC_NOON)
    with pytest.raises(engramdb.InvalidInputError, match="valid_from"):
        mem.add("bad", valid_from="soon")
    assert mem.stats()["memories"] == 2


def test_as_of_forms_agree_and_stated_valid_to_bounds_it(mem, clock):
    mem.add("The sale runs this week.", id="sale", created_at=T0 - 100, valid_to=T0 + 1000)
    clock.advance(10)   # it was recorded at T0
    q = "the sale"
    for t in (T0 + 500, datetime.fromtimestamp(T0 + 500, timezone.utc),
              datetime.fromtimestamp(T0 + 500, timezone.utc).replace(tzinfo=None),
              datetime.fromtimestamp(T0 + 500, timezone.utc).isoformat()):
        assert [h.id for h in mem.recall(q, k=3, as_of=t)] == ["sale"]
        assert [m.id for m in mem.query(as_of=t)] == ["sale"]
    assert mem.recall(q, k=3, as_of=T0 + 1000).hits == []     # valid time over (half-open interval)
    assert mem.recall(q, k=3, as_of=T0 - 200).hits == []      # before it was recorded and valid
    with pytest.raises(engramdb.NonFiniteError):
        mem.recall(q, as_of=float("inf"))
    with pytest.raises(engramdb.InvalidInputError):
        mem.query(as_of="tomorrow-ish")
