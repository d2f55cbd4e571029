"""What conflict detection knows of a stored memory's subject without reading its record.

The write path compares each new statement with its near neighbours when the two have the same
subject, or one subject is a prefix of the other (:func:`engramdb.facts.conflict_many`); for a
stored neighbour that meant one LMDB read, a msgpack decode and a subject analysis (at 100k
memories, some 300,000 reads per 100,000 new memories, nearly all of them for pairs whose
subjects differ). :class:`SubjectHints` keeps, per nid, three numbers about the subject of the
text the memory was written with: its length, the hash of the whole subject and the hash of its
first word. Two subjects can match only if their hashes are equal, or their lengths differ, both
are non-empty and their first words' hashes are equal; a pair the hints rule out is dropped
without reading the record, every other pair is read and judged exactly as before. A hash
collision only costs a read, never drops a pair.

A second hint per nid says whether the text is a change report
(:func:`engramdb.changes.change_report`): a new statement that gives a value is compared with
its neighbours that report a change (a report stored before the older statement it changed),
and a neighbour known to report none is not read.

A hint holds while the memory's text does: it is set after the commit that inserts the memory
(with the subjects and reports the write path computed) and
dropped after the commit of any change of the text (:meth:`WriteUnit.reindex_text`) or erasure.
A nid without a hint (a memory from before this process opened the store, a text that is not a
statement) is read as before. Hashes are Python's (salted per process), never persisted.
"""
from __future__ import annotations

import numpy as np

__all__ = ["SubjectHints", "subject_code"]

#: length of a nid without a hint
UNKNOWN = -1


def subject_code(subject: tuple[str, ...]) -> tuple[int, int, int]:
    """(length, hash of the whole subject, hash of its first word; 0 for an empty subject), of
    :func:`engramdb.facts.subject_key` of it (a "user" chat label before "I" left out)."""
    from ..facts import subject_key

    subject = subject_key(subject)
    return len(subject), hash(subject), hash(subject[0]) if subject else 0


class SubjectHints:
    """Per-nid subject hints (see the module docstring): three int64 columns, grown on demand."""

    __slots__ = ("length", "whole", "first", "report")

    def __init__(self) -> None:
        self.length = np.full(0, UNKNOWN, np.int64)
        self.whole = np.zeros(0, np.int64)
        self.first = np.zeros(0, np.int64)
        self.report = np.full(0, UNKNOWN, np.int64)   # 1: a change report, 0: none, UNKNOWN

    def _grow(self, n: int) -> None:
        if n > len(self.length):
            cap = max(n, 2 * len(self.length), 1024)
            for name, fill in (("length", UNKNOWN), ("whole", 0), ("first", 0), ("report", UNKNOWN)):
                old = getattr(self, name)
                new = np.full(cap, fill, np.int64)
                new[: len(old)] = old
                setattr(self, name, new)

    def set_many(self, nids: list[int], codes: list[tuple[int, int, int]]) -> None:
        """Hints of ``nids`` from their :func:`subject_code` values (after a commit)."""
        if not nids:
            return
        self._grow(max(nids) + 1)
        a = np.asarray(codes, np.int64).reshape(-1, 3)
        at = np.asarray(nids, np.int64)
        self.length[at], self.whole[at], self.first[at] = a[:, 0], a[:, 1], a[:, 2]

    def set_reports(self, nids: list[int], reports: list[bool]) -> None:
        """Whether each of ``nids`` is a change report (:func:`engramdb.changes.change_report`
        of its text; after a commit)."""
        if not nids:
            return
        self._grow(max(nids) + 1)
        self.report[np.asarray(nids, np.int64)] = np.asarray(reports, bool)

    def forget(self, nid: int) -> None:
        """Drop the hints of ``nid`` (its text changed or it was erased; after the commit)."""
        if nid < len(self.length):
            self.length[nid] = self.report[nid] = UNKNOWN

    def no_report(self, labels: np.ndarray) -> np.ndarray:
        """Stored nids known not to be change reports: bool, shape (n,) of ``labels`` (int64,
        shape (n,), >= 0)."""
        known = labels < len(self.report)
        return known & (self.report[np.where(known, labels, 0)] == 0) if len(self.report) else np.zeros(len(labels), bool)

    def ruled_out(self, labels: np.ndarray, length: np.ndarray, whole: np.ndarray,
                  first: np.ndarray) -> np.ndarray:
        """Pairs whose subjects provably cannot match: bool, shape (n,).

        Parameters
        ----------
        labels : ndarray of int64, shape (n,)
            Stored nids (>= 0).
        length, whole, first : ndarray of int64, shape (n,)
            :func:`subject_code` of the other statement of each pair.
        """
        known = labels < len(self.length)
        at = np.where(known, labels, 0)
        ln = np.where(known, self.length[at] if len(self.length) else UNKNOWN, UNKNOWN)
        wh, fi = (self.whole[at], self.first[at]) if len(self.length) else (np.zeros_like(at), np.zeros_like(at))
        maybe = (wh == whole) | ((ln != length) & (ln > 0) & (length > 0) & (fi == first))
        return (ln != UNKNOWN) & ~maybe
