"""One LMDB environment with named sub-databases; the engine's only durable state.

Layout (keys are big-endian so LMDB's byte order is numeric order):

==========  ===============================  ==============================================
sub-db      key                              value
==========  ===============================  ==============================================
``meta``    ascii name                       msgpack (schema, dim, next_nid, namespaces...)
``mem``     nid u32                          msgpack record (all fields but the embedding)
``vec``     nid u32                          float32[dim] raw bytes, unit norm
``keys``    nid u32                          float16[s, dim] raw bytes, unit rows: the
                                             memory's sentence keys (most have none)
``ids``     namespace utf-8, 0x00, id utf-8  nid u32
``edges``   src u32, tgt u32, relation u8    weight f32, created_at f64 (little-endian)
``delta``   seq u64                          edge key (9 bytes): edges newer than the snapshot
``graph``   ``meta`` / array name            CSR snapshot of all edges at one instant
``cols``    ``meta`` / array name            per-memory column arrays (fast open), tagged
                                             with the record generation they match
``texts``   namespace utf-8, 0x00, sha256    nid u32 of the memory holding exactly this text
            of the text (32 bytes)           (deduplication of repeated adds)
``kw``      ``meta`` / array name            BM25 postings and forward index of every
                                             namespace (keyword leg), tagged with the record
                                             generation they match
``ledger``  seq u64                          msgpack audit ledger entry (:mod:`.ledger`)
``ledger_`` seq u64                          empty: the entry carries dynamics details
``dyn``                                      (index of the ``dynamics_log`` view)
==========  ===============================  ==============================================

``nid`` is a dense internal id (0, 1, 2, ...) that the CSR and hnswlib labels use; callers only
see their own string ids. Every engine verb validates first, then writes in one transaction,
so an error leaves the store unchanged and a crash loses nothing that was committed.

Files: the store directory is created 0700 and LMDB's files 0600 (owner only). The map starts
at ``StoreConfig.map_size_bytes`` and doubles when full: the failed transaction is aborted (it
wrote nothing) and :class:`MapGrownError` asks the caller to run it again (the engine does so
transparently). Another process that has the store open adopts the new size at its next
transaction (LMDB's ``MDB_MAP_RESIZED``).
"""
from __future__ import annotations

import hashlib
import os
import shutil
import time
import struct

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None
from contextlib import contextmanager
from typing import Any, Iterator

import lmdb
import msgpack
import numpy as np

from ..errors import (
    InvalidInputError, ReadOnlyError, StoreCorruptedError, StoreError, StoreFullError, StoreLockedError,
    StoreNotFoundError,
)
from .checks import check_edges, check_record, csr_snapshot_ok

#: 2: the audit ledger (sub-databases ``ledger``, ``ledger_dyn``; meta ``ledger_head``). A store of
#: schema 1 is read as it is and upgraded by its first writable open (a genesis entry); an
#: engramdb of schema 1 refuses a schema-2 store, so it cannot write changes the ledger misses.
SCHEMA_VERSION = 2
#: schemas this engramdb opens
READABLE_SCHEMAS = (1, 2)
_NID = struct.Struct(">I")
_SEQ = struct.Struct(">Q")
_EDGE_KEY = struct.Struct(">IIB")
_EDGE_VAL = struct.Struct("<fd")
_F32 = struct.Struct("<f")
_SUBDBS = (b"meta", b"mem", b"vec", b"ids", b"edges", b"delta", b"graph", b"cols", b"texts", b"kw",
           b"ledger", b"ledger_dyn", b"keys")
#: sub-databases a store written by an older engramdb may lack (opened lazily when writing)
_OPTIONAL_SUBDBS = (b"texts", b"kw", b"ledger", b"ledger_dyn", b"keys")
DATA_FILE = "data.mdb"
LOCK_FILE = "lock.mdb"
#: marker file: erased data may still sit in free pages of ``data.mdb`` until :meth:`LmdbStore.compact`
COMPACT_PENDING = "compact.pending"
_COMPACT_DIR = "compact.tmp"
#: the map never grows past this (virtual address space, not disk)
MAX_MAP_SIZE_BYTES = 1 << 40
DIR_MODE = 0o700
FILE_MODE = 0o600


class MapGrownError(StoreFullError):
    """The LMDB map was full and has been grown; the aborted transaction must be run again.

    Raised by :meth:`LmdbStore.write`; the engine retries the whole call (it validates before
    writing and updates its caches only after a commit, so a retry cannot duplicate a record).
    """


def text_digest(text: str) -> bytes:
    """SHA-256 of ``text`` (UTF-8), 32 bytes: the key of the ``texts`` sub-database."""
    return hashlib.sha256(text.encode()).digest()


def record_text_digest(rec: dict) -> bytes:
    """The digest of the whole text a record holds (its ``text_sha256``: for a memory stored as
    pieces, of all of them), the key of the deduplication table."""
    sha = rec.get("text_sha256")
    return bytes.fromhex(sha) if isinstance(sha, str) else text_digest(rec["text"])


def text_key(namespace: str, digest: bytes) -> bytes:
    return namespace.encode() + b"\x00" + digest


def nid_key(nid: int) -> bytes:
    return _NID.pack(nid)


#: LMDB's largest key (its default MDB_MAXKEYSIZE), in bytes.
MAX_KEY_BYTES = 511


def id_key(namespace: str, ext_id: str) -> bytes:
    """The id table's key of ``ext_id`` in ``namespace``: both UTF-8, joined by NUL.

    Raises
    ------
    InvalidInputError
        The key would exceed LMDB's 511 bytes (ids and namespaces are limited in characters,
        and a character takes up to 4 bytes): such an id is refused, never stored or found.
    """
    key = namespace.encode() + b"\x00" + ext_id.encode()
    if len(key) > MAX_KEY_BYTES:
        raise InvalidInputError(
            f"id {ext_id[:40]!r}{'...' if len(ext_id) > 40 else ''} is too long for namespace "
            f"{namespace[:40]!r}: the two take {len(key) - 1} bytes in UTF-8, at most {MAX_KEY_BYTES - 1} together")
    return key


def edge_key(src: int, tgt: int, rel: int) -> bytes:
    return _EDGE_KEY.pack(src, tgt, rel)


def pack(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)


def unpack(buf: bytes) -> Any:
    try:
        return msgpack.unpackb(buf, raw=False)
    except (msgpack.ExtraData, msgpack.FormatError, msgpack.StackError, ValueError) as exc:
        raise StoreCorruptedError(f"cannot decode a stored record: {exc}") from exc


@contextmanager
def translate_lmdb_errors(what: str):
    """Re-raise py-lmdb errors as engramdb's StoreError family."""
    try:
        yield
    except lmdb.MapFullError as exc:
        raise StoreFullError(
            f"{what}: the LMDB map is full ({exc}); reopen with a larger StoreConfig.map_size_bytes"
        ) from exc
    except lmdb.LockError as exc:
        raise StoreLockedError(f"{what}: the store is locked by another process ({exc})") from exc
    except (lmdb.CorruptedError, lmdb.InvalidError, lmdb.VersionMismatchError) as exc:
        raise StoreCorruptedError(f"{what}: the store is corrupted or not an engramdb store ({exc})") from exc
    except lmdb.Error as exc:
        raise StoreError(f"{what}: {exc}") from exc


class LmdbStore:
    """The LMDB environment of one engramdb store directory.

    Parameters
    ----------
    path : str or os.PathLike
        Store directory (created when ``create`` is true and it does not exist).
    map_size_bytes : int
        LMDB map size; virtual address space, the file grows as needed.
    sync : bool
        fsync on every commit (durable against power loss); False keeps crash safety only.
    create : bool
        Create the directory when missing; otherwise raise :class:`StoreNotFoundError`.
    readonly : bool
        Open read-only (several readers may share a store).
    lock_timeout_s : float
        Seconds to wait for another process's writer lock (SQLite's busy_timeout); 0 fails at once.

    Raises
    ------
    StoreNotFoundError
        ``path`` is missing (and ``create`` is false) or not a readable directory.
    StoreLockedError, StoreCorruptedError, StoreError
        LMDB could not open the environment.
    """

    def __init__(self, path: str | os.PathLike, *, map_size_bytes: int, sync: bool = True,
                 create: bool = True, readonly: bool = False, lock_timeout_s: float = 0.0):
        self.path = os.fspath(path)
        if os.path.exists(self.path) and not os.path.isdir(self.path):
            raise StoreNotFoundError(f"store path {self.path!r} exists but is not a directory")
        if not os.path.isdir(self.path):
            if not create or readonly:
                raise StoreNotFoundError(
                    f"no engramdb store at {self.path!r}; create one with engramdb.open(path, dim=...)"
                )
            try:
                os.makedirs(self.path, mode=DIR_MODE, exist_ok=True)
            except OSError as exc:
                raise StoreNotFoundError(f"cannot create store directory {self.path!r}: {exc}") from exc
        elif not os.access(self.path, os.R_OK | os.X_OK):
            raise StoreNotFoundError(f"store directory {self.path!r} is not readable")
        if readonly and not os.path.exists(os.path.join(self.path, DATA_FILE)):
            raise StoreNotFoundError(f"no engramdb store at {self.path!r} (no {DATA_FILE})")
        self._lock_fd = None if readonly else self._take_writer_lock(lock_timeout_s)
        try:
            self._open_env(map_size_bytes, sync, readonly)
        except BaseException:
            self._release_writer_lock()
            raise

    def _take_writer_lock(self, timeout_s: float = 0.0) -> int | None:
        """One writer per store: an exclusive flock on ``writer.lock`` (LMDB itself would let two
        processes write, and each engine's caches would then go stale). Polls every 20 ms for
        up to ``timeout_s`` seconds while another process holds it."""
        if fcntl is None:
            return None
        fd = os.open(os.path.join(self.path, "writer.lock"), os.O_RDWR | os.O_CREAT, FILE_MODE)
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return fd
            except OSError:
                left = deadline - time.monotonic()
                if left > 0:
                    time.sleep(min(0.02, left))
                    continue
                os.close(fd)
                waited = f" (waited {timeout_s:g} s)" if timeout_s > 0 else ""
                raise StoreLockedError(
                    f"store {self.path!r} is open for writing elsewhere{waited} (one writer at a time: "
                    "another process, or another open engine of this process); close it there, wait "
                    "for it with lock_timeout_s= (CLI: engramdb --wait SECONDS), or open this one with "
                    "readonly=True"
                ) from None

    def _release_writer_lock(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # closing the descriptor drops the flock
            self._lock_fd = None

    def _open_env(self, map_size_bytes: int, sync: bool, readonly: bool) -> None:
        self._sync, self.readonly = sync, readonly
        try:
            self._open_lmdb(map_size_bytes, sync, readonly)
        except StoreError as exc:   # translate_lmdb_errors' form of lmdb.Error
            if "already open in this process" not in str(exc):
                raise
            raise StoreError(
                f"store {self.path!r} is already open in this process (LMDB opens an environment once per "
                "process): share that Engram between threads (or use its namespace handles), read-only "
                "readers included; readonly=True opens are for other processes") from exc

    def _open_lmdb(self, map_size_bytes: int, sync: bool, readonly: bool) -> None:
        with translate_lmdb_errors(f"opening store {self.path!r}"):
            self.env = lmdb.open(
                self.path, map_size=map_size_bytes, max_dbs=len(_SUBDBS) + 1, sync=sync,
                readonly=readonly, create=not readonly, lock=True, readahead=False, mode=FILE_MODE,
            )
            self.dbs = {
                name.decode(): self.env.open_db(name, create=not readonly) for name in _SUBDBS
            } if not readonly else self._open_readonly_dbs()

    def _open_readonly_dbs(self) -> dict[str, Any]:
        dbs = {}
        for name in _SUBDBS:
            try:
                dbs[name.decode()] = self.env.open_db(name, create=False)
            except lmdb.NotFoundError as exc:
                if name in _OPTIONAL_SUBDBS:
                    dbs[name.decode()] = None
                    continue
                raise StoreCorruptedError(f"{self.path!r} is not an engramdb store (missing sub-database)") from exc
        return dbs

    # -- transactions -------------------------------------------------------------------
    def _begin(self, write: bool) -> lmdb.Transaction:
        """Begin a transaction, adopting a map that another process grew (MDB_MAP_RESIZED)."""
        try:
            return self.env.begin(write=write)
        except lmdb.MapResizedError:
            self.env.set_mapsize(0)   # 0: take the size recorded in the file
            return self.env.begin(write=write)

    @contextmanager
    def write(self, what: str = "write") -> Iterator[lmdb.Transaction]:
        """A write transaction; commits on success, aborts on any exception.

        Raises
        ------
        MapGrownError
            The map was full: the transaction was aborted, the map doubled (up to
            :data:`MAX_MAP_SIZE_BYTES`); run the same transaction again.
        StoreFullError
            The map is full and cannot grow further.
        """
        try:
            with translate_lmdb_errors(what):
                with self._begin(write=True) as txn:
                    yield txn
        except StoreFullError as exc:
            if isinstance(exc, MapGrownError) or not isinstance(exc.__cause__, lmdb.MapFullError):
                raise
            self._grow_map(what, exc)

    def _grow_map(self, what: str, exc: StoreFullError) -> None:
        """Double the map after a MapFullError (no transaction of this process is open)."""
        size = int(self.env.info()["map_size"])
        if size >= MAX_MAP_SIZE_BYTES:
            raise exc
        new = min(2 * size, MAX_MAP_SIZE_BYTES)
        with translate_lmdb_errors(f"{what}: growing the LMDB map to {new} bytes"):
            self.env.set_mapsize(new)
        raise MapGrownError(f"{what}: the LMDB map was full and grew from {size} to {new} bytes; "
                            "run the same call again") from exc

    @contextmanager
    def read(self, what: str = "read") -> Iterator[lmdb.Transaction]:
        with translate_lmdb_errors(what):
            with self._begin(write=False) as txn:
                yield txn

    def close(self) -> None:
        self.env.close()
        self._release_writer_lock()

    # -- compaction ---------------------------------------------------------------------
    # LMDB never overwrites a page it frees: a deleted record's bytes stay in the free pages of
    # ``data.mdb``, and in the unused gap of a page it was deleted from, until a later write
    # happens to reuse that page. LMDB's own compacting copy (``env.copy(path, compact=True)``,
    # MDB_CP_COMPACT) omits the free pages but is not enough: it copies overflow pages whole,
    # and the tail of a one-page overflow value (a snapshot array, a long record) can hold
    # bytes of other, since deleted, pages, because LMDB recycles a page buffer without zeroing
    # it (``mdb_page_malloc``). Measured on stores of 2,000 dropped memories beside 200 kept
    # ones (``benchmarks/bench_drop_namespace.py``): after LMDB's compacting copy 8 to 15 of 20
    # stores still held dropped texts, after the copy below none. :meth:`compact` therefore
    # copies every key and value into a new environment whose pages only held copied data.
    def compaction_pending(self) -> bool:
        """Whether an erasure is waiting for :meth:`compact` (the marker file exists)."""
        return os.path.exists(os.path.join(self.path, COMPACT_PENDING))

    def mark_compaction_pending(self) -> None:
        """Create the marker file (synced) before a transaction whose erased bytes only
        :meth:`compact` removes, so that a crash in between is finished at the next writable open."""
        fd = os.open(os.path.join(self.path, COMPACT_PENDING), os.O_WRONLY | os.O_CREAT, FILE_MODE)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        _fsync_dir(self.path)

    def attached_elsewhere(self) -> bool:
        """Whether another process has this LMDB environment open (a reader: the writer lock is
        ours). Closes and reopens this process's environment to ask LMDB's own lock (about a
        millisecond).

        Raises
        ------
        StoreError
            No POSIX file locks on this platform.
        """
        map_size = int(self.env.info()["map_size"])
        self.env.close()
        try:
            fd = self._exclusive_env_lock()
            if fd is not None:
                os.close(fd)
        finally:
            self._open_env(map_size, self._sync, self.readonly)
        return fd is None

    def _exclusive_env_lock(self) -> int | None:
        """With this process's environment closed, take the lock LMDB's first opener takes: an
        exclusive fcntl lock on byte 0 of ``lock.mdb``, which every open environment holds
        shared (``mdb_env_excl_lock``). Returns its descriptor (closing it releases the lock;
        meanwhile another process opening the store waits), or None when another process has
        the environment open."""
        if fcntl is None:
            raise StoreError("compacting a store needs POSIX file locks (fcntl), which this platform lacks")
        fd = os.open(os.path.join(self.path, LOCK_FILE), os.O_RDWR | os.O_CREAT, FILE_MODE)
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 0, os.SEEK_SET)
        except OSError:
            os.close(fd)
            return None
        return fd

    def compact(self) -> dict[str, float]:
        """Rewrite ``data.mdb`` so that no byte of an erased record is left in it, then
        overwrite the old file with zeros before its blocks are freed.

        Every key and value of every sub-database is copied, in key order and in one write
        transaction, into a new environment in ``compact.tmp/`` of the store directory (its
        pages hold nothing but the copied data: new pages are zeroed, recycled ones held copied
        data). Its ``data.mdb`` replaces the store's by a rename while this process holds LMDB's
        exclusive lock (its own environment closed, no other process attached), so a crash at
        any point leaves the old file or the new one whole. Removes the :data:`COMPACT_PENDING`
        marker. Cost: one read and one write of the live data, plus one write of the old
        file's size (zeros).

        Returns
        -------
        dict
            ``bytes_before``, ``bytes_after`` (sizes of ``data.mdb``) and ``seconds``.

        Raises
        ------
        StoreLockedError
            Another process has the store open (read-only): nothing changed, the marker stays.
        ReadOnlyError
            This store is open read-only.
        StoreError
            LMDB failed to copy, or no POSIX file locks.
        """
        if self.readonly:
            raise ReadOnlyError("a read-only store cannot be compacted")
        t_start = time.perf_counter()
        data = os.path.join(self.path, DATA_FILE)
        tmp = os.path.join(self.path, _COMPACT_DIR)
        shutil.rmtree(tmp, ignore_errors=True)   # left by a crash during an earlier compaction
        os.mkdir(tmp, DIR_MODE)
        try:
            map_size = int(self.env.info()["map_size"])
            self._copy_into(tmp, map_size)
            new = os.path.join(tmp, DATA_FILE)
            before, after = os.path.getsize(data), os.path.getsize(new)
            self.env.close()
            try:
                lock = self._exclusive_env_lock()
                if lock is None:
                    raise StoreLockedError(
                        f"store {self.path!r} is open in another process (read-only), so its file cannot be "
                        "rewritten now: erased data stays in free pages of data.mdb until the store is "
                        "compacted (close the other processes, then call compact() or reopen the store)")
                try:
                    old = os.open(data, os.O_RDWR)
                    try:
                        os.replace(new, data)
                        _fsync_dir(self.path)
                        _overwrite_with_zeros(old)
                    finally:
                        os.close(old)
                finally:
                    os.close(lock)
            finally:
                self._open_env(map_size, self._sync, False)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        try:
            os.remove(os.path.join(self.path, COMPACT_PENDING))
        except FileNotFoundError:
            pass
        return {"bytes_before": before, "bytes_after": after, "seconds": time.perf_counter() - t_start}

    def _copy_into(self, directory: str, map_size: int) -> None:
        """Copy every sub-database into a new environment in ``directory`` (synced, closed)."""
        with translate_lmdb_errors("compacting the store"):
            dst = lmdb.open(directory, map_size=map_size, max_dbs=len(_SUBDBS) + 1, lock=False,
                            readahead=False, mode=FILE_MODE, meminit=True)
            try:
                with self.env.begin() as src, dst.begin(write=True) as out:
                    for name, db in self.dbs.items():
                        if db is None:   # an optional sub-db this (older) store lacks
                            continue
                        target = dst.open_db(name.encode(), txn=out, create=True)
                        out.cursor(db=target).putmulti(src.cursor(db=db).iternext(), append=True)
                dst.sync(True)
            finally:
                dst.close()
        os.chmod(os.path.join(directory, DATA_FILE), FILE_MODE)

    # -- meta ---------------------------------------------------------------------------
    def get_meta(self, txn, name: str, default: Any = None) -> Any:
        buf = txn.get(name.encode(), db=self.dbs["meta"])
        return default if buf is None else unpack(buf)

    def put_meta(self, txn, name: str, value: Any) -> None:
        txn.put(name.encode(), pack(value), db=self.dbs["meta"])

    def iter_meta(self, txn, prefix: str) -> Iterator[tuple[str, Any]]:
        """Every meta entry whose name starts with ``prefix``, in key order: (name, value)."""
        raw = prefix.encode()
        cur = txn.cursor(db=self.dbs["meta"])
        if not cur.set_range(raw):
            return
        for k, v in cur:
            if not k.startswith(raw):
                break
            yield k.decode(), unpack(v)

    # -- memories -----------------------------------------------------------------------
    def put_record(self, txn, nid: int, record: dict) -> bytes:
        """Write ``record`` of ``nid``; returns the bytes stored (the audit ledger hashes them)."""
        buf = pack(record)
        txn.put(nid_key(nid), buf, db=self.dbs["mem"])
        return buf

    def get_record(self, txn, nid: int) -> dict | None:
        buf = txn.get(nid_key(nid), db=self.dbs["mem"])
        return None if buf is None else check_record(nid, unpack(buf))

    def delete_record(self, txn, nid: int, namespace: str, ext_id: str) -> None:
        rec = self.get_record(txn, nid)
        if rec is not None:   # drop the dedup key of its text when it still points here
            digest = record_text_digest(rec)
            if self.lookup_text(txn, namespace, digest) == nid:
                txn.delete(text_key(namespace, digest), db=self.dbs["texts"])
        self.delete_nids(txn, [nid])
        txn.delete(id_key(namespace, ext_id), db=self.dbs["ids"])

    def iter_records(self, txn) -> Iterator[tuple[int, dict]]:
        cur = txn.cursor(db=self.dbs["mem"])
        for k, v in cur:
            if len(k) != _NID.size:
                raise StoreCorruptedError(f"a record key of {len(k)} bytes is damaged")
            nid = _NID.unpack(k)[0]
            yield nid, check_record(nid, unpack(v))

    def put_vector(self, txn, nid: int, vec: np.ndarray) -> None:
        txn.put(nid_key(nid), np.ascontiguousarray(vec, dtype=np.float32).tobytes(), db=self.dbs["vec"])

    def get_vector(self, txn, nid: int, dim: int) -> np.ndarray | None:
        buf = txn.get(nid_key(nid), db=self.dbs["vec"])
        if buf is None:
            return None
        if len(buf) != 4 * dim:
            raise StoreCorruptedError(f"embedding of nid {nid} has {len(buf)} bytes, expected {4 * dim}")
        vec = np.frombuffer(buf, dtype=np.float32).copy()
        if not np.all(np.isfinite(vec)):
            raise StoreCorruptedError(f"embedding of nid {nid} is damaged (NaN or infinite values)")
        return vec

    def put_keys(self, txn, nid: int, keys: np.ndarray | None) -> None:
        """Store the sentence keys of ``nid`` (float, shape (s, dim), unit rows) as float16 (half
        the bytes; a cosine off by at most about 1e-3, for a rescoring that only ranks); None or
        no rows deletes them."""
        if keys is None or not len(keys):
            db = self.dbs.get("keys")
            if db is not None:
                txn.delete(nid_key(nid), db=db)
            return
        txn.put(nid_key(nid), np.ascontiguousarray(keys, dtype=np.float16).tobytes(), db=self.dbs["keys"])

    def get_keys(self, txn, nid: int, dim: int) -> np.ndarray | None:
        """The sentence keys of ``nid`` (float16, shape (s, dim), read-only), or None.

        Raises
        ------
        StoreCorruptedError
            The value is not a whole number of ``dim``-vectors.
        """
        db = self.dbs.get("keys")
        buf = None if db is None else txn.get(nid_key(nid), db=db)
        if buf is None:
            return None
        if not len(buf) or len(buf) % (2 * dim):
            raise StoreCorruptedError(f"sentence keys of nid {nid} have {len(buf)} bytes, not a multiple of {2 * dim}")
        return np.frombuffer(buf, dtype=np.float16).reshape(-1, dim)

    def put_id(self, txn, namespace: str, ext_id: str, nid: int) -> bool:
        """Map (namespace, id) to nid; False if the id is taken."""
        return txn.put(id_key(namespace, ext_id), nid_key(nid), db=self.dbs["ids"], overwrite=False)

    def lookup_id(self, txn, namespace: str, ext_id: str) -> int | None:
        buf = txn.get(id_key(namespace, ext_id), db=self.dbs["ids"])
        return None if buf is None else _nid_of(buf)

    def ids_starting(self, txn, namespace: str, prefix: str) -> list[tuple[str, int]]:
        """The ids of ``namespace`` that start with ``prefix`` and their nids, in key order: one
        cursor range of the id table (``"S:"``: the namespace's session nodes)."""
        start = id_key(namespace, prefix)
        out = []
        cur = txn.cursor(db=self.dbs["ids"])
        if cur.set_range(start):
            for key, buf in cur:
                if not bytes(key).startswith(start):
                    break
                out.append((bytes(key)[len(namespace.encode()) + 1:].decode(), _nid_of(buf)))
        return out

    def put_text(self, txn, namespace: str, digest: bytes, nid: int) -> None:
        """Remember that ``nid`` holds the text whose SHA-256 is ``digest`` (see :func:`text_digest`)."""
        txn.put(text_key(namespace, digest), nid_key(nid), db=self.dbs["texts"])

    def drop_text(self, txn, namespace: str, digest: bytes, nid: int) -> None:
        """Forget the digest of a text that ``nid`` no longer holds (if it still points at ``nid``)."""
        if self.lookup_text(txn, namespace, digest) == nid:
            txn.delete(text_key(namespace, digest), db=self.dbs["texts"])

    def lookup_text(self, txn, namespace: str, digest: bytes) -> int | None:
        """The nid last stored with this text digest in ``namespace``, or None."""
        db = self.dbs.get("texts")
        buf = None if db is None else txn.get(text_key(namespace, digest), db=db)
        return None if buf is None else _nid_of(buf)

    # -- edges --------------------------------------------------------------------------
    def has_edge_weight(self, txn, src: int, tgt: int, rel: int, weight: float) -> bool:
        """Whether edge ``src -rel-> tgt`` is stored with ``weight`` (as float32)."""
        val = txn.get(edge_key(src, tgt, rel), db=self.dbs["edges"])
        return val is not None and len(val) == _EDGE_VAL.size and val[:4] == _F32.pack(weight)

    def put_edge(self, txn, src: int, tgt: int, rel: int, weight: float, created_at: float,
                 delta_seq: int) -> None:
        key = edge_key(src, tgt, rel)
        txn.put(key, _EDGE_VAL.pack(weight, created_at), db=self.dbs["edges"])
        txn.put(_SEQ.pack(delta_seq), key, db=self.dbs["delta"])

    def delete_namespace_rows(self, txn, namespace: str) -> list[int]:
        """Delete every record, vector, id and deduplication key of ``namespace`` (one prefix
        scan each of ``ids`` and ``texts``); returns the nids whose ids it held."""
        prefix = namespace.encode() + b"\x00"   # names hold no NUL: the prefix is exact
        nids = [_nid_of(v) for _k, v in self._delete_prefixed(txn, "ids", prefix)]
        self._delete_prefixed(txn, "texts", prefix)
        self.delete_nids(txn, nids)
        return nids

    def delete_nids(self, txn, nids) -> None:
        """Delete the record, vector and sentence keys of each nid (no id or key bookkeeping)."""
        keys = self.dbs.get("keys")
        for nid in nids:
            key = nid_key(int(nid))
            txn.delete(key, db=self.dbs["mem"])
            txn.delete(key, db=self.dbs["vec"])
            if keys is not None:
                txn.delete(key, db=keys)

    def _delete_prefixed(self, txn, db_name: str, prefix: bytes) -> list[tuple[bytes, bytes]]:
        db = self.dbs.get(db_name)
        if db is None:
            return []
        found = []
        cur = txn.cursor(db=db)
        if cur.set_range(prefix):
            for k, v in cur:
                if not k.startswith(prefix):
                    break
                found.append((k, v))
        for k, _v in found:
            txn.delete(k, db=db)
        return found

    def meta_items(self, txn, prefix: str) -> list[tuple[str, Any]]:
        """(name, value) of every ``meta`` entry whose name starts with ``prefix``, in key order."""
        out = []
        raw = prefix.encode()
        cur = txn.cursor(db=self.dbs["meta"])
        if cur.set_range(raw):
            for k, v in cur:
                if not k.startswith(raw):
                    break
                out.append((k.decode(), unpack(v)))
        return out

    def delete_meta(self, txn, name: str) -> None:
        txn.delete(name.encode(), db=self.dbs["meta"])

    def clear_arrays(self, txn, db_name: str) -> None:
        """Empty sub-db ``db_name`` (a snapshot written by :meth:`save_arrays`); loading then
        rebuilds what it cached from the records."""
        if self.dbs.get(db_name) is not None:
            txn.drop(self.dbs[db_name], delete=False)

    def delete_edges_touching(self, txn, nids: set[int]) -> int:
        """Delete every edge with an end in ``nids`` (one scan of the edges); returns how many."""
        doomed = []
        for k in txn.cursor(db=self.dbs["edges"]).iternext(keys=True, values=False):
            s, t, _ = _EDGE_KEY.unpack(k)
            if s in nids or t in nids:
                doomed.append(k)
        for k in doomed:
            txn.delete(k, db=self.dbs["edges"])
        return len(doomed)

    def delete_edges_of(self, txn, nid: int) -> int:
        """Delete every edge touching ``nid`` (hard forget); returns how many."""
        doomed = []
        cur = txn.cursor(db=self.dbs["edges"])
        for k in cur.iternext(keys=True, values=False):
            s, t, _ = _EDGE_KEY.unpack(k)
            if s == nid or t == nid:
                doomed.append(k)
        for k in doomed:
            txn.delete(k, db=self.dbs["edges"])
        return len(doomed)

    def read_edges(self, txn) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """All edges as arrays (src uint32, tgt uint32, relation uint8, weight float32)."""
        cur = txn.cursor(db=self.dbs["edges"])
        keys, vals = [], []
        for k, v in cur:
            keys.append(k)
            vals.append(v)
        return self._checked_edges(txn, keys, vals)

    def _checked_edges(self, txn, keys: list[bytes], vals: list[bytes]):
        if any(len(k) != _EDGE_KEY.size for k in keys) or any(len(v) != _EDGE_VAL.size for v in vals):
            raise StoreCorruptedError("an edge record of the store is damaged (wrong length)")
        edges = _decode_edges(keys, vals)
        n_nodes = self.get_meta(txn, "next_nid", 0)
        check_edges(*edges, n_nodes if isinstance(n_nodes, int) else 0)
        return edges

    def read_delta(self, txn) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Edges recorded since the last snapshot, with their current weights."""
        edges_db = self.dbs["edges"]
        keys, vals = [], []
        for _, k in txn.cursor(db=self.dbs["delta"]):
            v = txn.get(k, db=edges_db)
            if v is not None:
                keys.append(k)
                vals.append(v)
        return self._checked_edges(txn, keys, vals)

    def delta_size(self, txn) -> int:
        return txn.stat(self.dbs["delta"])["entries"]

    def save_arrays(self, txn, db_name: str, arrays: dict[str, np.ndarray], meta: dict) -> None:
        """Persist named arrays (raw bytes) and their meta in sub-db ``db_name``."""
        db = self.dbs[db_name]
        for name, arr in arrays.items():
            txn.put(name.encode(), np.ascontiguousarray(arr).tobytes(), db=db)
        txn.put(b"meta", pack(meta), db=db)

    def load_arrays(self, txn, db_name: str, dtypes: dict[str, Any], *,
                    copy: bool = True) -> tuple[dict[str, np.ndarray], dict] | None:
        """Arrays saved by :meth:`save_arrays`, or None when nothing was saved.

        Each array is a copy of the stored value; ``copy=False`` returns a read-only view of that
        copy instead of copying it once more (for a caller that only reads it or copies it anyway).

        Raises
        ------
        StoreCorruptedError
            An array is missing or its byte length does not fit its dtype.
        """
        db = self.dbs[db_name]
        if db is None:   # an optional sub-db that an older store lacks
            return None
        meta_buf = txn.get(b"meta", db=db)
        if meta_buf is None:
            return None
        out = {}
        for name, dtype in dtypes.items():
            buf = txn.get(name.encode(), db=db)
            if buf is None or len(buf) % np.dtype(dtype).itemsize:
                raise StoreCorruptedError(f"snapshot {db_name!r} lacks a whole array {name!r}")
            arr = np.frombuffer(buf, dtype=dtype)   # over the bytes py-lmdb copied out of the map
            out[name] = arr.copy() if copy else arr
        return out, unpack(meta_buf)

    def save_snapshot(self, txn, arrays: dict[str, np.ndarray], meta: dict) -> None:
        """Persist the CSR snapshot and clear the edge delta, in the caller's transaction."""
        self.save_arrays(txn, "graph", arrays, meta)
        txn.drop(self.dbs["delta"], delete=False)

    def load_snapshot(self, txn, dtypes: dict[str, Any]) -> tuple[dict[str, np.ndarray], dict] | None:
        """The CSR snapshot saved by :meth:`save_snapshot`, or None; its arrays are read-only.

        Raises
        ------
        StoreCorruptedError
            An array is missing, or they do not form a graph on at most ``next_nid`` nodes
            (see :func:`engramdb.store.checks.csr_snapshot_ok`); rebuild from the edges.
        """
        snap = self.load_arrays(txn, "graph", dtypes, copy=False)   # the CSR is never written in place
        n_max = self.get_meta(txn, "next_nid", 0)
        if snap is not None and not (isinstance(n_max, int) and csr_snapshot_ok(snap[0], n_max)):
            raise StoreCorruptedError("the CSR snapshot is damaged")
        return snap

def _fsync_file(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(path: str) -> None:
    """Make a rename or a new file in directory ``path`` durable (a no-op where directories
    cannot be opened)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _overwrite_with_zeros(fd: int, chunk: int = 1 << 20) -> None:
    """Write zeros over the whole file behind ``fd`` and sync it: on a file system that
    overwrites in place, its old blocks hold no data when they are freed."""
    size = os.fstat(fd).st_size
    zeros = bytes(chunk)
    os.lseek(fd, 0, os.SEEK_SET)
    done = 0
    while done < size:
        done += os.write(fd, zeros[: min(chunk, size - done)])
    os.fsync(fd)


def shred(path: str) -> int:
    """Overwrite the file at ``path`` with zeros, sync it and remove it; returns its size (0 when
    there is no such file). For caches that held erased data (hnswlib index files)."""
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return 0
    try:
        size = os.fstat(fd).st_size
        _overwrite_with_zeros(fd)
    finally:
        os.close(fd)
    os.remove(path)
    return size


def _nid_of(buf: bytes) -> int:
    if len(buf) != _NID.size:
        raise StoreCorruptedError(f"an id mapping of {len(buf)} bytes is damaged (expected {_NID.size})")
    return _NID.unpack(buf)[0]


def _decode_edges(keys: list[bytes], vals: list[bytes]):
    n = len(keys)
    if n == 0:
        return (np.zeros(0, np.uint32), np.zeros(0, np.uint32), np.zeros(0, np.uint8),
                np.zeros(0, np.float32))
    k = np.frombuffer(b"".join(keys), dtype=np.dtype([("s", ">u4"), ("t", ">u4"), ("r", "u1")]))
    v = np.frombuffer(b"".join(vals), dtype=np.dtype([("w", "<f4"), ("c", "<f8")]))
    return (k["s"].astype(np.uint32), k["t"].astype(np.uint32), k["r"].astype(np.uint8),
            v["w"].astype(np.float32))
