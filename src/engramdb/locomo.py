"""Loader for the LoCoMo long-conversation memory benchmark (``locomo10.json``).

LoCoMo holds 10 conversations between two speakers, each over up to 35 dated sessions, with
1,986 questions whose evidence is given as dialog ids ``"D<session>:<turn>"``. The file is
licensed CC BY-NC 4.0, so engramdb never ships it: benchmarks read it at run time from
``../shared/data/locomo/locomo10.json`` beside the repository, or from ``$ENGRAMDB_LOCOMO``
(see :func:`default_locomo_path`).

References
----------
Maharana et al. (2024), "Evaluating Very Long-Term Conversational Memory of LLM Agents",
ACL, §3 (data) and §4.1 (question answering task).
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from engramdb.errors import InvalidInputError

__all__ = [
    "CATEGORY_NAMES",
    "Turn",
    "Session",
    "QAItem",
    "Conversation",
    "load_locomo",
    "normalize_evidence",
    "parse_session_time",
    "default_locomo_path",
]

#: Question categories by the ids used in the JSON. They do not follow the paper's list
#: order; this mapping follows the official evaluation code and the questions themselves.
CATEGORY_NAMES: dict[int, str] = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}

_MONTHS = {
    m: i
    for i, m in enumerate(
        ["january", "february", "march", "april", "may", "june", "july", "august",
         "september", "october", "november", "december"],
        start=1,
    )
}
_DATE_RE = re.compile(
    r"^\s*(\d{1,2}):(\d{2})\s*([ap])\.?\s*m\.?\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})\s*$",
    re.IGNORECASE,
)
# A dialog id, tolerating a stray colon after the "D" ('D:11:26') and leading zeros.
_ID_RE = re.compile(r"D:?(\d+):(\d+)")


@dataclass(slots=True)
class Turn:
    """One utterance of a conversation.

    Attributes
    ----------
    dia_id : str
        ``"D<session>:<index>"``, as cited by QA evidence.
    session : int
        Session number, from 1.
    index : int
        Position in the session, from 1 (the number after the colon in ``dia_id``).
    speaker : str
    text : str
        The raw utterance.
    created_at : float
        Unix seconds (UTC): the session's time plus ``index`` seconds, so that turns sort
        in conversation order.
    blip_caption : str or None
        BLIP caption of the image the turn shares (it has an ``img_url``), else None; the
        image itself is not released.
    """

    dia_id: str
    session: int
    index: int
    speaker: str
    text: str
    created_at: float
    blip_caption: str | None = None


@dataclass(slots=True)
class Session:
    """A dated session of a conversation (sessions without turns are not kept).

    Attributes
    ----------
    number : int
        ``N`` of ``session_N``.
    created_at : float
        Unix seconds (UTC) of ``date_text``, read as UTC (the data carries no time zone).
    date_text : str
        The raw ``session_N_date_time`` string, e.g. ``"1:56 pm on 8 May, 2023"``.
    turns : list of Turn
    """

    number: int
    created_at: float
    date_text: str
    turns: list[Turn] = field(default_factory=list)


@dataclass(slots=True)
class QAItem:
    """A benchmark question.

    Attributes
    ----------
    question : str
    answer : str or None
        Gold answer as text (numbers in the JSON become strings); None for adversarial items
        that only carry ``adversarial_answer`` (the question has no answer in the dialog).
    evidence : list of str
        Normalised dialog ids of the turns that hold the answer (see
        :func:`normalize_evidence`); may be empty.
    category : int
        Key of :data:`CATEGORY_NAMES`.
    """

    question: str
    answer: str | None
    evidence: list[str]
    category: int


@dataclass(slots=True)
class Conversation:
    """One LoCoMo sample: two speakers, their sessions and the questions about them.

    Attributes
    ----------
    sample_id : str
        e.g. ``"conv-26"``.
    speakers : tuple of (str, str)
        ``speaker_a``, ``speaker_b``.
    sessions : list of Session
        In session-number order, only those with turns.
    qa : list of QAItem
    """

    sample_id: str
    speakers: tuple[str, str]
    sessions: list[Session]
    qa: list[QAItem]

    def turns(self) -> list[Turn]:
        """All turns, in session and turn order."""
        return [t for s in self.sessions for t in s.turns]


def parse_session_time(text: str) -> float:
    """Parse a LoCoMo session time such as ``"1:56 pm on 8 May, 2023"``.

    Parameters
    ----------
    text : str
        ``"<h>:<mm> am|pm on <day> <Month>, <year>"``; case and the comma are optional.

    Returns
    -------
    float
        Unix seconds, reading the time as UTC (the data has no time zone).

    Raises
    ------
    InvalidInputError
        The string does not have that form or names an impossible date or time.

    Notes
    -----
    Parsed with a regular expression and English month names rather than
    ``datetime.strptime("%B")``, whose month names follow the process locale.
    """
    m = _DATE_RE.match(text) if isinstance(text, str) else None
    month = _MONTHS.get(m.group(5).lower()) if m else None
    if m is None or month is None:
        raise InvalidInputError(
            f"session date: expected like '1:56 pm on 8 May, 2023', got {text!r}"
        )
    hour12, minute, ampm, day, year = int(m[1]), int(m[2]), m[3].lower(), int(m[4]), int(m[6])
    if not 1 <= hour12 <= 12:
        raise InvalidInputError(f"session date: hour must be 1-12 on a 12-hour clock, got {text!r}")
    hour = hour12 % 12 + (12 if ampm == "p" else 0)
    try:
        dt = datetime(year, month, day, hour, minute, tzinfo=timezone.utc)
    except ValueError as exc:
        raise InvalidInputError(f"session date: {exc} in {text!r}") from None
    return dt.timestamp()


def normalize_evidence(raw: list[str], valid_ids: set[str]) -> list[str]:
    """Clean a QA item's evidence list into dialog ids that exist.

    Handles the quirks of ``locomo10.json``: several ids in one string separated by ``;``,
    ``,`` or spaces (``'D8:6; D9:17'``, ``'D9:1 D4:4 D4:6'``), a stray colon
    (``'D:11:26'`` -> ``'D11:26'``), leading zeros (``'D30:05'`` -> ``'D30:5'``), and strings
    with no id at all (``'D'``), which are dropped.

    Parameters
    ----------
    raw : list of str
        The item's ``evidence`` field. Non-string entries are ignored.
    valid_ids : set of str
        ``dia_id`` of every turn of the conversation.

    Returns
    -------
    list of str
        Ids ``"D<s>:<t>"`` without leading zeros, in first-seen order, without duplicates,
        each in ``valid_ids`` (ids that point at no turn are dropped).
    """
    out: list[str] = []
    seen: set[str] = set()
    for entry in raw or ():
        if not isinstance(entry, str):
            continue
        for s, t in _ID_RE.findall(entry):
            did = f"D{int(s)}:{int(t)}"
            if did in valid_ids and did not in seen:
                seen.add(did)
                out.append(did)
    return out


def default_locomo_path() -> Path:
    """Where the LoCoMo file is expected.

    Returns
    -------
    pathlib.Path
        ``$ENGRAMDB_LOCOMO`` if set, else ``<repo>/../shared/data/locomo/locomo10.json``,
        where ``<repo>`` is the checkout holding ``src/engramdb``. The file may not exist.
    """
    env = os.environ.get("ENGRAMDB_LOCOMO")
    if env:
        return Path(env)
    repo = Path(__file__).resolve().parents[2]
    return repo.parent / "shared" / "data" / "locomo" / "locomo10.json"


def _session_numbers(conv: dict) -> list[int]:
    nums = set()
    for key in conv:
        m = re.fullmatch(r"session_(\d+)", key)
        if m:
            nums.add(int(m.group(1)))
    return sorted(nums)


def _parse_sample(sample: dict) -> Conversation:
    try:
        sample_id = str(sample["sample_id"])
        conv = sample["conversation"]
        speakers = (str(conv["speaker_a"]), str(conv["speaker_b"]))
    except (KeyError, TypeError) as exc:
        raise InvalidInputError(f"LoCoMo sample: missing field {exc}") from None
    sessions: list[Session] = []
    for n in _session_numbers(conv):
        raw_turns = conv.get(f"session_{n}") or []
        if not raw_turns:
            continue
        date_text = conv.get(f"session_{n}_date_time")
        if date_text is None:
            raise InvalidInputError(f"{sample_id}: session_{n} has turns but no session_{n}_date_time")
        t0 = parse_session_time(date_text)
        turns = []
        for pos, rt in enumerate(raw_turns, start=1):
            did = str(rt.get("dia_id", f"D{n}:{pos}"))
            m = _ID_RE.fullmatch(did)
            index = int(m.group(2)) if m else pos
            # 316 turns carry a caption but no img_url: no image is shared there, so the
            # caption is not kept (910 turns share one).
            caption = rt.get("blip_caption") if rt.get("img_url") else None
            turns.append(
                Turn(
                    dia_id=did,
                    session=n,
                    index=index,
                    speaker=str(rt.get("speaker", "")),
                    text=str(rt.get("text", "")),
                    created_at=t0 + float(pos),
                    blip_caption=str(caption) if caption else None,
                )
            )
        sessions.append(Session(number=n, created_at=t0, date_text=date_text, turns=turns))
    valid = {t.dia_id for s in sessions for t in s.turns}
    qa = []
    for item in sample.get("qa", []):
        answer = item.get("answer")
        qa.append(
            QAItem(
                question=str(item["question"]),
                answer=None if answer is None else str(answer),
                evidence=normalize_evidence(item.get("evidence") or [], valid),
                category=int(item["category"]),
            )
        )
    return Conversation(sample_id=sample_id, speakers=speakers, sessions=sessions, qa=qa)


def load_locomo(path: str | os.PathLike | None = None) -> list[Conversation]:
    """Read ``locomo10.json`` into :class:`Conversation` objects.

    Parameters
    ----------
    path : str or path-like or None, default None
        The JSON file; None means :func:`default_locomo_path`.

    Returns
    -------
    list of Conversation
        In file order. Sessions without turns are skipped; each turn's ``created_at`` is its
        session's time (UTC) plus its 1-based position in seconds; evidence is normalised
        with :func:`normalize_evidence`.

    Raises
    ------
    FileNotFoundError
        The file does not exist.
    InvalidInputError
        The file is not LoCoMo-shaped JSON, or a session date cannot be parsed.
    """
    p = Path(path) if path is not None else default_locomo_path()
    with p.open("r", encoding="utf-8") as fh:
        try:
            data = json.load(fh)
        except json.JSONDecodeError as exc:
            raise InvalidInputError(f"{p.name}: not valid JSON ({exc})") from None
        except (UnicodeDecodeError, RecursionError) as exc:
            raise InvalidInputError(f"{p.name}: not UTF-8 JSON ({type(exc).__name__})") from None
    if not isinstance(data, list):
        raise InvalidInputError(f"{p.name}: expected a JSON list of samples, got {type(data).__name__}")
    return [_parse_sample(s) for s in data]
