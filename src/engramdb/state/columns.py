"""Per-memory state as column arrays indexed by nid: what ranking, filters and dynamics read."""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..chatter import speech_act, without_greetings
from ..errors import StoreCorruptedError
from ..speakers import speaker_keys, speaker_of
from ..standing import may_name, standing_bits
from ..temporal import column_values
from ..timeref import mentioned_span
from ..types import MemoryKind, MemoryState, _STATE_CODES

_ARCHIVED = _STATE_CODES[MemoryState.ARCHIVED]

__all__ = ["Columns", "IdColumn", "TEXT_RULES", "TextColumns", "text_columns"]

#: The version of the rules :func:`text_columns` reads a text by, saved with the column snapshot:
#: a snapshot saved under an older one (or none: 1) is brought up to date on the next open by the
#: steps of :data:`TEXT_RULE_STEPS`, so a column the rules now fill differently is never read
#: stale (2: the speaker's name, a standing relation; "what is my name?" in a store written
#: before found no statement of it and said "no memory says the user's name"; 3: "I'm starting
#: at Skyscanner as a senior analyst" states the employer; 4: praise is read as a greeting,
#: "Great job! How did it feel?" only asks; 5: so is a farewell, "Thanks, talk next week!" states
#: nothing, and a street address with its town states the home, "I live at 14 Rue des Lilas, Lyon.";
#: 6: "We moved to a new apartment in Jamaica Plain." states the home).
TEXT_RULES = 6


def _standing_of_names(text: str, created_at: float, cols: "Columns", nid: int) -> None:
    """Step 1 -> 2: the standing column of a text that may name the speaker
    (:func:`engramdb.standing.may_name`; the others' bits are as before), read again."""
    if may_name(text):
        cols.standing[nid] = standing_bits(text)


def _standing_of_starts(text: str, created_at: float, cols: "Columns", nid: int) -> None:
    """Step 2 -> 3: the standing column of a text that says "start" (the employer's reading of
    "starting at <name> as <role>"), read again."""
    if "start" in text.lower():
        cols.standing[nid] = standing_bits(text)


def _speech_act_of_greetings(text: str, created_at: float, cols: "Columns", nid: int) -> None:
    """Step 3 -> 4: the speech act of a text that holds a greeting or praise
    (:func:`engramdb.chatter.without_greetings`), read again."""
    if without_greetings(text) is not None:
        cols.speech_act[nid] = speech_act(text)


def _farewells_and_addresses(text: str, created_at: float, cols: "Columns", nid: int) -> None:
    """Step 4 -> 5: the speech act of a text that holds a greeting (a farewell is one now), and
    the standing column of one that names an address or where the speaker lives at, read again."""
    _speech_act_of_greetings(text, created_at, cols, nid)
    low = text.lower()
    if "address" in low or "live at" in low or "living at" in low:
        cols.standing[nid] = standing_bits(text)


def _moves_into_homes(text: str, created_at: float, cols: "Columns", nid: int) -> None:
    """Step 5 -> 6: the standing column of a text that says "moved to", read again."""
    if "moved to" in text.lower():
        cols.standing[nid] = standing_bits(text)


#: For each older version of the text rules, the step that brings a record's columns to the next
#: one: ``step(text, created_at, columns, nid)``, run on every record of a store whose column
#: snapshot was saved under it (:meth:`Columns.upgrade_text_columns`). A step reads again only
#: the columns its version changed, and only for the texts they may change: reading every
#: column of every record took 29 s at 100,000 memories.
TEXT_RULE_STEPS = {1: _standing_of_names, 2: _standing_of_starts, 3: _speech_act_of_greetings,
                   4: _farewells_and_addresses, 5: _moves_into_homes}


class TextColumns(NamedTuple):
    """The columns read from a memory's text and event time alone (see :func:`text_columns`)."""

    mentioned: tuple[float, float] | None   #: :func:`engramdb.timeref.mentioned_span`
    speech_act: int   #: :func:`engramdb.chatter.speech_act`
    standing: int   #: :func:`engramdb.standing.standing_bits`


def text_columns(text: str, created_at: float) -> TextColumns:
    """What :meth:`Columns.set_record` reads from a text (str) and its event time (Unix
    seconds): the time the text names, its speech act and the standing relations it states.
    Pure: the write path computes it while hnswlib inserts, before the commit."""
    return TextColumns(mentioned_span(text, created_at), speech_act(text), standing_bits(text))


class IdColumn:
    """The caller's id of each nid (str, or None once erased), list-like.

    Loaded from the column snapshot (NUL-joined UTF-8), it decodes one id per read from the
    snapshot bytes and turns into a plain list on the first change, so opening a store with a
    million memories does not build a million strings (about 0.2 s) before the first recall.
    """

    __slots__ = ("_list", "_buf", "_off", "_alive")

    def __init__(self, ids: list[str | None] | None = None) -> None:
        self._list: list[str | None] | None = [] if ids is None else ids
        self._buf: bytes = b""
        self._off: np.ndarray | None = None
        self._alive: np.ndarray | None = None

    @classmethod
    def from_snapshot(cls, raw: bytes, alive: np.ndarray) -> "IdColumn":
        """Ids of ``len(alive)`` nids from NUL-joined UTF-8 ``raw`` (None where not ``alive``).

        Raises
        ------
        StoreCorruptedError
            ``raw`` holds another number of ids.
        """
        n = len(alive)
        out = cls()
        if n == 0:
            return out
        seps = np.flatnonzero(np.frombuffer(raw, np.uint8) == 0)
        if len(seps) != n - 1:
            raise StoreCorruptedError(f"column snapshot holds {len(seps) + 1} ids for {n} memories")
        off = np.empty(n + 1, np.int64)
        off[0] = 0
        off[1:n] = seps + 1
        off[n] = len(raw) + 1
        out._list, out._buf, out._off, out._alive = None, raw, off, np.array(alive, bool)
        return out

    def _materialize(self) -> list[str | None]:
        if self._list is None:
            ids = self._buf.decode().split("\x00")
            self._list = [x if a else None for x, a in zip(ids, self._alive.tolist())]
            self._buf, self._off, self._alive = b"", None, None
        return self._list

    def __getitem__(self, i):
        if self._list is not None:
            return self._list[i]
        if isinstance(i, slice):
            return self._materialize()[i]
        i = int(i)
        if i < 0:
            i += len(self._alive)
        if not self._alive[i]:
            return None
        return self._buf[int(self._off[i]): int(self._off[i + 1]) - 1].decode()

    def __setitem__(self, i, value) -> None:
        self._materialize()[i] = value

    def extend(self, values) -> None:
        self._materialize().extend(values)

    def __len__(self) -> int:
        return len(self._list) if self._list is not None else len(self._alive)

    def __iter__(self):
        return iter(self._materialize())


class Columns:
    """Growable column arrays, one entry per nid (erased nids stay, with ``alive`` False).

    Attributes
    ----------
    n : int
        Number of nids covered.
    ns : ndarray of int32
        Namespace code.
    kind, state : ndarray of uint8
        ``MemoryKind.code`` and state code (``types.STATE_BY_CODE``).
    alive : ndarray of bool
        False once erased.
    created_at, recorded_at, retired_at, valid_from, valid_to : ndarray of float64
        Event time, record time and valid time, Unix seconds; open ends are +inf. ``valid_to``
        is the end stated when the memory was recorded (what ``as_of`` reads).
    known_valid_to : ndarray of float64
        The valid end as now known (a supersession closes it; what ``valid_at`` reads), +inf
        when open.
    confidence, s0 : ndarray of float32
        Confidence and salience at t0, in [0, 1].
    t0 : ndarray of float64
        Time of the last salience update, Unix seconds (+inf: held until review).
    ext_ids : IdColumn
        The caller's id of each nid (str, None once erased).
    archived_at : ndarray of float64
        Record time an archived memory was archived, Unix seconds; +inf for any other state.
    head : ndarray of int32
        The memory a nid belongs to: for a piece of a text stored as pieces
        (:mod:`engramdb.batch_plan`), the nid of its first piece; for any other memory, its own
        nid. Recall treats a memory's pieces as one node (:func:`engramdb.recall.seeds.lift_pieces`).
    speaker : ndarray of int32
        Who said the memory (:func:`engramdb.speakers.speaker_of`): an index into
        ``speaker_names``, 0 for none. Set on a memory's own (first) record only: a later piece
        of a long text is its memory's (read it as ``speaker[head[nid]]``).
    speaker_names : list of str
        The speakers by code; entry 0 is "" (no speaker). A speaker whose memories are all
        erased stays in memory until the store is reopened; the saved snapshot keeps only the
        speakers of live memories (:meth:`snapshot`).
    mentioned_start, mentioned_end : ndarray of float64
        The time the memory's text names, resolved against its event time
        (:func:`engramdb.timeref.mentioned_span`: "last Friday" said on a Monday), Unix
        seconds ``[start, end)``; +inf / -inf when it names none. Recall's time cues weigh a
        memory by it as by its event time.
    speech_act : ndarray of uint8
        What the memory's text (a piece's own text) does (:func:`engramdb.chatter.speech_act`):
        ``chatter.STATEMENT``, ``QUESTION`` (it only asks: recall weighs it by
        ``RecallConfig.question_weight``) or ``CONTENT_FREE`` (thanks, greetings, laughter:
        recall does not lift it by spreading activation, :mod:`engramdb.recall.activation`).
    standing : ndarray of uint8
        The speaker's standing relations the text states (:func:`engramdb.standing.standing_bits`:
        1 home, 2 employer, 16 name; and 4, 8, 32 for those it may state, read loosely): recall reads every
        statement of the relation a question asks for ("where do I work?") from it, whatever its
        words, and says when no memory may state it (an ``unstated`` gap). A store written before
        the column reads it from its records on the first open.
    blocked : ndarray of bool
        Hidden by a ``block`` / ``absolute`` censor rule (:mod:`engramdb.censor`); not saved in
        the snapshot, evaluated from the rules when the store opens.
    censor : CensorState or None
        Set while the store has a censor rule: told of every record given to :meth:`set_record`.
    archived_version : int
        Bumped whenever a memory becomes or stops being archived (a cache key: the recall graph
        without the archived memories' edges, ``EngineState.recall_csr``).
    """

    FIELDS = {"ns": np.int32, "kind": np.uint8, "state": np.uint8, "alive": np.bool_,
              "created_at": np.float64, "confidence": np.float32, "s0": np.float32,
              "t0": np.float64,
              "recorded_at": np.float64, "retired_at": np.float64, "valid_from": np.float64,
              "valid_to": np.float64, "known_valid_to": np.float64,   # record and valid time (temporal.py; +inf = open)
              "archived_at": np.float64, "head": np.int32, "speaker": np.int32,
              "mentioned_start": np.float64, "mentioned_end": np.float64, "speech_act": np.uint8,
              "standing": np.uint8}

    def __init__(self) -> None:
        self.n = 0
        for name, dtype in self.FIELDS.items():
            setattr(self, name, np.zeros(1024, dtype))
        self.ext_ids = IdColumn()
        self._set_speakers([""])
        self.blocked = np.zeros(1024, np.bool_)
        # per nid: hash of what the text-derived columns (speaker, mentioned span, speech act) were read from
        # (text, event time, tags), so a record put again unchanged there (a reinforcement, an
        # archive) is not analysed again; 0: not known (a new nid, or columns from a snapshot)
        self._text_key = np.zeros(1024, np.int64)
        self.censor: Any = None
        self.archived_version = 0   # bumped whenever a memory becomes or stops being archived
        self._any_archived = (-1, False)   # (archived_version, whether a live memory is archived)
        self._newest_valid: dict[int, float] = {}   # namespace code -> a bound of its newest valid start

    def ensure(self, n: int) -> None:
        """Grow the arrays to hold nids below ``n``; they are writable afterwards (the read-only
        views :meth:`load_snapshot` installs are copied here, before the first write)."""
        cap = len(self.ns)
        if n > cap or not self.ns.flags.writeable:
            new = max(n, 2 * cap) if n > cap else cap
            for name, dtype in self.FIELDS.items():
                arr = np.zeros(new, dtype)
                arr[:cap] = getattr(self, name)
                setattr(self, name, arr)
            blocked = np.zeros(new, np.bool_)
            blocked[:cap] = self.blocked[:cap]
            self.blocked = blocked
            text_key = np.zeros(new, np.int64)
            m = min(len(self._text_key), new)
            text_key[:m] = self._text_key[:m]
            self._text_key = text_key
        if n > self.n:
            self.ext_ids.extend([None] * (n - self.n))
            self.n = n

    def set_record(self, nid: int, rec: dict, ns_code: int, head: int | None = None,
                   derived: TextColumns | None = None) -> None:
        """Columns of ``nid`` from its stored record.

        ``head`` is the nid of the first piece when ``rec`` is a later piece of a text stored as
        pieces (it has ``chunk_of``); None keeps the column as it is for such a piece (an update
        of a stored piece) and sets the nid itself for any other record. ``derived`` is
        :func:`text_columns` of the record's text and event time when the caller computed it
        already (the write path does, while hnswlib inserts); computed here otherwise."""
        self.ensure(nid + 1)
        own = rec.get("chunk_of") is None   # a memory's own record (else a later piece of it)
        if head is not None:
            self.head[nid] = head
        elif own:
            self.head[nid] = nid
        key = hash((rec["text"], rec["created_at"], tuple(rec.get("tags") or ())))
        fresh = key != self._text_key[nid] or not self.alive[nid]   # text-derived columns to read
        if fresh and own:
            self._count_speaker(nid, -1)   # (its old speaker, in its old namespace)
        self.ns[nid] = ns_code
        self.kind[nid] = MemoryKind(rec["kind"]).code
        state = _STATE_CODES[MemoryState(rec["state"])]
        if (self.state[nid] == _ARCHIVED) != (state == _ARCHIVED):   # (a new nid's slot holds 0: active)
            self.archived_version += 1
        self.state[nid] = state
        self.alive[nid] = True
        self.created_at[nid] = rec["created_at"]
        if fresh:
            if own:   # who said it (a later piece reads its memory's speaker through head)
                self.speaker[nid] = self.speaker_code(speaker_of(rec))
                self._count_speaker(nid, +1)
            if derived is None:
                derived = text_columns(rec["text"], rec["created_at"])
            mentioned = derived.mentioned
            self.mentioned_start[nid], self.mentioned_end[nid] = (np.inf, -np.inf) if mentioned is None else mentioned
            self.speech_act[nid] = derived.speech_act
            self.standing[nid] = derived.standing
            self._text_key[nid] = key
        self.confidence[nid] = rec["confidence"]
        self.s0[nid] = rec["salience"]
        self.t0[nid] = rec["salience_at"]
        self.ext_ids[nid] = rec["id"]
        archived = rec.get("archived_at") if rec["state"] == MemoryState.ARCHIVED.value else np.inf
        self.archived_at[nid] = -np.inf if archived is None else archived   # archived, time unknown: always
        (self.recorded_at[nid], self.retired_at[nid], self.valid_from[nid],
         self.valid_to[nid], self.known_valid_to[nid]) = column_values(rec)
        newest = self._newest_valid.get(ns_code)
        if newest is not None and self.valid_from[nid] > newest:
            self._newest_valid[ns_code] = float(self.valid_from[nid])
        if self.censor is not None:
            self.censor.on_record(nid, rec)

    def _set_speakers(self, names: list[str]) -> None:
        """Install the speaker table (``names[0]`` is ""); per-namespace counts start unknown."""
        self.speaker_names = names
        self._speaker_codes = {name: i for i, name in enumerate(names) if i}
        self._speaker_counts: dict[int, list[int]] = {}   # namespace code -> live memories per speaker
        self._speaker_words: dict[int, tuple] = {}       # namespace code -> speaker_words()

    def speaker_code(self, name: str | None) -> int:
        """The code of speaker ``name`` (0 for None), added to the table when new."""
        if name is None:
            return 0
        code = self._speaker_codes.get(name)
        if code is None:
            code = self._speaker_codes[name] = len(self.speaker_names)
            self.speaker_names.append(name)
        return code

    def _count_speaker(self, nid: int, step: int) -> None:
        """Add ``step`` to the count of ``nid``'s speaker in its namespace, when ``nid`` is a live
        memory with a speaker and that namespace's counts are kept; a speaker gained or lost
        drops the namespace's word map."""
        code = int(self.speaker[nid])
        if code == 0 or not self.alive[nid]:
            return
        ns = int(self.ns[nid])
        counts = self._speaker_counts.get(ns)
        if counts is None:
            return
        if code >= len(counts):
            counts.extend([0] * (code + 1 - len(counts)))
        before = counts[code]
        counts[code] = before + step
        if (before == 0) != (counts[code] == 0):
            self._speaker_words.pop(ns, None)

    def speaker_words(self, ns_code: int) -> tuple[dict[str, frozenset], int | None, int | None]:
        """What a question of namespace ``ns_code`` names speakers by
        (:func:`engramdb.speakers.named_speaker`): word -> codes of the namespace's speakers with
        a live memory (:func:`engramdb.speakers.speaker_keys`), and the codes of its ``user`` and
        ``assistant`` speakers (None when it has none). Counted on first use (one pass over the
        columns), then kept in step by every change."""
        got = self._speaker_words.get(ns_code)
        if got is not None:
            return got
        counts = self._speaker_counts.get(ns_code)
        if counts is None:
            n = self.n
            own = (self.ns[:n] == ns_code) & self.alive[:n] & (self.head[:n] == np.arange(n, dtype=np.int32))
            counts = self._speaker_counts[ns_code] = np.bincount(
                self.speaker[:n][own], minlength=len(self.speaker_names)).tolist()
        words: dict[str, set] = {}
        for code, count in enumerate(counts):
            if code and count > 0:
                for word in speaker_keys(self.speaker_names[code]):
                    words.setdefault(word, set()).add(code)
        live = {self.speaker_names[c] for c, k in enumerate(counts) if c and k > 0}
        got = ({w: frozenset(c) for w, c in words.items()},
               self._speaker_codes.get("user") if "user" in live else None,
               self._speaker_codes.get("assistant") if "assistant" in live else None)
        self._speaker_words[ns_code] = got
        return got

    def kill(self, nid: int) -> None:
        """Mark an erased nid."""
        self.ensure(nid + 1)
        if self.state[nid] == _ARCHIVED:
            self.archived_version += 1
        self._count_speaker(nid, -1)
        self.speaker[nid] = 0
        self._text_key[nid] = 0
        self.alive[nid] = False
        self.ext_ids[nid] = None
        self.blocked[nid] = False

    def any_archived(self) -> bool:
        """Whether a live memory is archived (computed once per :attr:`archived_version`)."""
        version, answer = self._any_archived
        if version != self.archived_version:
            n = self.n
            answer = bool(np.any((self.state[:n] == _ARCHIVED) & self.alive[:n]))
            self._any_archived = (self.archived_version, answer)
        return answer

    def newest_valid(self, code: int) -> float:
        """The newest valid start (Unix seconds) of namespace ``code``'s memories, or an upper
        bound of it: -inf for an empty namespace. Computed over the columns on first use, then
        raised by each record set (a memory removed or moved to an earlier time leaves it as it
        was). The write path reads it to know whether a new memory is the namespace's newest."""
        newest = self._newest_valid.get(code)
        if newest is None:
            n = self.n
            mask = self.in_namespace(code)
            newest = float(self.valid_from[:n][mask].max()) if mask.any() else -np.inf
            self._newest_valid[code] = newest
        return newest

    def in_namespace(self, code: int) -> np.ndarray:
        """Bool mask (shape (n,)) of the live nids of namespace ``code``."""
        n = self.n
        return (self.ns[:n] == code) & self.alive[:n]

    def upgrade_text_columns(self, rules: int, records) -> None:
        """Bring the text-derived columns of a snapshot saved under text rules ``rules`` (int, 1
        to :data:`TEXT_RULES` - 1; the caller checks it) up to date: each step of
        :data:`TEXT_RULE_STEPS` from ``rules`` on, over ``records`` (an iterable of (nid,
        record), every record of the store)."""
        steps = [TEXT_RULE_STEPS[r] for r in range(rules, TEXT_RULES)]
        self.ensure(self.n)
        for nid, rec in records:
            if nid < self.n and self.alive[nid]:
                for step in steps:
                    step(rec["text"], rec["created_at"], self, nid)

    def snapshot(self, ns_names: list[str]) -> dict[str, np.ndarray]:
        """The columns as arrays for LMDB: one array per field, ids NUL-joined, namespace names."""
        out = {name: getattr(self, name)[: self.n] for name in self.FIELDS}
        out["ext_ids"] = np.frombuffer("\x00".join(x or "" for x in self.ext_ids).encode(), np.uint8)
        out["ns_names"] = np.frombuffer("\x00".join(ns_names).encode(), np.uint8)
        # the speakers of live memories only, renumbered: an erased memory's speaker leaves no name
        n = self.n
        used = np.unique(self.speaker[:n][self.alive[:n]])
        used = used[used > 0]
        renumber = np.zeros(len(self.speaker_names), np.int32)
        renumber[used] = np.arange(1, len(used) + 1, dtype=np.int32)
        out["speaker"] = np.where(self.alive[:n], renumber[self.speaker[:n]], 0).astype(np.int32)
        out["speaker_names"] = np.frombuffer(
            "\x00".join([""] + [self.speaker_names[i] for i in used.tolist()]).encode(), np.uint8)
        return out

    @classmethod
    def snapshot_dtypes(cls) -> dict[str, Any]:
        return {**cls.FIELDS, "ext_ids": np.uint8, "ns_names": np.uint8, "speaker_names": np.uint8}

    def load_snapshot(self, arrays: dict[str, np.ndarray]) -> list[str]:
        """Install columns saved by :meth:`snapshot`; returns the namespace names by code.

        The arrays are installed as they are, without a copy (they may be read-only views of
        the loaded snapshot): :meth:`ensure`, which every write of a column calls first, copies
        them into owned arrays.

        Raises
        ------
        StoreCorruptedError
            The ids do not match the arrays.
        """
        n = len(arrays["ns"])
        for name, dtype in self.FIELDS.items():
            setattr(self, name, np.asarray(arrays[name], dtype))
        self.blocked = np.zeros(n, np.bool_)
        self._text_key = np.zeros(n, np.int64)
        self._newest_valid = {}
        self.n = n
        self.archived_version += 1
        ids = arrays["ext_ids"]   # a view of the bytes read from LMDB (load_arrays(copy=False)): no copy
        whole = type(ids.base) is bytes and len(ids.base) == ids.nbytes
        self.ext_ids = IdColumn.from_snapshot(ids.base if whole else ids.tobytes(), self.alive[:n])
        self._set_speakers(arrays["speaker_names"].tobytes().decode().split("\x00"))
        raw = arrays["ns_names"].tobytes().decode()
        return raw.split("\x00") if raw else []
