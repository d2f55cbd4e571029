"""PostgreSQL baseline: spreading activation as a recursive CTE, the reference system's method.

The reference system (Nous) keeps its memory graph in PostgreSQL as rows of
``graph_edges(source_id, target_id, relation, weight)`` (both directions, indexed on both
endpoints) and spreads activation with a recursive CTE from the seed nodes. This module
starts a throw-away cluster (``initdb`` / ``pg_ctl`` of the Debian server packages, in a
temporary directory, on 127.0.0.1 and a free port), loads a graph with binary ``COPY``, runs
the CTE, and always stops and deletes the cluster (``with PgCluster() as pg:``).

Run as root, the server runs as the ``postgres`` OS user (``initdb`` refuses root) through
``runuser -u postgres --``. Without server binaries, :func:`find_pg_bin` returns ``None`` and
callers skip the baseline.

    python benchmarks/pg_baseline.py [--nodes 10000] [--queries 50]

checks on its own that the CTE returns the engramdb reference kernel's top 20.
"""
from __future__ import annotations

import argparse
import glob
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from engramdb.kernels.reference import RELATION_NAMES

__all__ = ["PgCluster", "PgUnavailable", "find_pg_bin", "SPREAD_SQL"]

# Throw-away cluster: durability off (loading speed only; query plans and caching unchanged).
_SERVER_SETTINGS = {
    "listen_addresses": "127.0.0.1",
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "shared_buffers": "512MB",
    "work_mem": "64MB",
    "maintenance_work_mem": "256MB",
    "max_wal_size": "4GB",
    "jit": "off",  # JIT compilation adds tens of ms to every short query
}

# Spreading activation from the seeds, depth <= 2, decay 0.5 per hop, relation multiplier 1.0
# except `contradicts` (excluded), SUM per node, top 20 without the seeds, ties by node id.
#
# engramdb's kernel is a breadth-first search with a visited set: a node's activation is fixed
# at the level where it is first reached (its distance d from the seed set), and is the sum,
# over edges u -> v from nodes u of level d - 1, of act(u) * weight * 0.5. Expanded, that is
# the sum over *shortest* walks seed -> ... -> v of the product of weight * 0.5 along the walk.
# A walk of length d that ends at a node of distance d is a shortest walk, and every node on
# it sits at its own distance (the k-th node has distance exactly k), so "keep, for each node,
# only the walks of its minimum depth" also means "expand only from nodes reached at their
# minimum depth": the CTE enumerates walks carrying their depth and the final aggregate keeps
# the walks whose depth is the minimum depth of their end node.
#
# A plain all-paths CTE (the same recursion, SUM over every walk, no depth filter) differs
# only on nodes first reached at depth 1 (neighbours of a seed):
#  - they also collect length-2 walks: s -> x -> u through any x next to a seed, i.e. every
#    triangle s - x - u with another depth-1 node x, and s' -> s -> u along a seed-seed edge
#    (a seed re-expanded at depth 2); the kernel counts only the direct s -> u edges;
#  - seeds collect s -> u -> s walks (re-scored), invisible once seeds leave the answer.
# Depth-2 nodes get the same sum either way (all their length-2 walks are shortest), so the
# plain CTE ranks clustered neighbours of the seeds higher and its top 20 can differ.
# Pruning walks that step back onto a seed inside the recursion is only a speed-up: such a
# walk is never a shortest walk.
SPREAD_SQL = """
WITH RECURSIVE walk(node, act, depth) AS (
    SELECT s, 1.0::float8, 0 FROM unnest(%(seeds)s::int4[]) AS s
  UNION ALL
    SELECT e.target_id, w.act * e.weight * 0.5, w.depth + 1
    FROM walk AS w
    JOIN graph_edges AS e ON e.source_id = w.node
    WHERE w.depth < %(max_depth)s
      AND e.relation <> 'contradicts'
      AND e.target_id <> e.source_id
      AND e.target_id <> ALL (%(seeds)s::int4[])
), first_depth AS (
    SELECT node, min(depth) AS depth FROM walk GROUP BY node
)
SELECT w.node, sum(w.act) AS act
FROM walk AS w
JOIN first_depth AS f ON f.node = w.node AND f.depth = w.depth
WHERE w.depth > 0
GROUP BY w.node
ORDER BY act DESC, w.node
LIMIT %(k)s
"""

# The same recursion without the visited-set filter, kept for the comparison above.
ALL_PATHS_SQL = """
WITH RECURSIVE walk(node, act, depth) AS (
    SELECT s, 1.0::float8, 0 FROM unnest(%(seeds)s::int4[]) AS s
  UNION ALL
    SELECT e.target_id, w.act * e.weight * 0.5, w.depth + 1
    FROM walk AS w
    JOIN graph_edges AS e ON e.source_id = w.node
    WHERE w.depth < %(max_depth)s AND e.relation <> 'contradicts'
)
SELECT node, sum(act) AS act FROM walk
WHERE node <> ALL (%(seeds)s::int4[])
GROUP BY node ORDER BY act DESC, node LIMIT %(k)s
"""


class PgUnavailable(RuntimeError):
    """PostgreSQL server binaries or the psycopg driver are missing."""


def find_pg_bin() -> Path | None:
    """Directory holding ``initdb`` and ``pg_ctl``: ``$PG_BIN``, the newest
    ``/usr/lib/postgresql/*/bin`` (Debian), or ``PATH``; ``None`` when absent."""
    cands = [os.environ.get("PG_BIN", "")]
    cands += sorted(glob.glob("/usr/lib/postgresql/*/bin"),
                    key=lambda p: [int(x) if x.isdigit() else 0 for x in Path(p).parent.name.split(".")],
                    reverse=True)
    which = shutil.which("initdb")
    cands.append(str(Path(which).parent) if which else "")
    for c in cands:
        if c and (Path(c) / "initdb").is_file() and (Path(c) / "pg_ctl").is_file():
            return Path(c)
    return None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PgCluster:
    """A temporary PostgreSQL cluster on 127.0.0.1, deleted on exit (also on error).

    ``with PgCluster() as pg: pg.load_graph(g); pg.top_k(seeds)``.
    """

    def __init__(self, bin_dir: Path | None = None):
        self.bin_dir = bin_dir or find_pg_bin()
        if self.bin_dir is None:
            raise PgUnavailable("PostgreSQL server binaries (initdb, pg_ctl) not found; "
                                "install them with `make bench-deps` (Debian: apt-get install postgresql)")
        try:
            import psycopg  # noqa: F401
        except ImportError as exc:
            raise PgUnavailable(f"psycopg not installed ({exc}); pip install 'psycopg[binary]'") from exc
        self.root: Path | None = None
        self.port = 0
        self.conn = None
        self._started = False
        self._as_postgres = os.geteuid() == 0

    # -- lifecycle ---------------------------------------------------------------------------
    def _run(self, *args: str) -> None:
        cmd = [str(self.bin_dir / args[0]), *args[1:]]
        if self._as_postgres:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        subprocess.run(cmd, check=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)

    def version(self) -> str:
        """Server version, e.g. ``PostgreSQL 15.18``."""
        if self.conn is not None:
            return "PostgreSQL " + self.conn.execute("SHOW server_version").fetchone()[0].split()[0]
        out = subprocess.run([str(self.bin_dir / "pg_ctl"), "--version"], capture_output=True, text=True)
        return out.stdout.strip()

    def start(self) -> "PgCluster":
        import psycopg

        self.root = Path(tempfile.mkdtemp(prefix="engramdb-pg-"))
        if self._as_postgres:
            shutil.chown(self.root, user="postgres", group="postgres")
        data = self.root / "data"
        try:
            self._run("initdb", "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                      "--no-locale")
        except subprocess.CalledProcessError as exc:
            raise RuntimeError("initdb failed:\n" + exc.stdout.decode(errors="replace")) from exc
        self.port = _free_port()
        opts = " ".join([f"-p {self.port}", f"-k {self.root}"]
                        + [f"-c {k}={v}" for k, v in _SERVER_SETTINGS.items()])
        try:
            self._run("pg_ctl", "-D", str(data), "-l", str(self.root / "server.log"), "-w",
                      "-t", "60", "-o", opts, "start")
        except subprocess.CalledProcessError as exc:
            log = (self.root / "server.log").read_text(errors="replace") if (self.root / "server.log").exists() else ""
            raise RuntimeError("pg_ctl start failed:\n" + exc.stdout.decode(errors="replace") + log) from exc
        self._started = True
        self.conn = psycopg.connect(host="127.0.0.1", port=self.port, user="postgres",
                                    dbname="postgres", autocommit=True)
        return self

    def stop(self) -> None:
        """Close the connection, stop the server and delete the directory (idempotent)."""
        if self.conn is not None:
            try:
                self.conn.close()
            finally:
                self.conn = None
        if self._started:
            self._started = False
            try:
                self._run("pg_ctl", "-D", str(self.root / "data"), "-m", "immediate", "-w", "stop")
            except subprocess.CalledProcessError:
                pass
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = None

    def __enter__(self) -> "PgCluster":
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- data --------------------------------------------------------------------------------
    def load_graph(self, g) -> float:
        """Create ``graph_edges`` and load both directions of ``g``'s undirected edge list
        (a :class:`graphs.Graph`) with binary COPY, then index both endpoints and ANALYZE.
        Returns the seconds taken."""
        t0 = time.perf_counter()
        with self.conn.cursor() as cur:
            cur.execute("DROP TABLE IF EXISTS graph_edges")
            cur.execute("CREATE UNLOGGED TABLE graph_edges (source_id int4 NOT NULL, "
                        "target_id int4 NOT NULL, relation text NOT NULL, weight float8 NOT NULL)")
            src = np.concatenate([g.src, g.dst])
            dst = np.concatenate([g.dst, g.src])
            rel = np.concatenate([g.edge_relation, g.edge_relation])
            w = np.concatenate([g.edge_weight, g.edge_weight]).astype(np.float64)
            with cur.copy("COPY graph_edges FROM STDIN WITH (FORMAT binary)") as cp:
                cp.write(b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0))
                for code in np.unique(rel):
                    sel = rel == code
                    cp.write(_binary_rows(src[sel], dst[sel], RELATION_NAMES[code].encode(), w[sel]))
                cp.write(struct.pack(">h", -1))
            cur.execute("CREATE INDEX graph_edges_source ON graph_edges (source_id)")
            cur.execute("CREATE INDEX graph_edges_target ON graph_edges (target_id)")
            cur.execute("VACUUM ANALYZE graph_edges")
        return time.perf_counter() - t0

    def top_k(self, seeds, k: int = 20, max_depth: int = 2, all_paths: bool = False):
        """Top ``k`` non-seed nodes by activation: (node int64 array, act float64 array)."""
        params = {"seeds": [int(s) for s in np.unique(seeds)], "k": int(k), "max_depth": int(max_depth)}
        with self.conn.cursor() as cur:
            cur.execute(ALL_PATHS_SQL if all_paths else SPREAD_SQL, params, prepare=True)
            rows = cur.fetchall()
        return (np.array([r[0] for r in rows], dtype=np.int64),
                np.array([r[1] for r in rows], dtype=np.float64))


def _binary_rows(src, dst, rel: bytes, w) -> bytes:
    """Rows of COPY's binary format for one relation name (fixed record size)."""
    dt = np.dtype([("nf", ">i2"), ("l1", ">i4"), ("s", ">i4"), ("l2", ">i4"), ("t", ">i4"),
                   ("l3", ">i4"), ("r", f"S{len(rel)}"), ("l4", ">i4"), ("w", ">f8")])
    a = np.empty(len(src), dtype=dt)
    a["nf"], a["l1"], a["l2"], a["l3"], a["l4"] = 4, 4, 4, len(rel), 8
    a["s"], a["t"], a["r"], a["w"] = src, dst, rel, w
    return a.tobytes()


def main(argv=None) -> int:
    """Self-check: the CTE's top 20 equals the engramdb reference kernel's on random queries."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_spreading import reference_top20
    from graphs import power_law_graph

    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("--nodes", type=int, default=10_000)
    ap.add_argument("--queries", type=int, default=50)
    args = ap.parse_args(argv)
    if find_pg_bin() is None:
        print("skipped: PostgreSQL server binaries not found (make bench-deps)")
        return 0
    g = power_law_graph(args.nodes)
    rng = np.random.default_rng(1)
    with PgCluster() as pg:
        print(f"{pg.version()}; load {pg.load_graph(g):.1f} s")
        same = same_all = 0
        for _ in range(args.queries):
            seeds = rng.choice(g.n, 10, replace=False).astype(np.int32)
            ref = set(reference_top20(g, seeds).tolist())
            same += set(pg.top_k(seeds)[0].tolist()) == ref
            same_all += set(pg.top_k(seeds, all_paths=True)[0].tolist()) == ref
    print(f"visited-set CTE: {same}/{args.queries} top-20 sets equal to the reference; "
          f"plain all-paths CTE: {same_all}/{args.queries}")
    return 0 if same == args.queries else 1


if __name__ == "__main__":
    sys.exit(main())
