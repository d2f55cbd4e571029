"""``ContextBlock.dropped`` names every candidate the block does not show, whatever its tier:
profile (L0) memories cut by the budget included (they used to vanish without a trace)."""
import engramdb
import pytest


@pytest.fixture
def mem(tmp_store):
    with engramdb.open(tmp_store) as m:
        m.add("I live in Lisbon.", id="home", slot=("user", "home_city", "Lisbon"))
        m.add("I work as a nurse.", id="job", slot=("user", "job", "nurse"))
        yield m


def _shown(block):
    return {i.id for tier in block.items.values() for i in tier}


@pytest.mark.parametrize("budget", [1, 5, 20, 40, 3000])
def test_every_candidate_is_shown_or_dropped(mem, budget):
    block = mem.context("where do I live?", budget_tokens=budget)
    assert {"home", "job"} <= _shown(block) | set(block.dropped)
    assert not _shown(block) & set(block.dropped)


def test_tiny_budget_drops_the_profile(mem):
    block = mem.context("where do I live?", budget_tokens=5)
    assert block.text == "" and set(block.dropped) == {"home", "job"}
    assert block.to_dict()["dropped"] == list(block.dropped)


def test_one_profile_line_fits(mem):
    block = mem.context("where do I live?", budget_tokens=20)
    assert [i.id for i in block.items["L0"]] == ["home"] and block.dropped == ("job",)
