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


INT_FIELDS = [(g, f.name) for g in GROUPS for f in dataclasses.fields(g)
              if f.type in ("int", int) and f.name in g.BOUNDS]


@pytest.mark.parametrize("group,name", INT_FIELDS, ids=[f"{g.__name__}.{n}" for g, n in INT_FIELDS])
def test_integer_fields_refuse_fractions_and_take_numpy_integers(group, name):
    """A field annotated int takes whole numbers only (a NumPy integer counts), whatever its bound."""
    import numpy as np
    default = getattr(group(), name)
    with pytest.raises(ConfigError, match="not an integer"):
        group(**{name: default + 0.5})
    with pytest.raises(ConfigError, match="not an integer"):
        group(**{name: float(default)})
    assert getattr(group(**{name: np.int64(default)}), name) == default


def test_integer_fields_are_found():
    names = {(g.__name__, n) for g, n in INT_FIELDS}
    assert {("RecallConfig", "seed_k"), ("IndexConfig", "ef_search"), ("AdmissionConfig", "novelty_ef"),
            ("StoreConfig", "chunk_chars")} <= names
