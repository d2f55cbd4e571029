"""English stop words of entity extraction and, less its content words, of the keyword index:
scikit-learn's list.

The keyword index drops this list less :data:`engramdb.index.tokens.CONTENT_WORDS` ("name",
"move", "call", ...: :data:`engramdb.index.tokens.STOP_WORDS`). BM25 ranking depends on which
words are dropped, so the set here is exactly scikit-learn's
``ENGLISH_STOP_WORDS`` (318 words, from the Glasgow Information Retrieval Group's list). No light
package ships the same list: ``stop-words`` (1,333 words), ``stopwordsiso`` (1,298) and
``stopwords`` (174, 200 of scikit-learn's missing) all differ.

Importing ``sklearn.feature_extraction.text`` for it costs about 0.9 s (scikit-learn's package
``__init__`` imports scipy.stats, scipy.sparse and more). The list itself is a literal in
``sklearn/feature_extraction/_stop_words.py``, so :func:`english_stop_words` reads that file from
the installed scikit-learn and evaluates the literal with :func:`ast.literal_eval` (no code runs,
scikit-learn is not imported; about 1 ms). When the file is missing or no longer a plain literal
(a future scikit-learn), it falls back to the public import: same set, slower.
``tests/test_import_light.py`` checks that both paths give the same set.
"""
from __future__ import annotations

import ast
import importlib.util
import os
import sys

__all__ = ["ENGLISH_STOP_WORDS", "english_stop_words"]

_MODULE = "sklearn.feature_extraction._stop_words"
_NAME = "ENGLISH_STOP_WORDS"


def _read_literal(path: str) -> frozenset[str] | None:
    """``ENGLISH_STOP_WORDS = frozenset([...])`` in ``path`` as a frozenset, or None."""
    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), filename=path)
    except (OSError, SyntaxError, ValueError):
        return None
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == _NAME
                and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name)
                and node.value.func.id == "frozenset" and len(node.value.args) == 1
                and not node.value.keywords):
            try:
                words = ast.literal_eval(node.value.args[0])
            except ValueError:
                return None
            if isinstance(words, (list, tuple, set)) and all(isinstance(w, str) for w in words):
                return frozenset(words)
    return None


def _from_installed_file() -> frozenset[str] | None:
    """The list read from scikit-learn's installed ``_stop_words.py``, without importing it."""
    try:
        spec = importlib.util.find_spec("sklearn")   # locates the package; runs nothing of it
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for base in spec.submodule_search_locations:
        words = _read_literal(os.path.join(base, "feature_extraction", "_stop_words.py"))
        if words:
            return words
    return None


def english_stop_words() -> frozenset[str]:
    """scikit-learn's English stop words, read without importing scikit-learn when possible.

    Returns
    -------
    frozenset of str
        Equal to ``sklearn.feature_extraction.text.ENGLISH_STOP_WORDS``.

    Raises
    ------
    ImportError
        scikit-learn is not installed (it is a dependency of engramdb).
    """
    loaded = sys.modules.get(_MODULE)   # already imported by someone: nothing to read
    if loaded is not None and isinstance(getattr(loaded, _NAME, None), frozenset):
        return getattr(loaded, _NAME)
    words = _from_installed_file()
    if words is not None:
        return words
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS as public   # slow path
    return frozenset(public)


ENGLISH_STOP_WORDS: frozenset[str] = english_stop_words()
