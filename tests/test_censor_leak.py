"""Property: a memory that a block / absolute censor rule matches never leaves the engine.

Random memories (texts, tags, kinds, slots, two namespaces), reviewed decisions (whose outcome
memories quote them), random edges, supersessions, admissions (so the dynamics log holds texts) and random rules (pattern, tag, kind, namespace,
callable; warn / block / absolute), added after the memories. Then every read verb of
``Engram.READ_VERBS`` is called, its output serialised to text, and neither the id nor the
marker that starts the text of a blocked memory may appear in it. The verbs come from
``READ_VERBS``: a new read verb without an entry in ``CALLS`` fails this test.
"""
import dataclasses
import enum
import json
import re

import numpy as np
import pyarrow.parquet as pq
from hypothesis import HealthCheck, Phase, given, settings, strategies as st

import engramdb

WORDS = ["river", "lamp", "orbit", "pepper", "violin", "canyon", "tulip", "glacier", "harbor", "ember"]
KINDS = ["episodic", "semantic", "procedural", "decision"]
TAGS = ["red", "green", "blue"]
NAMESPACES = ["alpha", "beta"]


def marker(i):
    return f"qz{i:02d}k"


def mem_id(i):
    return f"id{i:02d}x"


memories = st.lists(
    st.tuples(st.lists(st.sampled_from(WORDS), min_size=2, max_size=4),   # words
              st.lists(st.sampled_from(TAGS), max_size=2, unique=True),    # tags
              st.sampled_from(KINDS),
              st.sampled_from(NAMESPACES),
              st.booleans()),                                               # fills a slot
    min_size=3, max_size=9)

rules = st.lists(
    st.tuples(st.sampled_from(["word", "marker", "tag", "kind", "namespace", "callable"]),
              st.integers(0, 99),
              st.sampled_from(["warn", "block", "absolute"])),
    min_size=1, max_size=3)


def build(path, mems, edges, supersede_pairs):
    m = engramdb.open(path, embedder="hashing", dim=64,
                      config=engramdb.EngramConfig(link=engramdb.LinkConfig(detect_conflicts=False)))
    for ns in NAMESPACES:   # both namespaces exist, whatever the example holds
        m.add("a plain note about nothing", id=f"note-{ns}", namespace=ns)
    for i, (words, tags, kind, ns, slotted) in enumerate(mems):
        item = {"text": f"{marker(i)} " + " ".join(words), "id": mem_id(i), "tags": tags, "kind": kind}
        if slotted:
            item.update(subject="user", attribute=f"attr{i % 3}", single_valued=False,
                        value=f"{marker(i)} value")
        m.add(namespace=ns, **item)
    for i, (_w, _t, kind, ns, _s) in enumerate(mems):   # decisions get an outcome memory quoting them
        if kind == "decision":
            m.review(mem_id(i), outcome=("success", "failure", "partial")[i % 3], namespace=ns)
    for a, b, rel in edges:
        a, b = a % len(mems), b % len(mems)
        if a != b and mems[a][3] == mems[b][3]:
            m.link(mem_id(a), mem_id(b), rel, namespace=mems[a][3])
    for a, b in supersede_pairs:
        a, b = a % len(mems), b % len(mems)
        ns = mems[a][3]
        if a != b and mems[b][3] == ns and m.get(mem_id(a), namespace=ns).state.value == "active" \
                and m.get(mem_id(b), namespace=ns).state.value == "active" and not mems[a][4] and not mems[b][4]:
            try:
                m.supersede(mem_id(a), by=mem_id(b), namespace=ns)
            except engramdb.InvalidInputError:   # a cycle: not this example's point
                pass
    # the dynamics log gets entries naming memories and keeping candidate texts
    for ns in NAMESPACES:
        texts = [(f"{marker(i)} " + " ".join(w), k, t) for i, (w, t, k, n, _s) in enumerate(mems) if n == ns]
        if texts:
            m.admit_batch([{"text": t, "kind": k, "tags": tg} for t, k, tg in texts[:2]], namespace=ns)
    return m


def add_rules(m, mems, specs):
    made = []
    for j, (how, n, action) in enumerate(specs):
        i = n % len(mems)
        if how == "word":
            kw = {"pattern": WORDS[n % len(WORDS)].upper()}          # case-insensitive by default
        elif how == "marker":
            kw = {"pattern": re.escape(marker(i)).replace("qz", "q[z]")}   # the rule text holds no marker
        elif how == "tag":
            kw = {"tag": TAGS[n % len(TAGS)]}
        elif how == "kind":
            kw = {"kind": KINDS[n % len(KINDS)]}
        elif how == "namespace":
            kw = {"namespace": NAMESPACES[n % 2]}
        else:
            target = marker(i)   # a stored copy (admission) holds the marker too
            kw = {"match": lambda mem, target=target: mem.text.startswith(target)}
        made.append(m.censor(action=action, reason=f"rule {j}", id=f"rule{j}", **kw))
    return made


def expected_hidden(mems, specs):
    """The oracle: which memories some block / absolute rule matches (written independently)."""
    hidden = set()
    for i, (words, tags, kind, ns, _slotted) in enumerate(mems):
        text = f"{marker(i)} " + " ".join(words)
        for how, n, action in specs:
            if action == "warn":
                continue
            hit = {"word": lambda: WORDS[n % len(WORDS)] in text.lower(),
                   "marker": lambda: i == n % len(mems),
                   "tag": lambda: TAGS[n % len(TAGS)] in tags,
                   "kind": lambda: kind == KINDS[n % len(KINDS)],
                   "namespace": lambda: ns == NAMESPACES[n % 2],
                   "callable": lambda: i == n % len(mems)}[how]()
            if hit:
                hidden.add(i)
    return hidden


def dump(obj) -> str:
    """Any verb's output as text (dataclasses, enums, arrays, Arrow tables, nested containers)."""
    def plain(x):
        if dataclasses.is_dataclass(x) and not isinstance(x, type):
            return {f.name: plain(getattr(x, f.name)) for f in dataclasses.fields(x)}
        if isinstance(x, enum.Enum):
            return x.value
        if isinstance(x, dict) or hasattr(x, "items") and callable(x.items):
            return {str(k): plain(v) for k, v in x.items()}
        if isinstance(x, (list, tuple, set, frozenset)):
            return [plain(v) for v in x]
        if isinstance(x, np.ndarray):
            return x.tolist()
        if isinstance(x, (str, int, float, bool)) or x is None:
            return x
        if hasattr(x, "to_dict"):
            return plain(x.to_dict())
        return repr(x)
    return json.dumps(plain(obj), default=repr)


QUERIES = ["river lamp orbit", "pepper violin canyon", "tulip glacier harbor ember", "what is my attr0 value", "attr1 attr2 value"]


def each_id(m, mems, verb):
    """Call ``verb`` for every memory id; a blocked one must be refused with MemoryBlockedError."""
    out, refused = [], set()
    for i, (_w, _t, _k, ns, _s) in enumerate(mems):
        try:
            out.append(getattr(m, verb)(mem_id(i), namespace=ns))
        except engramdb.MemoryBlockedError as exc:
            assert marker(i) not in str(exc)
            refused.add(i)
    return out, refused


def export_text(m, tmp_path):
    d = tmp_path / f"export-{len(list(tmp_path.iterdir()))}"
    files = m.export(d)
    return [pq.read_table(files["memories"]).drop(["embedding"]).to_pylist(), pq.read_table(files["edges"]).to_pylist()]


CALLS = {
    "get": lambda m, mems, tmp: each_id(m, mems, "get"),
    "edges": lambda m, mems, tmp: each_id(m, mems, "edges"),
    "salience": lambda m, mems, tmp: each_id(m, mems, "salience"),
    "history": lambda m, mems, tmp: each_id(m, mems, "history"),
    "namespaces": lambda m, mems, tmp: m.namespaces(),
    "namespace": lambda m, mems, tmp: [(h.query(include_archived=True, include_superseded=True),
                                        h.recall(QUERIES[0], k=20, include_superseded=True),
                                        h.censors()) for h in (m.namespace(ns) for ns in NAMESPACES)],
    "query": lambda m, mems, tmp: [m.query(namespace=ns, include_archived=True, include_superseded=True,
                                           limit=1000) for ns in NAMESPACES],
    "current": lambda m, mems, tmp: [m.current("user", f"attr{a}", namespace=ns)
                                     for ns in NAMESPACES for a in range(3)],
    "profile": lambda m, mems, tmp: [m.profile("user", namespace=ns) for ns in NAMESPACES],
    "context": lambda m, mems, tmp: [m.context(q, namespace=ns, budget_tokens=4000).to_dict()
                                     for ns in NAMESPACES for q in QUERIES],
    "stats": lambda m, mems, tmp: m.stats(),
    "dynamics_log": lambda m, mems, tmp: m.dynamics_log(),
    "export": lambda m, mems, tmp: export_text(m, tmp),
    "recall": lambda m, mems, tmp: [m.recall(q, namespace=ns, k=20, include_superseded=True,
                                             include_archived=True, gate="on").to_dict()
                                    for ns in NAMESPACES for q in QUERIES],
    "recall_batch": lambda m, mems, tmp: [[r.to_dict() for r in m.recall_batch(QUERIES, namespace=ns, k=20,
                                                                                gate="on")]
                                          for ns in NAMESPACES],
    "censors": lambda m, mems, tmp: m.censors(),
    "calibration": lambda m, mems, tmp: [m.calibration(namespace=ns).to_dict() for ns in NAMESPACES],
    "ledger": lambda m, mems, tmp: m.ledger(),
    "verify_ledger": lambda m, mems, tmp: _verified(m),
    "export_ledger": lambda m, mems, tmp: pq.read_table(
        m.export_ledger(tmp / f"ledger-{len(list(tmp.iterdir()))}.parquet")).to_pylist(),
    "acting_as": lambda m, mems, tmp: _acting(m),
}


def _verified(m):
    report = m.verify_ledger()
    assert report.ok   # hiding changes what is shown, never the stored chain
    return report


def _acting(m):
    with m.acting_as("auditor") as handle:
        return [handle.query(namespace=ns, include_archived=True, include_superseded=True) for ns in NAMESPACES]


def test_every_read_verb_is_covered():
    assert set(CALLS) == set(engramdb.Engram.READ_VERBS), \
        "a read verb without an entry in CALLS: add one so the censor leak property covers it"


@settings(max_examples=30, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink],
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(mems=memories,
       edges=st.lists(st.tuples(st.integers(0, 99), st.integers(0, 99),
                                st.sampled_from(["related_to", "supports", "caused_by", "contradicts"])),
                      max_size=15),
       supersede_pairs=st.lists(st.tuples(st.integers(0, 99), st.integers(0, 99)), max_size=2),
       specs=rules)
def test_no_blocked_memory_leaves_any_read_verb(tmp_path_factory, mems, edges, supersede_pairs, specs):
    tmp = tmp_path_factory.mktemp("leak")
    m = build(tmp / "store", mems, edges, supersede_pairs)
    try:
        add_rules(m, mems, specs)
        hidden = expected_hidden(mems, specs)
        assert len(CALLS) == len(engramdb.Engram.READ_VERBS)
        for verb in engramdb.Engram.READ_VERBS:
            out = CALLS[verb](m, mems, tmp)
            if verb in ("get", "edges", "salience", "history"):
                out, refused = out
                assert refused == hidden, verb
            text = dump(out)
            for i in hidden:
                assert marker(i) not in text, (verb, i)
                assert mem_id(i) not in text, (verb, i)
            if verb == "query":   # every memory not hidden is still there
                shown = {mm.id for part in out for mm in part} & {mem_id(i) for i in range(len(mems))}
                assert shown == {mem_id(i) for i in range(len(mems)) if i not in hidden}
    finally:
        m.close()
