"""A config that is not the expected dataclass raises ConfigError (an EngramError) naming what
arrived and what is expected, at every verb taking one; it used to be an AttributeError."""
import engramdb
import pytest
from engramdb import ConfigError, EngramError


def test_open_with_a_dict(tmp_store):
    with pytest.raises(ConfigError, match=r"expected an EngramConfig.*got dict \{'recall': \{'k': 3\}\}") as err:
        engramdb.open(tmp_store, config={"recall": {"k": 3}})
    assert isinstance(err.value, EngramError)
    assert "EngramConfig(recall=RecallConfig(seed_k=20))" in str(err.value)


@pytest.mark.parametrize("bad", [{}, "k=3", 3, engramdb.RecallConfig()])
def test_open_with_anything_else(tmp_store, bad):
    with pytest.raises(ConfigError, match="expected an EngramConfig"):
        engramdb.open(tmp_store, config=bad)


def test_verbs_taking_a_config(tmp_store):
    with engramdb.open(tmp_store) as mem:
        mem.add("The wifi password is hunter2.")
        with pytest.raises(ConfigError, match=r"expected a RecallConfig.*got dict"):
            mem.recall("wifi", config={"k": 3})
        with pytest.raises(ConfigError, match=r"expected a RecallConfig.*got EngramConfig"):
            mem.recall_batch(["wifi"], config=engramdb.EngramConfig())
        with pytest.raises(ConfigError, match=r"expected an AdmissionConfig.*got dict"):
            mem.admit_batch([{"text": "x y z"}], config={"shadow": True})
        with pytest.raises(ConfigError, match=r"expected a ConsolidationConfig.*got dict"):
            mem.consolidate(config={})
        assert mem.recall("wifi", config=engramdb.RecallConfig(seed_k=20)).hits
