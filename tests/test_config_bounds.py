"""Config bounds are data: every bound rejects values just outside it with ConfigError."""
import dataclasses

import pytest

from engramdb import config as C
from engramdb.errors import ConfigError

GROUPS = [C.RecallConfig, C.DecayConfig, C.IndexConfig, C.LinkConfig, C.StoreConfig, C.SlotConfig,
          C.AdmissionConfig, C.ForgettingConfig, C.ConsolidationConfig]


def _outside(bound):
    if isinstance(bound, C.Choice):
        return ["not-an-option", None]
    out = [float("nan"), "1"]
    if bound.low is not None:
        out.append(bound.low - 1 if bound.closed in ("both", "left") else bound.low)
    if bound.high is not None:
        out.append(bound.high + 1 if bound.closed in ("both", "right") else bound.high)
    return out


CASES = [(g, name, bad) for g in GROUPS for name, b in g.BOUNDS.items() for bad in _outside(b)]


@pytest.mark.parametrize("group,name,bad", CASES, ids=[f"{g.__name__}.{n}={b!r}" for g, n, b in CASES])
def test_out_of_bounds_rejected(group, name, bad):
    with pytest.raises(ConfigError) as info:
        group(**{name: bad})
    assert name in str(info.value)


@pytest.mark.parametrize("group", GROUPS)
def test_defaults_valid_and_frozen(group):
    cfg = group()
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(cfg, next(iter(group.BOUNDS)), 1)
    assert dataclasses.replace(cfg) == cfg


def test_cross_field_checks():
    with pytest.raises(ConfigError):
        C.RecallConfig(w_salience=0.6, w_recency=0.3, w_confidence=0.3)
    with pytest.raises(ConfigError):
        C.DecayConfig(half_life_s={})
    with pytest.raises(ConfigError):
        C.EngramConfig(recall=C.DecayConfig())
