"""Sharding: many engramdb stores behind one set of verbs, a namespace in exactly one store.

A sharded deployment is a root directory holding ``manifest.json`` and ``N`` ordinary store
directories (``shard-0000`` ... ``shard-<N-1>``). A namespace lives in the shard given by a
stable rule, :func:`shard_of`:

    shard = int.from_bytes(blake2b(name.encode("utf-8"), digest_size=8).digest(), "big") % N

BLAKE2b (RFC 7693) with an 8-byte digest, read big-endian, modulo the shard count. It depends
only on the name's UTF-8 bytes and ``N`` (never on Python's randomised ``hash``), so every
process, machine and version maps a namespace to the same shard. The manifest records the rule's
name and version, ``N`` and the shard directories; a deployment is reopened with its own ``N``
(changing ``N`` would move namespaces, so reopening with another one is an error).

:func:`open_sharded` returns a :class:`ShardedEngram`: the verbs of :class:`engramdb.Engram`,
each routed to the one shard that holds its ``namespace`` (a recall never crosses namespaces,
so it never needs a second shard). Verbs whose namespace is optional (``rescore``,
``consolidate``, ``dynamics_log``, ``ledger``, ``censors``) and verbs without one (``stats``,
``namespaces``, ``flush``, ``compact``, ``export``, ``verify_ledger``, ``export_ledger``,
``remove_censor``, ``acting_as``) run on every shard, one after another, and combine the answers
into the single store's type. ``censor`` writes a store-wide rule to every shard and a rule
scoped to namespaces to the shards holding them; ``import_from`` imports an export whose
namespaces all live in one shard into that shard. The
distributed batch jobs over the same layout are in :mod:`engramdb.jobs` (sequential, no extra
dependency) and :mod:`engramdb.ray_jobs` (the optional ``engramdb[ray]`` extra). This module
does not import Ray.

References
----------
Aumasson et al., RFC 7693 (2015): BLAKE2b. Karger et al. (1997), STOC: hashing keys to nodes
(here plain modulo hashing, since ``N`` is fixed for a deployment's life).
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import inspect
import json
import os
import tempfile
from collections.abc import Callable
from typing import Any

from .errors import ConfigError, EngramError, InvalidInputError, StoreCorruptedError, StoreNotFoundError
from .validate import check_namespace, last_items, strict_flags
from .wording import count

__all__ = ["MANIFEST", "RULE", "RULE_VERSION", "ShardedEngram", "check_dataset_out", "combine_counts",
           "init_shards", "open_sharded", "read_manifest", "shard_of", "write_json_atomic"]

#: file name of the manifest in a sharded root
MANIFEST = "manifest.json"
#: name of the namespace -> shard rule recorded in the manifest (see :func:`shard_of`)
RULE = "blake2b-64be-mod-n"
RULE_VERSION = 1
FORMAT = "engramdb-shards"
MAX_SHARDS = 65536


def shard_of(namespace: str, n_shards: int) -> int:
    """The shard that holds ``namespace``: BLAKE2b-64 of its UTF-8 bytes, big-endian, mod ``n_shards``.

    Parameters
    ----------
    namespace : str
        A namespace name (non-empty, at most 256 characters, no NUL).
    n_shards : int
        Number of shards, 1 to 65536.

    Returns
    -------
    int
        In ``[0, n_shards)``; the same for the same name and count in every process.

    Raises
    ------
    NamespaceError
        Not a valid namespace name.
    InvalidInputError
        ``n_shards`` out of range.

    References
    ----------
    RFC 7693 (BLAKE2b), with ``digest_size=8``.
    """
    check_namespace(namespace)
    if isinstance(n_shards, bool) or not isinstance(n_shards, int) or not 1 <= n_shards <= MAX_SHARDS:
        raise InvalidInputError(f"n_shards: expected an integer in [1, {MAX_SHARDS}], got {n_shards!r}")
    digest = hashlib.blake2b(namespace.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") % n_shards


def write_json_atomic(path: str | os.PathLike, doc: Any) -> None:
    """Write ``doc`` as JSON to ``path`` atomically: a temporary file in the same directory,
    fsync, ``os.replace``, fsync of the directory. A crash leaves the old file or the new one,
    never a torn one. The file is owner-only (0600).

    Raises
    ------
    OSError
        The directory is not writable.
    """
    path = os.fspath(path)
    directory = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    dfd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


def read_manifest(root: str | os.PathLike) -> dict[str, Any]:
    """The manifest of the sharded deployment at ``root``.

    Returns
    -------
    dict
        ``format``, ``rule``, ``rule_version``, ``n_shards``, ``shards`` (directory names
        relative to ``root``, index = shard number), ``dim``, ``embedder``.

    Raises
    ------
    StoreNotFoundError
        No manifest at ``root``.
    StoreCorruptedError
        The manifest is damaged or not one this version writes: not JSON, unknown format, rule
        or version; ``n_shards`` not an integer in [1, 65536] (a bool is not one); ``shards``
        not a list of ``n_shards`` distinct directory names (one path component each); ``dim``
        not a positive integer; ``embedder`` not a name or null.
    """
    path = os.path.join(os.fspath(root), MANIFEST)
    if not os.path.exists(path):
        raise StoreNotFoundError(f"no sharded engramdb deployment at {os.fspath(root)!r} (no {MANIFEST}); "
                                 "create one with engramdb.open_sharded(root, n_shards=N)")
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as exc:
        raise StoreCorruptedError(f"{path!r} cannot be read: {type(exc).__name__}: {exc}") from exc
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("rule") != RULE \
            or not _is_int(doc.get("rule_version")) or doc.get("rule_version") != RULE_VERSION:
        raise StoreCorruptedError(f"{path!r} is not a {FORMAT} manifest with rule {RULE} v{RULE_VERSION}: {doc!r:.200}")
    fix = "restore it from a copy (the shard directories are shard-0000, shard-0001, ... in order)"
    n = doc.get("n_shards")
    if not _is_int(n) or not 1 <= n <= MAX_SHARDS:
        raise StoreCorruptedError(f"{path!r}: n_shards must be an integer in [1, {MAX_SHARDS}], got {n!r}; {fix}")
    shards = doc.get("shards")
    if not isinstance(shards, list) or len(shards) != n:
        raise StoreCorruptedError(f"{path!r}: shards must be a list of the n_shards={n} shard directories, "
                                  f"got {shards!r:.200}; {fix}")
    seen: set[str] = set()
    for name in shards:
        if not isinstance(name, str) or not name or name in (".", "..") or "\x00" in name \
                or any(sep in name for sep in ("/", os.sep, os.altsep) if sep):
            raise StoreCorruptedError(f"{path!r}: a shard must be one directory name under the root, "
                                      f"got {name!r}; {fix}")
        if name in seen:
            raise StoreCorruptedError(f"{path!r} lists shard directory {name!r} twice (every shard is its own "
                                      f"store); {fix}")
        seen.add(name)
    dim = doc.get("dim")
    if not _is_int(dim) or dim < 1:
        raise StoreCorruptedError(f"{path!r}: dim must be a positive integer, got {dim!r}; {fix}")
    if doc.get("embedder") is not None and not isinstance(doc["embedder"], str):
        raise StoreCorruptedError(f"{path!r}: embedder must be a name or null, got {doc['embedder']!r}; {fix}")
    return doc


def _is_int(value: Any) -> bool:
    """An int and not a bool (JSON true would otherwise count as 1)."""
    return isinstance(value, int) and not isinstance(value, bool)


def init_shards(root: str | os.PathLike, n_shards: int, *, dim: int | None = None,
                embedder: Any = None) -> dict[str, Any]:
    """Create a sharded deployment: ``root/manifest.json`` and ``n_shards`` empty stores.

    Parameters
    ----------
    root : str or os.PathLike
        A new or empty directory (created 0700).
    n_shards : int
        Number of shards, 1 to 65536. Fixed for the deployment's life.
    dim : int, optional
        Embedding dimension of every shard (default: the embedder's).
    embedder : Embedder or str, optional
        As for :func:`engramdb.open`; every shard records the same one.

    Returns
    -------
    dict
        The manifest written.

    Raises
    ------
    InvalidInputError
        ``n_shards`` out of range, or ``root`` holds other files.
    ConfigError
        ``root`` already holds a deployment.
    """
    from .engine import open as open_store

    root = os.fspath(root)
    shard_of("x", n_shards)   # validates n_shards
    if os.path.exists(os.path.join(root, MANIFEST)):
        raise ConfigError(f"{root!r} already holds a sharded deployment; open it with open_sharded(root)")
    if os.path.isdir(root) and os.listdir(root):
        raise InvalidInputError(f"{root!r} holds other files: create a sharded deployment in a new or empty directory")
    os.makedirs(root, mode=0o700, exist_ok=True)
    width = max(4, len(str(n_shards - 1)))
    shards = [f"shard-{i:0{width}d}" for i in range(n_shards)]
    first = None
    for name in shards:
        with open_store(os.path.join(root, name), dim=dim, embedder=embedder) as eng:
            if first is None:
                first = eng
                dim, embedder = eng.dim, eng.embedder   # every other shard takes the same
    doc = {"format": FORMAT, "rule": RULE, "rule_version": RULE_VERSION, "n_shards": n_shards,
           "shards": shards, "dim": int(dim), "embedder": getattr(embedder, "name", None)}
    write_json_atomic(os.path.join(root, MANIFEST), doc)
    return doc


def combine_counts(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """Combine per-shard summaries into one: integers are summed, ``seconds`` too (the shards
    ran one after another), dicts combined key by key, a ``mean_*`` value is weighted by the
    sibling ``memories`` count, other values kept when all shards agree (else a list of them,
    in shard order)."""
    out: dict[str, Any] = {}
    keys: list[str] = []
    for p in parts:
        keys += [k for k in p if k not in keys]
    for k in keys:
        vals = [p[k] for p in parts if k in p]
        if all(isinstance(v, bool) for v in vals):
            out[k] = vals[0] if len(set(vals)) == 1 else vals
        elif all(isinstance(v, int) and not isinstance(v, bool) for v in vals):
            out[k] = sum(vals)
        elif k == "seconds" and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
            out[k] = round(float(sum(vals)), 6)
        elif all(isinstance(v, dict) for v in vals):
            out[k] = combine_counts(vals)
        elif k.startswith("mean_"):
            pairs = [(p[k], p.get("memories", 0)) for p in parts if k in p and p[k] is not None]
            total = sum(w for _, w in pairs)
            out[k] = None if not total else round(sum(v * w for v, w in pairs) / total, 6)
        elif all(v == vals[0] for v in vals):
            out[k] = vals[0]
        else:
            out[k] = vals
    return out


def check_dataset_out(root: str | os.PathLike, out: Any, field: str = "out") -> str:
    """The absolute path of a Parquet dataset directory for the deployment at ``root``
    (:meth:`ShardedEngram.export`, the ``export`` job), checked before anything is written.

    Raises
    ------
    InvalidInputError
        ``out`` is not a path, is an existing file, or is the deployment's root or inside one
        of its shard stores or its ``jobs`` directory (the dataset would be written among the
        deployment's own files).
    StoreNotFoundError, StoreCorruptedError
        ``root`` is not a sharded deployment (:func:`read_manifest`).
    """
    if not isinstance(out, (str, os.PathLike)):
        raise InvalidInputError(f"{field}: expected the dataset directory's path, got {type(out).__name__}")
    path = os.path.abspath(os.fspath(out))
    if os.path.exists(path) and not os.path.isdir(path):
        raise InvalidInputError(f"{field}: {path!r} is a file; give a directory for the dataset (created when missing)")
    base = os.path.realpath(os.fspath(root))
    real = os.path.realpath(path)
    own = [os.path.join(base, name) for name in (*read_manifest(root)["shards"], "jobs")]
    if real == base or any(real == d or real.startswith(d + os.sep) for d in own):
        raise InvalidInputError(f"{field}: {path!r} is the deployment's root or inside its shard stores or jobs; "
                                "give a directory outside them (e.g. beside the root)")
    return path


def _merge_logs(parts: list[list[dict[str, Any]]], limit: int | None) -> list[dict[str, Any]]:
    entries = [{**e, "shard": i} for i, part in enumerate(parts) for e in part]
    entries.sort(key=lambda e: (e.get("at", 0.0), e["shard"], e.get("seq", 0)))
    return _last(entries, limit)


def _last(items: list, limit: int | None) -> list:
    """The last ``limit`` items (all when None), as each engine verb's ``limit`` keeps them."""
    return last_items(items, limit)


def _merge_ledgers(parts: list[list[Any]], limit: int | None) -> list[Any]:
    """Every shard's ledger entries, oldest first (by time; ties in shard order, then by each
    shard's sequence), then the last ``limit`` of them."""
    keyed = sorted(((e.time, i, e.seq), e) for i, part in enumerate(parts) for e in part)
    return _last([e for _, e in keyed], limit)


def _merge_rules(parts: list[list[Any]]) -> list[Any]:
    """Censor rules of every shard, each once (a rule on several shards is one rule, its hits
    summed over them), oldest first as ``Engram.censors`` lists them."""
    import dataclasses

    rules: dict[str, Any] = {}
    for part in parts:
        for rule in part:
            have = rules.get(rule.id)
            rules[rule.id] = rule if have is None else dataclasses.replace(have, hits=have.hits + rule.hits)
    return sorted(rules.values(), key=lambda r: (r.created_at, r.id))


@strict_flags
class ShardedEngram:
    """The verbs of :class:`engramdb.Engram` over a sharded deployment, routed by namespace.

    Made by :func:`open_sharded`. Every verb of :class:`engramdb.Engram`, with its arguments
    and the type of its answer. A verb that takes ``namespace=`` runs on the shard
    :func:`shard_of` names for it; ``rescore``, ``consolidate`` (one ``now`` for every shard;
    counts summed), ``dynamics_log``, ``ledger`` (entries of every shard, oldest first, then
    ``limit``) and ``censors`` (each rule once, hits summed) without a namespace, and ``stats``,
    ``namespaces``, ``flush``, ``compact``, ``export``, ``verify_ledger``, ``export_ledger``,
    ``remove_censor`` and ``acting_as``, run on every shard in shard order. ``censor`` writes a
    store-wide rule to every shard, a rule scoped to namespaces to the shards that hold them,
    with one id, after checking its fields and that no shard holds that id (so a refused rule
    writes nothing); ``import_from`` imports into the one shard that holds every namespace of
    the export. Shards open on first use, each as an ordinary store (so in one process
    this object holds each shard's writer lock once it has written there; open it
    ``readonly=True`` for readers). Use it as a context manager, or call :meth:`close`.

    Attributes
    ----------
    root : str
    manifest : dict
        See :func:`read_manifest`.
    n_shards : int
    readonly : bool
    """

    def __init__(self, root: str, manifest: dict[str, Any], *, readonly: bool = False,
                 open_options: dict[str, Any] | None = None):
        self.root = root
        self.manifest = manifest
        self.n_shards = int(manifest["n_shards"])
        self.readonly = readonly
        self._options = dict(open_options or {})
        self._engines: dict[int, Any] = {}
        self._closed = False

    def __repr__(self) -> str:
        return f"<ShardedEngram {self.root!r} n_shards={self.n_shards}>"

    def __enter__(self) -> ShardedEngram:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------------ shards
    def shard_of(self, namespace: str) -> int:
        """The shard number of ``namespace`` (:func:`shard_of` with this deployment's N)."""
        return shard_of(namespace, self.n_shards)

    def shard_path(self, shard: int) -> str:
        """Directory of shard ``shard`` (an ordinary store: ``engramdb.open`` reads it)."""
        if isinstance(shard, bool) or not isinstance(shard, int) or not 0 <= shard < self.n_shards:
            raise InvalidInputError(f"shard: expected an integer in [0, {self.n_shards}), got {shard!r}")
        return os.path.join(self.root, self.manifest["shards"][shard])

    def engine(self, shard: int):
        """The open :class:`engramdb.Engram` of shard ``shard`` (opened on first use).

        Raises
        ------
        EngramError
            This object is closed; and the errors of :func:`engramdb.open`.
        """
        from .engine import open as open_store

        if self._closed:
            raise EngramError("this sharded deployment is closed; open it again with engramdb.open_sharded(root)")
        eng = self._engines.get(shard)
        if eng is None:
            eng = open_store(self.shard_path(shard), create=False, readonly=self.readonly, **self._options)
            self._engines[shard] = eng
        return eng

    def for_namespace(self, namespace: str):
        """The open engine of the shard that holds ``namespace``."""
        return self.engine(self.shard_of(namespace))

    # ------------------------------------------------------------------ verbs on every shard
    def namespaces(self) -> list[str]:
        """Every namespace of every shard, sorted."""
        return sorted(ns for i in range(self.n_shards) for ns in self.engine(i).namespaces())

    def namespace(self, name: str):
        """A handle bound to namespace ``name`` on its shard (``Engram.namespace``)."""
        return self.for_namespace(name).namespace(name)

    def drop_namespace(self, name: str) -> dict[str, int]:
        """``Engram.drop_namespace`` on the shard that holds ``name``."""
        return self.for_namespace(name).drop_namespace(name)

    @property
    def n_edges(self) -> int:
        """Edges over all shards."""
        return sum(self.engine(i).n_edges for i in range(self.n_shards))

    def stats(self) -> dict[str, Any]:
        """``memories``, ``pieces``, ``edges``, ``store_bytes`` summed over shards; ``namespaces``
        merged; ``shards``: each shard's own :meth:`engramdb.Engram.stats`."""
        per = [self.engine(i).stats() for i in range(self.n_shards)]
        return {"root": self.root, "n_shards": self.n_shards, "rule": RULE,
                "memories": sum(s["memories"] for s in per), "pieces": sum(s["pieces"] for s in per),
                "edges": sum(s["edges"] for s in per),
                "store_bytes": sum(s["store_bytes"] for s in per),
                "namespaces": {ns: {**v, "shard": i} for i, s in enumerate(per) for ns, v in s["namespaces"].items()},
                "shards": per}

    def flush(self) -> None:
        """Flush every open shard."""
        for eng in self._engines.values():
            eng.flush()

    def verify_ledger(self) -> list[Any]:
        """``Engram.verify_ledger`` on every shard (each shard has its own chain), in shard order:
        a list of :class:`engramdb.LedgerReport`; the deployment is intact when every ``ok``."""
        return [self.engine(i).verify_ledger() for i in range(self.n_shards)]

    def compact(self) -> list[dict[str, Any]]:
        """``Engram.compact`` on every shard, in shard order."""
        return [self.engine(i).compact() for i in range(self.n_shards)]

    def export(self, path: str | os.PathLike, *, now: Any = None) -> dict[str, Any]:
        """Export every shard, in shard order, into one Parquet dataset at ``path``
        (:mod:`engramdb.dataset`: ``memories/`` and ``edges/``, hive-partitioned by ``shard``
        and ``namespace``). The ``export`` job (:mod:`engramdb.jobs`) does the same with a
        journal, or on Ray.

        Parameters
        ----------
        path : str or os.PathLike
            The dataset directory.
        now : float, datetime or ISO-8601, optional
            Time of the ``salience_now`` column; the wall clock when omitted.

        Returns
        -------
        dict
            ``path``, ``memories``, ``edges`` (rows), ``partitions`` (shard and namespace
            pairs), ``n_shards``.

        Raises
        ------
        InvalidInputError
            ``path`` is a file, or the deployment's root or inside its shard stores or jobs
            (:func:`check_dataset_out`); ``now`` is not a time. Nothing is written.
        OSError
            ``path`` cannot be written.
        """
        from .dataset import finish, write_shard
        from .validate import time_or_now

        path = check_dataset_out(self.root, path, "path")
        now = float(time_or_now(now))
        parts = [write_shard(self.engine(i), path, i, now=now) for i in range(self.n_shards)]
        finish(path)
        return {"path": os.path.abspath(os.fspath(path)), "memories": sum(p["memories"] for p in parts),
                "edges": sum(p["edges"] for p in parts),
                "partitions": sum(len(p["memories_by_namespace"]) for p in parts), "n_shards": self.n_shards}

    def close(self) -> None:
        """Close every open shard. Closing twice is a no-op."""
        if self._closed:
            return
        errors = []
        for eng in self._engines.values():
            try:
                eng.close()
            except (EngramError, OSError) as exc:   # close the others, then report the first
                errors.append(exc)
        self._engines.clear()
        self._closed = True
        if errors:
            raise errors[0]


def _counts(parts: list[dict[str, Any]], arguments: dict[str, Any]) -> dict[str, Any]:
    out = combine_counts(parts)
    out["shards"] = parts
    return out


def _concatenated(parts: list[list[Any]], arguments: dict[str, Any]) -> list[Any]:
    return [x for p in parts for x in p]


#: How the answers of a verb run on every shard (its namespace omitted) become one answer of
#: the single store's type. A verb not named here is combined by its return type (a dict as
#: counts, a list concatenated in shard order) or, of another type, needs a namespace.
_FAN_IN: dict[str, Callable[[list, dict[str, Any]], Any]] = {
    "rescore": _counts,
    "consolidate": _counts,
    "dynamics_log": lambda parts, a: _merge_logs(parts, a.get("limit")),
    "ledger": lambda parts, a: _merge_ledgers(parts, a.get("limit")),
    "censors": lambda parts, a: _merge_rules(parts),
}


def _fan_in(name: str, fn: Callable) -> Callable[[list, dict[str, Any]], Any] | None:
    if name in _FAN_IN:
        return _FAN_IN[name]
    returns = str(inspect.signature(fn).return_annotation).strip("'\"")
    return _counts if returns.startswith("dict") else _concatenated if returns.startswith("list") else None


def _routed(name: str, fn: Callable, optional: bool) -> Callable:
    """A method of ShardedEngram calling ``Engram.<name>`` on the shard of its namespace; when
    the namespace is optional and omitted, on every shard (with one ``now`` for all, when the
    verb takes one), answers combined into the single store's type (:data:`_FAN_IN`)."""
    from .validate import time_or_now

    sig = inspect.signature(fn)
    default = sig.parameters["namespace"].default
    fan_in = _fan_in(name, fn) if optional else None

    @functools.wraps(fn)
    def verb(self: ShardedEngram, *args: Any, **kwargs: Any) -> Any:
        ns = kwargs.get("namespace", default)
        if ns is not None or not optional:
            return getattr(self.for_namespace(ns), name)(*args, **kwargs)
        if fan_in is None:
            raise InvalidInputError(f"{name}: give namespace= on a sharded deployment (its answers on every "
                                    "shard cannot be combined into one)")
        bound = sig.bind(self, *args, **kwargs)   # a wrong argument fails here, before any shard
        if "now" in sig.parameters and bound.arguments.get("now") is None:
            bound.arguments["now"] = time_or_now(None)   # one time for every shard
        parts = [getattr(self.engine(i), name)(*bound.args[1:], **bound.kwargs) for i in range(self.n_shards)]
        return fan_in(parts, bound.arguments)

    verb.__doc__ = (f"``Engram.{name}`` on the shard that holds ``namespace``"
                    + (" (every shard, answers combined, when it is omitted)" if optional else "")
                    + ".\n\n" + (fn.__doc__ or ""))
    return strict_flags(verb)   # a bad flag is refused before any shard is opened


def _holding(sh: ShardedEngram, rule_id: str) -> list[int]:
    """The shards whose store holds censor rule ``rule_id``."""
    return [i for i in range(sh.n_shards) if any(r.id == rule_id for r in sh.engine(i).censors())]


def _censor(self: ShardedEngram, **kwargs: Any) -> Any:
    from .censor import make_rule
    from .engine import Engram

    inspect.signature(Engram.censor).bind(self, **kwargs)   # a wrong argument fails here
    # every field checked once, before any shard is written (as each shard would check it)
    fields = {("namespaces" if k == "namespace" else k): v for k, v in kwargs.items()}
    rule = make_rule(**fields)
    if _holding(self, rule.id):   # ids are unique in the deployment, as in one store
        raise InvalidInputError(f"a censor rule {rule.id!r} exists already; remove it first or pick another id")
    targets = sorted({self.shard_of(ns) for ns in rule.namespaces}) if rule.namespaces else range(self.n_shards)
    kwargs = {**kwargs, "id": rule.id, "namespace": list(rule.namespaces) or None}   # one id on every shard
    written: list[Any] = []
    try:
        for i in targets:
            written.append((i, self.engine(i).censor(**kwargs)))
    except Exception:
        for i, _rule in written:   # a shard refused (full, read-only, ...): take the rule back off the others
            try:
                self.engine(i).remove_censor(rule.id)
            except EngramError:
                pass
        raise
    return written[0][1]


def _remove_censor(self: ShardedEngram, id: str) -> None:
    from .validate import check_id

    check_id(id, "censor id")
    shards = _holding(self, id)
    if not shards:
        raise InvalidInputError(f"no censor rule {id!r} (see censors())")
    for i in shards:
        self.engine(i).remove_censor(id)


@contextlib.contextmanager
def _acting_as(self: ShardedEngram, actor: str):
    with contextlib.ExitStack() as stack:
        for i in range(self.n_shards):   # every shard opened now, so a write anywhere in the block is named
            stack.enter_context(self.engine(i).acting_as(actor))
        yield self


def _export_ledger(self: ShardedEngram, path: str | os.PathLike) -> str:
    from .export import write_ledger_parquet

    return write_ledger_parquet(self.ledger(), path)


def _import_from(self: ShardedEngram, path: str | os.PathLike, *, on_conflict: str = "error") -> dict[str, int]:
    from .export import FORMATS, ON_CONFLICT

    if on_conflict not in ON_CONFLICT:   # as the store checks it, before the export is read
        raise InvalidInputError(f"on_conflict: expected one of {list(ON_CONFLICT)}, got {on_conflict!r}")
    names: set[str] = set()
    if isinstance(path, (str, os.PathLike)):
        for ext in FORMATS.values():
            files = [os.path.join(os.fspath(path), f"{table}.{ext}") for table in ("memories", "edges")]
            if all(os.path.isfile(f) for f in files):
                names = set().union(*(_namespaces_in(f, ext) for f in files))
                break
    shards = sorted({self.shard_of(ns) for ns in names if isinstance(ns, str) and ns})
    if len(shards) > 1:
        raise InvalidInputError(f"{os.fspath(path)!r} holds namespaces of {count(len(shards), 'shard')} ({shards}), "
                                "and an import is one write of one store; import each shard's part into its store "
                                "(engramdb.open(sharded.shard_path(i)).import_from(part)) or export per namespace")
    # one shard: the import is that store's, all or nothing (a malformed export is refused there)
    return self.engine(shards[0] if shards else 0).import_from(path, on_conflict=on_conflict)


def _namespaces_in(path: str, ext: str) -> set:
    """The values of the ``namespace`` column of an exported table (none when it has none)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        if ext == "parquet":
            table = pq.read_table(path, columns=["namespace"])
        else:
            with pa.memory_map(path, "r") as src:
                table = pa.ipc.open_file(src).read_all().select(["namespace"])
    except (pa.ArrowException, KeyError, OSError):
        return set()   # the store's import says what is wrong with the file
    return set(table.column("namespace").to_pylist())


#: Verbs of Engram without a namespace argument, served on a sharded deployment as a single
#: store serves them: (implementation, what it does over the shards).
_UNROUTED: dict[str, tuple[Callable, str]] = {
    "remove_censor": (_remove_censor, "removes the rule from every shard that holds it; an unknown id raises "
                      "InvalidInputError and writes nothing"),
    "acting_as": (_acting_as, "opens every shard and names the actor of this thread's writes on each; yields "
                  "this ShardedEngram"),
    "export_ledger": (_export_ledger, "writes every shard's entries, oldest first as ledger() lists them, to "
                      "one file (seq and the hash chain are each shard's own)"),
    "import_from": (_import_from, "imports into the one shard that holds every namespace of the export "
                    "(all or nothing there); an export whose namespaces live in several shards raises "
                    "InvalidInputError and writes nothing"),
}


def _install_verbs() -> None:
    from .engine import Engram

    for name, fn in inspect.getmembers(Engram, inspect.isfunction):
        if name.startswith("_") or hasattr(ShardedEngram, name):
            continue
        if name == "censor":
            impl, what = _censor, ("writes a store-wide rule to every shard and a rule scoped to namespaces to "
                                   "the shards holding them (one id on each; checked before any is written); "
                                   "returns it once")
        elif name in _UNROUTED:
            impl, what = _UNROUTED[name]
        else:
            param = inspect.signature(fn).parameters.get("namespace")
            if param is None or param.kind is not inspect.Parameter.KEYWORD_ONLY:
                continue
            setattr(ShardedEngram, name, _routed(name, fn, optional=param.default is None))
            continue
        method = functools.wraps(fn)(impl)   # the engine's signature and doc
        method.__doc__ = f"``Engram.{name}`` over every shard: {what}.\n\n" + (fn.__doc__ or "")
        setattr(ShardedEngram, name, strict_flags(method))


@strict_flags
def open_sharded(root: str | os.PathLike, *, n_shards: int | None = None, dim: int | None = None,
                 embedder: Any = None, readonly: bool = False, create: bool = True,
                 **options: Any) -> ShardedEngram:
    """Open (or create) the sharded deployment at ``root``.

    Parameters
    ----------
    root : str or os.PathLike
        Directory holding ``manifest.json`` and the shard stores.
    n_shards : int, optional
        Number of shards of a new deployment (required to create one); for an existing one it
        must equal the manifest's, or be omitted.
    dim, embedder :
        As for :func:`engramdb.open`, for a new deployment.
    readonly : bool
        Open every shard read-only (any number of reader processes beside each shard's writer).
    create : bool
        Create the deployment when missing.
    **options :
        Passed to :func:`engramdb.open` for each shard (``config``, ``lock_timeout_s``).

    Returns
    -------
    ShardedEngram

    Raises
    ------
    StoreNotFoundError
        No deployment at ``root`` and ``create`` is false, ``readonly`` is set or ``n_shards``
        is missing.
    ConfigError
        ``n_shards`` differs from the manifest's (namespaces would move).
    StoreCorruptedError
        The manifest is damaged or a shard directory is missing.
    """
    root = os.fspath(root)
    if not os.path.exists(os.path.join(root, MANIFEST)):
        if not create or readonly or n_shards is None:
            raise StoreNotFoundError(f"no sharded engramdb deployment at {root!r}; pass n_shards= to create one")
        init_shards(root, n_shards, dim=dim, embedder=embedder)
    manifest = read_manifest(root)
    if n_shards is not None and n_shards != manifest["n_shards"]:
        raise ConfigError(f"{root!r} has {count(manifest['n_shards'], 'shard')}, got n_shards={n_shards}: the shard count "
                          "of a deployment cannot change (every namespace would move); omit n_shards")
    for name in manifest["shards"]:
        if not os.path.exists(os.path.join(root, name, "data.mdb")):
            raise StoreCorruptedError(f"shard store {name!r} named in {os.path.join(root, MANIFEST)!r} is missing")
    if embedder is not None:
        options["embedder"] = embedder
    return ShardedEngram(root, manifest, readonly=readonly, open_options=options)


_install_verbs()
