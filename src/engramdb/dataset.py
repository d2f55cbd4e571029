"""One Parquet dataset for many stores: each shard's export written into hive partitions.

Layout, under the dataset directory ``out``::

    out/memories/shard=<i>/namespace=<name>/part-0.parquet
    out/edges/shard=<i>/namespace=<name>/part-0.parquet

The columns are those of :func:`engramdb.export.export_store` (``Engram.export``), less
``namespace``, which is in the path (percent-encoded per RFC 3986, as pyarrow's
``segment_encoding="uri"`` writes and DuckDB and pyarrow decode). DuckDB reads it with
``read_parquet('out/memories/**/*.parquet', hive_partitioning = true, hive_types = {'shard':
INTEGER, 'namespace': VARCHAR})``; pyarrow (and so pandas and ``ray.data``) with a hive
partitioning whose schema types ``namespace`` as a string. Files are owner-only (0600, directories
0700), like the store's.

Used by :meth:`engramdb.sharding.ShardedEngram.export` and by the ``export`` job
(:mod:`engramdb.jobs`).
"""
from __future__ import annotations

import os
import shutil
from typing import Any
from urllib.parse import quote

__all__ = ["TABLES", "finish", "partition_value", "write_shard"]

TABLES = ("memories", "edges")
STAGING = ".staging"


def partition_value(namespace: str) -> str:
    """A namespace as a hive partition directory value: percent-encoded (RFC 3986), so that
    ``/``, ``=``, ``%`` and spaces cannot break the path."""
    return quote(namespace, safe="")


def _owner_only(top: str) -> None:
    for dirpath, _dirs, files in os.walk(top):
        os.chmod(dirpath, 0o700)
        for f in files:
            os.chmod(os.path.join(dirpath, f), 0o600)


def write_shard(engine: Any, out: str | os.PathLike, shard: int, *, now: float) -> dict[str, Any]:
    """Export shard ``shard``'s store (``engine``) into the dataset at ``out``.

    The store is exported to ``out/.staging/shard-<i>`` (``Engram.export``), split by namespace
    into the ``shard=<i>`` partitions, and the staging directory removed. Existing ``shard=<i>``
    partitions are replaced whole, so writing a shard again (a redone job unit) leaves the
    dataset as one write would.

    Parameters
    ----------
    engine : Engram
        The shard's open store (read-only is enough).
    out : str or os.PathLike
        The dataset directory (created 0700 when missing).
    shard : int
        The shard number, the value of the ``shard`` partition.
    now : float
        Unix seconds of the exported ``salience_now`` column.

    Returns
    -------
    dict
        ``memories`` and ``edges`` (rows written), ``memories_by_namespace`` and
        ``edges_by_namespace`` (rows per namespace).

    Raises
    ------
    OSError
        ``out`` cannot be written.
    """
    import pyarrow.compute as pc
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    out = os.fspath(out)
    staging = os.path.join(out, STAGING, f"shard-{shard:04d}")
    if os.path.exists(staging):
        shutil.rmtree(staging)   # left by a worker that died mid-export
    os.makedirs(os.path.dirname(staging), mode=0o700, exist_ok=True)
    paths = engine.export(staging, now=now)
    counts: dict[str, Any] = {}
    for table_name in TABLES:
        table = pq.read_table(paths[table_name])
        target = os.path.join(out, table_name, f"shard={shard}")
        if os.path.exists(target):
            shutil.rmtree(target)   # a redo replaces this shard's partitions whole
        per_ns: dict[str, int] = {}
        if table.num_rows:
            namespaces = table.column("namespace")
            for ns in sorted(set(namespaces.to_pylist())):
                part = table.filter(pc.equal(namespaces, ns)).drop_columns(["namespace"])
                per_ns[ns] = part.num_rows
                ds.write_dataset(part, os.path.join(target, f"namespace={partition_value(ns)}"),
                                 format="parquet", basename_template="part-{i}.parquet",
                                 existing_data_behavior="overwrite_or_ignore")
        _owner_only(os.path.join(out, table_name))
        counts[table_name] = table.num_rows
        counts[f"{table_name}_by_namespace"] = per_ns
    shutil.rmtree(staging)
    return counts


def finish(out: str | os.PathLike) -> None:
    """Remove the dataset's staging directory once every shard is written (when empty)."""
    try:
        os.rmdir(os.path.join(os.fspath(out), STAGING))
    except OSError:
        pass   # missing, or a shard still being written
