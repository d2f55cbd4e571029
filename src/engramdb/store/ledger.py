"""The audit ledger: an append-only, hash-chained record of every change to a store.

Every :class:`~engramdb.write.unit.WriteUnit` that changes anything appends exactly one entry,
in its own LMDB write transaction, so a change and its entry commit together or not at all.
An entry holds its ``seq`` (1, 2, 3, ... with no gap), ``time`` (Unix seconds, the engine's
clock at the write), the ``actor`` (a caller-given string, see ``Engram.acting_as``), the
``verb`` (the engine method: ``add``, ``link``, ``forget``, ``rescore``, ...), and per
namespace a *part*: the external ids the change touched (at most :data:`MAX_IDS` named, with
their count) and the memory-dynamics details of the change (archive, prune, promote, admission
and consolidation actions, ``drop_namespace``: what ``Engram.dynamics_log`` shows, a view of
the ledger). ``digest`` is the SHA-256 of a canonical encoding of everything the unit wrote
(records, vectors, edges, erasures; :meth:`Digest.fold`).

Chaining (Haber & Stornetta 1991, "How to time-stamp a digital document", J. Cryptology 3(2),
section 5.1: each stamp includes the hash of the previous one)::

    header = {seq, time, actor, verb, note, digest, prev, parts: {namespace: sha256(part)}}
    hash   = sha256(b"engramdb-ledger-1" + canonical(header))      # header holds prev's hash

The head (``seq``, ``hash`` of the last entry) is kept in the ``meta`` sub-database, in the
same transaction, so cutting entries off the tail is detected too (:func:`verify`).

A part is hashed separately so that ``drop_namespace``, whose promise is that no byte of the
dropped namespace stays in the store's files, can erase the parts of that namespace (ids, the
texts some dynamics details keep) while the chain still verifies: the header keeps the part's
hash, the entry records which later ``drop_namespace`` entry redacted it, and :func:`verify`
accepts a missing part only with such an entry naming that namespace.

Layout: sub-database ``ledger``, key ``seq`` (u64 big-endian), value msgpack
``{"h": header, "parts": {namespace: part or None}, "hash": 32 bytes, "redacted_by": {namespace:
seq}}``; sub-database ``ledger_dyn``, key ``seq`` -> ``b""`` for the entries that carry dynamics
details (so reading the dynamics log does not unpack every entry). Both are absent in a store
written by an engramdb without the ledger: the first writable open writes a genesis entry
(:func:`start`) and moves the old dynamics log (``meta`` keys ``dynlog/...``) into it.

What it cannot do: a writer with raw access who rewrites every entry after the one it edits,
and the head, produces a chain that verifies; compare :attr:`LedgerReport.head_hash` with a
copy kept elsewhere (the usual anchor of a hash chain) to catch that.
"""
from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass, field
from typing import Any, Iterator

import msgpack

from ..errors import StoreCorruptedError
from .lmdb_store import LmdbStore

__all__ = ["LedgerEntry", "LedgerReport", "Digest", "MAX_IDS", "DEFAULT_ACTOR", "GENESIS", "HEAD_KEY",
           "OLD_LOG_PREFIX", "VERBS", "append", "entry_hash", "next_seq", "start", "has_ledger", "read", "read_details",
           "verify", "redact_namespace", "canonical"]

#: ids named per namespace in one entry; a bigger batch names the first ones, ``n_ids`` counts all
MAX_IDS = 4096
#: actor of the writes of an engine opened without ``actor=`` (nobody said who)
DEFAULT_ACTOR = "unspecified"
#: verb of the first entry of every ledger
GENESIS = "genesis"
#: every verb an entry can carry: the engine verbs that write (each write unit names one) and the
#: genesis entry; ``Engram.ledger(verb=...)`` refuses any other name
VERBS = frozenset({
    GENESIS, "add", "add_batch", "add_conversation", "admit_batch", "censor_add", "censor_remove",
    "consolidate", "decide", "drop_namespace", "forget", "import", "link", "promote", "reinforce",
    "rescore", "review", "supersede", "update",
})
#: meta key of the head ``{"seq": int, "hash": bytes}``
HEAD_KEY = "ledger_head"
#: meta keys of the dynamics log of stores written before the ledger (moved into the genesis entry)
OLD_LOG_PREFIX = "dynlog/"
_DOMAIN = b"engramdb-ledger-1"
_ZERO = bytes(32)
_SEQ = struct.Struct(">Q")


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    """One entry of the audit ledger (see :mod:`engramdb.store.ledger`).

    Attributes
    ----------
    seq : int
        1 for the genesis entry, then +1 per committed write, no gaps.
    time : float
        When the change committed, Unix seconds (the engine's clock).
    actor : str
        Who made it: ``engramdb.open(..., actor=)`` or ``Engram.acting_as``.
    verb : str
        The engine verb (``add``, ``add_batch``, ``link``, ``supersede``, ``update``, ``forget``,
        ``rescore``, ``consolidate``, ``import``, ``drop_namespace``, ``reinforce``, ...), or
        ``genesis``.
    namespaces : tuple of str
        Namespaces the change touched, sorted.
    ids : tuple of str
        External ids it touched (memories written, erased, or at an end of a new edge), at
        most :data:`MAX_IDS` per namespace; ``()`` for a redacted namespace.
    n_ids : int
        How many ids it touched in all (a batch larger than :data:`MAX_IDS` names fewer).
    digest : str
        SHA-256 (hex) of a canonical encoding of every record, vector, edge and erasure written.
    prev_hash, hash : str
        SHA-256 (hex) of the previous entry (zeros for the genesis) and of this one.
    note : str
        Free text (the genesis entry says whether earlier history went unledgered).
    details : tuple of dict
        Memory-dynamics entries of the change (``Engram.dynamics_log`` rows).
    redacted : tuple of str
        Namespaces whose part (ids, details) a later ``drop_namespace`` erased.
    """

    seq: int
    time: float
    actor: str
    verb: str
    namespaces: tuple[str, ...]
    ids: tuple[str, ...]
    n_ids: int
    digest: str
    prev_hash: str
    hash: str
    note: str = ""
    details: tuple[dict, ...] = ()
    redacted: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The entry as plain JSON-ready values (tuples become lists)."""
        return {"seq": self.seq, "time": self.time, "actor": self.actor, "verb": self.verb,
                "namespaces": list(self.namespaces), "ids": list(self.ids), "n_ids": self.n_ids,
                "digest": self.digest, "prev_hash": self.prev_hash, "hash": self.hash, "note": self.note,
                "details": [dict(d) for d in self.details], "redacted": list(self.redacted)}


@dataclass(frozen=True, slots=True)
class LedgerReport:
    """What :func:`verify` found.

    Attributes
    ----------
    ok : bool
        The chain is whole: no entry edited, deleted, inserted or moved, and the head matches.
    entries : int
        Entries checked (all of them when ``ok``; up to the bad one otherwise).
    first_bad_seq : int or None
        The first entry that fails (for a cut-off tail, the first missing seq).
    reason : str
        Empty when ``ok``; otherwise what failed.
    head_hash : str
        Hash (hex) of the last entry read; keep a copy elsewhere to anchor the chain.
    seconds : float
        Time the check took.
    """

    ok: bool
    entries: int
    first_bad_seq: int | None
    reason: str
    head_hash: str
    seconds: float = field(default=0.0, compare=False)


def _pack(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)


def canonical(obj: Any) -> bytes:
    """Deterministic msgpack bytes of ``obj``: mapping keys sorted (recursively), tuples as
    lists, floats as float64. Equal values give equal bytes, whatever their insertion order.

    Raises
    ------
    TypeError
        A value msgpack cannot encode.
    """
    return msgpack.packb(_sorted(obj), use_bin_type=True)


_PLAIN = frozenset({str, int, float, bool, bytes, type(None)})


def _sorted(obj: Any) -> Any:
    t = type(obj)
    if t is dict or isinstance(obj, dict):
        try:
            keys = sorted(obj)
        except TypeError:   # keys of mixed types
            keys = sorted(obj, key=lambda k: (type(k).__name__, k))
        return {k: (v if type(v) in _PLAIN else _sorted(v)) for k in keys for v in (obj[k],)}
    if t is list or t is tuple or isinstance(obj, (list, tuple)):
        return [x if type(x) in _PLAIN else _sorted(x) for x in obj]
    return obj


class Digest:
    """Running SHA-256 over what a write unit wrote; each item is framed (a tag byte and
    length-prefixed fields) so that two different sequences of writes never hash alike.

    Attributes
    ----------
    n : int
        Items folded in (0: the unit changed nothing).
    """

    def __init__(self) -> None:
        self._h = hashlib.sha256()
        self.n = 0

    def fold(self, tag: bytes, *fields: bytes) -> None:
        """Add one item: ``tag`` (one byte: R record, V vector, E edge, X erasure, N namespace
        erasure, L dynamics details, M a meta setting such as a censor rule) and its fields
        (bytes)."""
        h = self._h
        h.update(tag)
        for f in fields:
            h.update(len(f).to_bytes(8, "big"))
            h.update(f)
        self.n += 1

    def hexdigest(self) -> str:
        return self._h.hexdigest()


# ---------------------------------------------------------------------- writing
def has_ledger(store: LmdbStore, txn) -> bool:
    """Whether the store has a ledger (its head is recorded)."""
    return store.get_meta(txn, HEAD_KEY) is not None


def _head(store: LmdbStore, txn) -> tuple[int, bytes]:
    head = store.get_meta(txn, HEAD_KEY)
    if head is None:
        return 0, _ZERO
    if not (isinstance(head, dict) and isinstance(head.get("seq"), int) and isinstance(head.get("hash"), bytes)):
        raise StoreCorruptedError("the audit ledger's head is damaged")
    return head["seq"], head["hash"]


def next_seq(store: LmdbStore, txn) -> int:
    """The seq the next appended entry gets."""
    return _head(store, txn)[0] + 1


def append(store: LmdbStore, txn, *, time: float, actor: str, verb: str, digest: str,
           parts: dict[str, tuple[list[str], int, list[dict]]], note: str = "") -> tuple[int, bytes]:
    """Append one entry in the caller's write transaction and move the head.

    Parameters
    ----------
    store : LmdbStore
    txn : lmdb.Transaction
        The write transaction of the change the entry records.
    time : float
        Unix seconds.
    actor, verb, note : str
    digest : str
        Hex SHA-256 of the change (:class:`Digest`).
    parts : dict
        namespace (``""`` for none) -> (ids, count of ids, dynamics details).

    Returns
    -------
    (int, bytes)
        The new entry's seq and hash.
    """
    seq, prev = _head(store, txn)
    seq += 1
    # built with every key in sorted order, so that plain msgpack bytes are the canonical ones
    # (``canonical`` of the same values, which verify computes; only the details need sorting)
    body = {ns: {"details": _sorted(details) if details else [], "ids": list(ids[:MAX_IDS]), "n": int(n)}
            for ns, (ids, n, details) in sorted(parts.items())}
    header = {"actor": actor, "digest": digest, "note": note,
              "parts": {ns: hashlib.sha256(_pack(p)).digest() for ns, p in body.items()},
              "prev": prev, "seq": seq, "time": float(time), "verb": verb}
    h = hashlib.sha256(_DOMAIN + _pack(header)).digest()
    key = _SEQ.pack(seq)
    txn.put(key, msgpack.packb({"h": header, "parts": body, "hash": h, "redacted_by": {}}, use_bin_type=True),
            db=store.dbs["ledger"])
    if any(p["details"] for p in body.values()):
        txn.put(key, b"", db=store.dbs["ledger_dyn"])
    store.put_meta(txn, HEAD_KEY, {"seq": seq, "hash": h})
    return seq, h


def entry_hash(header: dict) -> bytes:
    """The hash of an entry: SHA-256 of the domain tag and the canonical bytes of its header."""
    return hashlib.sha256(_DOMAIN + canonical(header)).digest()


def start(store: LmdbStore, txn, *, time: float, actor: str, new_store: bool) -> bool:
    """Write the genesis entry of a store that has no ledger yet (False when it has one).

    A store written by an engramdb without the ledger gets a genesis entry saying that its
    earlier history was not ledgered, holding its old dynamics log (``meta`` keys
    ``dynlog/...``, moved, not copied: one record of each event).
    """
    if has_ledger(store, txn):
        return False
    parts: dict[str, tuple[list[str], int, list[dict]]] = {}
    for key, entry in store.meta_items(txn, OLD_LOG_PREFIX):
        ns = entry.get("namespace") if isinstance(entry, dict) else None
        parts.setdefault(ns if isinstance(ns, str) else "", ([], 0, []))[2].append(entry)
        store.delete_meta(txn, key)
    note = ("new store" if new_store else
            "the store was written by an engramdb without the ledger: changes before this entry were not "
            "ledgered" + (" (their dynamics log is kept in this entry)" if parts else ""))
    d = Digest()
    for ns, (_ids, _n, details) in sorted(parts.items()):
        d.fold(b"L", ns.encode(), canonical(details))
    append(store, txn, time=time, actor=actor, verb=GENESIS, digest=d.hexdigest(), parts=parts, note=note)
    return True


def redact_namespace(store: LmdbStore, txn, namespace: str, by_seq: int) -> int:
    """Erase the part of ``namespace`` from every entry (``drop_namespace``, whose own entry
    will be ``by_seq``); the headers keep the parts' hashes. Returns the entries changed."""
    db = store.dbs["ledger"]
    changed = []
    for k, v in txn.cursor(db=db):
        e = msgpack.unpackb(v, raw=False)
        if e["parts"].get(namespace) is not None:
            e["parts"][namespace] = None
            e["redacted_by"][namespace] = by_seq
            changed.append((k, e))
    for k, e in changed:
        txn.put(k, msgpack.packb(e, use_bin_type=True), db=db)
        if not any(p and p["details"] for p in e["parts"].values()):
            txn.delete(k, db=store.dbs["ledger_dyn"])
    return len(changed)


# ---------------------------------------------------------------------- reading
def _decode(k: bytes, v: bytes) -> dict:
    try:
        e = msgpack.unpackb(v, raw=False)
        if not (len(k) == _SEQ.size and isinstance(e, dict) and isinstance(e.get("h"), dict)
                and isinstance(e.get("parts"), dict)):
            raise ValueError("not a ledger entry")
        return e
    except (msgpack.ExtraData, msgpack.FormatError, msgpack.StackError, ValueError, TypeError) as exc:
        raise StoreCorruptedError(f"a ledger entry is damaged: {exc}") from exc


def _entry(e: dict) -> LedgerEntry:
    h, parts = e["h"], e["parts"]
    ids: list[str] = []
    details: list[dict] = []
    n_ids = 0
    for ns in sorted(parts):
        p = parts[ns]
        if p is None:
            continue
        ids.extend(p["ids"])
        n_ids += p["n"]
        details.extend(p["details"])
    return LedgerEntry(seq=h["seq"], time=h["time"], actor=h["actor"], verb=h["verb"],
                       namespaces=tuple(ns for ns in sorted(h["parts"]) if ns), ids=tuple(ids), n_ids=n_ids,
                       digest=h["digest"], prev_hash=h["prev"].hex(), hash=e["hash"].hex(), note=h["note"],
                       details=tuple(details), redacted=tuple(sorted(e.get("redacted_by", {}))))


def read(store: LmdbStore, txn, *, namespace: str | None = None, verb: str | None = None,
         since: float | None = None, until: float | None = None) -> Iterator[LedgerEntry]:
    """Entries oldest first, filtered: touching ``namespace``, with ``verb``, ``since <= time
    < until`` (Unix seconds). Nothing when the store has no ledger."""
    db = store.dbs.get("ledger")
    if db is None:
        return
    for k, v in txn.cursor(db=db):
        e = _decode(k, v)
        h = e["h"]
        if verb is not None and h["verb"] != verb:
            continue
        if namespace is not None and namespace not in h["parts"]:
            continue
        if (since is not None and h["time"] < since) or (until is not None and h["time"] >= until):
            continue
        yield _entry(e)


def erased_with(store: LmdbStore, txn, namespace: str, ext_id: str,
                limit: int = 10_000) -> tuple[float, int, tuple[str, ...]] | None:
    """When memory ``ext_id`` of ``namespace`` was erased: (time, entry seq, the namespace's
    other ids of that entry) of the latest of the last ``limit`` entries (newest first) of a
    ``forget`` or ``drop_namespace`` that names it, or None. What a lookup of an erased id says
    (the session summary a hard forget of its turn erased with it)."""
    db = store.dbs.get("ledger")
    if db is None:
        return None
    cur = txn.cursor(db=db)
    seen, more = 0, cur.last()
    while more and seen < limit:
        e = _decode(*cur.item())
        h, part = e["h"], e["parts"].get(namespace)
        if h["verb"] in ("forget", "drop_namespace") and part is not None and ext_id in part["ids"]:
            return h["time"], h["seq"], tuple(i for i in part["ids"] if i != ext_id)
        seen += 1
        more = cur.prev()
    return None


def read_details(store: LmdbStore, txn) -> Iterator[dict]:
    """Every dynamics detail in the ledger, in the order written (the dynamics log view)."""
    db, index = store.dbs.get("ledger"), store.dbs.get("ledger_dyn")
    if db is None or index is None:
        return
    for k in txn.cursor(db=index).iternext(keys=True, values=False):
        v = txn.get(k, db=db)
        if v is None:
            continue
        parts = _decode(k, v)["parts"]
        for ns in sorted(parts):
            if parts[ns] is not None:
                yield from parts[ns]["details"]


def verify(store: LmdbStore, txn, clock: Any = None) -> LedgerReport:
    """Recompute the chain (see the module docstring) and compare it with the head.

    Detects an edited entry (its hash, or a part's hash), a deleted one (a gap in ``seq``, or
    a tail cut off: the head names a later entry), an inserted or moved one (``seq`` out of
    order, or ``prev`` not the hash before it), a part erased without a ``drop_namespace``
    entry of its namespace, and a dynamics entry missing from the ``ledger_dyn`` index.

    Returns
    -------
    LedgerReport
    """
    import time as _time

    t0 = _time.perf_counter()
    db = store.dbs.get("ledger")
    head = store.get_meta(txn, HEAD_KEY)

    def report(ok, n, bad, reason, last):
        return LedgerReport(ok, n, bad, reason, last.hex(), _time.perf_counter() - t0)

    if db is None or head is None:
        n = 0 if db is None else txn.stat(db)["entries"]
        if n:
            return report(False, 0, 1, "ledger entries without a head (the head was deleted)", _ZERO)
        return report(True, 0, None, "", _ZERO)
    try:
        head_seq, head_hash = _head(store, txn)
    except StoreCorruptedError as exc:
        return report(False, 0, None, str(exc), _ZERO)
    index = store.dbs.get("ledger_dyn")
    prev, n = _ZERO, 0
    drops: dict[int, tuple[str, ...]] = {}
    pending: list[tuple[int, str, Any]] = []   # (seq, namespace, redacted_by) to check at the end
    for k, v in txn.cursor(db=db):
        expect = n + 1
        try:
            e = _decode(k, v)
            h = e["h"]
            key_seq = _SEQ.unpack(k)[0]
            if key_seq != expect:
                return report(False, n, expect, f"entry {expect} is missing (next stored is {key_seq})", prev)
            if h.get("seq") != expect:
                return report(False, n, expect, f"entry stored under seq {expect} says seq {h.get('seq')}", prev)
            if h.get("prev") != prev:
                return report(False, n, expect, "its prev hash is not the hash of the entry before it", prev)
            if entry_hash(h) != e.get("hash"):
                return report(False, n, expect, "its hash does not match its contents (edited)", prev)
            hashes = h["parts"]
            if set(e["parts"]) != set(hashes):
                return report(False, n, expect, "its namespaces differ from the hashed ones", prev)
            has_details = False
            for ns, p in e["parts"].items():
                if p is None:
                    pending.append((expect, ns, e.get("redacted_by", {}).get(ns)))
                elif hashlib.sha256(canonical(p)).digest() != hashes[ns]:
                    return report(False, n, expect, f"its part of namespace {ns!r} was edited", prev)
                else:
                    has_details = has_details or bool(p["details"])
            if has_details and (index is None or txn.get(k, db=index) is None):
                return report(False, n, expect, "its dynamics details are missing from the ledger_dyn index", prev)
            if h["verb"] == "drop_namespace":
                drops[expect] = tuple(hashes)
        except (StoreCorruptedError, KeyError, TypeError, AttributeError, struct.error) as exc:
            return report(False, n, expect, f"entry is damaged: {exc}", prev)
        prev, n = e["hash"], expect
    if n != head_seq or prev != head_hash:
        if n < head_seq:
            return report(False, n, n + 1, f"entries {n + 1}..{head_seq} are missing (tail cut off)", prev)
        return report(False, n, n, "the head does not match the last entry", prev)
    for seq, ns, by in pending:
        if not (isinstance(by, int) and by > seq and ns in drops.get(by, ())):
            return report(False, n, seq, f"its part of namespace {ns!r} is missing and no later "
                                         "drop_namespace of that namespace erased it", prev)
    return report(True, n, None, "", prev)
