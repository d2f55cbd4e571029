"""``engramdb`` command line: the engine's verbs over a store directory (click + rich).

Also runs as ``python -m engramdb``. Importing this module loads click and nothing heavy: the
engine (numpy, hnswlib, LMDB), rich and the optional readers load inside the command that needs
them, so ``engramdb --help`` answers fast (``python benchmarks/bench_import.py``).
"""
from __future__ import annotations

import errno
import json
import os
import re
import sys
import warnings
from contextlib import contextmanager
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Iterator

import click

from .errors import EngramError
from .wording import count

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from .engine import Engram

_console: tuple[str | None, Console] | None = None   # (COLUMNS when made, the console)


def _out() -> Console:
    """The rich console of this process, made on first use (rich loads only then), and again when
    the terminal width given by ``COLUMNS`` changed (rich keeps the width it was made with)."""
    global _console
    if _console is None or _console[0] != os.environ.get("COLUMNS"):
        from rich.console import Console

        _console = (os.environ.get("COLUMNS"), Console(emoji=False))   # (":smile:" in a memory is text)
    return _console[1]


_CELL_CHARS = 240


def _cell(text: str) -> str:
    """``text`` on one line, cut at :data:`_CELL_CHARS` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= _CELL_CHARS else flat[: _CELL_CHARS - 1].rstrip() + "…"


def _table(*columns: str, justify: str = "left", **options: Any) -> Table:
    """A rich table (``options`` as for ``rich.table.Table``) with ``columns``, whose cells fold
    when too long. Its title and cells are plain text, never rich markup: a memory that says
    "[shares a photo]", a path step ``-[next]->``, are shown as they are."""
    from rich.markup import escape
    from rich.table import Table

    class PlainTable(Table):
        def add_row(self, *cells: Any, **kw: Any) -> None:
            super().add_row(*(escape(c) if isinstance(c, str) else c for c in cells), **kw)

    if isinstance(options.get("title"), str):
        options["title"] = escape(options["title"])
    table = PlainTable(**options)
    for col in columns:
        table.add_column(escape(col), overflow="fold", justify=justify)
    return table


def _plain(text: Any) -> str:
    """``text`` (data: ids, details, paths) escaped for a rich ``print`` whose own markup colours it."""
    from rich.markup import escape

    return escape(str(text))


def _open(store: str, *, create: bool = False, embedder: str | None = None, dim: int | None = None,
          readonly: bool = False) -> Engram:
    """Open a store; a new one gets ``dim`` 384 unless told otherwise, an existing one keeps its own."""
    from . import engine

    if create and dim is None and embedder is None and not os.path.exists(os.path.join(store, "data.mdb")):
        dim = 384
    config, actor, wait = _root_settings()
    from .errors import StaleSnapshotWarning

    with _hint(StaleSnapshotWarning):   # (a store an older engramdb wrote)
        return engine.open(store, dim=dim, embedder=embedder, config=config, create=create, readonly=readonly,
                           lock_timeout_s=0.0 if readonly else wait, actor=actor)


def _root_settings() -> tuple[Any, str, float]:
    """What the root options give every store a command opens: its config (the slot extractor of
    ``--slot-extractor``, or None), the ledger's actor (``--actor``) and the seconds to wait for
    another writer's lock (``--wait``)."""
    ctx = click.get_current_context(silent=True)
    root = (ctx.find_root().obj or {}) if ctx is not None else {}
    config = None
    if root.get("slot_extractor") == "rules":   # (a callable is no part of a store: given per process)
        from .config import EngramConfig, SlotConfig
        from .slots import rule_based_extractor
        config = EngramConfig(slots=SlotConfig(extractor=rule_based_extractor))
    actor = _ledger_default_actor() if root.get("actor") is None else root["actor"]
    return config, actor, float(root.get("wait", 0.0))


class _NewStore:
    """``with _NewStore(store, ...) as eng``: :func:`_open` with ``create=True`` for a command that
    may make the store. When the command fails and the store it made holds no memory (nothing
    was committed), the store is removed again: a refused first command leaves nothing behind,
    not an empty store whose embedder and dimension are already fixed. A store that holds
    memories is kept, whatever failed. With ``discard`` (a dry run), a store it made is removed
    whatever happened."""

    def __init__(self, store: str, *, discard: bool = False, **kwargs: Any) -> None:
        self.store, self.kwargs, self.discard = store, kwargs, discard
        self.made = not os.path.exists(store)
        self.eng: Engram | None = None

    def __enter__(self) -> Engram:
        try:
            self.eng = _open(self.store, create=True, **self.kwargs)
        except BaseException:
            self._remove()
            raise
        return self.eng.__enter__()

    def __exit__(self, exc_type, exc, tb) -> bool | None:
        empty = False
        if exc_type is not None and self.made:
            try:
                empty = self.eng.stats()["memories"] == 0
            except Exception:   # cannot tell: keep it
                empty = False
        out = self.eng.__exit__(exc_type, exc, tb)
        if empty or self.discard:   # (a dry run leaves no store it made: helper108)
            self._remove()
        return out

    def _remove(self) -> None:
        if self.made:
            import shutil

            shutil.rmtree(self.store, ignore_errors=True)


def _ledger_default_actor() -> str:
    from .store.ledger import DEFAULT_ACTOR

    return DEFAULT_ACTOR


def _echo_json(obj: Any) -> None:
    click.echo(json.dumps(obj, ensure_ascii=False, indent=2))


def _fmt_time(t: float | None) -> str:
    """Unix seconds as ISO-8601 in UTC to the second (``2023-05-08T13:56:00Z``); ``-`` for None."""
    if t is None:
        return "-"
    from datetime import datetime, timezone

    try:
        return datetime.fromtimestamp(t, timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
    except (OverflowError, OSError, ValueError):   # outside what datetime can show
        return f"{t:.0f}"


class _Group(click.Group):
    """Turns errors into a one-line message on stderr, never a traceback.

    An engramdb error exits with code 2 (``error: StoreNotFoundError: ...``), as does a usage
    error (click's own ``Usage: ... Error: ...``); an operating-system error (a store directory
    that cannot be created or read, a full disk) exits with code 1. A broken pipe and Ctrl-C
    are left to click (silent exit 1, ``Aborted!``).
    """

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except EngramError as exc:
            click.echo(f"error: {type(exc).__name__}: {exc}", err=True)
            ctx.exit(2)
        except OSError as exc:
            if exc.errno == errno.EPIPE:
                raise
            click.echo(f"error: {type(exc).__name__}: {exc}", err=True)
            ctx.exit(1)


store_option = click.option("--store", "store", required=True, type=click.Path(file_okay=False),
                            help="Store directory (LMDB environment + index/).")
ns_option = click.option("--namespace", "-n", default="default", show_default=True,
                         help="Namespace (agent or user).")
embedder_option = click.option("--embedder", type=click.Choice(["auto", "hashing", "minilm"]), default=None,
                               help="Embedder for a new store (default: auto, the sentence model "
                                    "all-MiniLM-L6-v2 when it loads, else hashing with a warning; "
                                    "$ENGRAMDB_EMBEDDER=hashing|minilm|auto changes it). "
                                    "An existing store keeps its own (asking for another is an error).")
dim_option = click.option("--dim", type=int, default=None, help="Dimension of a new store (default 384).")


def _slot_options(f):
    """--subject/--attribute/--value/--single/--multi/--valid-from/--valid-to/--recorded-at of add."""
    for opt in reversed([
        click.option("--subject", default=None, help="Slot subject (e.g. user)."),
        click.option("--attribute", default=None, help="Slot attribute (e.g. home_city)."),
        click.option("--value", default=None, help="Slot value (default: the text)."),
        click.option("--single/--multi", "single_valued", default=None,
                     help="The attribute's cardinality for this memory (default: SlotConfig)."),
        click.option("--valid-from", default=None, help="When it became true (default: its event time)."),
        click.option("--valid-to", default=None, help="When it stopped being true (default: open)."),
        click.option("--recorded-at", default=None,
                     help="Record time, for backfilled history (default: now; never later)."),
    ]):
        f = opt(f)
    return f


def _slot_fields(opts: dict) -> dict:
    """The slot options given, as ``add``'s keywords; a slot half given is refused in the CLI's
    own words (the API's "a slot needs both subject= and attribute=" named no option: helper-227).

    Raises
    ------
    click.UsageError
    """
    given = {k: v for k, v in opts.items() if v is not None}
    if ("subject" in given) != ("attribute" in given):
        have, need = ("--subject", "--attribute") if "subject" in given else ("--attribute", "--subject")
        raise click.UsageError(f"{have} needs {need}: a slot is a subject and an attribute "
                               "(e.g. --subject user --attribute home_city)")
    if "value" in given and "subject" not in given:
        raise click.UsageError("--value needs --subject and --attribute (e.g. --subject user --attribute home_city)")
    return given


@click.group(cls=_Group)
@click.version_option(package_name="engramdb")
@click.option("--wait", type=click.FloatRange(min=0.0), default=0.0, show_default=True, metavar="SECONDS",
              help="When another process holds the store's writer lock, wait up to this many seconds "
                   "for it (like SQLite's busy_timeout) instead of failing at once.")
@click.option("--actor", default=None, metavar="NAME",
              help="Who makes this command's changes, as recorded in the audit ledger "
                   "(default: 'unspecified').")
@click.option("--slot-extractor", type=click.Choice(["none", "rules"]), default="none", show_default=True,
              help="Read a slot (subject, attribute, value) from each memory added without one: 'rules' is "
                   "engramdb.slots.rule_based_extractor (\"I live in Z\", \"I work at Z\", \"X's Y is Z\"), as "
                   "SlotConfig(extractor=...) in Python; give it to every command that writes.")
@click.pass_context
def main(ctx: click.Context, wait: float, actor: str | None, slot_extractor: str) -> None:
    """engramdb: an embedded recall engine for the long-term memory of AI agents."""
    ctx.obj = {"wait": wait, "actor": actor, "slot_extractor": slot_extractor}


@main.command()
@store_option
@ns_option
@click.option("--kind", default="episodic", show_default=True)
@click.option("--id", "id_", default=None, help="Memory id (random when omitted).")
@click.option("--tag", "tags", multiple=True)
@click.option("--source", default=None)
@click.option("--confidence", type=float, default=1.0, show_default=True)
@click.option("--created-at", default=None, help="Event time: Unix seconds or ISO-8601.")
@click.option("--salience", type=float, default=None,
              help="Initial salience in [0, 1] (default: DecayConfig.initial_salience).")
@embedder_option
@dim_option
@_slot_options
@click.argument("text")
def add(store, namespace, kind, id_, tags, source, confidence, created_at, salience, embedder, dim, text, **slot):
    """Store one memory; prints its id."""
    with _NewStore(store, embedder=embedder, dim=dim) as eng:
        click.echo(eng.add(text, namespace=namespace, kind=kind, id=id_, tags=list(tags), source=source,
                           confidence=confidence, created_at=created_at, salience=salience, **_slot_fields(slot)))


@main.command()
@store_option
@ns_option
@click.option("--with-embedding", is_flag=True, help="Include the memory's vector.")
@click.argument("memory_id")
def get(store, namespace, with_embedding, memory_id):
    """Print one memory as JSON."""
    with _open(store, readonly=True) as eng:
        mem = eng.get(memory_id, namespace=namespace, with_embedding=with_embedding)
    out = mem.to_dict()   # (without the vector)
    if with_embedding:
        out["embedding"] = [float(x) for x in mem.embedding]
    _echo_json(out)


@main.command()
@store_option
@ns_option
@click.option("--relation", "-r", "relation_opt", default=None,
              help="The relation, as the RELATION argument (default related_to).")
@click.option("--weight", "-w", type=float, default=None,
              help="in (0, 1]; default 1, or for next by the two memories' lengths (as link())")
@click.option("--now", default=None, help="When the link is made, for the salience boost of its ends, as "
              "link(now=) (default: now).")
@click.argument("source")
@click.argument("target")
@click.argument("relation", required=False)
def link(store, namespace, relation_opt, weight, now, source, target, relation):
    """Add the typed edge SOURCE -[RELATION]-> TARGET, as link(source, target, relation) does:
    ``engramdb link fact-2 fact-1 supports`` (or ``-r supports``; default related_to)."""
    if relation is not None and relation_opt is not None and relation != relation_opt:
        raise click.UsageError(f"the relation is given twice: {relation!r} and -r {relation_opt!r}")
    relation = relation or relation_opt or "related_to"
    with _open(store) as eng:
        e = eng.link(source, target, relation, weight, namespace=namespace, now=now)
        click.echo(f"{e.source} -[{e.relation.value} {e.weight:g}]-> {e.target}")


@main.command()
@store_option
@ns_option
@click.option("--by", default=None, help="An existing memory that supersedes OLD_ID (instead of TEXT).")
@click.option("--id", "id_", default=None, help="Id of the new memory (random when omitted).")
@click.option("--kind", default=None, help="Kind of the new memory (default: the old memory's).")
@click.option("--tag", "tags", multiple=True,
              help="Tag of the new memory (repeatable; default: the old memory's tags).")
@click.option("--source", default=None, help="Source of the new memory (default: the old memory's).")
@click.option("--confidence", type=float, default=None,
              help="Confidence of the new memory, in [0, 1] (default: 1.0, not the old memory's).")
@click.option("--created-at", default=None, help="Event time of the new memory: Unix seconds or ISO-8601.")
@click.option("--subject", default=None, help="Slot subject (e.g. user; default: the old memory's).")
@click.option("--attribute", default=None, help="Slot attribute (e.g. home_city; default: the old memory's).")
@click.option("--value", default=None, help="The new memory's slot value (default: its text).")
@click.option("--single/--multi", "single_valued", default=None,
              help="The attribute's cardinality for the new memory (default: SlotConfig).")
@click.option("--valid-from", default=None, help="When the new value became true (default: its event time).")
@click.option("--valid-to", default=None,
              help="When the new value stopped being true: Unix seconds or ISO-8601 (default: open).")
@click.option("--recorded-at", default=None,
              help="Record time of the new memory, for backfilled history (default: now; never later); "
                   "the old one is retired then.")
@click.argument("old_id")
@click.argument("text", required=False)
def supersede(store, namespace, by, id_, kind, tags, source, confidence, created_at, subject, attribute, value,
              single_valued, valid_from, valid_to, recorded_at, old_id, text):
    """Store TEXT as the new version of OLD_ID, or mark OLD_ID superseded --by an existing memory
    (the old one is kept, flagged superseded, with the time it stopped being valid).

    The new memory's kind, tags, source and slot default to the old memory's, as supersede()
    does; the other options are add's, and none of them goes with --by."""
    fields = {k: v for k, v in (("id", id_), ("kind", kind), ("tags", list(tags) or None), ("source", source),
                                ("confidence", confidence), ("created_at", created_at), ("subject", subject),
                                ("attribute", attribute), ("value", value), ("single_valued", single_valued),
                                ("valid_from", valid_from), ("valid_to", valid_to), ("recorded_at", recorded_at))
              if v is not None}
    if (text is None) == (by is None):   # (the API's message names its arguments, not the command's)
        raise click.UsageError("give exactly one of TEXT (the new version, stored now) or --by ID (a stored memory)")
    with _open(store) as eng:
        click.echo(eng.supersede(old_id, text, namespace=namespace, by=by, **fields))


@main.command()
@store_option
@ns_option
@click.option("--hard", is_flag=True, help="Erase the record, its vector and edges (default: archive).")
@click.argument("memory_id")
def forget(store, namespace, hard, memory_id):
    """Archive a memory (hidden from recall, kept), or erase it with --hard."""
    with _open(store) as eng:
        eng.forget(memory_id, namespace=namespace, hard=hard)
        click.echo(("erased " if hard else "archived ") + memory_id)


@main.command("drop-namespace")
@store_option
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@click.argument("name")
def drop_namespace_cmd(store, yes, name):
    """Erase namespace NAME for good: its memories, edges, slots, index files and log entries;
    then the store file is rewritten so that no erased byte is left in it."""
    with _open(store) as eng:
        known = eng.stats()["namespaces"]
        if name in known and not yes:   # an unknown name fails below, naming the close ones
            row = known[name]
            pieces = f" ({count(row['pieces'], 'more piece')} of long ones)" if row["pieces"] else ""
            click.confirm(f"erase namespace {name!r} and its {count(row['memories'], 'memory')}{pieces} for good?",
                          abort=True)
        out = eng.drop_namespace(name)
    pieces = f" ({count(out['pieces'], 'more piece')} of long ones)" if out["pieces"] else ""
    click.echo(f"dropped namespace {name!r}: {count(out['memories'], 'memory')}{pieces} erased")


@main.command()
@store_option
@ns_option
@click.option("-k", "--k", "k", type=int, default=10, show_default=True, help="Number of hits.")
@click.option("--kind", "kinds", multiple=True, help="Keep only this kind (repeatable).")
@click.option("--tag", "tags", multiple=True, help="Keep only memories with this tag (repeatable).")
@click.option("--min-confidence", type=float, default=None)
@click.option("--since", default=None, help="Event time lower bound (Unix seconds or ISO-8601).")
@click.option("--until", default=None, help="Event time upper bound, inclusive (a date: through its end).")
@click.option("--gate", type=click.Choice(["auto", "on", "off"]), default=None, help="Density gate mode.")
@click.option("--include-superseded", is_flag=True)
@click.option("--include-archived", is_flag=True)
@click.option("--as-of", default=None, help="What the store believed valid at this time (Unix seconds or "
                                            "ISO-8601; naive = UTC).")
@click.option("--valid-at", default=None, help="What held in the world at this time, as known now.")
@click.option("--subject", default=None, help="Keep memories filling a slot of this subject.")
@click.option("--attribute", default=None, help="Keep memories filling a slot of this attribute.")
@click.option("--now", default=None, help="The recall's time: salience, recency and relative cues (\"last "
                                         "week\") are read at it (Unix seconds or ISO-8601; default: now, and "
                                         "the cues of a chat stored after the fact at its newest message).")
@click.option("--reinforce/--no-reinforce", default=None,
              help="Raise the salience and access count of the hits (one write; default: "
                   "DecayConfig.reinforce_on_recall, off).")
@click.option("--json", "as_json", is_flag=True,
              help="Print the result as JSON: hits, gaps, warnings, mode, density, latency_s.")
@click.option("--full", is_flag=True, help=f"Print each hit's whole text (the table cuts it at {_CELL_CHARS} "
                                           "characters).")
@click.argument("query")
def recall(store, namespace, k, kinds, tags, min_confidence, since, until, gate, include_superseded,
           include_archived, as_of, valid_at, subject, attribute, now, reinforce, as_json, full, query):
    """Recall memories related to QUERY (keyword + vector seeds, then spreading activation)."""
    if not query.strip():   # (the library's message names vector=, which the CLI has not)
        raise click.BadParameter("is empty: give the question to recall for", param_hint="QUERY")
    with _open(store, readonly=not reinforce) as eng, _namespace_hint():
        res = eng.recall(query, namespace=namespace, k=k, kinds=list(kinds) or None, tags=list(tags) or None,
                         min_confidence=min_confidence, since=since, until=until, gate=gate,
                         include_superseded=include_superseded, include_archived=include_archived,
                         as_of=as_of, valid_at=valid_at, subject=subject, attribute=attribute, now=now,
                         reinforce=reinforce)
    if as_json:
        _echo_json(res.to_dict())
        return
    console = _out()
    title = f"recall [{res.mode}, density {res.density:.2f}, {res.latency_s * 1e3:.2f} ms]"
    if console.width < _TABLE_MIN_WIDTH:   # a narrow terminal: a list, each hit's text under its line
        _recall_list(console, res, title, full)
        return
    # the text takes the width the other columns leave (at 80 columns a path column beside it cut it
    # to 13 characters): the path of a hit reached over an edge is a line under its text ("via
    # a -[next]-> b"; a direct match's path is itself: no line)
    from rich.cells import cell_len

    table = _table("#", title=title)
    longest = max((cell_len(h.id) + (0 if h.chunk is None else 11) for h in res.hits), default=2)
    table.add_column("id", overflow="fold", min_width=min(longest, 24), max_width=24)   # (whole, where it fits)
    table.add_column("score")
    table.add_column("relevance")
    table.add_column("text", overflow="fold", min_width=16)
    wide = console.width >= 140   # (room for the time on one line: "2025-03-01 18:00:00Z")
    table.add_column("created (UTC)", min_width=20 if wide else 10, max_width=20 if wide else 13,
                     overflow="fold")   # event time, to place "yesterday" in a turn
    for i, h in enumerate(res.hits, 1):
        shown, text = _hit_cells(h, full)
        table.add_row(str(i), shown, f"{h.score:.3f}", f"{h.relevance:.2f}", text,
                      _fmt_time(h.created_at).replace("T", " "))   # (narrow: the time wraps after the date)
    console.print(table)
    _recall_notes(console, res)


#: The narrowest terminal (columns) that shows recall's hits as a table: below it each column
#: folds (an id of 17 characters over two lines, the text 16 wide), so they are a list.
_TABLE_MIN_WIDTH = 100


def _recall_list(console: Any, res: Any, title: str, full: bool) -> None:
    """Recall's hits as a list for a narrow terminal: per hit its rank, then a line with its id,
    score, relevance and creation time (UTC), its text and path under it, all indented after the
    rank (a line too long for the terminal folds there)."""
    from rich.table import Table
    from rich.text import Text

    console.print(Text(f"{title}; score, relevance, created (UTC)", style="bold"))
    grid = Table.grid(padding=(0, 1))
    grid.add_column(justify="right", no_wrap=True)
    grid.add_column(overflow="fold")
    for i, h in enumerate(res.hits, 1):
        shown, text = _hit_cells(h, full)
        entry = Text(f"{shown}  {h.score:.3f}  {h.relevance:.2f}  {_fmt_time(h.created_at).replace('T', ' ')}\n",
                     style="cyan")
        entry.append(text)
        grid.add_row(f"{i}.", entry)
    console.print(grid)
    _recall_notes(console, res)


def _hit_cells(hit: Any, full: bool) -> tuple[str, str]:
    """A recall hit's id (with its piece) and its text (whole with ``full``, else cut) with the
    path under it, as the table and the list show them (:func:`_shown`, tabs as spaces)."""
    from . import types

    shown = _shown(hit.id) if hit.chunk is None else f"{_shown(hit.id)} (piece {hit.chunk})"
    text = _shown(hit.text if full else _cell(hit.text), keep="\n").expandtabs(4)
    if len(hit.path) > 1:
        text += f"\nvia {_shown(types.format_path(hit.path))}"
    return shown, text


#: Characters that move the cursor or reorder what follows: C0 and C1 controls (ANSI sequences
#: start with ESC), zero-width and bidirectional marks, line and paragraph separators.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")


def _shown(text: str, keep: str = "") -> str:
    """``text`` with its control characters (:data:`_CONTROL`) written as escapes ("\\x1b",
    "\\u202e", "\\n"), so that an ANSI sequence or a bidirectional override in a memory or an id
    cannot move the cursor, clear the screen or reorder a line; tabs and the characters of
    ``keep`` (``"\\n"`` for a hit's text) stay."""
    def escape(m: re.Match) -> str:
        c = m.group(0)
        return c if c in keep else c.encode("unicode_escape").decode("ascii")

    if "\n" not in keep:
        text = text.replace("\n", "\\n")
    return _CONTROL.sub(escape, text)


def _recall_notes(console: Any, res: Any) -> None:
    """Recall's gaps and contradiction warnings under its hits, one each: its label ("gap:",
    "contradiction:"), then what it says, folded under itself when the terminal is narrow
    (helper-217: a warning wrapped to the first column)."""
    from rich.table import Table
    from rich.text import Text

    notes = [(Text("gap:", style="yellow"), f"{g.reason}: {_shown(g.detail)}") for g in res.gaps]
    notes += [(Text("contradiction:", style="red"),
               f"{_shown(w.source)} ({w.source_state.value}) contradicts {_shown(w.target)} ({w.target_state.value})"
               + (f"; later: {_shown(w.later)}" if w.later is not None else "")) for w in res.warnings]
    if not notes:
        return
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True)
    grid.add_column(overflow="fold")
    for label, said in notes:
        grid.add_row(label, Text(said))
    console.print(grid)


@main.command()
@store_option
@ns_option
@click.option("--budget", "budget", type=int, default=None,
              help="Token budget (default: the frame's, e.g. conversation 3000).")
@click.option("--frame", default="conversation", show_default=True,
              type=click.Choice(["conversation", "question", "task", "decision", "creative", "debug"]),
              help="What the prompt is for: sets the default budget and its sections.")
@click.option("--now", default=None, help="The block's time, as recall's --now (default: now).")
@click.option("--kind", "kinds", multiple=True, help="Recall only this kind (repeatable; L0 stays whole).")
@click.option("--tag", "tags", multiple=True, help="Recall only memories with this tag (repeatable).")
@click.option("--since", default=None, help="Recall only memories of this event time or later.")
@click.option("--until", default=None, help="Recall only memories up to this event time (a date: through its end).")
@click.option("--subject", "subjects", multiple=True,
              help="Whose slots the profile (L0) shows (repeatable; default the user's).")
@click.option("--json", "as_json", is_flag=True, help="Print the whole block as JSON.")
@click.argument("query")
def context(store, namespace, budget, frame, now, kinds, tags, since, until, subjects, as_json, query):
    """Print a context block for QUERY: profile, procedures, open decisions, recalled memories and
    ids to fetch, never over the token budget (tokens estimated as characters / 4)."""
    with _open(store, readonly=True) as eng, _namespace_hint():
        block = eng.context(query, namespace=namespace, budget_tokens=budget, frame=frame, now=now,
                            kinds=list(kinds) or None, tags=list(tags) or None, since=since, until=until,
                            subjects=list(subjects) or None)
    if as_json:
        _echo_json(block.to_dict())
        return
    click.echo(block.text)
    if not block.text:   # nothing fits: say why on stderr (the block itself stays empty for a pipe)
        for gap in block.gaps:
            click.echo(f"gap: {gap}", err=True)


@main.command()
@store_option
@click.option("--json", "as_json", is_flag=True)
def stats(store, as_json):
    """Counts per namespace, edges, density, kernel backend, sizes."""
    with _open(store, readonly=True) as eng:
        s = eng.stats()
    if as_json:
        _echo_json(s)
        return
    console = _out()
    console.print(f"store {_plain(s['path'])}: {count(s['memories'], 'memory')} ({count(s['pieces'], 'more piece')} of "
                  f"long ones), {count(s['edges'], 'edge')}, dim {s['dim']}, embedder {s['embedder']}, kernels {s['kernel_backend']}, "
                  f"{s['store_bytes'] / 1e6:.1f} MB")
    columns = ("memories", "pieces", "active", "superseded", "archived", "density")
    table = _table("namespace", *columns)
    for ns, row in s["namespaces"].items():
        table.add_row(ns, *(str(row[c]) for c in columns))
    console.print(table)


@main.command("ingest")
@store_option
@ns_option
@embedder_option
@dim_option
@click.option("--recorded-at", default=None,
              help="Record time of the lines that give none, for backfilled history (default: now).")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
def ingest_cmd(store, namespace, embedder, dim, recorded_at, file):
    """Ingest a JSONL file of memories (one {"id", "text", ..., "links"} object per line).

    Only "text" is required. A line without "id" is added as add_batch adds an item without
    one: it gets a random hex id, unless its namespace already holds its text, which it then
    reinforces (the stored memory, not a copy); so ingesting the same file again stores no
    copies of such lines. Its links start at the id it gets.
    """
    from .ingest import ingest_jsonl

    with _NewStore(store, embedder=embedder, dim=dim) as eng:
        out = ingest_jsonl(eng, file, namespace=namespace, recorded_at=recorded_at)
    old_m, old_e = out["memories"] - out["new_memories"], out["edges"] - out["new_edges"]
    click.echo(f"ingested {count(out['memories'], 'memory')}"
               + (f" ({out['new_memories']} new, {old_m} already stored)" if old_m else "")
               + f" and {count(out['edges'], 'edge')}" + (f" ({out['new_edges']} new)" if old_e > 0 else "")
               + f" into {store}")


def _finite_seconds(value: float | None) -> float | None:
    """A number of seconds given on the command line, not NaN (click's ranges let NaN through)."""
    if value is not None and value != value:
        raise click.BadParameter("expected a number of seconds, got nan")
    return value


@main.command("ingest-chat")
@store_option
@ns_option
@embedder_option
@dim_option
@click.option("--session", default=None,
              help="Session label of messages that name none (a {\"messages\": [...]} file of several "
                   "conversations: SESSION-<line> for each; without it, each is named by its first message, "
                   "as add_conversation names an unlabelled chat).")
@click.option("--session-gap", type=click.FloatRange(min=0, max=1e10), default=None, metavar="SECONDS",
              callback=lambda _ctx, _param, v: _finite_seconds(v),
              help="Without --session, an unlabelled message sent more than this long after the one before "
                   "(by created_at) opens a new session (default: 1800, 30 minutes); 0: never.")
@click.option("--entities/--no-entities", default=True, show_default=True,
              help="Add entity nodes with mentions edges for names, places and dates shared by messages.")
@click.option("--session-title", "session_titles", nargs=2, multiple=True, metavar="LABEL TEXT",
              help="Text of session LABEL's node instead of \"Session <label> of <speakers>, <date>\" "
                   "(repeatable).")
@click.option("--split-role", "split_roles", multiple=True, default=("assistant",), show_default=True,
              metavar="ROLE", help="Role whose long messages are split into findable blocks (repeatable; "
                                   "user, assistant, system, developer, tool or function).")
@click.option("--split-chars", type=click.IntRange(min=1), default=800, show_default=True,
              help="Minimum length (characters) of a message to split.")
@click.option("--max-pieces", type=click.IntRange(min=1), default=None,
              help="Most pieces one long message of a --split-role is split into "
                   "(default: StoreConfig.max_pieces, 64).")
@click.option("--keep-role", "keep_roles", multiple=True, metavar="ROLE",
              help="Keep system / developer / tool / function messages of this role (repeatable; "
                   "default: left out, being instructions and program output, not events).")
@click.option("--protect-role", "protect_roles", multiple=True, default=("user",), show_default=True,
              metavar="ROLE", help="Role whose messages stating an identity, health or family fact are tagged "
                                   "protected, never archived by rescore (repeatable).")
@click.option("--no-protect", is_flag=True, help="Tag no message protected (overrides --protect-role).")
@click.option("--recorded-at", default=None,
              help="Record time of the messages, for backfilled history: Unix seconds or ISO-8601 "
                   "(default: now; never later). Messages without a created_at happened then.")
@click.option("--dry-run", is_flag=True,
              help="Check the file against the store as a write would (ids, censor rules) and store nothing.")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
def ingest_chat_cmd(store, namespace, embedder, dim, session, session_gap, entities, session_titles, split_roles,
                    split_chars, max_pieces, keep_roles, protect_roles, no_protect, recorded_at, dry_run, file):
    """Ingest a chat: OpenAI-style {"role", "content", "created_at"?, "session"?, "name"?, "id"?} messages,
    JSONL or a JSON list, or OpenAI's {"messages": [...]} layout (one object, or one per line).

    A bad message is named by its line in a JSONL file (``chat.jsonl:3: content: is empty; ...``)
    or its index in a JSON list (``chat.json[2]: role: missing; ...``), with the field at fault;
    nothing is stored then: every conversation of the file is checked against the store as its
    write would check it (``add_conversation(dry_run=True)``: an id stored with another text, an
    absolute censor rule), and no id may name two different messages of the file, before the
    first is written. The summary counts the messages, sessions, pieces of long messages and new
    entity nodes; ``--dry-run`` checks and stores nothing."""
    from .config import SESSION_GAP_S
    from .conversation import check_messages
    from .errors import CensoredError, InvalidInputError
    from .ingest import read_conversations

    def named(exc: InvalidInputError, where: list[str]) -> InvalidInputError:
        """``exc`` naming the file place of the message at fault ("chat.jsonl:3: ...")."""
        k = getattr(exc, "message_index", None)
        if k is not None and 0 <= k < len(where):
            exc.args = (where[k] + str(exc).removeprefix(f"messages[{k}]"),)
        return exc

    # each conversation of the file its own add_conversation (an unlabelled one is named by its
    # first message); every message checked first, then every conversation against the store,
    # so a bad file stores nothing (a helper: an id stored already, or a censor rule, refused the
    # second conversation of a file after the first was written)
    conversations = read_conversations(file, session)
    for messages, where in conversations:
        try:
            check_messages(messages, keep_roles)
        except InvalidInputError as exc:
            raise named(exc, where) from None
    if len(conversations) > 1:
        _one_message_an_id(conversations)
    totals: dict = {}
    gap = SESSION_GAP_S if session_gap is None else session_gap or None   # (0: one session a conversation)
    with _NewStore(store, discard=dry_run, embedder=embedder, dim=dim) as eng:
        # (a file of several: every conversation checked before the first is written)
        passes = [True] if dry_run else [True, False] if len(conversations) > 1 else [False]
        for check in passes:
            totals = {}
            for messages, where in conversations:
                try:
                    got = eng.add_conversation(
                        messages, namespace=namespace, session=session if len(conversations) == 1 else None,
                        session_gap=gap, entities=entities, split_roles=split_roles, split_chars=split_chars,
                        session_titles=dict(session_titles) or None, progress=not check, recorded_at=recorded_at,
                        keep_roles=keep_roles, max_pieces=max_pieces,
                        protect_roles=() if no_protect else protect_roles, dry_run=check)
                except InvalidInputError as exc:
                    raise named(exc, where) from None
                except CensoredError as exc:   # (the conversation's place: the rule reads its messages)
                    exc.args = (f"{where[0].rsplit(': messages[', 1)[0]}: {exc}" if where else str(exc),)
                    raise
                for key, value in got.items():
                    totals[key] = totals.get(key, 0 if isinstance(value, int) else []) + value
    out = totals
    out["sessions"] = list(dict.fromkeys(out["sessions"]))   # (two conversations of a file may share one)
    notes = [f"{out['already_stored']} already stored"] if out["already_stored"] else []
    if out["left_out"]:
        notes.append(f"{count(out['left_out'], 'instruction or tool message', 'instruction or tool messages')} "
                     "left out, --keep-role keeps them")
    again = f" ({'; '.join(notes)})" if notes else ""
    pieces = f" and {count(out['pieces'], 'piece')} of long messages" if out["pieces"] else ""
    edited = (f"; {count(len(out['superseded']), 'edited message')} superseded: {', '.join(out['superseded'])}"
              if out["superseded"] else "")
    if out.get("corrected"):
        edited += (f"; {count(len(out['corrected']), 'memory', 'memories')} superseded by a changed value: "
                   f"{', '.join(out['corrected'])}")
    if out.get("changed"):
        edited += (f"; {count(len(out['changed']), 'changed value')} linked contradicts (later <- earlier): "
                   f"{', '.join(f'{a} <- {b}' for a, b in out['changed'])}")
    # what the memories are: the new messages, the new session nodes and the new entity nodes
    nodes = max(0, out["memories"] - len(out["message_ids"]) - out["entities"])
    made = (f"{count(out['memories'], 'memory')} ({count(len(out['message_ids']), 'message')}, "
            f"{count(nodes, 'new session node')}, {count(out['entities'], 'new entity')})")
    if dry_run:
        click.echo(f"checked: would ingest {count(len(out['message_ids']), 'new message')}{again} in "
                   f"{count(len(out['sessions']), 'session')}: {made}{pieces} into {store}; nothing stored")
        return
    click.echo(f"ingested {count(len(out['message_ids']), 'new message')}{again} in "
               f"{count(len(out['sessions']), 'session')}: {made}{pieces}, {count(out['edges'], 'edge')} into "
               f"{store}{edited}")


def _one_message_an_id(conversations: list) -> None:
    """Refuse a file whose conversations give one ``id`` to two different messages (role, name or
    content differ; the same message twice is one, sent again), naming both places.

    Raises
    ------
    InvalidInputError
    """
    from .errors import InvalidInputError

    seen: dict[str, tuple[str, tuple]] = {}
    for messages, where in conversations:
        for k, m in enumerate(messages):
            if not isinstance(m, Mapping) or not isinstance(m.get("id"), str):
                continue
            said = (m.get("role"), m.get("name"), repr(m.get("content")))
            first = seen.setdefault(m["id"], (where[k] if k < len(where) else "", said))
            if first[1] != said:
                raise InvalidInputError(f"{where[k] if k < len(where) else ''}: id: {m['id']!r} names another "
                                        f"message at {first[0]}; give each message its own id")


@main.command("ingest-locomo")
@store_option
@embedder_option
@dim_option
@click.option("--conversation", "conversations", multiple=True, help="Only this sample_id (repeatable).")
@click.option("--entities/--no-entities", default=True, show_default=True,
              help="Add entity nodes with mentions edges for names, places and dates shared by turns.")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
def ingest_locomo_cmd(store, embedder, dim, conversations, entities, file):
    """Ingest LoCoMo conversations (locomo10.json): one namespace per sample_id."""
    from .ingest import ingest_locomo

    with _NewStore(store, embedder=embedder, dim=dim) as eng:
        out = ingest_locomo(eng, file, conversations=list(conversations) or None, entities=entities)
    pieces = f" ({count(out['pieces'], 'more piece')} of long ones)" if out.get("pieces") else ""
    click.echo(f"ingested {count(out['conversations'], 'conversation')}: {count(out['memories'], 'memory')}"
               f"{pieces}, {count(out['edges'], 'edge')} into {store}")


@main.command()
@click.option("--store", default=None, type=click.Path(file_okay=False),
              help="Keep the demo store here (default: a temporary directory).")
@click.option("-k", "--k", "k", type=int, default=4, show_default=True, help="Number of hits.")
def demo(store, k):
    """Flat top-k vs graph recall on a built-in multi-session conversation about a trip."""
    from .demo import run_demo

    sys.exit(run_demo(store=store, k=k, console=_out()))


@main.command("mcp")
@store_option
@ns_option
@click.option("--read-only", "read_only", is_flag=True,
              help="Open the store read-only and serve only the reading tools (recall, context, history).")
@embedder_option
@dim_option
def mcp_cmd(store, namespace, read_only, embedder, dim):
    """Serve the store's memory tools over the Model Context Protocol (stdio): remember, recall,
    context, forget, supersede, history. Needs the extra engramdb[mcp]."""
    try:
        from .integrations.mcp_server import serve_stdio
    except ImportError as exc:
        raise click.UsageError(str(exc)) from exc
    config, actor, wait = _root_settings()   # (--slot-extractor and --actor as for every command: helper-221)
    serve_stdio(store, namespace=namespace, read_only=read_only, embedder=embedder, dim=dim, lock_timeout_s=wait,
                config=config, actor=actor)


# ---------------------------------------------------------------------- memory dynamics
def _print_summary(summary: dict) -> None:
    table = _table("kind", "memories", "mean salience", "promoted", "archived", "pruned", "active after",
                   justify="right", title=f"rescore at {_fmt_time(summary['now'])} ({summary['kernel_backend']} "
                                          f"kernel, {summary['seconds'] * 1e3:.1f} ms)")
    for kind, row in summary["by_kind"].items():
        mean = "-" if row["mean_salience"] is None else f"{row['mean_salience']:.4f}"
        table.add_row(kind, str(row["memories"]), mean, str(row["promoted"]), str(row["archived"]),
                      str(row["pruned"]), str(row["active_after"]))
    console = _out()
    console.print(table)
    console.print(f"scanned {summary['scanned']}, promoted {summary['promoted']}, archived {summary['archived']}, "
                  f"pruned {summary['pruned']}, records written {summary['records_written']}")
    kept = [f"{summary[key]} {what}" for key, what in (
        ("protected_kept", "protected"), ("slots_kept", "current slot values"),
        ("changes_kept", "changes of a value kept")) if summary.get(key)]
    if kept:
        console.print(f"kept from archiving: {', '.join(kept)}")
    later = summary.get("recorded_after_now", 0)
    if later:
        console.print(f"{count(later, 'memory')} recorded after --now, judged at their stored salience "
                      "(a backfill is judged from its record time: store it with recorded_at)")


@main.command()
@store_option
@click.option("--namespace", "-n", default=None, help="Only this namespace (default: all).")
@click.option("--now", default=None,
              help="Compute salience at this time (Unix seconds or ISO-8601; default: now). Not a record "
                   "time: what the pass writes is recorded now. A memory recorded after it keeps its "
                   "stored salience.")
@click.option("--materialize", is_flag=True, help="Write s(now) into every record, not only changed ones.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def rescore(store, namespace, now, materialize, as_json):
    """Recompute every memory's salience (native decay kernel), then promote, archive and prune by the floors."""
    with _open(store) as eng:
        summary = eng.rescore(now, namespace=namespace, progress=not as_json, materialize=materialize)
    if as_json:
        _echo_json(summary)
    else:
        _print_summary(summary)


@main.command()
@store_option
@click.option("--namespace", "-n", default=None, help="Only this namespace (default: all).")
@click.option("--now", default=None,
              help="Decide which sessions are old as of this time (Unix seconds or ISO-8601; default: now). "
                   "Not a record time: what the pass writes is recorded now.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def consolidate(store, namespace, now, as_json):
    """Sleep: merge near-duplicates, summarise old sessions, promote facts restated across sessions."""
    with _open(store) as eng:
        summary = eng.consolidate(namespace=namespace, now=now, progress=not as_json)
    if as_json:
        _echo_json(summary)
    else:
        click.echo(f"consolidated {count(summary['namespaces'], 'namespace')}: merged {summary['merged']}, "
                   f"summaries {summary['summaries']}, facts {summary['facts']}, "
                   f"outdated {summary['outdated']}, edges {summary['edges']} "
                   f"({summary['seconds'] * 1e3:.0f} ms)")
        recent = summary.get("sessions_recent", 0)
        if recent:
            click.echo(f"{count(recent, 'session')} too recent to summarise (a turn dated after --now minus "
                       "summary_age_s; a chat stored without created_at is dated when it was stored)")


@main.command("export")
@store_option
@click.option("--format", "fmt", type=click.Choice(["parquet", "arrow"]), default="parquet", show_default=True)
@click.option("--out", "out", required=True, type=click.Path(), help="Directory to write (memories + edges tables).")
@click.option("--now", default=None, help="Time of the exported salience_now column (Unix seconds or ISO-8601; "
                                         "default: now).")
def export_cmd(store, fmt, out, now):
    """Write memories (with embeddings, salience, slot and time columns) and edges as Parquet or
    Arrow files, owner-only (0600)."""
    with _open(store, readonly=True) as eng:
        paths = eng.export(out, format=fmt, now=now)
    click.echo(f"wrote {paths['memories']} and {paths['edges']}")


def _export_meta(path: str) -> tuple[int | None, str | None]:
    """The dimension and the embedder recorded in an export's memories table (None for what it
    does not record)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from .errors import InvalidInputError
    from .export import FORMATS

    for fmt, ext in FORMATS.items():
        f = os.path.join(path, f"memories.{ext}")
        if not os.path.exists(f):
            continue
        try:
            schema = pq.read_schema(f) if fmt == "parquet" else pa.ipc.open_file(pa.memory_map(f)).schema
            meta = schema.metadata or {}
            return (int(meta.get(b"engramdb.dim", b"384")),
                    meta.get(b"engramdb.embedder", b"").decode(errors="replace") or None)
        except (pa.ArrowException, OSError, ValueError) as exc:   # damaged or not an export
            raise InvalidInputError(f"export at {path!r} cannot be read: {type(exc).__name__}: {exc}") from exc
    return None, None


@main.command("import")
@store_option
@dim_option
@click.option("--on-conflict", "on_conflict", type=click.Choice(["error", "skip", "replace"]), default="error",
              show_default=True, help="An id the store already holds: fail, keep the stored memory, or replace "
              "it (erased as by a hard forget) with the export's.")
@embedder_option
@click.argument("path", type=click.Path(exists=True, file_okay=False))
def import_cmd(store, dim, on_conflict, embedder, path):
    """Read an export directory (from `engramdb export`) into a store, losslessly (all or nothing;
    a store directory this command made is removed again when the import fails).

    A new store takes the export's dimension and embedder (hashing or MiniLM; --embedder and
    --dim override them); an existing store keeps its own, and an export embedded with
    another embedder is refused, the store unchanged."""
    from .embed import family_of

    if not os.path.exists(os.path.join(store, "data.mdb")):   # the new store takes the export's
        their_dim, theirs = _export_meta(path)
        dim = their_dim if dim is None else dim
        family = None if theirs is None else family_of(theirs)
        if embedder is None:
            embedder = family
        elif family is not None and embedder != family:   # refused before a store is created
            raise click.UsageError(f"the export at {path} was embedded with {theirs!r}: import it with "
                                   f"--embedder {family} (or without --embedder), not {embedder}")
    with _NewStore(store, embedder=embedder, dim=dim) as eng:   # a failed import leaves no new store
        out = eng.import_from(path, on_conflict=on_conflict)
    pieces = f" ({count(out['pieces'], 'more piece')} of long ones)" if out["pieces"] else ""
    click.echo(f"imported {count(out['memories'], 'memory')}{pieces} and {count(out['edges'], 'edge')} into {store} "
               f"({out['skipped']} already stored kept, {out['replaced']} replaced)")


@main.command()
@store_option
@ns_option
@click.option("--shadow", is_flag=True, help="Score and log, but store every candidate.")
@click.option("--now", default=None, help="Unix seconds or ISO-8601 (default: now).")
@click.option("--recorded-at", default=None,
              help="Record time of the candidates that give none, for backfilled history (default: now).")
@click.option("--json", "as_json", is_flag=True, help="Print the decisions as JSON.")
@embedder_option
@dim_option
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
def admit(store, namespace, shadow, now, recorded_at, as_json, embedder, dim, file):
    """Score the candidates of a JSONL file with A-MAC admission control; store the admitted ones."""
    from .ingest import read_jsonl

    items = [{k: v for k, v in it.items() if k != "links"} for it in read_jsonl(file)]
    for it in items:
        it.setdefault("namespace", namespace)
    with _NewStore(store, embedder=embedder, dim=dim) as eng:
        decisions = eng.admit_batch(items, namespace=namespace, shadow=shadow or None, now=now,
                                    recorded_at=recorded_at)
    if as_json:
        _echo_json([d.to_dict() for d in decisions])
        return
    table = _table("#", "id", "decision", "score", "U", "C", "N", "R", "T", "reason",
                   title="admission" + (" (shadow mode: everything stored)" if shadow else ""))
    for d in decisions:
        f = list(d.factors.values())
        table.add_row(str(d.index), d.id, d.decision, f"{d.score:.3f}", *(f"{x:.2f}" for x in f), d.reason)
    _out().print(table)


@main.command()
@store_option
@ns_option
@click.option("--confidence", type=float, required=True,
              help="Probability, in [0, 1], that the decision works out (scored by `calibration`).")
@click.option("--option", "options", multiple=True, help="An alternative weighed (repeatable).")
@click.option("--chosen", default=None, help="The option taken (one of --option when given).")
@click.option("--reason", "reasons", multiple=True,
              help="Why (repeatable); TYPE:TEXT with a type of engramdb.decisions.REASON_TYPES, e.g. "
                   "'empirical:it worked twice'.")
@click.option("--category", default=None, help="A grouping, e.g. infra or hiring.")
@click.option("--tag", "tags", multiple=True)
@click.option("--id", "id_", default=None, help="Decision id (random when omitted).")
@click.option("--now", default=None, help="When it was decided: Unix seconds or ISO-8601 (default: now).")
@click.option("--recorded-at", default=None,
              help="Record time, for backfilled decisions (default: now; never later).")
@embedder_option
@dim_option
@click.argument("text")
def decide(store, namespace, confidence, options, chosen, reasons, category, tags, id_, now, recorded_at, embedder,
           dim, text):
    """Record a decision TEXT with its confidence (held from decay until reviewed); prints its id."""
    from .decisions import REASON_TYPES

    parsed = []
    for r in reasons:
        kind, sep, rest = r.partition(":")
        parsed.append({"type": kind, "text": rest.strip()} if sep and kind in REASON_TYPES else r)
    with _NewStore(store, embedder=embedder, dim=dim) as eng:
        click.echo(eng.decide(text, confidence=confidence, namespace=namespace, options=list(options) or None,
                              chosen=chosen, reasons=parsed or None, category=category, tags=list(tags),
                              id=id_, now=now, recorded_at=recorded_at))


@main.command()
@store_option
@ns_option
@click.option("--outcome", type=click.Choice(["success", "partial", "failure"]), default=None,
              help="How the decision turned out (without it: only end the hold on its salience).")
@click.option("--note", default=None, help="What happened, in words (with --outcome).")
@click.option("--at", "--now", "at", default=None,
              help="When the outcome became known: Unix seconds or ISO-8601 (default: now).")
@click.argument("memory_id")
def review(store, namespace, outcome, note, at, memory_id):
    """Review decision MEMORY_ID: record its --outcome (a later review supersedes an earlier one);
    its salience, held until now, starts to decay."""
    with _open(store) as eng:
        s = eng.review(memory_id, outcome, note=note, at=at, namespace=namespace)
        out = eng.get(memory_id, namespace=namespace).decision
    shown = f" {out.outcome} (outcome memory {out.outcome_id})" if outcome else ""
    click.echo(f"reviewed {memory_id}:{shown} salience {s:.4f}")


@main.command()
@store_option
@ns_option
@click.option("--tag", "tags", multiple=True, help="Only decisions with this tag (repeatable: all of them).")
@click.option("--since", default=None, help="Decided at or after (Unix seconds or ISO-8601).")
@click.option("--until", default=None, help="Decided at or before (a date: through its end).")
@click.option("--bins", type=click.IntRange(1, 100), default=10, show_default=True,
              help="Reliability bins (equal width).")
@click.option("--plot", "plot", type=click.Path(dir_okay=False), default=None,
              help="Write the reliability diagram to this PNG (needs matplotlib: pip install 'engramdb[plot]').")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def calibration(store, namespace, tags, since, until, bins, plot, as_json):
    """Calibration of the decisions' confidence: Brier score and reliability bins (predicted vs
    observed), over the latest outcome of each reviewed decision."""
    from .decisions import plot_reliability

    with _open(store, readonly=True) as eng:
        report = eng.calibration(namespace=namespace, tags=list(tags) or None, since=since, until=until, bins=bins)
    if plot is not None:
        plot_reliability(report, plot)
    if as_json:
        _echo_json(report.to_dict())
        return
    click.echo(report.summary())
    if report.n_reviewed:
        table = _table("confidence", "n", "mean predicted", "observed", justify="right", title="reliability")
        for b in report.bins:
            table.add_row(f"[{b.lo:.2f}, {b.hi:.2f}{']' if b.hi >= 1 else ')'}", str(b.n),
                          "-" if b.mean_predicted is None else f"{b.mean_predicted:.3f}",
                          "-" if b.observed is None else f"{b.observed:.3f}")
        _out().print(table)
    if plot is not None:
        click.echo(f"reliability diagram written to {plot}")


@main.command("log")
@store_option
@click.option("--namespace", "-n", default=None, help="Only this namespace.")
@click.option("--action", default=None, help="Only this action (archive, prune, promote, admission_reject, ...).")
@click.option("--limit", type=int, default=50, show_default=True, help="Last N entries.")
@click.option("--json", "as_json", is_flag=True)
def log_cmd(store, namespace, action, limit, as_json):
    """The dynamics log: every archive, prune, promotion and admission decision."""
    with _open(store, readonly=True) as eng:
        entries = eng.dynamics_log(namespace=namespace, action=action, limit=limit)
    if as_json:
        _echo_json(entries)
        return
    table = _table("seq", "action", "namespace", "id", "reason", title="dynamics log")
    for e in entries:
        table.add_row(str(e["seq"]), e["action"], e["namespace"], e["id"], e.get("reason", ""))
    _out().print(table)


# ---------------------------------------------------------------- censors
@main.group("censor", cls=_Group)
def censor_group() -> None:
    """Censor rules: warn about, block, or refuse (absolute) the memories a rule matches."""


@censor_group.command("add")
@store_option
@click.option("--pattern", default=None, help="Regular expression searched in the text (case-insensitive).")
@click.option("--case-sensitive", is_flag=True, help="Match --pattern case-sensitively.")
@click.option("--tag", default=None, help="Match memories carrying this tag.")
@click.option("--kind", default=None, help="Match memories of this kind.")
@click.option("--namespace", "-n", "namespaces", multiple=True,
              help="Match only in this namespace (repeatable); alone, every memory there.")
@click.option("--action", type=click.Choice(["warn", "block", "absolute"]), default="block", show_default=True)
@click.option("--reason", default="", help="Why (shown in warnings and refusals).")
@click.option("--provenance", type=click.Choice(["human", "agent", "auto"]), default="human", show_default=True)
@click.option("--id", "id_", default=None, help="Rule id (random when omitted).")
@click.option("--json", "as_json", is_flag=True)
def censor_add(store, pattern, case_sensitive, tag, kind, namespaces, action, reason, provenance, id_, as_json):
    """Add a censor rule to the store; it applies at once to the memories already stored."""
    with _open(store) as eng:
        rule = eng.censor(pattern=pattern, tag=tag, kind=kind, namespace=list(namespaces) or None, action=action,
                          reason=reason, ignore_case=not case_sensitive, provenance=provenance, id=id_)
    if as_json:
        _echo_json(rule.to_dict())
        return
    click.echo(f"added censor rule {rule.id} ({rule.action.value})")


@censor_group.command("list")
@store_option
@click.option("--namespace", "-n", default=None, help="Only the rules applying in this namespace.")
@click.option("--json", "as_json", is_flag=True)
def censor_list(store, namespace, as_json):
    """The store's censor rules, oldest first."""
    with _open(store, readonly=True) as eng:
        rules = eng.censors(namespace=namespace)
    if as_json:
        _echo_json([r.to_dict() for r in rules])
        return
    table = _table("id", "action", "match", "namespaces", "reason", "provenance", "created", title="censor rules")
    for r in rules:
        match = ", ".join(f"{k}={v!r}" for k, v in (("pattern", r.pattern), ("tag", r.tag),
                                                      ("kind", None if r.kind is None else r.kind.value))
                          if v is not None) or "-"
        table.add_row(r.id, r.action.value, match, ", ".join(r.namespaces) or "all", r.reason, r.provenance,
                      _fmt_time(r.created_at))
    _out().print(table)


@censor_group.command("remove")
@store_option
@click.argument("rule_id")
def censor_remove(store, rule_id):
    """Remove a censor rule; what it hid becomes visible again."""
    with _open(store) as eng:
        eng.remove_censor(rule_id)
    click.echo(f"removed censor rule {rule_id}")
@main.command("ledger")
@store_option
@click.option("--namespace", "-n", default=None, help="Only entries that touched this namespace.")
@click.option("--verb", default=None, help="Only this verb (add, add_batch, link, forget, rescore, ...).")
@click.option("--since", default=None, help="Only entries at or after this time (Unix seconds or ISO-8601).")
@click.option("--until", default=None, help="Only entries before this time (a date: through its end).")
@click.option("--limit", type=click.IntRange(min=0), default=50, show_default=True, help="Last N entries.")
@click.option("--verify", is_flag=True, help="Check the hash chain; exit code 1 when it is broken.")
@click.option("--parquet", "parquet", type=click.Path(dir_okay=False), default=None,
              help="Write every entry (no filter) to this new Parquet file.")
@click.option("--json", "as_json", is_flag=True)
def ledger_cmd(store, namespace, verb, since, until, limit, verify, parquet, as_json):
    """The audit ledger: one hash-chained entry per change (time, actor, verb, ids, digest).
    With --verify or --parquet alone it lists no entries (add a filter or --limit to list)."""
    with _open(store, readonly=True) as eng:
        report = eng.verify_ledger() if verify else None
        if parquet is not None:
            eng.export_ledger(parquet)
        entries = eng.ledger(namespace=namespace, verb=verb, since=since, until=until, limit=limit)
    if as_json:
        out: dict[str, Any] = {"entries": [e.to_dict() for e in entries]}
        if report is not None:
            out["verify"] = {"ok": report.ok, "entries": report.entries, "first_bad_seq": report.first_bad_seq,
                             "reason": report.reason, "head_hash": report.head_hash}
        _echo_json(out)
    else:
        ctx = click.get_current_context()
        asked = any(ctx.get_parameter_source(p) is not click.core.ParameterSource.DEFAULT
                    for p in ("namespace", "verb", "since", "until", "limit"))
        if asked or (report is None and parquet is None):   # --verify / --parquet alone: no listing
            table = _table("seq", "time", "actor", "verb", "namespaces", "ids", "hash", title="audit ledger")
            for e in entries:
                ids = ", ".join(e.ids[:5]) + (f" (+{e.n_ids - min(len(e.ids), 5)})" if e.n_ids > 5 else "")
                table.add_row(str(e.seq), _fmt_time(e.time), e.actor, e.verb, ", ".join(e.namespaces),
                              ids + (" [erased]" if e.redacted else ""), e.hash[:12])
            _out().print(table)
        if parquet is not None:
            click.echo(f"wrote {parquet}")
        if report is not None:
            click.echo(f"ledger ok: {count(report.entries, 'entry')}, head {report.head_hash[:16]}" if report.ok else
                       f"ledger BROKEN at entry {report.first_bad_seq}: {report.reason}")
    if report is not None and not report.ok:
        sys.exit(1)


# ---------------------------------------------------------------- temporal: history, update, query
@main.command()
@store_option
@ns_option
@click.option("--json", "as_json", is_flag=True)
@click.argument("memory_id")
def history(store, namespace, as_json, memory_id):
    """Versions and supersessions of MEMORY_ID's fact, oldest record first."""
    with _open(store, readonly=True) as eng:
        entries = eng.history(memory_id, namespace=namespace)
    if as_json:
        _echo_json([e.to_dict() for e in entries])
        return
    table = _table("id", "v", "text", "recorded", "replaced", "ended by", "valid from", "valid to", "state",
                   title=f"history of {memory_id}")
    for e in entries:
        table.add_row(e.id, str(e.version), e.text, _fmt_time(e.recorded_at), _fmt_time(e.replaced_at),
                      e.ended_by or "-", _fmt_time(e.valid_from), _fmt_time(e.valid_to), e.state.value)
    _out().print(table)


@main.command()
@store_option
@ns_option
@click.option("--text", "text_option", default=None,
              help="New wording (re-embedded and re-indexed); the same as the TEXT argument.")
@click.option("--tag", "tags", multiple=True, help="Replace the tags (repeatable).")
@click.option("--confidence", type=float, default=None)
@click.option("--source", default=None)
@click.argument("memory_id")
@click.argument("text", required=False)
def update(store, namespace, text_option, tags, confidence, source, memory_id, text):
    """Revise MEMORY_ID in place (new TEXT, tags, confidence or source); the earlier version stays
    in its history. TEXT is given as in `add`, or with --text."""
    if text is not None and text_option is not None and text != text_option:
        raise click.UsageError("give the new text once: as the TEXT argument or with --text")
    text = text if text is not None else text_option
    with _open(store) as eng:
        mem = eng.update(memory_id, namespace=namespace, text=text, tags=list(tags) or None,
                         confidence=confidence, source=source)
    _echo_json(mem.to_dict())


@main.command()
@store_option
@ns_option
@click.option("--kind", "kinds", multiple=True, help="Keep only this kind (repeatable).")
@click.option("--tag", "tags", multiple=True, help="Keep only memories with this tag (repeatable).")
@click.option("--min-confidence", type=float, default=None)
@click.option("--since", default=None, help="Event time lower bound (Unix seconds or ISO-8601).")
@click.option("--until", default=None, help="Event time upper bound, inclusive (a date: through its end).")
@click.option("--as-of", default=None, help="What the store believed valid at this time.")
@click.option("--valid-at", default=None, help="What held in the world at this time, as known now.")
@click.option("--subject", default=None, help="Keep memories filling a slot of this subject.")
@click.option("--attribute", default=None, help="Keep memories filling a slot of this attribute.")
@click.option("--include-archived", is_flag=True)
@click.option("--include-superseded", is_flag=True)
@click.option("--order", type=click.Choice(["event_time_desc", "event_time_asc", "salience_desc",
                                            "confidence_desc"]), default="event_time_desc", show_default=True)
@click.option("--state", "states", multiple=True, type=click.Choice(["active", "superseded", "archived"]),
              help="Keep only memories in this state (repeatable; default: active, and with --as-of the "
                   "superseded ones valid then).")
@click.option("--limit", type=int, default=100, show_default=True)
@click.option("--now", default=None, help="Time salience_desc reads current salience at (Unix seconds or "
                                         "ISO-8601; default: now).")
@click.option("--json", "as_json", is_flag=True)
def query(store, namespace, kinds, tags, min_confidence, since, until, as_of, valid_at, subject, attribute,
          include_archived, include_superseded, states, order, limit, now, as_json):
    """Structured query without a vector: filter by kind, tags, confidence, time, slot; ordered."""
    with _open(store, readonly=True) as eng:
        mems = eng.query(namespace=namespace, kind=list(kinds) or None, tags=list(tags) or None,
                         state=list(states) or None,
                         min_confidence=min_confidence, since=since, until=until, as_of=as_of,
                         include_archived=include_archived, include_superseded=include_superseded,
                         order=order, limit=limit, valid_at=valid_at, subject=subject, attribute=attribute,
                         now=now)
    if as_json:
        _echo_json([m.to_dict() for m in mems])
        return
    table = _table("id", "kind", "event time", "confidence", "state", "text",
                   title=f"query ({order}, {count(len(mems), 'memory')})")
    for m in mems:
        table.add_row(m.id, m.kind.value, _fmt_time(m.created_at), f"{m.confidence:.2f}", m.state.value, m.text)
    _out().print(table)


def _slot_row(attr: str, value) -> list[tuple[str, str, str, str]]:
    mems = value if isinstance(value, list) else [value]
    return [(attr, m.value or "", m.id, _fmt_time(m.valid_from)) for m in mems]


@main.command()
@store_option
@ns_option
@click.option("--json", "as_json", is_flag=True)
@click.option("--as-of", default=None, help="The value the store held current at this record time.")
@click.option("--valid-at", default=None, help="The value that held in the world at this time, as known now.")
@click.argument("subject")
@click.argument("attribute")
def current(store, namespace, as_json, as_of, valid_at, subject, attribute):
    """The current value of slot SUBJECT ATTRIBUTE (one memory, or the list of a multi-valued slot)."""
    with _open(store, readonly=True) as eng, _namespace_hint():
        value = eng.current(subject, attribute, namespace=namespace, as_of=as_of, valid_at=valid_at)
    if as_json:
        _echo_json(None if value is None else [m.to_dict() for m in value] if isinstance(value, list)
                   else value.to_dict())
        return
    if value is None:
        click.echo(f"slot ({subject}, {attribute}) holds no current value")
        return
    # the slot's names as stored (as profile lists them): "billing email" is billing_email
    first = value[0] if isinstance(value, list) else value
    subject, attribute = first.subject or subject, first.attribute or attribute
    table = _table("attribute", "value", "id", "valid from", title=f"{subject}: {attribute}")
    for row in _slot_row(attribute, value):
        table.add_row(*row)
    _out().print(table)


@contextmanager
def _hint(category: type[Warning], advice: str = "") -> Iterator[None]:
    """Print each warning of ``category`` that the code inside issues as a hint on stderr
    (``advice`` after it); other warnings go on as warnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", category)
        yield
    for w in caught:
        if issubclass(w.category, category):
            click.echo(f"hint: {w.message}{advice}", err=True)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def _namespace_hint():
    """Print an :class:`EmptyNamespaceWarning` of the verb inside as a hint on stderr."""
    from .errors import EmptyNamespaceWarning

    return _hint(EmptyNamespaceWarning, " (--namespace NAME reads one)")


@main.command()
@store_option
@ns_option
@click.option("--json", "as_json", is_flag=True)
@click.option("--as-of", default=None, help="Each slot's value the store held current at this record time.")
@click.option("--valid-at", default=None, help="Each slot's value that held in the world at this time.")
@click.argument("subject")
def profile(store, namespace, as_json, as_of, valid_at, subject):
    """Every slot of SUBJECT with its current value."""
    with _open(store, readonly=True) as eng, _namespace_hint():
        prof = eng.profile(subject, namespace=namespace, as_of=as_of, valid_at=valid_at)
    if as_json:
        _echo_json({a: [m.to_dict() for m in v] if isinstance(v, list) else v.to_dict() for a, v in prof.items()})
        return
    table = _table("attribute", "value", "id", "valid from", title=f"profile of {subject}")
    for attr, value in prof.items():
        for row in _slot_row(attr, value):
            table.add_row(*row)
    _out().print(table)


# ---------------------------------------------------------------------------- sharded deployments
@main.group(cls=_Group)
def shards() -> None:
    """Sharded deployments: namespaces hashed into N stores, batch jobs across them
    (one after another here, or on Ray with --ray; docs/scale_out.md)."""


root_argument = click.argument("root", type=click.Path(file_okay=False))
job_options = [
    click.option("--job-id", default=None, help="Resume this job (recorded shards and chunks are skipped)."),
    click.option("--ray", "use_ray", is_flag=True, help="Run on Ray, a writer actor per shard (engramdb[ray])."),
    click.option("--workers", type=click.IntRange(min=1), default=2, show_default=True,
                 help="With --ray: units running at once."),
    click.option("--json", "as_json", is_flag=True, help="Print the job result as JSON."),
]


def _job_opts(f):
    for opt in reversed(job_options):
        f = opt(f)
    return f


def _run_job(root: str, kind: str, job_id, use_ray: bool, workers: int, as_json: bool, **params: Any) -> None:
    """Run a job and print its result (a progress bar on stderr unless --json)."""
    if use_ray:
        from .ray_jobs import run as run_ray

        res = run_ray(root, kind, workers=workers, job_id=job_id, progress=not as_json, **params)
    else:
        from .jobs import run

        res = run(root, kind, job_id=job_id, progress=not as_json, **params)
    result = {k: v for k, v in res.result.items() if k != "rows"}
    doc = {"job_id": res.job_id, "kind": kind, "runner": res.runner, "workers": res.workers,
           "units_run": res.units_run, "units_resumed": res.units_resumed, "wall_s": round(res.wall_s, 4),
           "work_s": round(res.work_s, 4), "params": res.params, "result": result}
    if as_json:
        _echo_json(doc)
    else:
        click.echo(f"{kind} job {res.job_id} ({res.runner}): {count(res.units_run, 'unit')} run, "
                   f"{res.units_resumed} resumed, {res.wall_s:.2f} s")
        click.echo(json.dumps(result, ensure_ascii=False, sort_keys=True))


@shards.command("init")
@root_argument
@click.option("--shards", "n_shards", type=click.IntRange(1, 65536), required=True, help="Number of shards (fixed).")
@embedder_option
@dim_option
def shards_init(root, n_shards, embedder, dim):
    """Create a sharded deployment at ROOT: manifest.json and N empty stores."""
    from .sharding import init_shards

    doc = init_shards(root, n_shards, dim=dim or (384 if embedder is None else None), embedder=embedder)
    click.echo(f"created {count(n_shards, 'shard')} at {root} (rule {doc['rule']}, dim {doc['dim']})")


@shards.command("info")
@root_argument
@click.option("--namespace", "-n", "names", multiple=True, help="Also say which shard holds this namespace.")
def shards_info(root, names):
    """The manifest, and the shard of each --namespace."""
    from .sharding import read_manifest, shard_of

    doc = read_manifest(root)
    _echo_json({**doc, "namespaces": {n: shard_of(n, doc["n_shards"]) for n in names}})


@shards.command("rescore")
@root_argument
@click.option("--now", default=None, help="Unix seconds or ISO-8601 (default: when the job starts).")
@_job_opts
def shards_rescore(root, now, job_id, use_ray, workers, as_json):
    """Rescore every shard (salience decay, promotion, archive and prune floors)."""
    _run_job(root, "rescore", job_id, use_ray, workers, as_json, now=now)


@shards.command("consolidate")
@root_argument
@click.option("--now", default=None, help="Unix seconds or ISO-8601 (default: when the job starts).")
@_job_opts
def shards_consolidate(root, now, job_id, use_ray, workers, as_json):
    """Consolidate every shard (merge near-duplicates, summarise old sessions, promote facts)."""
    _run_job(root, "consolidate", job_id, use_ray, workers, as_json, now=now)


def _stream_jsonl(path: str):
    """Candidates of a JSONL file, one object per non-blank line, read lazily."""
    from .errors import InvalidInputError

    lineno = 0
    try:
        with open(path, encoding="utf-8-sig") as fh:   # as ingest reads JSONL: a BOM is no text
            for lineno, line in enumerate(fh, 1):
                if line.strip():
                    try:
                        yield json.loads(line)
                    except json.JSONDecodeError as exc:
                        raise InvalidInputError(f"{path}:{lineno}: not valid JSON ({exc.msg})") from None
                    except RecursionError:
                        raise InvalidInputError(f"{path}:{lineno}: a JSON value is nested too deeply") from None
    except UnicodeDecodeError as exc:   # the one-line error ingest, ingest-chat and admit give
        after = f", after line {lineno}" if lineno else ""
        raise InvalidInputError(f"{path}: not UTF-8 text ({exc.reason}{after})") from None


@shards.command("admit")
@root_argument
@click.argument("candidates", type=click.Path(exists=True, dir_okay=False))
@click.option("--now", default=None, help="Unix seconds or ISO-8601 (default: when the job starts).")
@click.option("--chunk-size", type=click.IntRange(1, 1_000_000), default=None, help="Candidates per admit_batch call (default 1000).")
@_job_opts
def shards_admit(root, candidates, now, chunk_size, job_id, use_ray, workers, as_json):
    """A-MAC admission of a JSONL stream of CANDIDATES, each with "namespace" and "text"."""
    _run_job(root, "admit", job_id, use_ray, workers, as_json, now=now, chunk_size=chunk_size,
             candidates=_stream_jsonl(candidates))


@shards.command("export")
@root_argument
@click.option("--out", required=True, type=click.Path(), help="Dataset directory (memories/ and edges/).")
@click.option("--now", default=None, help="Time of salience_now (default: when the job starts).")
@_job_opts
def shards_export(root, out, now, job_id, use_ray, workers, as_json):
    """Every shard into one Parquet dataset, hive-partitioned by shard and namespace."""
    _run_job(root, "export", job_id, use_ray, workers, as_json, out=out, now=now)


@shards.command("locomo")
@root_argument
@click.option("--data", default=None, type=click.Path(dir_okay=False), help="locomo10.json (default: ../shared/data).")
@_job_opts
def shards_locomo(root, data, job_id, use_ray, workers, as_json):
    """LoCoMo evidence recall@k of the conversations stored in the deployment (read-only)."""
    _run_job(root, "locomo", job_id, use_ray, workers, as_json, data=data)


if __name__ == "__main__":
    main()
