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
``consolidate``, ``dynamics_log``) and verbs without one (``stats``, ``namespaces``, ``flush``,
``compact``, ``export``) run on every shard, one after another, and combine the answers. The
distributed batch jobs over the same layout are in :mod:`engramdb.jobs` (sequential, no extra
dependency) and :mod:`engramdb.ray_jobs` (the optional ``engramdb[ray]`` extra). This module
does not import Ray.

References
----------
Aumasson et al., RFC 7693 (2015): BLAKE2b. Karger et al. (1997), STOC: hashing keys to nodes
(here plain modulo hashing, since ``N`` is fixed for a deployment's life).
"""
from __future__ import annotations

import functools
import hashlib
import inspect
import json
import os
import tempfile
from collections.abc import Callable
from typing import Any

from .errors import ConfigError, EngramError, InvalidInputError, StoreCorruptedError, StoreNotFoundError
from .validate import check_namespace, strict_flags
from .wording import count

__all__ = ["MANIFEST", "RULE", "RULE_VERSION", "ShardedEngram", "combine_counts", "init_shards",
           "open_sharded", "read_manifest", "shard_of", "write_json_atomic"]

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
        The manifest is not one this version writes (unknown format, rule or version, or
        a shard list that disagrees with ``n_shards``).
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
            or doc.get("rule_version") != RULE_VERSION:
        raise StoreCorruptedError(f"{path!r} is not a {FORMAT} manifest with rule {RULE} v{RULE_VERSION}: {doc!r:.200}")
    n = doc.get("n_shards")
    shards = doc.get("shards")
    if not isinstance(n, int) or not isinstance(shards, list) or len(shards) != n \
            or not all(isinstance(s, str) and s and os.sep not in s and s not in (".", "..") for s in shards):
        raise StoreCorruptedError(f"{path!r}: n_shards {n!r} and shards {shards!r:.200} disagree")
    return doc


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
    """Combine per-shard summaries into one: integers are summed, dicts combined key by key,
    a ``mean_*`` value is weighted by the sibling ``memories`` count, other values kept when
    all shards agree (else a list of them, in shard order)."""
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


def _merge_logs(parts: list[list[dict[str, Any]]], limit: int | None) -> list[dict[str, Any]]:
    entries = [{**e, "shard": i} for i, part in enumerate(parts) for e in part]
    entries.sort(key=lambda e: (e.get("at", 0.0), e["shard"], e.get("seq", 0)))
    return entries if limit is None else entries[len(entries) - limit:] if limit else []


@strict_flags
class ShardedEngram:
    """The verbs of :class:`engramdb.Engram` over a sharded deployment, routed by namespace.

    Made by :func:`open_sharded`. A verb that takes ``namespace=`` runs on the shard
    :func:`shard_of` names for it; ``rescore``, ``consolidate``, ``dynamics_log`` and ``ledger``
    without a namespace, and ``stats``, ``namespaces``, ``flush``, ``compact``, ``export`` and
    ``verify_ledger``, run on every shard in shard order. Shards open on first use, each as an ordinary store (so in one process
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
        OSError
            ``path`` cannot be written.
        """
        from .dataset import finish, write_shard
        from .validate import time_or_now

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


def _routed(name: str, fn: Callable, optional: bool) -> Callable:
    """A method of ShardedEngram calling ``Engram.<name>`` on the shard of its namespace; when
    the namespace is optional and omitted, on every shard, answers combined."""
    default = inspect.signature(fn).parameters["namespace"].default

    @functools.wraps(fn)
    def verb(self: ShardedEngram, *args: Any, **kwargs: Any) -> Any:
        ns = kwargs.get("namespace", default)
        if ns is not None or not optional:
            return getattr(self.for_namespace(ns), name)(*args, **kwargs)
        parts = [getattr(self.engine(i), name)(*args, **kwargs) for i in range(self.n_shards)]
        if name == "dynamics_log":
            return _merge_logs(parts, kwargs.get("limit"))
        if all(isinstance(p, list) for p in parts):   # e.g. ledger(): each shard's list, in shard order
            return [x for p in parts for x in p]
        out = combine_counts(parts)
        out["shards"] = parts
        return out

    verb.__doc__ = (f"``Engram.{name}`` on the shard that holds ``namespace``"
                    + (" (every shard, answers combined, when it is omitted)" if optional else "")
                    + ".\n\n" + (fn.__doc__ or ""))
    return strict_flags(verb)   # a bad flag is refused before any shard is opened


def _install_verbs() -> None:
    from .engine import Engram

    for name, fn in inspect.getmembers(Engram, inspect.isfunction):
        if name.startswith("_") or hasattr(ShardedEngram, name):
            continue
        param = inspect.signature(fn).parameters.get("namespace")
        if param is None or param.kind is not inspect.Parameter.KEYWORD_ONLY:
            continue
        setattr(ShardedEngram, name, _routed(name, fn, optional=param.default is None))


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
