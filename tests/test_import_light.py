"""A light import: ``import engramdb`` and the CLI module load no heavy dependency, the public
names still resolve, and the keyword index's stop words are exactly scikit-learn's."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

import engramdb
from engramdb.index import stopwords
from engramdb.index.keyword import tokenize

HEAVY = ("sklearn", "scipy", "numba", "pyarrow", "numpy", "hnswlib", "lmdb", "msgpack", "Stemmer", "rich")


def _loaded_after(code: str) -> list[str]:
    """Top-level packages among HEAVY that a fresh interpreter has loaded after ``code``."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}})))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return sorted(set(json.loads(out.stdout.splitlines()[-1])) & set(HEAVY))


def test_import_engramdb_loads_no_heavy_dependency():
    assert _loaded_after("import engramdb") == []


def test_cli_module_loads_no_heavy_dependency():
    # what `engramdb --help` imports: click and engramdb's errors, nothing else of weight
    assert _loaded_after("import engramdb.cli") == []


def test_engine_import_does_not_load_sklearn_scipy_numba_or_pyarrow():
    # the engine needs numpy, hnswlib and LMDB, but not the stop-word list's scikit-learn
    loaded = _loaded_after("import engramdb.engine")
    assert not {"sklearn", "scipy", "numba", "pyarrow"} & set(loaded), loaded


FRAMEWORKS = ("langgraph", "langchain_core", "llama_index", "mcp", "jsonschema", "pydantic", "anyio", "ray", "duckdb")


def _modules_after(code: str) -> list[str]:
    """Every module a fresh interpreter has loaded after ``code``."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.splitlines()[-1])


@pytest.mark.parametrize("code", ["import engramdb", "import engramdb.cli", "import engramdb.integrations"])
def test_no_integration_and_no_framework_loads_until_used(code):
    loaded = _modules_after(code)
    assert not [m for m in loaded if m.startswith("engramdb.integrations.")]
    assert not {m.split(".")[0] for m in loaded} & set(FRAMEWORKS)


@pytest.mark.parametrize("code", ["import engramdb; engramdb.open_sharded", "import engramdb.jobs",
                                  "import engramdb.sharding"])
def test_sharding_and_sequential_jobs_do_not_load_ray(code):
    # the distributed runner is engramdb.ray_jobs, imported only when used (the extra engramdb[ray])
    loaded = _modules_after(code)
    assert "ray" not in {m.split(".")[0] for m in loaded} and "engramdb.ray_jobs" not in loaded
    assert "engramdb.sharding" in loaded


def test_tool_schemas_load_nothing_heavy():
    # the OpenAI / Anthropic schemas need neither the engine nor a framework
    loaded = _modules_after("from engramdb.integrations import tools; tools.openai_tools(); tools.anthropic_tools()")
    assert not {m.split(".")[0] for m in loaded} & set(HEAVY + FRAMEWORKS)
    assert "engramdb.engine" not in loaded


def test_the_probe_sees_what_a_heavy_import_loads():
    assert {"sklearn", "scipy", "numpy"} <= set(_loaded_after("import sklearn.feature_extraction.text"))


def test_every_public_name_resolves_lazily_to_its_module():
    from engramdb import config, engine, temporal, types
    from engramdb.dynamics import AdmissionDecision

    assert engramdb.open is engine.open and engramdb.Engram is engine.Engram
    assert engramdb.to_unix_seconds is engine.to_unix_seconds
    assert engramdb.RecallConfig is config.RecallConfig and engramdb.SlotConfig is config.SlotConfig
    assert engramdb.RecallResult is types.RecallResult and engramdb.MemoryKind is types.MemoryKind
    assert engramdb.HistoryEntry is temporal.HistoryEntry
    assert engramdb.AdmissionDecision is AdmissionDecision
    assert set(engramdb.__all__) <= set(dir(engramdb))
    with pytest.raises(AttributeError, match="no attribute 'recal'"):
        engramdb.recal   # noqa: B018


def test_star_import_gives_every_public_name():
    namespace: dict = {}
    exec("from engramdb import *", namespace)
    assert set(engramdb.__all__) <= set(namespace)
    assert namespace["open"] is engramdb.open


def test_stop_words_equal_sklearn_public_list():
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    assert stopwords.ENGLISH_STOP_WORDS == ENGLISH_STOP_WORDS
    assert len(stopwords.ENGLISH_STOP_WORDS) == 318
    assert isinstance(stopwords.ENGLISH_STOP_WORDS, frozenset)


def test_stop_words_read_from_file_equal_the_slow_path(monkeypatch):
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    read = stopwords._from_installed_file()
    assert read == ENGLISH_STOP_WORDS
    # the fallback (file missing or changed in a future scikit-learn) imports the public name
    monkeypatch.setattr(stopwords, "_from_installed_file", lambda: None)
    monkeypatch.delitem(sys.modules, "sklearn.feature_extraction._stop_words", raising=False)
    assert stopwords.english_stop_words() == ENGLISH_STOP_WORDS


def test_stop_word_file_that_is_not_a_plain_literal_is_refused(tmp_path):
    f = tmp_path / "_stop_words.py"
    f.write_text("ENGLISH_STOP_WORDS = frozenset(load_words())\n")
    assert stopwords._read_literal(str(f)) is None
    f.write_text('ENGLISH_STOP_WORDS = frozenset(["a", "the"])\n')
    assert stopwords._read_literal(str(f)) == frozenset({"a", "the"})
    assert stopwords._read_literal(str(tmp_path / "missing.py")) is None


def test_tokenize_drops_every_stop_word_and_keeps_the_rest():
    from engramdb.index.tokens import CONTENT_WORDS

    assert tokenize(" ".join(sorted(stopwords.ENGLISH_STOP_WORDS - CONTENT_WORDS))) == []
    # the content words of scikit-learn's list are terms (engramdb.index.tokens.CONTENT_WORDS)
    assert len(tokenize(" ".join(sorted(CONTENT_WORDS)))) == len(CONTENT_WORDS)
    # "whereupon" and "thereafter" are on the list; "flight" and "lisbon" are not
    assert tokenize("whereupon the flight thereafter to Lisbon") == ["flight", "lisbon"]
