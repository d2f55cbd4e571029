"""Helpers of the integration tests: the frameworks are real packages (the ``test`` extra installs
them); nothing of a framework is mocked.

``need(module)`` imports a framework module. Without it a test is skipped, so a bare checkout
without the extras stays green; with ``ENGRAMDB_REQUIRE_INTEGRATIONS=1`` (set by ``make test``,
and so by CI) a missing framework fails the test instead of skipping it.
"""
import importlib
import os

import pytest

import engramdb


def need(module: str):
    """The imported module; skipped when it is missing, failed instead when integrations are required."""
    if os.environ.get("ENGRAMDB_REQUIRE_INTEGRATIONS") == "1":
        return importlib.import_module(module)
    return pytest.importorskip(module)


@pytest.fixture
def trip(tmp_path):
    """A store (hashing embedder) holding the README's trip in namespace ``u``: a flight, its
    confirmation code (evidence_for the flight) and the travel dates."""
    with engramdb.open(tmp_path / "trip", embedder="hashing") as mem:
        mem.add("I booked TAP flight TP 218, Boston to Lisbon.", id="flight", namespace="u",
                created_at="2024-04-02T10:00:00Z")
        mem.add("The airline emailed confirmation code QX7Z9M.", id="code", namespace="u",
                created_at="2024-04-02T10:05:00Z", links=[{"to": "flight", "relation": "evidence_for"}])
        mem.add("We leave on May 14 and come back on May 21.", id="dates", namespace="u",
                created_at="2024-04-03T09:00:00Z")
        mem.link("dates", "flight", "evidence_for", weight=0.9, namespace="u")
        yield mem
