"""Where a long text is cut into pieces: at sentence boundaries, with whole code blocks and
list items, consecutive pieces overlapping by whole sentences.

A text longer than ``StoreConfig.chunk_chars`` is stored as pieces, each embedded and indexed
on its own (:mod:`engramdb.batch_plan`). Where the cuts fall decides what a piece can answer:
a cut inside a sentence leaves half a fact in each piece, and neither half is found.

Units
    The text is first divided into units that tile it (every character in exactly one unit):
    a fenced code block (```` ``` ```` or ``~~~``, fence lines included) when it fits in a
    piece, else each of its lines; a list item (``-``, ``*``, ``+``, ``•`` or ``1.`` / ``1)``
    and the indented lines that continue it) when it fits, else its sentences; otherwise each
    sentence of each line (:func:`engramdb.sentences.sentence_starts`: sentencex within a
    line, a line break always ends one). Blank lines stay with the unit before them. A unit
    still longer than a piece (a sentence of 5,000 characters, a line of minified code) is cut
    at its last whitespace before ``0.9 x chunk_chars`` (at the limit when it has none), the
    one place a cut can fall inside a sentence.

Packing
    Units are packed greedily: a piece takes units while it stays within ``chunk_chars``. A
    piece that would add only whitespace (a long run of blank lines) joins the piece before,
    which is then longer: nothing is stored that has no text to embed.

Overlap (``StoreConfig.chunk_overlap``, sentences)
    Each piece after the first starts with the last ``chunk_overlap`` units of the piece
    before, so a fact that spans a boundary is whole in one piece. At most a third of a piece
    is overlap: the overlap takes fewer units when they are longer than that, and when not even
    the last unit fits (a long sentence cut as above) it is the last ``chunk_chars // 10``
    characters, from a whitespace on (the older character overlap), so a fact shorter than
    that still lies whole in one piece. Each piece records the number of characters it repeats
    (``overlap_chars``; :attr:`engramdb.Memory.overlap_chars`): ``piece.text[overlap_chars:]``
    is what it adds, and the pieces join back to the text exactly.

Cap (``StoreConfig.max_pieces``)
    A text that would make more than ``max_pieces`` pieces is cut again with a larger piece
    size (grown until the text fits, then narrowed to within 5 % of the smallest size that
    fits), so the pieces stay even and cut at sentences; they are then longer than ``chunk_chars`` (an embedder with a
    shorter input window sees the start of each). Putting the remainder in the last piece
    instead would leave most of a very long text in one vector.
"""
from __future__ import annotations

import re
import unicodedata

from .sentences import sentence_starts

__all__ = ["cut_pieces", "Piece"]

_FENCE = re.compile(r"^\s*(```|~~~)")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")
#: The largest share of a piece that its overlap with the piece before may take.
OVERLAP_SHARE = 3

Piece = tuple[str, int]   # (text, characters at its start that repeat the piece before)


def cut_pieces(text: str, chunk_chars: int, *, overlap: int = 2, max_pieces: int | None = None) -> list[Piece]:
    """Cut ``text`` into pieces of at most ``chunk_chars`` characters (see the module docstring).

    Parameters
    ----------
    text : str
    chunk_chars : int
        Longest piece, characters, >= 16 (longer only past ``max_pieces``).
    overlap : int
        Units (sentences, list items, code blocks) each piece repeats from the piece before,
        >= 0; at most a third of ``chunk_chars`` of them.
    max_pieces : int, optional
        Most pieces, >= 1; past it the piece size grows until the text fits.

    Returns
    -------
    list of (str, int)
        Each piece's text and the number of characters at its start that repeat the piece
        before (0 for the first). ``[(text, 0)]`` when the text fits in one piece. The first
        piece plus ``p[k:]`` of each later one is ``text``.
    """
    n = len(text)
    if n <= chunk_chars:
        return [(text, 0)]
    starts = _SentenceCache(text)

    def pack(limit: int) -> list[tuple[int, int]]:
        return _pack(text, _units(text, limit, starts), limit, overlap)

    spans = pack(chunk_chars)
    if max_pieces is not None and len(spans) > max_pieces:
        lo, hi = chunk_chars, chunk_chars
        while len(spans) > max_pieces:   # grow until the text fits ...
            lo, hi = hi, max(hi + 1, -(-hi * len(spans) // max_pieces))
            spans = pack(hi)
        best = spans
        for _ in range(6):   # ... then the smallest size that fits, to within 5 %
            if hi - lo <= max(1, hi // 20):
                break
            mid = (lo + hi) // 2
            spans = pack(mid)
            if len(spans) <= max_pieces:
                hi, best = mid, spans
            else:
                lo = mid
        spans = best
    kept: list[tuple[int, int]] = []
    for a, b in spans:   # a piece that adds only whitespace (a run of blanks) joins the one before
        if kept and not text[kept[-1][1]:b].strip():
            kept[-1] = (kept[-1][0], b)
        else:
            kept.append((a, b))
    out: list[Piece] = []
    prev_end = 0
    for a, b in kept:
        out.append((text[a:b], max(0, prev_end - a)))
        prev_end = b
    return out


class _SentenceCache:
    """Sentence starts of each line of one text, computed once (a repacked text reuses them)."""

    def __init__(self, text: str) -> None:
        self.text, self.memo = text, {}

    def __call__(self, s: int, e: int) -> list[int]:
        key = (s, e)
        if key not in self.memo:
            self.memo[key] = [s + k for k in sentence_starts(self.text[s:e])]
        return self.memo[key]


def _lines(text: str) -> list[tuple[int, int]]:
    """(start, end) of each line, its line break included."""
    out, pos = [], 0
    for line in text.splitlines(keepends=True):
        out.append((pos, pos + len(line)))
        pos += len(line)
    return out


def _units(text: str, limit: int, starts: _SentenceCache) -> list[tuple[int, int]]:
    """Units (start, end) tiling ``text``, none longer than ``limit - limit // 10`` unless it
    fits whole in a piece (see the module docstring)."""
    lines = _lines(text)
    cuts = [0]
    i = 0
    while i < len(lines):
        s, e = lines[i]
        line = text[s:e]
        if not line.strip():
            i += 1
            continue
        if _FENCE.match(line):
            j = i + 1
            while j < len(lines) and not _FENCE.match(text[lines[j][0]:lines[j][1]]):
                j += 1
            j = min(j, len(lines) - 1)
            if lines[j][1] - s <= limit:
                cuts.append(s)
            else:
                cuts.extend(ls for ls, _ in lines[i:j + 1])
            i = j + 1
            continue
        if _LIST_ITEM.match(line):
            j = i + 1
            while j < len(lines):
                nxt = text[lines[j][0]:lines[j][1]]
                if not nxt.strip() or not nxt[0].isspace() or _LIST_ITEM.match(nxt) or _FENCE.match(nxt):
                    break
                j += 1
            if lines[j - 1][1] - s <= limit:
                cuts.append(s)
                i = j
                continue
        cuts.append(s)
        cuts.extend(starts(s, e))
        i += 1
    cuts.append(len(text))
    cuts = sorted(set(cuts))
    units: list[tuple[int, int]] = []
    hard = limit - limit // 10
    for a, b in zip(cuts, cuts[1:]):
        if b - a <= limit:
            units.append((a, b))
            continue
        while b - a > hard:   # one unit longer than a piece: cut at whitespace
            end = a + hard
            cut = max(text.rfind(" ", a + hard // 2, end), text.rfind("\n", a + hard // 2, end))
            end = cut + 1 if cut > a else _grapheme_start(text, end, a + hard // 2)
            units.append((a, end))
            a = end
        units.append((a, b))
    return units


def _joins_previous(text: str, i: int) -> bool:
    """Whether the character at ``i`` continues the user-perceived character before it: a
    combining mark, a zero-width joiner or what follows one, a variation selector, an emoji
    modifier, or a Hangul vowel or final consonant (jamo)."""
    ch, o = text[i], ord(text[i])
    return (unicodedata.category(ch) in ("Mn", "Mc", "Me") or ch == "\u200d" or text[i - 1] == "\u200d"
            or 0xFE00 <= o <= 0xFE0F or 0x1F3FB <= o <= 0x1F3FF or 0xE0020 <= o <= 0xE007F
            or 0x1160 <= o <= 0x11FF)


def _grapheme_start(text: str, end: int, floor: int) -> int:
    """``end`` moved back to where a user-perceived character starts (a hard cut of a long
    word never splits an emoji sequence or a syllable), but not below ``floor``."""
    i = end
    while i > floor and i < len(text) and _joins_previous(text, i):
        i -= 1
    return i if i > floor else end


def _pack(text: str, units: list[tuple[int, int]], limit: int, overlap: int) -> list[tuple[int, int]]:
    """Pieces (start, end) of greedily packed units, each after the first starting with the
    overlap it repeats (see the module docstring)."""
    spans: list[tuple[int, int]] = []
    budget = limit // OVERLAP_SHARE
    a, k, m = 0, 0, len(units)
    while k < m:
        b = units[k][1]
        k += 1
        while k < m and units[k][1] - a <= limit:
            b = units[k][1]
            k += 1
        spans.append((a, b))
        if k >= m:
            break
        nxt_end = units[k][1]
        start = b
        for t in range(1, overlap + 1):   # the last units of this piece, as many as fit
            u = k - t
            if u < 0:
                break
            cand = units[u][0]
            if cand <= a or b - cand > budget or nxt_end - cand > limit:
                break
            start = cand
        if start == b and overlap > 0:   # not even one unit fits: the last characters
            cand = b - limit // 10
            ws = text.find(" ", cand, b)
            cand = ws + 1 if ws >= 0 else _grapheme_start(text, cand, a)
            if a < cand < b and nxt_end - cand <= limit:
                start = cand
        a = start
    return spans
