"""Relevance features read each hit's term counts off the keyword index's forward index; they
must equal the features computed by tokenizing the hits' texts, for memories in the compacted
segment, in the delta, re-added with another text, and removed (then the text is tokenized)."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engramdb.index.keyword import KeywordIndex
from engramdb.recall.results import relevance_features

WORDS = ["alpha", "beta", "gamma", "delta", "paris", "berlin", "painting", "sunrise", "v2.1", "C++",
         "hiking", "hiking", "trip", "trips", "Melanie's", "x_y", "2023", "may"]

text = st.lists(st.sampled_from(WORDS), min_size=0, max_size=12).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(first=st.lists(text, min_size=1, max_size=20), later=st.lists(text, max_size=10),
       removed=st.sets(st.integers(0, 29), max_size=4), query=text, data=st.data())
def test_features_from_the_index_equal_features_from_the_texts(first, later, removed, query, data):
    kw = KeywordIndex()
    texts = {}
    for i, t in enumerate(first):
        kw.add(i, t)
        texts[i] = t
    kw.compact()   # the first ones in the segment, the later ones in the delta
    for j, t in enumerate(later):
        kw.add(100 + j, t)
        texts[100 + j] = t
    for i in removed:
        if i in texts:
            kw.remove(i, texts[i])
    if texts and data.draw(st.booleans()):   # one memory re-worded
        i = data.draw(st.sampled_from(sorted(texts)))
        if i not in removed:
            kw.remove(i, texts[i])
            texts[i] = data.draw(text)
            kw.add(i, texts[i])
    nids = sorted(texts)
    cos = np.linspace(0.1, 0.9, len(nids)).astype(np.float32)
    hit_texts = [texts[n] for n in nids]
    by_text = relevance_features(query or None, hit_texts, cos, kw)
    by_index = relevance_features(query or None, hit_texts, cos, kw, nids=nids)
    np.testing.assert_array_equal(by_index, by_text)
