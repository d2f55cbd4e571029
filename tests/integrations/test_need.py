"""The switch that makes CI fail instead of skipping when a framework is missing."""
import pytest

from .conftest import need


def test_missing_framework_skips_by_default_and_fails_when_required(monkeypatch):
    monkeypatch.delenv("ENGRAMDB_REQUIRE_INTEGRATIONS", raising=False)
    with pytest.raises(pytest.skip.Exception):
        need("engramdb_no_such_framework")
    monkeypatch.setenv("ENGRAMDB_REQUIRE_INTEGRATIONS", "1")
    with pytest.raises(ModuleNotFoundError):
        need("engramdb_no_such_framework")
    assert need("json").dumps([1]) == "[1]"
